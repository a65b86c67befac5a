"""Switching gradient recording off and on: ``no_grad`` and friends (chapter 09).

While recording is off, an op computes its value but builds no graph: its result has
``requires_grad=False`` and no ``grad_fn``, and nothing is saved for a backward pass.
Each switch works as a context manager and as a decorator (``no_grad``, ``enable_grad``
and ``inference_mode`` with or without parentheses, ``set_grad_enabled`` with its
bool; a decorated generator runs each of its steps under the switch, as in torch).
Among ``no_grad``, ``enable_grad`` and ``set_grad_enabled`` the innermost one wins, and
leaving it restores whatever was in force before. ``inference_mode()`` is not overruled
that way: inside it a nested ``enable_grad()`` makes ``is_grad_enabled()`` True, yet
ops still record nothing, as in torch (``GRAD_ENABLED.enabled`` is grad mode on *and*
inference mode off).

The mode belongs to the thread, as in torch: ``no_grad()`` in one thread does not stop
another from recording.

As torch, the tensors made inside ``inference_mode()`` are *inference tensors*
(``t.is_inference()``): such a tensor ``p`` may enter a later recorded computation that
saves nothing of it (``p + w``), but may not be saved for backward (``p * w``:
"Inference tensors cannot be saved for backward") nor changed in place outside
inference mode ("Inplace update to inference tensor outside InferenceMode is not
allowed"); ``p.clone()`` outside it is a normal tensor.
"""

import functools
import inspect
import threading

__all__ = ["no_grad", "enable_grad", "inference_mode", "set_grad_enabled",
           "is_grad_enabled", "is_inference_mode_enabled", "GRAD_ENABLED"]


class _Mode(threading.local):
    """The flags of one thread. ``GRAD_ENABLED.enabled`` is what every op reads when it
    decides whether to record a node: grad mode on and inference mode off.
    ``GRAD_ENABLED[0]`` reads it too (the old spelling)."""

    grad = True  # is_grad_enabled()
    inference = False  # inside inference_mode()
    enabled = True  # grad and not inference: do ops record?

    def set(self, grad, inference):
        self.grad = grad
        self.inference = inference
        self.enabled = grad and not inference

    def __getitem__(self, index):
        return self.enabled


GRAD_ENABLED = _Mode()


def is_grad_enabled():
    """True while grad mode is on (the default)."""
    return GRAD_ENABLED.grad


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return GRAD_ENABLED.inference


class _GradMode:
    """Context manager and decorator that sets grad mode to ``self.mode`` while active."""

    mode = True

    def __new__(cls, *args, **kwargs):
        # ``@no_grad`` without parentheses: the function arrives as the only argument.
        if cls is not set_grad_enabled and len(args) == 1 and callable(args[0]) and not kwargs:
            return cls()(args[0])
        return super().__new__(cls)

    def __enter__(self):
        self._previous = (GRAD_ENABLED.grad, GRAD_ENABLED.inference)
        GRAD_ENABLED.set(self.mode, GRAD_ENABLED.inference)

    def __exit__(self, *exc):
        GRAD_ENABLED.set(*self._previous)
        return False

    def __call__(self, func):
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, func):
        """Each step of the generator (not only its creation) runs under the switch."""

        @functools.wraps(func)
        def generator(*args, **kwargs):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # thrown in by the caller: pass it on
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator

    def clone(self):
        return type(self)()

    def __repr__(self):
        return f"minigrad.{type(self).__name__}()"


class no_grad(_GradMode):  # noqa: N801 - torch's name
    """Record nothing inside: results do not require grad and have no ``grad_fn``."""

    mode = False


class enable_grad(_GradMode):  # noqa: N801 - torch's name
    """Record again inside, even within ``no_grad`` (not within ``inference_mode``)."""

    mode = True


class inference_mode(_GradMode):  # noqa: N801 - torch's name
    """``inference_mode()`` records nothing, even under a nested ``enable_grad()``;
    ``inference_mode(False)`` turns grad mode on and inference mode off, as torch (it
    records even inside ``no_grad()``). See the module doc for how it differs."""

    def __init__(self, mode=True):
        self.enabled = mode

    def __enter__(self):
        self._previous = (GRAD_ENABLED.grad, GRAD_ENABLED.inference)
        GRAD_ENABLED.set(not self.enabled, self.enabled)  # (False): grad on, as torch

    def clone(self):
        return type(self)(self.enabled)


class set_grad_enabled(_GradMode):  # noqa: N801 - torch's name
    """Set grad mode on or off now; as a context manager, restore it on exit."""

    def __init__(self, mode):
        if not isinstance(mode, bool):  # torch refuses 1, None and a bare @decorator
            raise TypeError(
                f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                f"{type(mode).__name__}. Fix: pass True or False, as "
                "@set_grad_enabled(False) or with set_grad_enabled(is_training):")
        self._previous = (GRAD_ENABLED.grad, GRAD_ENABLED.inference)
        self.mode = mode
        GRAD_ENABLED.set(mode, GRAD_ENABLED.inference)

    def __enter__(self):
        GRAD_ENABLED.set(self.mode, GRAD_ENABLED.inference)

    def clone(self):
        return type(self)(self.mode)

    def __call__(self, func):
        # Used as a decorator, the switch must not stay set after the decoration.
        GRAD_ENABLED.set(*self._previous)
        return super().__call__(func)
