r"""The in-place random fills ``normal_``, ``uniform_`` and ``random_`` (chapter 09's
weight initialisation; makemore's ``torch.empty(n).normal_(generator=g)``), as torch's:
the numbers come from ``generator=`` (a :class:`minigrad.Generator`) or minigrad's
default generator; a leaf that requires grad is refused while grad mode is on; in a
recorded graph the tensor gets a node whose gradient is zero (``NormalBackward0``,
``UniformBackward0``, ``RandomBackward0/1/2``), the new numbers not depending on the old.
"""

import numpy as np

from minigrad.autograd.function import Function
from minigrad.dtypes import torch_name

__all__ = ["normal_", "uniform_", "random_"]


def _forward(ctx, a, array):
    return np.array(array, dtype=a.dtype, copy=True)


def _backward(ctx, grad_output):
    return np.zeros_like(grad_output), None


def _jvp(ctx, ta, *_):
    return np.zeros_like(ctx.result)


def _named(name):
    """A node class: ``t`` replaced by ``array`` in the graph, a zero gradient to ``t``."""
    return type(name, (Function,), {
        "backward_name": name, "__module__": __name__, "forward": staticmethod(_forward),
        "backward": staticmethod(_backward), "jvp": staticmethod(_jvp)})


_NODES = {n: _named(n) for n in ("NormalBackward0", "UniformBackward0", "RandomBackward0",
                                 "RandomBackward1", "RandomBackward2")}


def _rng(generator, name):
    from minigrad.generators import Generator, rng

    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"{name}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}. Fix: generator=torch.Generator()"
                        ".manual_seed(seed).")
    from minigrad._functorch import batched

    if batched.LEVELS:
        from minigrad._functorch.vmap import RANDOM_ERROR

        if any(i.randomness == "error" for i in batched.LEVELS.values()):
            raise RuntimeError(RANDOM_ERROR)
        raise NotImplementedError(f"minigrad's {name} does not run inside vmap. Fix: draw "
                                  "with randn/rand/randint inside vmap, or fill before vmap.")
    source = rng(generator)
    return getattr(source, "real", source)


def _write(t, array, node):
    """``t``'s numbers become ``array``: recorded as torch's in-place op where a graph is."""
    from minigrad import views
    from minigrad.autograd.grad_mode import GRAD_ENABLED
    from minigrad.inplace import LEAF_INPLACE

    base = t._base
    if GRAD_ENABLED.enabled and (t._requires_grad or (base is not None and
                                                      base._requires_grad)):
        if t.grad_fn is None and t._requires_grad:
            raise RuntimeError(LEAF_INPLACE)
        views.check_view(t)
        views.write(t, _NODES[node].apply(t, array), None)
        return t
    np.copyto(t._data, array, casting="unsafe")
    t._version_counter[0] += 1
    return t


def _floating(t, kernel):
    if t._data.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{torch_name(t._data.dtype)}'. Fix: a float tensor "
                                  "(t.float()), or random_ for whole numbers.")


def normal_(t, mean=0.0, std=1.0, *, generator=None):
    _floating(t, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}. Fix: a "
                           "non-negative standard deviation.")
    draws = _rng(generator, "normal_").standard_normal(t._data.shape) * std + mean
    return _write(t, draws, "NormalBackward0")


def uniform_(t, from_=0.0, to=1.0, *, generator=None):
    _floating(t, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}. Fix: from <= to.")
    draws = _rng(generator, "uniform_").random(t._data.shape) * (to - from_) + from_
    return _write(t, draws, "UniformBackward0")


_TOP = {"float16": 2 ** 11, "float32": 2 ** 24, "float64": 2 ** 53, "bool": 2}


def random_(t, from_=None, to=None, *, generator=None):
    """``random_()``: whole numbers in [0, 2^mantissa] for floats (the dtype's range for
    ints); ``random_(to)``: [0, to); ``random_(from, to)``: [from, to)."""
    dtype = t._data.dtype
    if from_ is not None and to is None:
        low, high, node = 0, int(from_), "RandomBackward1"
    elif from_ is None:
        high = _TOP.get(dtype.name, np.iinfo(dtype).max if dtype.kind in "iu" else 2)
        low, node = 0, "RandomBackward2"
        high = high + 1 if dtype.kind == "f" else high
    else:
        low, high, node = int(from_), int(to), "RandomBackward0"
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}. Fix: from < to.")
    if dtype.kind == "b" and high > 2:
        raise RuntimeError("to - 1 is out of bounds for bool. Fix: random_() or random_(2) "
                           "for a bool tensor.")
    draws = _rng(generator, "random_").integers(low, high, t._data.shape, dtype=np.int64,
                                                endpoint=False)
    return _write(t, draws, node)
