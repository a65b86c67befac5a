r"""``Generator`` and the draws that take one: ``randint`` and ``multinomial`` (the
makemore chapters' sampling; ``randn`` and ``rand`` take ``generator=`` too, in
:mod:`minigrad.factories`).

A ``Generator`` is a numpy generator of its own, reset by ``manual_seed`` (which returns
the generator, as torch's, so ``g = Generator().manual_seed(42)`` works). Without
``generator=``, a draw uses minigrad's default generator (``minigrad.manual_seed``). The
numbers differ from torch's for the same seed: scripts/as_torch.py maps each minigrad
generator to a torch one when it compares a program's two runs.
"""

import numpy as np

from minigrad.devices import check_device
from minigrad.dtypes import to_dtype
from minigrad.factories import GENERATOR, _leaf, _shape

__all__ = ["Generator", "randint", "multinomial", "rng"]


class Generator:
    """torch's ``Generator(device='cpu')``: its own stream of random numbers."""

    def __init__(self, device="cpu"):
        check_device(device)
        self._seed = 67280421310721  # torch's default seed for a new Generator
        self._rng = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        if not isinstance(seed, int | np.integer) or isinstance(seed, bool):
            raise TypeError(f"manual_seed expected a long, but got {type(seed).__name__}. "
                            "Fix: pass a whole number.")
        self._seed = int(seed)
        self._rng = np.random.default_rng(self._seed % 2**64)
        return self

    def initial_seed(self):
        return self._seed

    @property
    def device(self):
        from minigrad.devices import device

        return device("cpu")


def rng(generator):
    """The numpy generator behind ``generator=`` (minigrad's default one for None)."""
    if generator is None:
        return GENERATOR[0]
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a Generator, got {type(generator).__name__}. Fix: "
                        "pass generator=torch.Generator().manual_seed(seed).")
    return generator._rng


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``: int64 draws in [low, high)."""
    check_device(device)
    if size is None:
        if not args or not isinstance(args[-1], tuple | list):
            raise TypeError("randint() missing required argument 'size'. Fix: "
                            "randint(low, high, (n,)), the size a tuple.")
        *args, size = args
    low, high = (0, args[0]) if len(args) == 1 else args
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}. Fix: low < high.")
    from minigrad._functorch.vmap import random_tensor  # vmap's randomness modes

    target = to_dtype(dtype or "int64")
    return random_tensor(lambda g, s: g.integers(low, high, s).astype(target),
                         _shape((size,), "randint"), generator,
                         lambda a: _leaf(a, requires_grad))


def multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """Indices drawn with probabilities proportional to the rows of ``input`` (1-d or 2-d)."""
    probs = np.asarray(input._data, dtype=np.float64)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim. Fix: one row of weights per draw.")
    if (probs < 0).any() or not np.isfinite(probs).all():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0. "
                           "Fix: pass non-negative finite weights (e.g. softmax output).")
    rows = probs.reshape(-1, probs.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement. Fix: replacement=True, or fewer samples.")
    draw = rng(generator)
    out = []
    for row in rows:
        if row.sum() == 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)."
                               " Fix: each row needs a positive weight.")
        out.append(draw.choice(row.size, num_samples, replace=replacement, p=row / row.sum()))
    result = np.array(out, dtype=np.int64).reshape(probs.shape[:-1] + (num_samples,))
    return _leaf(result, False)
