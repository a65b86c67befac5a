r"""How many functorch transforms (``vmap``, ``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``) are running their function now (chapters 15 and 16).

Torch asks ``torch._C._are_functorch_transforms_active()`` before it runs a user's
``autograd.Function``: an old-style one (``forward(ctx, ...)``, no ``setup_context``)
is refused inside a transform. The transforms of :mod:`minigrad.func` and
:mod:`minigrad._functorch` run their function inside :func:`transform`;
:mod:`minigrad.autograd.custom_function` reads :data:`DEPTH`.
"""

import contextlib

__all__ = ["DEPTH", "transform", "SETUP_CONTEXT_REQUIRED"]

DEPTH = [0]

SETUP_CONTEXT_REQUIRED = (
    "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
    "jacrev, ...), it must override the setup_context staticmethod. For more details, "
    "please see https://pytorch.org/docs/main/notes/extending.func.html Fix: write "
    "forward(*args) without ctx and a setup_context(ctx, inputs, output) staticmethod "
    "that saves what backward needs.")


@contextlib.contextmanager
def transform():
    """While active, a functorch transform is running its function."""
    DEPTH[0] += 1
    try:
        yield
    finally:
        DEPTH[0] -= 1
