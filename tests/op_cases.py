"""One table of op cases, read by tests/test_op_cases.py's four parity tests (forward,
backward, second order, tangent) against torch on the same float64 inputs.

A case: ``name``; ``torch``, a function of torch tensors; ``minigrad``, the same function
for minigrad when it cannot be written once for both (a ``torch.`` or ``F.`` call); the
inputs' ``shapes``, drawn uniformly from ``[low, high)`` in ``dtype`` with a seed of the
case's name. ``second=False`` or ``tangent=False`` leave out a mode, with the reason.
Every ``Function`` defined in minigrad must appear in some case's graph (first or second
order): ``test_every_function_has_a_jvp_and_a_case`` walks them.
"""

import zlib
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as TF
import torch.utils.checkpoint

import minigrad as mg
import minigrad.nn.functional as MF
import minigrad.utils.checkpoint

__all__ = ["OpCase", "CASES", "inputs"]


@dataclass(frozen=True)
class OpCase:
    name: str
    torch: object
    minigrad: object = None
    shapes: tuple = ((3, 4),)
    low: float = -2.0
    high: float = 2.0
    dtype: str = "float64"
    second: bool = True
    tangent: bool = True
    why: str = field(default="", compare=False)

    def fn(self, lib):
        """The function for ``lib`` (torch or minigrad)."""
        return self.torch if lib is torch or self.minigrad is None else self.minigrad


def inputs(case):
    """The case's input arrays, the same for both libraries."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    return [rng.uniform(case.low, case.high, size=s).astype(case.dtype) for s in case.shapes]


def _labels(lib, values):
    return lib.tensor(values)


def _copy_slices(a, b):
    y = a * 1
    y[0].mul_(b[0])  # in place on a view: the base's node is CopySlices
    return (y * y).sum()


def _put(a, b):
    y = a * 1
    y[0, 1:3] = b[0, :2] * b[1, :2]  # basic key: CopySlices
    y[[1, 2], [0, 3]] = b[2, :2]  # advanced key: IndexPutBackward0
    return (y * y).sum()


def _put_view(a, b):
    y = a * 1
    v = y[1]
    v[2:] = b[0, :2].exp()  # into a view of a recorded graph
    return (y * y * a).sum()


def _random_fills(a):
    y = a * 2
    y.normal_()
    y.uniform_(-1, 1)
    y.random_()
    y.random_(3)
    y.random_(1, 3)
    return (y * 0).sum() + (a * a * a).sum()  # the draws differ: only their zero gradient


def _zero(a):
    y = a * 2
    y.zero_()
    return (y + a * a).sum()


def _hooked(lib):
    def fn(a):
        module = lib.nn.ReLU()
        module.register_full_backward_hook(lambda m, grad_input, grad_output: None)
        return (module(a) * a).sum()
    return fn


def _checkpointed(lib):
    checkpoint = (torch.utils.checkpoint if lib is torch else mg.utils.checkpoint).checkpoint
    return lambda a: checkpoint(lambda x: x.tanh() * x, a, use_reentrant=False).sum()


M2, M1, ML = (3, 4), (4,), (4, 2)
C = OpCase
CASES = [
    C("softmax", lambda a: (a.softmax(-1) * a).sum() + (a.softmax(0) ** 2).sum()),
    C("log_softmax", lambda a: (a.log_softmax(1) * a).sum() + a.log_softmax(0)[0].sum()),
    C("var", lambda a: (a.var() + a.var(1).sum() * a.var(0, correction=0).sum())),
    C("min", lambda a: a.min() * (a.min(1).values ** 2).sum()),
    C("setitem", _put, shapes=(M2, M2), tangent=False,
      why="minigrad's forward mode refuses in-place writes into dual tensors"),
    C("setitem_into_view", _put_view, shapes=(M2, M2), tangent=False,
      why="minigrad's forward mode refuses in-place writes into dual tensors"),
    C("random_fills", _random_fills),
    C("add_sub_neg", lambda a, b: ((a + b) * (a - b) * -a).sum(), shapes=(M2, M2)),
    C("add_broadcast", lambda a, v: ((a + v) ** 3).sum(), shapes=(M2, M1)),
    C("mul", lambda a, b: (a * b * a).sum(), shapes=(M2, M2)),
    C("mul_scalar", lambda a: (3.0 * a * a * 2).sum()),
    C("div", lambda a, b: (a / (b * b + 1)).sum(), shapes=(M2, M2)),
    C("rdiv_reciprocal", lambda a: (2.0 / a).sum(), low=0.5),
    C("rsub", lambda a: ((1 - a) ** 3).sum()),
    C("pow_int", lambda a: (a ** 3).sum()),
    C("pow_float", lambda a: (a ** 2.5).sum(), low=0.5),
    C("pow_half", lambda a: (a ** 0.5).sum(), low=0.5),
    C("pow_zero", lambda a: (a ** 0 * a * a).sum()),
    C("pow_tensor", lambda a, b: (a ** b).sum(), shapes=(M2, M2), low=0.5),
    C("rpow", lambda a: (2.0 ** a).sum()),
    C("exp", lambda a: a.exp().sum()),
    C("log", lambda a: a.log().sum(), low=0.5),
    C("tanh", lambda a: a.tanh().sum()),
    C("sigmoid", lambda a: a.sigmoid().sum()),
    C("relu", lambda a: (a.relu() ** 2).sum()),
    C("relu_", lambda a: ((a * 2).relu_() ** 2).sum(), tangent=False,
      why="minigrad's forward mode refuses in-place writes into dual tensors"),
    C("round", lambda a: (a.round() * a + a.round(decimals=1) * a * a).sum()),
    C("floor_ceil_trunc_frac",
      lambda a: (a.floor() * a + a.ceil() * a * a + a.trunc() * a + a.frac() ** 2).sum()),
    C("sum_all", lambda a: a.sum() ** 2),
    C("sum_dim", lambda a: (a.sum(1) ** 2).sum()),
    C("sum_keepdim", lambda a: (a.sum(1, keepdim=True) ** 2 * a).sum()),
    C("mean_all", lambda a: a.mean() ** 3),
    C("mean_dim", lambda a: (a.mean(0) ** 2).sum()),
    C("max_all", lambda a: a.max() ** 2),
    C("max_dim", lambda a: (a.max(1)[0] ** 2).sum()),
    C("max_dim_keepdim", lambda a: (a.max(0, keepdim=True)[0] * a).sum()),
    C("mm", lambda a, b: ((a @ b) ** 2).sum(), shapes=(M2, ML)),
    C("mm_function", lambda a, b: torch.mm(a, b).tanh().sum(),
      lambda a, b: mg.mm(a, b).tanh().sum(), shapes=(M2, ML)),
    C("matvec", lambda a, v: ((a @ v) ** 2).sum(), shapes=(M2, M1)),
    C("vecmat", lambda v, b: ((v @ b) ** 3).sum(), shapes=(M1, ML)),
    C("dot", lambda u, v: (u @ v) ** 2, shapes=(M1, M1)),
    C("batched_matmul", lambda a, b: (torch.matmul(a.reshape(3, 1, 4), b) ** 2).sum(),
      lambda a, b: (mg.matmul(a.reshape(3, 1, 4), b) ** 2).sum(), shapes=(M2, ML)),
    C("reshape", lambda a: (a.reshape(4, 3) ** 3).sum()),
    C("transpose", lambda a: ((a.transpose(0, 1) @ a) ** 2).sum()),
    C("t", lambda a: (a.t() @ a).tanh().sum()),
    C("T", lambda a: ((a.T @ a) ** 2).sum()),
    C("unsqueeze", lambda v: ((v.unsqueeze(0) * v.unsqueeze(1)) ** 2).sum(), shapes=(M1,)),
    C("squeeze", lambda a: (a.reshape(3, 1, 4).squeeze() ** 3).sum()),
    C("squeeze_dim", lambda a: (a.reshape(3, 1, 4).squeeze(1) ** 3).sum()),
    C("index_list", lambda a: (a[[0, 2, 0]] ** 2).sum()),
    C("index_slice", lambda a: (a[1, 1:3] ** 3).sum() + (a[:, 0] ** 3).sum()),
    C("index_select", lambda a: (a[2] ** 3).sum()),
    C("clone", lambda a: (a.clone() ** 3).sum()),
    C("to_dtype", lambda a: (a.to(torch.float32).to(torch.float64) ** 3).sum(),
      lambda a: (a.to(mg.float32).to(mg.float64) ** 3).sum()),
    C("mse_mean", lambda a, b: TF.mse_loss(a * a, b), lambda a, b: MF.mse_loss(a * a, b),
      shapes=(M2, M2)),
    C("mse_sum", lambda a, b: TF.mse_loss(a * a, b, reduction="sum"),
      lambda a, b: MF.mse_loss(a * a, b, reduction="sum"), shapes=(M2, M2)),
    C("mse_none", lambda a, b: (TF.mse_loss(a * a, b, reduction="none") ** 2).sum(),
      lambda a, b: (MF.mse_loss(a * a, b, reduction="none") ** 2).sum(), shapes=(M2, M2)),
    C("cross_entropy", lambda a: TF.cross_entropy(a * a, _labels(torch, [0, 3, 1])),
      lambda a: MF.cross_entropy(a * a, _labels(mg, [0, 3, 1]))),
    C("cross_entropy_sum",
      lambda a: TF.cross_entropy(a.tanh(), _labels(torch, [2, 2, 0]), reduction="sum"),
      lambda a: MF.cross_entropy(a.tanh(), _labels(mg, [2, 2, 0]), reduction="sum")),
    C("cross_entropy_none",
      lambda a: (TF.cross_entropy(a, _labels(torch, [1, 0, 3]), reduction="none") ** 2).sum(),
      lambda a: (MF.cross_entropy(a, _labels(mg, [1, 0, 3]), reduction="none") ** 2).sum()),
    C("linear", lambda x, w: (TF.linear(x, w, w[:, 0]) ** 2).sum(),
      lambda x, w: (MF.linear(x, w, w[:, 0]) ** 2).sum(), shapes=(M2, (2, 4))),
    C("linear_no_bias", lambda x, w: TF.linear(x, w).tanh().sum(),
      lambda x, w: MF.linear(x, w).tanh().sum(), shapes=(M2, (2, 4))),
    C("linear_3d", lambda x, w: (TF.linear(x.reshape(3, 1, 4), w) ** 2).sum(),
      lambda x, w: (MF.linear(x.reshape(3, 1, 4), w) ** 2).sum(), shapes=(M2, (2, 4))),
    C("mlp", lambda x, w: TF.cross_entropy(TF.linear(TF.linear(x, w).relu(), w.t()),
                                           _labels(torch, [0, 1, 2])),
      lambda x, w: MF.cross_entropy(MF.linear(MF.linear(x, w).relu(), w.t()),
                                    _labels(mg, [0, 1, 2])), shapes=(M2, (2, 4))),
    # torch's everyday ops (ops/trig.py, pointwise.py, clamping.py, clamp_tensor.py,
    # selection.py, joining.py, norms.py)
    C("sin_cos", lambda a: (a.sin() * a.cos() * a).sum(), low=-3.0, high=3.0),
    C("abs", lambda a: (a.abs() * a).sum()),
    C("sqrt", lambda a: (a.sqrt() * a).sum(), low=0.5),
    C("sign", lambda a: (a.sign() * a * a).sum()),
    C("clamp", lambda a: (a.clamp(-0.5, 0.7) ** 2).sum()),
    C("clamp_min_max", lambda a: (a.clamp_min(0.1) * a.clamp_max(0.2) * a).sum()),
    C("clamp_tensors", lambda a, b: (a.clamp(b * b - 1, b + 1) ** 2 * b).sum(), shapes=(M2, M2)),
    C("clamp_min_max_tensor", lambda a, b: (a.clamp_min(b) ** 3 + a.clamp_max(b) ** 2).sum(),
      shapes=(M2, M2)),
    C("where", lambda a, b: (torch.where(a > b, a * a, b) ** 2).sum(),
      lambda a, b: (mg.where(a > b, a * a, b) ** 2).sum(), shapes=(M2, M2)),
    C("stack_cat", lambda a, b: (torch.cat([torch.stack([a, b * b]), a[None]]) ** 3).sum(),
      lambda a, b: (mg.cat([mg.stack([a, b * b]), a[None]]) ** 3).sum(), shapes=(M2, M2)),
    C("dot_function", lambda u, v: torch.dot(u * u, v) ** 2,
      lambda u, v: mg.dot(u * u, v) ** 2, shapes=(M1, M1)),
    C("norm", lambda a: a.norm() ** 3 + a.norm(dim=1).sum() * a.norm(p=1)),
    C("norm_inf", lambda a: a.norm(p=float("inf")) * a.sum()),
    # more of torch's everyday ops (ops/special.py, trigonometric.py, binary.py, maxima.py)
    C("square", lambda a: (a.square() * a).sum()),
    C("rsqrt", lambda a: (a.rsqrt() * a).sum(), low=0.5),
    C("log1p_expm1", lambda a: (a.log1p() * a.expm1()).sum(), low=-0.5),
    C("log2_exp2", lambda a: (a.log2() * a.exp2()).sum(), low=0.5),
    C("log10", lambda a: (a.log10() * a + torch.log10(a * a)).sum(),
      lambda a: (a.log10() * a + mg.log10(a * a)).sum(), low=0.5),
    C("erf", lambda a: (a.erf() * a).sum()),
    C("tan_atan", lambda a: (a.tan() * a.atan()).sum(), low=-1.2, high=1.2),
    C("asin_acos", lambda a: (a.asin() * a.acos() * a).sum(), low=-0.9, high=0.9),
    C("sinh_cosh", lambda a: (a.sinh() * a.cosh() * a).sum()),
    C("maximum_minimum", lambda a, b: (a.maximum(b) ** 2 * a.minimum(b[0])).sum(),
      shapes=(M2, M2)),
    C("maximum_ties", lambda a: (a.maximum(a.round()) * a.minimum(a.round() * 0 + 1)).sum(),
      low=-1.0, high=3.0),
    C("atan2", lambda a, b: (a.atan2(b) * a).sum(), shapes=(M2, M1)),
    C("logaddexp", lambda a, b: (a.logaddexp(b) ** 2).sum(), shapes=(M2, M2)),
    C("lerp", lambda a, b: (a.lerp(b, 0.3) ** 2 + a.lerp(b, 0.8) * a).sum(), shapes=(M2, M2)),
    C("lerp_tensor", lambda a, b, w: (a.lerp(b, w) ** 2 * w).sum(), shapes=(M2, M2, M1)),
    C("amax_amin", lambda a: (a.amax(1) ** 2).sum() * a.amin() + a.amax((0, 1), True).sum()),
    C("amax_ties", lambda a: (a.round().amax(0) * a.amin(1, keepdim=True).sum() * a).sum()),
    C("logsumexp", lambda a: (a.logsumexp(1) ** 2).sum() + a.logsumexp((0, 1)) * a.sum()),
    # tiling.py, reorder.py, triangular.py, gathering.py, products.py, cumulative.py,
    # predicates.py, sorting.py
    C("expand", lambda a, v: (v.expand(3, 4) * a + v.reshape(4, 1).expand(2, 4, 3).sum(0).t()
                              ** 2 * a).sum(), shapes=(M2, M1)),
    C("repeat", lambda a: (a.repeat(2, 1, 3) ** 2 * a.repeat(2, 1, 3).tanh()).sum()),
    C("flip_roll", lambda a: (a.flip(0) * a.roll(1, 1) * a.roll((1, -2), (0, 1)) * a).sum()
      + (a.roll(5) ** 3).sum() + (a.flip(0, 1) ** 3).sum()),
    C("narrow_split_chunk", lambda a: (a.narrow(1, 1, 2) ** 3).sum() + sum(
        (p ** 2 * p.sum()).sum() for p in a.split(3, 1) + a.split([1, 2], 0) + a.chunk(2))),
    C("tril_triu_trace", lambda a: (a.tril() ** 2 * a.triu(1).exp()).sum() + a.trace() ** 3
      + (a.tril(-1) * a).sum()),
    C("gather_index_select", lambda a: (
        a.gather(1, _labels(torch if isinstance(a, torch.Tensor) else mg, [[0, 3], [2, 2], [1, 0]]))
        ** 3).sum() + (a.index_select(1, _labels(torch if isinstance(a, torch.Tensor) else mg,
                                                 [3, 0, 3])) ** 2 * a[:, :3]).sum()),
    C("masked_fill", lambda a, b: (a.masked_fill(a > b, 0.5) ** 2 * b
                                   + a.masked_fill(b > 0, b[0, 0] * b[1, 1]) ** 3).sum(),
      shapes=(M2, M2)),
    C("bmm", lambda a, b: (a.reshape(3, 2, 2).bmm(b.reshape(3, 2, 2)) ** 2).sum(),
      shapes=(M2, M2)),
    C("addmm", lambda v, a, b: (torch.addmm(v, a, b.t(), beta=0.5, alpha=2.0) ** 2).sum()
      + (v.addmm(a, b.t()) ** 3).sum(), lambda v, a, b: (mg.addmm(v, a, b.t(), beta=0.5,
                                                                   alpha=2.0) ** 2).sum()
      + (v.addmm(a, b.t()) ** 3).sum(), shapes=((3,), M2, M2)),
    C("outer", lambda u, v: (torch.outer(u, v) ** 2).sum() + (u.outer(u) * v).sum(),
      lambda u, v: (mg.outer(u, v) ** 2).sum() + (u.outer(u) * v).sum(), shapes=(M1, M1)),
    C("cumsum_cumprod", lambda a: (a.cumsum(1) ** 2 * a.cumprod(0)).sum()
      + (a.cumprod(1) * a).sum()),
    C("cumprod_zero", lambda a: (a.masked_fill(a > 1.2, 0.0).cumprod(1) * a).sum()
      + (a.masked_fill(a < -1.0, 0.0).cumprod(0) ** 2).sum()),
    C("prod", lambda a: a.prod() * a.sum() + (a.prod(1) ** 2).sum() + (a.prod(0, True) * a).sum()),
    C("prod_zero", lambda a: a.masked_fill(a > 1.5, 0.0).prod() * a.sum()
      + (a.masked_fill(a > 1.0, 0.0).prod(1) ** 2).sum(), low=-1.5),
    C("diff", lambda a: (a.diff() ** 3).sum() + (a.diff(2, 0) * a[:1]).sum()),
    C("nan_to_num", lambda a: ((a.log() * a).nan_to_num(0.5, 9.0, -9.0) ** 2).sum()),
    C("sort_topk", lambda a: (a.sort(1)[0] * a + a.sort(0, True).values ** 2).sum()
      + (a.topk(2)[0] ** 3).sum() + (a.topk(2, 0, False).values * a[:2]).sum()),
    C("zero_", _zero,
      tangent=False, why="minigrad's forward mode refuses in-place ops on dual tensors"),
    C("copy_slices", _copy_slices, shapes=(M2, M2),
      tangent=False, why="minigrad's forward mode refuses in-place ops on dual tensors"),
    C("full_backward_hook", _hooked(torch), _hooked(mg),
      second=False, tangent=False, why="module backward hooks: first order only"),
    C("checkpoint", _checkpointed(torch), _checkpointed(mg),
      second=False, tangent=False, why="checkpoint recomputes for first order only"),
]
