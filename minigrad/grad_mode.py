"""Switching gradient recording off and on: ``no_grad`` and friends (chapter 09).

While recording is off, an op computes its value but builds no graph: its result has
``requires_grad=False`` and no ``grad_fn``, and nothing is saved for a backward pass.
Each switch works as a context manager and as a decorator (``no_grad``, ``enable_grad``
and ``inference_mode`` with or without parentheses, ``set_grad_enabled`` with its
bool), and they nest as torch's do: the innermost one wins, and leaving it
restores whatever was in force before.

``inference_mode`` is ``no_grad`` here: torch also marks the tensors it makes as
inference tensors, which minigrad does not.
"""

import functools

__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled",
           "is_grad_enabled", "GRAD_ENABLED"]

# One flag, read by every op: GRAD_ENABLED[0]. A list so that modules that import it
# see changes without a function call.
GRAD_ENABLED = [True]


def is_grad_enabled():
    """True while ops record the graph (the default)."""
    return GRAD_ENABLED[0]


class _GradMode:
    """Context manager and decorator that sets recording to ``self.mode`` while active."""

    mode = True

    def __new__(cls, *args, **kwargs):
        # ``@no_grad`` without parentheses: the function arrives as the only argument.
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._previous = GRAD_ENABLED[0]
        GRAD_ENABLED[0] = self.mode

    def __exit__(self, *exc):
        GRAD_ENABLED[0] = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def clone(self):
        return type(self)()

    def __repr__(self):
        return f"minigrad.{type(self).__name__}()"


class no_grad(_GradMode):  # noqa: N801 - torch's name
    """Record nothing inside: results do not require grad and have no ``grad_fn``."""

    mode = False


class enable_grad(_GradMode):  # noqa: N801 - torch's name
    """Record again inside, even within ``no_grad``."""

    mode = True


class inference_mode(_GradMode):  # noqa: N801 - torch's name
    """``inference_mode()`` is ``no_grad()``; ``inference_mode(False)`` changes nothing."""

    def __init__(self, mode=True):
        self.enabled = mode

    def __enter__(self):
        self._previous = GRAD_ENABLED[0]
        if self.enabled:
            GRAD_ENABLED[0] = False

    def clone(self):
        return type(self)(self.enabled)


class set_grad_enabled(_GradMode):  # noqa: N801 - torch's name
    """Set recording on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):  # torch refuses 1, None and a bare @decorator
            raise TypeError(
                f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}. Fix: pass True or False, as "
                "@set_grad_enabled(False) or with set_grad_enabled(is_training):")
        self._previous = GRAD_ENABLED[0]
        self.mode = mode
        GRAD_ENABLED[0] = self.mode

    def __enter__(self):
        GRAD_ENABLED[0] = self.mode

    def clone(self):
        return type(self)(self.mode)

    def __call__(self, func):
        # Used as a decorator, the switch must not stay set after the decoration.
        GRAD_ENABLED[0] = self._previous
        return super().__call__(func)
