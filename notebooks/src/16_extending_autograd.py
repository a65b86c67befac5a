# %% [markdown]
# # 16 Extending autograd
#
# Autograd knows the derivative of every op it ships. This chapter is about the places
# where you tell it something it does not know, or could not do well alone: an op of
# your own with a backward you write (a `Function`), a backward that is deliberately
# *not* the derivative (a straight-through estimator), a look at or a change to a
# gradient as the backward pass computes it (hooks on tensors and on modules), the
# rest of a `Function`'s toolkit (skipped gradients, outputs with no gradient, a
# backward that refuses a second derivative, a tangent rule for forward mode, hooks on
# what is saved), and a backward that recomputes what forward threw away (gradient
# checkpointing). Each is a
# torch API; minigrad has the same names, and every result below is checked against
# torch's.
#
# **Learning goals.** After this chapter you can
#
# 1. write a `Function` with `forward`, `backward` and `ctx.save_for_backward`, make its
#    forward numerically stable, and test it with `gradcheck` and `gradgradcheck`;
# 2. write a straight-through estimator and say why `gradcheck` rejects it;
# 3. inspect, scale and clip a gradient with `register_hook`, remove a hook with its
#    handle, and record a layer's activations and gradients with module hooks;
# 4. use `ctx.needs_input_grad`, `ctx.mark_non_differentiable`, `@once_differentiable`,
#    `jvp` with `ctx.save_for_forward`, and `saved_tensors_hooks`;
# 5. trade memory for time with `checkpoint`, predict what it keeps and what it
#    recomputes, and choose between `use_reentrant=True` and `False`.

# %%
import functools
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.utils.checkpoint

import minigrad
from minigrad import check, check_all
from minigrad.course.widgets.checkpoint_memory import CheckpointMemory, checkpoint_memory_widget
from minigrad.utils.checkpoint import checkpoint

torch.set_num_threads(1)  # tiny tensors: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. A function of your own: a stable log-sum-exp
#
# $\mathrm{lse}(x) = \log \sum_i e^{x_i}$ turns scores into a log-probability
# normaliser (cross-entropy is built on it). Written as it reads, it overflows: $e^{1000}$
# is beyond float64 (about $1.8 \cdot 10^{308}$), so the sum is `inf` and so is its log,
# although the answer, $1000 + \log 2$ for $x = (1000, 1000, -3)$, is an ordinary number.
# The backward of the naive graph is worse. It does not divide $e^{x_i}$ by the sum;
# it runs the chain rule node by node: `log` sends $1/\sum_j e^{x_j} = 1/\infty = 0$
# back to the sum and on to each `exp`, which multiplies it by its output $e^{x_i}$.
# For the two entries of $1000$ that is $0 \cdot \infty$, which is `nan`; for the third
# it is $0 \cdot e^{-3} = 0$, a finite (and wrong) $0$. The gradient is
# $(\mathrm{nan}, \mathrm{nan}, 0)$. Both libraries agree (numpy warns "overflow
# encountered in exp" in minigrad's forward; we silence it, the values say the same):

# %%
x0 = np.array([1000.0, 1000.0, -3.0])
rows = {}
for name, lib in [("minigrad", minigrad), ("torch", torch)]:
    x = lib.tensor(x0, requires_grad=True)
    with np.errstate(over="ignore", invalid="ignore"):
        exps = x.exp()
        exps.retain_grad()
        y = exps.sum().log()
        y.backward()
    rows[name] = (y, x.grad, exps.grad)
    print(f"{name:8}: naive lse = {y.item()}, what reaches exp = {exps.grad.tolist()}, "
          f"its gradient = {x.grad.tolist()}")
check_all({"naive lse": (rows["minigrad"][0], rows["torch"][0]),
           "what reaches each exp: 1/inf = 0": (rows["minigrad"][2], rows["torch"][2]),
           "its gradient (nan, nan, 0)": (rows["minigrad"][1], rows["torch"][1]),
           "0 * inf, 0 * inf, 0 * e^-3": (rows["minigrad"][1],
                                          [math.nan, math.nan, 0.0], "formula")},
          equal_nan=True)

# %% [markdown]
# The fix is a shift: for any $m$, $\log \sum_i e^{x_i} = m + \log \sum_i e^{x_i - m}$.
# With $m = \max_i x_i$ every exponent is at most $0$, so nothing overflows, and the
# largest term is $e^0 = 1$, so the sum is at least $1$ and its log is finite. The
# gradient is the softmax, $\partial\, \mathrm{lse} / \partial x_i = e^{x_i} / \sum_j
# e^{x_j} = e^{x_i - \mathrm{lse}(x)}$, and that form is stable too: $x_i -
# \mathrm{lse}(x) \le 0$.
#
# Autograd could differentiate the shifted forward op by op (`max` included), but we
# know the whole backward in one line, and it needs only $x$ and the output. So we write
# the op as a `Function`, the shape of chapter 07's `LinFunction`: `forward(ctx, x)`
# computes the result and keeps what backward needs with `ctx.save_for_backward`;
# `backward(ctx, grad_output)` returns $\partial L / \partial x$ = `grad_output` times
# the local derivative.
# Both libraries hand `forward` and `backward` tensors, and forward runs with recording
# off; the two classes differ only in the library they name.

# %%
class LogSumExp(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + (x - m).exp().sum().log()
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * math.e ** (x - out)  # the softmax, e^(x - lse) <= 1


class TorchLogSumExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + torch.log(torch.exp(x - m).sum())
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * math.e ** (x - out)


x = minigrad.tensor(x0, requires_grad=True)
xt = torch.tensor(x0, requires_grad=True)
y, yt = LogSumExp.apply(x), TorchLogSumExp.apply(xt)
y.backward()
yt.backward()
reference = torch.tensor(x0, requires_grad=True)
torch.logsumexp(reference, 0).backward()
print("minigrad:", y, "  torch:", yt)
check_all({"stable lse (1000, 1000, -3)": (y, yt),
           "vs torch.logsumexp": (y, torch.logsumexp(torch.tensor(x0), 0)),
           "1000 + log 2": (y, 1000 + math.log(2), "formula"),
           "its gradient (1/2, 1/2, ~0)": (x.grad, xt.grad),
           "gradient vs torch.logsumexp's": (x.grad, reference.grad)})

# %% [markdown]
# `apply` is how a `Function` is called, never `forward` directly: it runs `forward`
# and, if an input requires grad, records the node, whose `backward` the engine calls.
# Written by hand, a backward can be wrong with nothing to show for it. Chapter 11's
# test finds out: `gradcheck` compares it with finite differences, element by element.
# The course's reference tutorial (see [Sources](../book/sources.md)) says gradient
# checking "is useful when implementing custom layers or custom autograd functions":
# this is that case. Since a backward pass can itself be differentiated
# (chapter 15), `gradgradcheck` checks the *second* derivatives too. In both libraries
# both pass on float64 inputs:

# %%
x = minigrad.tensor([0.5, -1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
xt = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
check_all({"gradcheck": (minigrad.autograd.gradcheck(LogSumExp.apply, (x,)),
                         torch.autograd.gradcheck(TorchLogSumExp.apply, (xt,))),
           "gradgradcheck": (minigrad.autograd.gradgradcheck(LogSumExp.apply, (x,)),
                             torch.autograd.gradgradcheck(TorchLogSumExp.apply, (xt,)))},
          brief=True)

# %% [markdown]
# How can the second derivative come out right when we only wrote the first? With
# `create_graph=True` (chapter 15) the backward runs with recording on: `x` and `out`
# come back from `saved_tensors` as the tensors they were, joined to the graph, so
# `grad_output * math.e ** (x - out)` is recorded op by op and can be differentiated
# again. Torch does the same. The Hessian of lse, $\mathrm{diag}(p) - p p^\top$ with $p$
# the softmax, built row by row from the recorded gradient:

# %%
g, = minigrad.autograd.grad(LogSumExp.apply(x), x, create_graph=True)
H = np.stack([minigrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy() for i in range(3)])
p = torch.softmax(xt.detach(), 0)
check_all({"Hessian of our lse": (H, torch.autograd.functional.hessian(
               lambda t: torch.logsumexp(t, 0), xt.detach())),
           "diag(p) - p p^T": (H, torch.diag(p) - torch.outer(p, p), "formula")})

# %% [markdown]
# That works because the backward is computed from what `saved_tensors` returns, the
# input and the output, with differentiable operations (`*`, `**`, `-`). Here is a
# version that looks just as good: forward computes the softmax $p$ and saves it,
# backward returns `grad_output * p`. Its first derivatives are right, so `gradcheck`
# passes. But $p$ was computed inside forward, where nothing is recorded: to the
# recorded pass it is a constant, the gradient it returns does not depend on $x$ at
# all (it does not even require grad), and `gradgradcheck` fails, in both libraries:

# %%
class LogSumExpSavesP(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + (x - m).exp().sum().log()
        ctx.save_for_backward((x - out).exp())  # p, computed here: a constant later
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (p,) = ctx.saved_tensors
        return grad_output * p


class TorchLogSumExpSavesP(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + torch.log(torch.exp(x - m).sum())
        ctx.save_for_backward(torch.exp(x - out))
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (p,) = ctx.saved_tensors
        return grad_output * p


g, = minigrad.autograd.grad(LogSumExpSavesP.apply(x), x, create_graph=True)
gt, = torch.autograd.grad(TorchLogSumExpSavesP.apply(xt), xt, create_graph=True)
check_all({"gradcheck (True)": (
               minigrad.autograd.gradcheck(LogSumExpSavesP.apply, (x,)),
               torch.autograd.gradcheck(TorchLogSumExpSavesP.apply, (xt,))),
           "the gradient requires grad (False)": (g.requires_grad, gt.requires_grad),
           "gradgradcheck (False)": (
               minigrad.autograd.gradgradcheck(LogSumExpSavesP.apply, (x,),
                                               raise_exception=False),
               torch.autograd.gradgradcheck(TorchLogSumExpSavesP.apply, (xt,),
                                            raise_exception=False))})

# %% [markdown]
# So if your `Function` will be differentiated twice, compute backward from the saved
# inputs and outputs, and run `gradgradcheck`. (Write it with operators and tensor
# methods, not numpy functions on `.numpy()`: numpy cannot record.) Torch's
# documentation of `save_for_backward` gives the options for an intermediate such as
# $p$: recompute it from the inputs in backward (as `LogSumExp` does), return it as an
# extra output of the `Function` so that it is recorded, or, if backward cannot be
# differentiated, say so with `@once_differentiable` (section 5).
#
# ## 2. A straight-through estimator
#
# Rounding is flat almost everywhere: its derivative is $0$ (and undefined at the
# jumps). A network that rounds its weights or activations (quantization, binary
# networks) would get no gradient through it and never learn. The *straight-through
# estimator* keeps the rounding in forward and pretends in backward that it was the
# identity: the gradient passes through unchanged. That is a `Function` whose backward
# is deliberately *not* the derivative of its forward:

# %%
class RoundST(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):  # minigrad has no round op: numpy on the values, as torch code may
        return minigrad.tensor(np.round(x.detach().numpy()))

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output  # straight through: the identity's gradient


class TorchRoundST(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


r0 = np.array([0.3, 1.7, -2.2])
v = np.array([1.0, -2.0, 0.5])
r, rt, rt_true = (minigrad.tensor(r0, requires_grad=True),
                  torch.tensor(r0, requires_grad=True), torch.tensor(r0, requires_grad=True))
y, yt = RoundST.apply(r), TorchRoundST.apply(rt)
y.backward(minigrad.tensor(v))
yt.backward(torch.tensor(v))
torch.round(rt_true).backward(torch.tensor(v))
check_all({"round(x)": (y, yt), "straight-through gradient": (r.grad, rt.grad),
           "= the upstream gradient": (r.grad, v, "formula"),
           "torch.round's own gradient (zero)": (rt_true.grad, np.zeros(3), "formula")})

# %% [markdown]
# The same trick without a `Function`, common in torch code: `x + (round(x) -
# x).detach()`. Its value is `round(x)`; its gradient is that of `x` alone, since the
# detached difference is a constant (chapter 09). Same numbers in both libraries:

# %%
r, rt = minigrad.tensor(r0, requires_grad=True), torch.tensor(r0, requires_grad=True)
y = r + (minigrad.tensor(np.round(r0)) - r).detach()  # minigrad has no round op
yt = rt + (torch.round(rt) - rt).detach()
y.backward(minigrad.tensor(v))
yt.backward(torch.tensor(v))
check_all({"x + (round(x) - x).detach()": (y, yt), "its gradient": (r.grad, rt.grad)},
          brief=True)

# %% [markdown]
# `gradcheck` compares backward with the true derivative, so it rejects a
# straight-through estimator, in both libraries, and it is right to: finite differences
# of `round` away from the jumps are $0$, backward says $1$. An STE is a choice of
# training signal, not a derivative; test it by what it is meant to do (here: backward
# returns `grad_output`), not with `gradcheck`.

# %%
r, rt = minigrad.tensor(r0, requires_grad=True), torch.tensor(r0, requires_grad=True)
check("gradcheck of the STE (False)",
      minigrad.autograd.gradcheck(RoundST.apply, (r,), raise_exception=False),
      torch.autograd.gradcheck(TorchRoundST.apply, (rt,), raise_exception=False))

# %% tags=raises-exception
minigrad.autograd.gradcheck(RoundST.apply, (r,))

# %% tags=raises-exception
torch.autograd.gradcheck(TorchRoundST.apply, (rt,))

# %% [markdown]
# Both show the same two Jacobians: numerical all $0$, analytical the identity.
# Exercise 16.3 writes a variant used in binary networks: `sign` in forward, and in
# backward the gradient of $\mathrm{clip}(x, -1, 1)$ (pass where $|x| < 1$, stop
# elsewhere).
#
# ## 3. Tensor hooks: look at a gradient, or change it
#
# `t.register_hook(fn)` asks the backward pass to call `fn(grad)` when it has computed
# $\partial L / \partial t$. If `fn` returns `None` the gradient goes on unchanged (a
# probe); if it returns a tensor, that tensor *replaces* the gradient from there on. The
# call returns a handle; `handle.remove()` takes the hook away. We run each example in
# both libraries with one function, `lib` being `minigrad` or `torch`.
#
# **Inspect.** $L = \sum_i (2 x_i)^2$ at $x = (3, -4)$; a probe on the intermediate
# $y = 2x$ sees $\partial L / \partial y = 2y = (12, -16)$, and $x$ gets $4y = (24,
# -32)$:

# %%
def probe(lib):
    x = lib.tensor([3.0, -4.0], requires_grad=True)
    y = 2 * x
    seen = []
    y.register_hook(lambda grad: seen.append(grad.tolist()))  # returns None: a probe
    (y * y).sum().backward()
    return seen, x.grad


seen, grad = probe(minigrad)
seen_t, grad_t = probe(torch)
print("the hook saw", seen, "; x.grad =", grad)
check_all({"what the hook saw": (seen, seen_t), "x.grad, unchanged": (grad, grad_t),
           "dL/dy = 2y": (seen[0], [12.0, -16.0], "formula")})

# %% [markdown]
# **Scale and clip.** A hook that returns a tensor changes what flows on: here $y$'s
# gradient is halved, then clipped to $[-5, 5]$ element by element
# (`grad.clamp(-5, 5)`), and $x$ receives $2 \cdot$ the changed gradient. Hooks run
# in the order they were registered. After `remove()`, the next backward is plain
# again:

# %%
def scale_and_clip(lib):
    x = lib.tensor([3.0, -4.0, 0.5], requires_grad=True)
    y = 2 * x
    half = y.register_hook(lambda grad: grad * 0.5)
    y.register_hook(lambda grad: grad.clamp(-5, 5))
    (y * y).sum().backward(retain_graph=True)
    hooked = x.grad.clone()
    half.remove()
    x.grad = None
    (y * y).sum().backward()
    return hooked, x.grad


hooked, clipped_only = scale_and_clip(minigrad)
hooked_t, clipped_only_t = scale_and_clip(torch)
check_all({"halved, then clipped: 2 clip(y, -5, 5)": (hooked, hooked_t),
           "by hand": (hooked, [10.0, -10.0, 2.0], "by hand"),
           "half removed: 2 clip(2y, -5, 5)": (clipped_only, clipped_only_t)})

# %% [markdown]
# Clipping the gradient of one tensor by its *norm* (scale it down to length
# `max_norm` when it is longer, keep its direction) is Exercise 16.2.
#
# **A tensor's hook sees its summed gradient, once.** Chapter 04: when $x$ is used
# twice, the two contributions are added before `.grad` is updated. A hook on $x$ runs
# once, on the sum, not once per use; the same holds for a hook on a non-leaf (below,
# `y = x * 1` used twice), since the engine sums a tensor's contributions before its
# node runs. $L = \sum x^2 + 3 \sum x$ at $x = (1, -3)$:
# the contributions are $2x = (2, -6)$ and $(3, 3)$; the hook sees $(5, -3)$, once.
# `register_post_accumulate_grad_hook` runs after `.grad` is written (optimizers use it
# to step a parameter as soon as its gradient is ready):

# %%
def leaf_hooks(lib):
    x = lib.tensor([1.0, -3.0], requires_grad=True)
    seen, after = [], []
    x.register_hook(lambda grad: seen.append(grad.tolist()))
    x.register_post_accumulate_grad_hook(lambda t: after.append(t.grad.tolist()))
    (x * x + 3 * x).sum().backward()
    return seen, after


seen, after = leaf_hooks(minigrad)
seen_t, after_t = leaf_hooks(torch)
print("hook calls:", seen, " post-accumulate:", after)
check_all({"the leaf's hook: one call, the sum": (seen, seen_t),
           "2x + 3 at (1, -3)": (seen, [[5.0, -3.0]], "formula"),
           "post-accumulate hook sees .grad": (after, after_t)})


# %% [markdown]
# The same on a non-leaf, `y = x * 1`, used twice:

# %%
def non_leaf_hook(lib):
    x = lib.tensor([1.0, -3.0], requires_grad=True)
    y = x * 1
    seen = []
    y.register_hook(lambda grad: seen.append(grad.tolist()))
    (y * y + 3 * y).sum().backward()
    return seen


print("hook calls on the non-leaf:", non_leaf_hook(minigrad))
check_all({"the non-leaf's hook: one call, the sum": (non_leaf_hook(minigrad),
                                                      non_leaf_hook(torch)),
           "2y + 3 at (1, -3)": (non_leaf_hook(minigrad), [[5.0, -3.0]], "formula")})

# %% [markdown]
# A tensor that does not require grad has no gradient to hook, and both libraries
# refuse:

# %% tags=raises-exception
torch.tensor([1.0]).register_hook(print)

# %% tags=raises-exception
minigrad.tensor([1.0]).register_hook(print)

# %% [markdown]
# ## 4. Module hooks: a layer's activations and gradients
#
# A module's hooks see the module's inputs and outputs, without changing its code.
# `register_forward_hook(hook)` calls `hook(module, args, output)` after each forward:
# the usual way to record activations (to plot them, or to check for dead ReLUs).
# `register_full_backward_hook(hook)` calls `hook(module, grad_input, grad_output)` once
# the gradient with respect to the module's input is known: tuples of
# $\partial L / \partial \text{input}$ and $\partial L / \partial \text{output}$. The
# same two-layer network in both libraries, with torch's weights copied into minigrad's:

# %%
torch.manual_seed(16)
net_t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
net_t = net_t.double()
net = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4, dtype=minigrad.float64),
                             minigrad.nn.ReLU(),
                             minigrad.nn.Linear(4, 2, dtype=minigrad.float64))
for p, p_t in zip(net.parameters(), net_t.parameters(), strict=True):
    p.data = minigrad.tensor(p_t.detach().numpy())
X0 = np.random.default_rng(16).standard_normal((5, 3))


def hooked_run(model, lib):
    """Forward and backward with a forward hook on every layer and a backward hook on
    the ReLU; returns what the hooks recorded."""
    activations, grads, handles = {}, {}, []
    for i in range(len(model)):
        def record(module, args, output, i=i):
            activations[i] = output.detach().clone()
        handles.append(model[i].register_forward_hook(record))

    def on_backward(module, grad_input, grad_output):
        grads["input"], grads["output"] = grad_input[0].clone(), grad_output[0].clone()
    handles.append(model[1].register_full_backward_hook(on_backward))
    X = lib.tensor(X0, requires_grad=True)
    (model(X) ** 2).mean().backward()
    for handle in handles:
        handle.remove()
    return activations, grads


acts, grads = hooked_run(net, minigrad)
acts_t, grads_t = hooked_run(net_t, torch)
relu_in = acts[0].detach().numpy()
print("ReLU outputs that are zero:", int((acts[1] == 0).sum()), "of", acts[1].numel())
check_all({**{f"activation of layer {i}": (acts[i], acts_t[i]) for i in range(3)},
           "ReLU: grad_output": (grads["output"], grads_t["output"]),
           "ReLU: grad_input": (grads["input"], grads_t["input"]),
           "grad_input = grad_output * (input > 0)": (
               grads["input"], grads["output"].detach().numpy() * (relu_in > 0), "formula")})

# %% [markdown]
# The backward hook got the ReLU's local rule in numbers: $\partial L / \partial
# \text{input}$ is $\partial L / \partial \text{output}$ where the input was positive, $0$
# elsewhere. (minigrad's full backward hook works on modules called with one tensor;
# torch's on any number.)
#
# ## 5. The rest of the `Function` toolkit
#
# Section 1's `LogSumExp` used three pieces of a `Function`: `forward`, `backward` and
# `ctx.save_for_backward`. Five more come up as soon as an op is more than a toy: skip a
# gradient nobody needs, return an output that has no gradient, refuse a second
# derivative you cannot give, supply a tangent rule for forward mode, and see what is
# saved for backward. One small example each, written once with `lib` standing for
# `minigrad` or `torch` (section 3's way), and run in both.
#
# **Skip work nobody needs: `ctx.needs_input_grad`.** Backward returns one gradient per
# input of forward, but an input that does not require grad (the data, a frozen weight)
# never uses its own. `ctx.needs_input_grad` holds one bool per input; backward can
# return `None` where it is `False` and skip the computation. Here $y = x w$ with $x$
# trainable and the scale $w$ a constant: backward sees `(True, False)` and never
# computes $\sum_i x_i \bar y_i$ (with $\bar y = \partial L / \partial y$):

# %%
def scale_grads(lib):
    """x.grad and w.grad of sum(x * w) through a Function that skips unneeded work."""
    seen = []

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * w

        @staticmethod
        def backward(ctx, grad_output):
            x, w = ctx.saved_tensors
            seen.append(ctx.needs_input_grad)
            grad_x = grad_output * w if ctx.needs_input_grad[0] else None
            grad_w = (grad_output * x).sum() if ctx.needs_input_grad[1] else None
            return grad_x, grad_w

    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor(0.5, dtype=lib.float64)  # a constant: needs no gradient
    Scale.apply(x, w).sum().backward()
    return seen, x.grad, w.grad


seen, grad_x, grad_w = scale_grads(minigrad)
seen_t, grad_x_t, grad_w_t = scale_grads(torch)
print("needs_input_grad:", seen[0], " x.grad:", grad_x, " w.grad:", grad_w)
check_all({"needs_input_grad": (list(seen[0]), list(seen_t[0])),
           "x.grad = w": (grad_x, grad_x_t),
           "w.grad is None": (grad_w is None, grad_w_t is None)}, brief=True)

# %% [markdown]
# minigrad's own ops do the same: its matrix product computes only the gradients its
# inputs need.
#
# **An output with no gradient: `ctx.mark_non_differentiable`.** `max` that also
# returns where the maximum is: the index is an integer, and no gradient can flow
# through it. Marking it tells autograd so: the index comes out with
# `requires_grad=False`, and backward still receives one gradient per output, a zero
# for the index, which it ignores. The gradient of the maximum goes to the entry that
# won, $0$ elsewhere:

# %%
def max_with_index(lib):
    """max and argmax of x through one Function; x.grad of 2 max(x)."""
    received = []

    class MaxWithIndex(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            index = x.argmax()
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(x, index)
            return x.max(), index

        @staticmethod
        def backward(ctx, grad_value, grad_index):
            x, index = ctx.saved_tensors
            received.append(grad_index.item())
            grad = lib.zeros_like(x)
            grad[index] = grad_value
            return grad

    x = lib.tensor([0.5, 3.0, -1.0], dtype=lib.float64, requires_grad=True)
    value, index = MaxWithIndex.apply(x)
    (2 * value).backward()
    return value, index, x.grad, received


value, index, grad, received = max_with_index(minigrad)
value_t, index_t, grad_t, received_t = max_with_index(torch)
print(f"max {value.item()}, index {index.item()} ({index.dtype}), index requires grad: "
      f"{index.requires_grad}, value requires grad: {value.requires_grad}")
check_all({"max and its index": ([value.item(), index.item()], [value_t.item(), index_t.item()]),
           "the index requires grad (False)": (index.requires_grad, index_t.requires_grad),
           "backward's gradient for the index": (received, received_t),
           "x.grad: 2 at the maximum": (grad, grad_t)}, brief=True)

# %% [markdown]
# **A backward autograd cannot record: `@once_differentiable`.** Sometimes backward is
# easiest, or only possible, outside autograd: in numpy, a C library, a hand-written
# kernel. Its first derivative can be perfect, but a recorded pass
# (`create_graph=True`) cannot see inside it. `@once_differentiable` (from
# `torch.autograd.function`, minigrad's `minigrad.autograd.function`), put under
# `@staticmethod`, says so: backward runs under `no_grad`, and if the pass is recorded
# and the gradient arriving is itself differentiable, what backward returns is joined to
# a node that raises when anyone differentiates through it. $y = x^3$ with a numpy
# backward, inside $L = \sum y^2$ (whose gradient $\bar y = 2y$ depends on $x$):

# %%
def cube_class(lib, once_differentiable):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @once_differentiable
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            x, grad_output = x.detach().numpy(), grad_output.detach().numpy()
            return lib.tensor(3 * x ** 2 * grad_output)  # numpy: nothing is recorded
    return Cube


Cube = cube_class(minigrad, minigrad.autograd.function.once_differentiable)
TorchCube = cube_class(torch, torch.autograd.function.once_differentiable)
x = minigrad.tensor([1.0, 2.0], dtype=minigrad.float64, requires_grad=True)
xt = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
g, = minigrad.autograd.grad((Cube.apply(x) ** 2).sum(), x, create_graph=True)
gt, = torch.autograd.grad((TorchCube.apply(xt) ** 2).sum(), xt, create_graph=True)
check_all({"gradcheck (True)": (minigrad.autograd.gradcheck(Cube.apply, (x,)),
                                torch.autograd.gradcheck(TorchCube.apply, (xt,))),
           "dL/dx = 6 x^5": (g, gt)}, brief=True)

# %% [markdown]
# The first derivative is right. The second raises, in both libraries, with the
# decorator's name in the message:

# %% tags=raises-exception
g.sum().backward()

# %% tags=raises-exception
gt.sum().backward()

# %% [markdown]
# Without the decorator the same backward would return a constant (section 1's
# `LogSumExpSavesP`): a second derivative missing a term, and no error. With it, the
# mistake cannot pass unnoticed. (If the arriving gradient is a constant, as for $L =
# \sum y$, there is nothing to record and nothing raises: no second derivative flows
# through it anyway.)
#
# **Forward mode through your op: `jvp` and `ctx.save_for_forward`.** Chapter 14's
# forward mode carries a tangent through each op with that op's tangent rule. A
# `Function` has none unless you write it, and both libraries refuse a dual input
# without it:

# %%
x1 = np.array([0.5, -1.0, 2.0])
v1 = np.array([1.0, -2.0, 0.5])

# %% tags=raises-exception
with minigrad.autograd.forward_ad.dual_level():
    LogSumExp.apply(minigrad.autograd.forward_ad.make_dual(minigrad.tensor(x1),
                                                           minigrad.tensor(v1)))

# %% [markdown]
# The rule goes in `jvp(ctx, *tangents)`: one tangent per input in, the output's
# tangent out, from what forward kept with `ctx.save_for_forward`. For lse the tangent
# is the gradient times the input's tangent, $\dot y = \sum_i p_i \dot x_i$ with $p$ the
# softmax. We add it to section 1's class:

# %%
class LogSumExpJvp(LogSumExp):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + (x - m).exp().sum().log()
        ctx.save_for_backward(x, out)
        ctx.save_for_forward(x, out)
        return out

    @staticmethod
    def jvp(ctx, x_tangent):
        x, out = ctx.saved_tensors
        return (math.e ** (x - out) * x_tangent).sum()  # p . x_tangent


class TorchLogSumExpJvp(TorchLogSumExp):
    @staticmethod
    def forward(ctx, x):
        m = x.max()
        out = m + torch.log(torch.exp(x - m).sum())
        ctx.save_for_backward(x, out)
        ctx.save_for_forward(x, out)
        return out

    @staticmethod
    def jvp(ctx, x_tangent):
        x, out = ctx.saved_tensors
        return (math.e ** (x - out) * x_tangent).sum()


fwd, fwd_t = minigrad.autograd.forward_ad, torch.autograd.forward_ad
with fwd.dual_level():
    y, y_tangent = fwd.unpack_dual(LogSumExpJvp.apply(fwd.make_dual(minigrad.tensor(x1),
                                                                    minigrad.tensor(v1))))
with fwd_t.dual_level():
    yt, yt_tangent = fwd_t.unpack_dual(TorchLogSumExpJvp.apply(
        fwd_t.make_dual(torch.tensor(x1), torch.tensor(v1))))
_, reference = torch.func.jvp(lambda t: torch.logsumexp(t, 0), (torch.tensor(x1),),
                              (torch.tensor(v1),))
print("lse:", y.item(), " its tangent:", y_tangent.item())
check_all({"the tangent": (y_tangent, yt_tangent),
           "vs torch.func.jvp of torch.logsumexp": (y_tangent, reference),
           "softmax(x) . v": (y_tangent, torch.softmax(torch.tensor(x1), 0) @ torch.tensor(v1),
                              "formula")}, brief=True)

# %% [markdown]
# **What a graph keeps: `saved_tensors_hooks`.** Every tensor saved for backward, by
# your `save_for_backward` or by a built-in op, can pass through two functions of yours.
# Inside `with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):`,
# `pack_hook(t)` is called when an op saves `t`, and what it returns is kept instead;
# `unpack_hook(packed)` is called when backward reads it and must give the tensor back.
# Two hooks that only log, around `tanh` followed by our `LogSumExp`:

# %%
def saved_log(lib, lse):
    log = []

    def pack_hook(t):
        log.append(f"pack {tuple(t.shape)}")
        return t  # kept as is; could be moved, compressed, or replaced by a placeholder

    def unpack_hook(packed):
        log.append(f"unpack {tuple(packed.shape)}")
        return packed

    x = lib.tensor(x1, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
        y = lse.apply(x.tanh())
    log.append("backward:")
    y.backward()
    return log


log = saved_log(minigrad, LogSumExp)
print(", ".join(log))
check("torch's calls, in the same order", log == saved_log(torch, TorchLogSumExp), True,
      against="by hand", brief=True)

# %% [markdown]
# `tanh` saves its output (shape `(3,)`), `LogSumExp` saves `x` and the scalar `out`;
# backward reads `LogSumExp`'s first, since it runs the nodes from the output back.
# What `pack_hook` returns is all the graph keeps, so these hooks decide what backward
# costs in memory: torch's `save_on_cpu` packs each tensor into CPU memory and unpacks it
# back onto the GPU. And a pack hook that keeps only a placeholder, with an unpack hook
# that recomputes the tensor, keeps almost nothing at all. That is the next section.
#
# ## 6. Gradient checkpointing: memory for time
#
# Chapter 09 measured what a graph keeps for backward: for each op, the arrays its
# backward needs, until backward frees them. In a deep network that is every layer's
# activations, and it grows with the depth and the batch. `checkpoint(f, h)` keeps
# only the block's input `h` (and what it needs to run again), not the activations
# inside the block; when backward reaches the block it runs `f(h)` again and
# backpropagates through what that recomputes. The activations inside the block exist
# for a moment instead of from forward to the end of backward. The price: one more
# forward pass of each checkpointed block. How the block's first run avoids keeping
# its activations depends on the variant (`use_reentrant`, below): the reentrant one
# runs it without recording; the non-reentrant one records the graph as usual but,
# through section 5's `saved_tensors_hooks`, stores a placeholder in place of each
# saved tensor, and the first time backward unpacks one, it reruns the block to get
# them all.
#
# Our network: blocks $h \mapsto \tanh(\tanh(h W_1) W_2)$, float64, batch 16, width 32,
# run as `h = checkpoint(segment, h, use_reentrant=...)`, where `segment` runs a few
# blocks one after the other. The gradients are the same with and without checkpointing, in both
# libraries and with both variants of `checkpoint` (`use_reentrant`, below):

# %%
memory = CheckpointMemory(depth=4, every=0)  # seeded weights and input, both libraries


def run_blocks(h, blocks):
    for block in blocks:
        h = block(h)
    return h


def weight_grads(lib, every, use_reentrant=True):
    """The weights' gradients of sum(net(x)), with a checkpoint every `every` blocks."""
    ckpt = checkpoint if lib is minigrad else torch.utils.checkpoint.checkpoint
    weights = [(lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True))
               for a, b in memory.weights[:4]]
    blocks = [lambda h, w1=w1, w2=w2: ((h @ w1).tanh() @ w2).tanh() for w1, w2 in weights]
    h = lib.tensor(memory.x0, requires_grad=True)
    if not every:
        h = run_blocks(h, blocks)
    else:
        for start in range(0, len(blocks), every):  # one checkpoint per segment
            segment = functools.partial(run_blocks, blocks=blocks[start:start + every])
            h = ckpt(segment, h, use_reentrant=use_reentrant)
    h.sum().backward()
    return [w.grad for pair in weights for w in pair]


plain_t = weight_grads(torch, 0)
rows = {}
for every, reentrant in [(0, True), (1, True), (2, True), (1, False)]:
    grads, grads_t = weight_grads(minigrad, every, reentrant), weight_grads(torch, every,
                                                                            reentrant)
    label = f"every {every}, use_reentrant={reentrant}" if every else "no checkpointing"
    rows[f"W grads, {label}"] = (np.concatenate([g.numpy().ravel() for g in grads]),
                                 torch.cat([g.ravel() for g in grads_t]))
    rows[f"W grads, {label}, vs torch unchecked"] = (
        np.concatenate([g.numpy().ravel() for g in grads]), torch.cat([g.ravel() for g in plain_t]))
check_all(rows, rtol=1e-10, brief=True)

# %% [markdown]
# What is kept, measured with chapter 09's `saved_bytes` (minigrad) and, in torch,
# section 5's saved-tensor hooks, without the weights, which are kept
# anyway. Without checkpointing each block keeps three activations: its input (for the
# first matrix product) and its two `tanh` outputs (the first is also the second
# product's input). Its last `tanh` output is the next block's input, so consecutive
# blocks share one array: $2$ new arrays a block, plus the network's input, $2 \cdot
# \text{depth} + 1$ arrays (not $3 \cdot \text{depth}$) of $16 \cdot 32 \cdot 8$
# bytes $= 4$ KiB. With a
# checkpoint every $k$ blocks only each segment's input is kept: $\lceil \text{depth} /
# k \rceil$ arrays. During backward, one segment at a time is recorded again, $2k$
# arrays more, so the *peak* is about $\text{depth}/k + 2k$ arrays, smallest near $k =
# \sqrt{\text{depth}/2}$ (the classic $\sqrt{n}$ memory of checkpointing). Each point
# below is measured; torch keeps the same bytes:

# %%
depths = [1, 2, 4, 6, 8, 10, 12]
settings = [0, 1, 2, 4]
kept, peak, rows = {}, {}, {}
for every in settings:
    kept[every], peak[every] = [], []
    for depth in depths:
        memory.set(depth, every)
        r = memory.results
        kept[every].append(r["kept"] / 1024)
        peak[every].append(r["peak"] / 1024)
        rows[f"depth {depth}, every {every}: bytes kept"] = (r["kept"], r["torch_kept"])
        segments = -(-depth // every) if every else 2 * depth + 1
        rows[f"depth {depth}, every {every}: arrays kept"] = (r["kept"] // 4096, segments,
                                                              "formula")
fig, axes = plt.subplots(1, 2, figsize=(10, 3.4), sharey=True)
for every in settings:
    label = f"every {every}" if every else "no checkpointing"
    axes[0].plot(depths, kept[every], "o-", label=label)
    axes[1].plot(depths, peak[every], "o-", label=label)
axes[0].set_title("kept from forward to backward")
axes[1].set_title("peak during backward (kept + one segment)")
for ax in axes:
    ax.set_xlabel("depth (blocks)")
axes[0].set_ylabel("KiB (weights not counted)")
axes[0].legend()
fig.tight_layout()
plt.show()
check_all(rows, brief=True)

# %% [markdown]
# Without checkpointing the memory grows by 8 KiB a block; checkpointing every block
# halves it, every 4 blocks keeps an eighth of it, but its peak pays for the 4 blocks
# recorded again at once. The time price is one more forward pass per checkpointed
# block, counted by the model (every block ran twice) and timed (best of 5, after one
# untimed run; your times will differ):

# %% tags=nbval-ignore-output
memory.set(12, 2)
print("block forwards run again in backward:", memory.results["recomputed"])
with_ckpt, without = memory.measure()
print(f"forward + backward, 12 blocks: {with_ckpt * 1e3:.2f} ms with a checkpoint every 2 "
      f"blocks, {without * 1e3:.2f} ms without ({with_ckpt / without:.2f}x)")

# %% [markdown]
# That ratio (between 1.5 and 2 when this chapter was built; yours will differ) is the
# price of the memory saved: 12 block forwards run again, and each checkpoint node
# starts a small backward pass of its own for its segment.

# %%
check("recomputed block forwards: every block once", memory.results["recomputed"], 12,
      against="formula")

# %% [markdown]
# **`use_reentrant`.** Torch has two implementations. The original (*reentrant*) runs
# the block under `no_grad` and gives the node only the block's inputs: if no input
# requires grad, the node records nothing, torch warns, and the weights *inside* the
# block get no gradient. The newer one (`use_reentrant=False`, torch's recommendation)
# records the block's ops as usual, so the weights inside are in the graph like any
# others, and only swaps what those ops save for placeholders (saved-tensor hooks)
# that the recomputation fills; it works in both cases (and with `autograd.grad`). Torch
# asks you to choose: calling `checkpoint` without `use_reentrant` warns (and will
# raise in a later torch). minigrad has both, with torch's warnings:

# %%
def reentrant_cases(lib, ckpt):
    W = lib.tensor([[0.5, -1.0], [2.0, 0.3]], requires_grad=True)
    x = lib.tensor([[1.0, 2.0]])  # does not require grad

    def block(h):
        return (h @ W).tanh()

    out = {}
    for case, kwargs in [("not passed", {}), ("True", {"use_reentrant": True}),
                         ("False", {"use_reentrant": False})]:
        W.grad = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = ckpt(block, x, **kwargs)
        if y.requires_grad:
            y.sum().backward()
        out[case] = ([str(w.message)[:58] for w in caught],
                     None if W.grad is None else W.grad.tolist())
    return out


mine = reentrant_cases(minigrad, checkpoint)
theirs = reentrant_cases(torch, torch.utils.checkpoint.checkpoint)
rows = {}
for case, (messages, grad) in mine.items():
    print(f"use_reentrant {case}: W.grad = {grad}")
    for m in messages:
        print("    warns:", m, "...")
    messages_t, grad_t = theirs[case]
    rows[f"use_reentrant {case}: torch's warnings, word for word"] = (
        messages == messages_t, True, "by hand")
    rows[f"use_reentrant {case}: W.grad is None"] = (grad is None, grad_t is None)
    if grad is not None:
        rows[f"use_reentrant {case}: W.grad"] = (grad, grad_t)
check_all(rows)

# %% [markdown]
# So with `use_reentrant=True` make sure the block's input requires grad (the first
# block's input is the data, which usually does not: `x.requires_grad_()` fixes it), or
# use `use_reentrant=False`. The two also build different graphs in torch: the
# reentrant variant leaves one node, `CheckpointFunctionBackward`, for the whole block;
# the other leaves the block's ordinary nodes, so the block's last op is the output's
# `grad_fn`. minigrad uses its one node for both (the gradients are the same, as
# above):

# %%
W, Wt = minigrad.ones(2, 2, requires_grad=True), torch.ones(2, 2, requires_grad=True)
x, xt = minigrad.ones(1, 2, requires_grad=True), torch.ones(1, 2, requires_grad=True)
for reentrant in (True, False):
    y = checkpoint(lambda h: (h @ W).tanh(), x, use_reentrant=reentrant)
    yt = torch.utils.checkpoint.checkpoint(lambda h: (h @ Wt).tanh(), xt,
                                           use_reentrant=reentrant)
    print(f"use_reentrant={reentrant}: minigrad {y.grad_fn.name()}, torch {yt.grad_fn.name()}")
    check(f"use_reentrant={reentrant}: the output", y, yt, brief=True)

# %% [markdown]
# **Randomness in the block.** The recomputation runs the block a second time, so
# anything random in it (a dropout mask) would be drawn again, and backward would
# differentiate a different function from the one forward computed: a wrong gradient,
# with no error. `checkpoint` therefore saves the random generator's state before the
# block's first run and restores it for the recomputation (`preserve_rng_state=True`,
# torch's default), then puts the generator back where it was.
# `preserve_rng_state=False` skips that (a little faster) and is right only for a block
# with nothing random in it. A `Dropout(0.5)` inside a checkpoint, under the same seed
# with and without it: the two libraries draw different masks (their generators
# differ), but each gets its unchecked gradient back only when the state is preserved:

# %%
def dropout_grads(lib, ckpt, preserve):
    """x.grad of sum(dropout(3 x)) under seed 0: without checkpoint, then with it."""
    drop = lib.nn.Dropout(0.5)

    def block(h):
        return drop(h * 3.0)

    grads = []
    for checkpointed in (False, True):
        lib.manual_seed(0)
        x = lib.ones(8, requires_grad=True)
        y = (ckpt(block, x, use_reentrant=False, preserve_rng_state=preserve)
             if checkpointed else block(x))
        y.sum().backward()
        grads.append(x.grad.tolist())
    return grads


rows = {}
for preserve in (True, False):
    mine = dropout_grads(minigrad, checkpoint, preserve)
    theirs = dropout_grads(torch, torch.utils.checkpoint.checkpoint, preserve)
    print(f"preserve_rng_state={preserve}: minigrad {mine[0]} -> {mine[1]}")
    print(f"{'':25}torch    {theirs[0]} -> {theirs[1]}")
    rows[f"preserve_rng_state={preserve}: gradient as without checkpoint"] = (
        mine[0] == mine[1], theirs[0] == theirs[1])
check_all(rows | {"the state preserved: the same gradient": (
    rows["preserve_rng_state=True: gradient as without checkpoint"][0], True, "by hand")})

# %% [markdown]
# Try it. The sliders set the depth and the segment length $k$ ($0$: no checkpointing);
# the readout shows what is kept (minigrad's bytes and torch's saved tensors), the peak
# during backward, the blocks run again, whether the weights' gradients still match
# torch's; "measure" times forward + backward. The widget works on its own network.

# %%
checkpoint_memory_widget(depth=6, every=0)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 16.1: a stable softplus (3 points)
#
# $\mathrm{softplus}(x) = \log(1 + e^x)$, a smooth ReLU, is $\mathrm{lse}(0, x)$. Write
# its `Function`: `forward(ctx, x)` gets a tensor and returns softplus of each
# element, without overflow or underflow to a wrong value (at $x = 800$, $e^x$ is `inf`;
# at $x = -40$, $1 + e^x$ rounds to $1$ and its log to $0$, while the answer is $4.2
# \cdot 10^{-18}$); `backward(ctx, grad_output)` returns `grad_output` times the
# derivative, $\sigma(x) = e^x / (1 + e^x)$, computed stably too. In forward, where
# nothing is recorded, use numpy on the values, `a = x.detach().numpy()` (`np.exp`,
# `np.log1p`, `np.abs`, `np.maximum`; minigrad has no `log1p`), return
# `minigrad.tensor(...)` of the result, and `ctx.save_for_backward` tensors. The backward
# must be **twice differentiable**, as section 1's `LogSumExp` is: operators only
# (`math.e ** (...)`, `*`, `+`) on what `saved_tensors` returns, so that a recorded
# backward pass (`create_graph=True`) can record it. A numpy function there gives the
# right first derivative but cannot record. The check calls your `forward` and
# `backward` directly with every backward pass switched off (minigrad's and torch's),
# then through `Softplus.apply` and `backward()`, and compares with torch's
# `torch.logaddexp(0, x)` to 12 digits, with no absolute slack; then it runs minigrad's
# `gradgradcheck` on `Softplus.apply`.
#
# <details><summary>Hint</summary>
#
# Section 1's shift with $m = \max(x, 0)$: $\log(1 + e^x) = \max(x, 0) + \log(e^{-m} +
# e^{x - m}) = \max(x, 0) + \mathrm{log1p}(e^{-|x|})$, and `np.log1p(u)` is exact for
# tiny $u$ where `np.log(1 + u)` is not. For the derivative, as in section 1: $\sigma(x)
# = e^{x - \mathrm{softplus}(x)}$, and $x - \mathrm{softplus}(x) \le 0$. Save what
# backward needs (`x`, or `x` and the output).
# </details>

# %% solution=ex16-softplus
class Softplus(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        """softplus of each element of the tensor x, stably."""
        ### BEGIN SOLUTION
        a = x.detach().numpy()
        y = minigrad.tensor(np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a))))
        ctx.save_for_backward(x, y)
        return y
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        """grad_output times sigmoid(x), stably."""
        ### BEGIN SOLUTION
        x, y = ctx.saved_tensors
        return grad_output * math.e ** (x - y)  # sigmoid(x), with x - y <= 0
        ### END SOLUTION

# %% test=ex16-softplus-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 16.1", hint="if forward fails only at large |x|, find where exp "
            "overflows or 1 + a tiny number rounds to 1; if gradgradcheck fails, look at "
            "what your backward computes with: can a recorded pass see it?") as g:
    def forward_then_backward(x0, v):
        ctx = Softplus()
        out = Softplus.forward(ctx, minigrad.tensor(x0))
        grad = Softplus.backward(ctx, minigrad.tensor(v))
        return out, grad[0] if isinstance(grad, tuple) else grad

    forward_then_backward.__name__ = "Softplus.forward and backward"

    def through_apply(x0, v):
        x = minigrad.tensor(x0, requires_grad=True)
        Softplus.apply(x).backward(minigrad.tensor(v))
        return x.grad

    through_apply.__name__ = "Softplus.apply"

    numpy_on_tensor = {"numpy-on-tensor": (
        "numpy was handed a minigrad tensor, which it does not take: which values does "
        "your numpy work on, and could a recorded backward pass follow numpy?", TypeError)}

    def forward_mistakes(x0):
        """What the common unstable forwards give at x0 (numpy, as they compute it)."""
        with np.errstate(over="ignore"):
            return {
                "naive-forward": ("your softplus is inf or 0 where |x| is large: what is "
                                  "exp(800) in float64, and 1 + exp(-40)?",
                                  np.log(1 + np.exp(x0))),
                "shift-without-abs": ("your softplus overflows for large negative x: what "
                                      "does the shift's exp give there, and which sign "
                                      "keeps its exponent at most 0?",
                                      np.maximum(x0, 0) + np.log1p(np.exp(-x0))),
                "log-not-log1p": ("your softplus is 0 where x is very negative: what is "
                                  "1 + exp(-40) in float64?",
                                  np.maximum(x0, 0) + np.log(1 + np.exp(-np.abs(x0)))),
            }

    def backward_mistakes(xt, softplus, v):
        """What the common wrong derivatives give, from torch's softplus and sigmoid."""
        sigmoid, sigmoid_minus = torch.sigmoid(xt).numpy(), torch.sigmoid(-xt).numpy()
        return {
            "output-itself": ("your backward multiplies by softplus itself: which function "
                              "is softplus' derivative?", v * softplus),
            "sigmoid-of-minus-x": ("your derivative is largest where x is very negative: "
                                   "which way does softplus rise?", v * sigmoid_minus),
            "ignores-grad-output": ("your backward gives the same whatever grad_output is: "
                                    "what does the chain rule multiply your derivative by?",
                                    sigmoid),
        }

    def check_softplus(name, x0, v):
        out, grad = g.call(forward_then_backward, x0.copy(), v.copy(), forbid="autograd",
                           mistakes=numpy_on_tensor)
        grad_apply = g.call(through_apply, x0.copy(), v.copy(), forbid="torch.autograd",
                            mistakes=numpy_on_tensor)
        xt = torch.tensor(x0, requires_grad=True)
        reference = torch.logaddexp(torch.zeros_like(xt), xt)
        reference.backward(torch.tensor(v))
        g.check(f"{name}: forward", out, reference, rtol=1e-12, atol=0,
                mistakes=forward_mistakes(x0))
        wrong = backward_mistakes(xt.detach(), reference.detach().numpy(), v)
        g.check(f"{name}: backward", grad, xt.grad, rtol=1e-12, atol=0, mistakes=wrong)
        g.check(f"{name}: x.grad after apply and backward()", grad_apply, xt.grad,
                rtol=1e-12, atol=0, mistakes=wrong)

    def twice(x0):
        """minigrad's gradgradcheck of Softplus.apply; a failure's message, or ''."""
        x = minigrad.tensor(x0, requires_grad=True)
        try:
            minigrad.autograd.gradgradcheck(Softplus.apply, (x,))
        except Exception as error:  # noqa: BLE001 - any failure is the learner's
            return f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"
        return ""

    twice.__name__ = "gradgradcheck(Softplus.apply)"

    def check_twice(name, x0):
        failure = g.call(twice, x0.copy(), forbid="torch.autograd")
        g.require(f"{name}: gradgradcheck passes", failure == "",
                  f"gradgradcheck fails ({failure}); build backward from operators on "
                  "what saved_tensors returns")

    check_softplus("x from -800 to 800", np.array([-800.0, -40.0, -2.0, 0.0, 0.5, 3.0,
                                                   40.0, 800.0]),
                   np.array([1.0, 2.0, -1.0, 0.5, 3.0, -2.0, 1.5, 0.25]))
    check_twice("x from -3 to 2.5", np.array([-3.0, -0.5, 0.2, 2.5]))
    ### BEGIN HIDDEN TESTS
    check_softplus("x = -1000 and 1000", np.array([-1000.0, 1000.0]), np.array([0.7, -1.3]))
    rng = np.random.default_rng(161)
    check_softplus("a 3 x 4 batch", rng.standard_normal((3, 4)) * 10,
                   rng.standard_normal((3, 4)))
    check_softplus("small and large", np.array([-700.0, -35.5, -1e-8, 1e-8, 35.5, 700.0]),
                   rng.standard_normal(6))
    check_twice("a 2 x 3 batch", rng.standard_normal((2, 3)) * 4)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 16.2: clip a gradient by its norm (2 points)
#
# Write `clip_hook(max_norm)`: it returns a hook for `register_hook` that leaves a
# gradient $g$ unchanged if its norm $\lVert g \rVert = \sqrt{\sum g_i^2}$ is at most
# `max_norm`, and otherwise returns $g \cdot \mathrm{max\_norm} / \lVert g \rVert$ (same
# direction, length `max_norm`). The hook gets a minigrad tensor and must return one:
# use tensor operators (`*`, `**`, `.sum()`) and `float(...)` or `.item()` for a number.
# The check registers your hook on a leaf, runs a backward pass and compares the leaf's
# `.grad` with torch's, computed with a torch hook that does the same (it switches off
# torch's backward pass while yours runs). Its first example is section 3's $x = (3,
# -4)$ with $L = \sum x_i^2$: $\partial L / \partial x = (6, -8)$, of norm $10$.
#
# <details><summary>Hint</summary>
#
# `clip_hook` makes a function and returns it (a closure: the inner function can read
# `max_norm`). Inside, which one number decides whether to clip, and by what factor
# must a vector be multiplied to get length `max_norm` without turning it?
# </details>

# %% solution=ex16-clip-hook
def clip_hook(max_norm):
    """A tensor hook: the gradient, scaled down to norm max_norm if it is longer."""
    ### BEGIN SOLUTION
    def clip(grad):
        length = float(((grad * grad).sum()) ** 0.5)
        if length <= max_norm:
            return grad
        return grad * (max_norm / length)
    return clip
    ### END SOLUTION

# %% test=ex16-clip-hook-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 16.2", hint="if only the clipped cases fail, compare the length "
            "of your result with max_norm; if the others fail, a gradient within the limit "
            "must come back as it was") as g:
    def with_your_hook(x0, max_norm, loss):
        x = minigrad.tensor(x0, requires_grad=True)
        handle = x.register_hook(clip_hook(max_norm))
        loss(x).backward()
        handle.remove()
        return x.grad

    with_your_hook.__name__ = "clip_hook"

    def mistakes(grad, max_norm):
        """What the common wrong hooks give on the gradient grad (torch's, unclipped); the
        first that matches is named, so the plainest comes first."""
        norm = np.sqrt((grad ** 2).sum())
        return {
            "not-returned": ("your x.grad is the gradient as it came in, unclipped: what "
                             "does backward take from your hook in its place?", grad),
            "clipped-each-entry": ("your gradient has its entries cut off one by one, so "
                                   "it turned: which one number decides the clipping?",
                                   np.clip(grad, -max_norm, max_norm)),
            "always-scaled": ("your gradient was scaled though it was within the limit: "
                              "when should a hook leave it as it is?", grad * max_norm / norm),
            "squared-norm": ("your clipped gradient is shorter than max_norm: is the sum of "
                             "the squares the length?",
                             grad * max_norm / norm ** 2 if norm ** 2 > max_norm else grad),
            "upside-down": ("your clipped gradient is longer than before: which way round "
                            "is the factor that brings it to length max_norm?",
                            grad * norm / max_norm if norm > max_norm else grad),
            "ignores-max-norm": ("your gradient was clipped to length 1: where does max_norm "
                                 "come in?", grad / norm if norm > 1 else grad),
        }

    def check_clip(name, x0, max_norm, loss):
        got = g.call(with_your_hook, x0.copy(), max_norm, loss, forbid="torch.autograd")
        xt, raw = torch.tensor(x0, requires_grad=True), torch.tensor(x0, requires_grad=True)
        xt.register_hook(lambda grad: grad * min(1.0, max_norm / grad.norm().item()))
        loss(xt).backward()
        loss(raw).backward()
        g.check(f"{name}: x.grad", got, xt.grad, rtol=1e-12, atol=1e-15,
                mistakes=mistakes(raw.grad.numpy(), max_norm))

    check_clip("sum x**2 at (3, -4), max_norm 5", np.array([3.0, -4.0]), 5.0,
               lambda x: (x * x).sum())
    check_clip("sum x**2 at (3, -4), max_norm 20 (no clipping)", np.array([3.0, -4.0]),
               20.0, lambda x: (x * x).sum())
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(162)
    check_clip("a 3 x 2 leaf used twice", rng.standard_normal((3, 2)), 0.75,
               lambda x: (x * x * x).sum() + (x * 2.5).sum())
    check_clip("tanh of a polynomial, max_norm 0.1", rng.standard_normal(5), 0.1,
               lambda x: (x * 0.7 - x * x).tanh().sum())
    check_clip("norm exactly max_norm", np.array([0.0, 1.5, 2.0]), 5.0,
               lambda x: (x ** 2).sum())
    check_clip("a gradient below max_norm, 4 elements", np.array([0.1, -0.2, 0.3, 0.05]),
               3.0, lambda x: (x ** 2).sum() * 0.5)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 16.3: a straight-through sign (2 points)
#
# Write `SignST`, a `Function` used in binary networks: forward returns $\mathrm{sign}(x)$
# ($-1$, $0$ or $1$ per element, `x.sign()`); backward is the straight-through estimator
# with a window: it passes `grad_output` where $-1 < x < 1$ and returns $0$ elsewhere,
# the gradient of $\mathrm{clip}(x, -1, 1)$ (torch's `hardtanh`). The check calls your
# `forward` and `backward` directly with every backward pass switched off, then through
# `SignST.apply` and `backward()`, and compares with torch's detach trick of section 2,
# `sign(x).detach() + hardtanh(x) - hardtanh(x).detach()`.
#
# <details><summary>Hint</summary>
#
# Save `x` in forward. In backward, `x.abs() < 1` is a boolean mask; `grad_output *
# mask` keeps the gradient where it is `True`. Strictly less than $1$: at $x = \pm 1$
# torch's `hardtanh` passes nothing.
# </details>

# %% solution=ex16-sign-st
class SignST(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        """sign(x) of the tensor x."""
        ### BEGIN SOLUTION
        ctx.save_for_backward(x)
        return x.sign()
        ### END SOLUTION

    @staticmethod
    def backward(ctx, grad_output):
        """grad_output where -1 < x < 1, zero elsewhere."""
        ### BEGIN SOLUTION
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() < 1)
        ### END SOLUTION

# %% test=ex16-sign-st-test points=2
import numpy as np
import torch
import torch.nn.functional as F

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 16.3", hint="compare the failing entries' x with the window: "
            "where does the gradient pass, where not, and what happens exactly at the "
            "edges?") as g:
    def forward_then_backward(x0, v):
        ctx = SignST()
        out = SignST.forward(ctx, minigrad.tensor(x0))
        grad = SignST.backward(ctx, minigrad.tensor(v))
        return out, grad[0] if isinstance(grad, tuple) else grad

    forward_then_backward.__name__ = "SignST.forward and backward"

    def through_apply(x0, v):
        x = minigrad.tensor(x0, requires_grad=True)
        SignST.apply(x).backward(minigrad.tensor(v))
        return x.grad

    through_apply.__name__ = "SignST.apply"

    def mistakes(x0, v):
        """What the common wrong backwards give for x0 and grad_output v."""
        return {
            "no-window": ("your gradient passes everywhere, even where |x| >= 1: where "
                          "does hardtanh pass a change through?", v),
            "edges-included": ("your gradient passes at x = -1 or 1: what is the slope of "
                               "hardtanh at its corners, in torch?", v * (np.abs(x0) <= 1)),
            "zero-gradient": ("your gradient is zero everywhere, the true derivative of "
                              "sign: what does a straight-through estimator pass?", 0 * v),
            "window-on-output": ("your gradient passes only where x = 0: is the window on "
                                 "the input or on sign's output?", v * (x0 == 0)),
            "ignores-grad-output": ("your backward gives the same whatever grad_output is: "
                                    "what does the chain rule multiply your window by?",
                                    (np.abs(x0) < 1).astype(np.float64)),
        }

    def check_sign(name, x0, v):
        out, grad = g.call(forward_then_backward, x0.copy(), v.copy(), forbid="autograd")
        grad_apply = g.call(through_apply, x0.copy(), v.copy(), forbid="torch.autograd")
        xt = torch.tensor(x0, requires_grad=True)
        reference = torch.sign(xt).detach() + F.hardtanh(xt) - F.hardtanh(xt).detach()
        reference.backward(torch.tensor(v))
        g.check(f"{name}: forward", out, reference, rtol=1e-12, atol=1e-15, mistakes={
            "round-not-sign": ("your forward rounds x: which three values can sign give?",
                               torch.round(xt.detach()))})
        g.check(f"{name}: backward", grad, xt.grad, rtol=1e-12, atol=1e-15,
                mistakes=mistakes(x0, v))
        g.check(f"{name}: x.grad after apply and backward()", grad_apply, xt.grad,
                rtol=1e-12, atol=1e-15, mistakes=mistakes(x0, v))

    check_sign("x from -1.5 to 2", np.array([-1.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.0]),
               np.array([1.0, 2.0, -3.0, 0.5, 2.0, -1.0, 4.0]))
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(163)
    check_sign("a 4 x 3 batch", rng.standard_normal((4, 3)) * 1.5,
               rng.standard_normal((4, 3)))
    check_sign("near the window's edges", np.array([-1.0001, -0.9999, 0.9999, 1.0001]),
               np.array([0.3, -0.6, 1.2, 2.4]))
    check_sign("all inside", np.array([-0.5, 0.25, 0.75]), np.array([-1.0, 0.5, 3.0]))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 16.4: checkpoints for a memory budget (3 points)
#
# Back to section 6's network, counted in **arrays**: one activation, $16 \times 32$
# float64 numbers, 4 KiB. A *plan* is a list of segment lengths that add up to the
# depth, in order, each segment run through `checkpoint(..., use_reentrant=True)`;
# `[5, 4, 3]` checkpoints a 12-block network in three segments, and the empty list `[]`
# runs it without checkpointing. Segments need not be equal.
#
# Write two functions:
#
# - `predict_memory(depth, plan)`: a dict with the plan's `"kept"` (arrays kept from
#   forward to backward), `"peak"` (arrays during backward: what is kept plus the
#   largest segment recorded again, as section 6 measures it) and `"recomputed"` (block
#   forwards that backward runs again), by counting, without running anything;
# - `plan_checkpoints(depth, budget)`: a plan whose peak is at most `budget` arrays
#   with as few segments as possible (no checkpointing, `[]`, if the plain network
#   fits: each checkpoint node costs a small backward pass of its own), or `None` if no
#   plan fits.
#
# The check compares your predictions with a measurement of each plan (section 6's,
# for segments of any lengths), then measures your plans, on depths up to 12 and
# budgets of its own; while your code runs, the measuring helpers are switched off.
#
# <details><summary>Hint</summary>
#
# Section 6 counted the plain network and equal segments; redo its count for one
# segment at a time. Which arrays does a checkpointed segment keep, and which does it
# record again when backward reaches it? Then, for a given number of segments, which
# lengths make the largest one as short as possible?
# </details>

# %% solution=ex16-checkpoint-plan
def predict_memory(depth, plan):
    """{"kept", "peak", "recomputed"} of a plan (segment lengths; [] for none)."""
    ### BEGIN SOLUTION
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan) + 2 * max(plan), "recomputed": depth}
    ### END SOLUTION


def plan_checkpoints(depth, budget):
    """A plan with the fewest segments whose peak is at most budget arrays, or None."""
    ### BEGIN SOLUTION
    if 2 * depth + 1 <= budget:
        return []
    for segments in range(1, depth + 1):
        longest = -(-depth // segments)
        if segments + 2 * longest <= budget:
            short, extra = divmod(depth, segments)
            return [short + 1] * extra + [short] * (segments - extra)
    return None
    ### END SOLUTION

# %% test=ex16-checkpoint-plan-test points=3
from minigrad.course.checkpoint_plan import measure_plan
from minigrad.course.graph_memory import saved_bytes
from minigrad.course.grading import graded
from minigrad.course.widgets.checkpoint_memory import CheckpointMemory

with graded("Exercise 16.4", hint="compare the failing count with section 6's: which "
            "arrays does one checkpointed segment keep, and which does backward record "
            "again for it? For a plan, how short can the longest of m segments be?") as g:
    routes = [measure_plan, saved_bytes, CheckpointMemory._run]

    def check_predict(depth, plan):
        got = g.call(predict_memory, depth, list(plan), forbid=routes)
        label = f"depth {depth}, plan {list(plan)}"
        g.require(f"{label}: a dict with kept, peak, recomputed", type(got) is dict
                  and {"kept", "peak", "recomputed"} <= set(got),
                  'return {"kept": ..., "peak": ..., "recomputed": ...}')
        measured = measure_plan(depth, plan)
        for key in ("kept", "peak", "recomputed"):
            g.check(f"{label}: {key}", got[key], measured[key], rtol=0, atol=0,
                    against="measured", mistakes=predict_mistakes(depth, plan)[key])

    def predict_mistakes(depth, plan):
        """What the common wrong counts give, by key."""
        three = ("you count three arrays a block: which array do two consecutive blocks "
                 "share?")
        if not plan:
            return {"kept": {"three-per-block": (three, 3 * depth)},
                    "peak": {"three-per-block": (three, 3 * depth)}, "recomputed": {}}
        return {
            "kept": {},
            "peak": {
                "peak-without-segment": ("your peak is the kept arrays alone: what does "
                                         "backward record again when it reaches a "
                                         "segment?", len(plan)),
                "three-per-block": (three, len(plan) + 3 * max(plan)),
                "even-segments-assumed": ("your peak is the one of equal segments: which "
                                          "segment of this plan does backward record "
                                          "again at the peak?",
                                          len(plan) + 2 * -(-depth // len(plan)))},
            "recomputed": {
                "last-not-recomputed": ("your count leaves out the last segment: is the "
                                        "last segment kept from forward, or run again?",
                                        depth - plan[-1])},
        }

    def fewest(depth, budget):
        """The fewest segments of a plan that fits (0: none needed), from the counts."""
        if 2 * depth + 1 <= budget:
            return 0
        return next((m for m in range(1, depth + 1) if m + 2 * -(-depth // m) <= budget),
                    None)

    def partitions(n, m, largest=None):
        """Every way to split n blocks into m segments, the order of the lengths aside."""
        largest = n if largest is None else largest
        if m == 1:
            return [[n]] if n <= largest else []
        return [[k] + rest for k in range(min(n - m + 1, largest), 0, -1)
                for rest in partitions(n - k, m - 1, k)]

    def fewest_measured(depth, budget):
        """The same by measurement: the most even plan of 1, 2, ... segments (its longest
        segment is the shortest; section 6 measured that the peak grows with it), measured
        until one fits."""
        if measure_plan(depth, [])["peak"] <= budget:
            return 0
        for m in range(1, depth + 1):
            if measure_plan(depth, min(partitions(depth, m), key=max))["peak"] <= budget:
                return m
        return None

    def check_plan(depth, budget, reference=fewest):
        plan = g.call(plan_checkpoints, depth, budget, forbid=routes)
        label = f"depth {depth}, budget {budget}"
        best = reference(depth, budget)
        if best is None:
            g.require(f"{label}: no plan fits, None", plan is None,
                      f"no plan of a {depth}-block network peaks at {budget} arrays or "
                      "fewer: return None")
            return
        g.require(f"{label}: a plan of positive lengths adding up to {depth}",
                  type(plan) is list and all(type(k) is int and k > 0 for k in plan)
                  and (not plan or sum(plan) == depth),
                  "return a list of segment lengths (ints) that add up to the depth")
        g.require(f"{label}: {best} segments", len(plan) == best,
                  f"{len(plan)} segments where {best} can fit the budget"
                  if plan is not None else "a plan fits: return it", mistakes={
                      "checkpoints-when-it-fits": (
                          "you checkpoint a network that fits the budget without: what does "
                          "each checkpoint cost that the plain network does not?",
                          best == 0 and bool(plan))})
        peak = measure_plan(depth, plan)["peak"]
        g.require(f"{label}: measured peak {peak} <= {budget}", peak <= budget,
                  f"your plan peaks at {peak} arrays, over the budget of {budget}", mistakes={
                      "uneven-segments": (
                          "your longest segment is longer than it needs to be: how short "
                          "can the longest of this many segments be?",
                          lambda: max(plan) > -(-depth // len(plan)))})

    check_predict(4, [])
    check_predict(6, [2, 2, 2])
    check_predict(7, [4, 1, 2])
    check_plan(11, 11, reference=fewest_measured)
    check_plan(5, 11, reference=fewest_measured)
    check_plan(6, 5, reference=fewest_measured)
    ### BEGIN HIDDEN TESTS
    for depth, plan in [(1, []), (1, [1]), (12, [5, 4, 3]), (9, [1, 7, 1]), (10, [10]),
                        (11, [1] * 11)]:
        check_predict(depth, plan)
    for depth, budget in [(12, 13), (12, 25), (12, 24), (12, 10), (12, 11), (9, 9), (10, 12),
                          (7, 6), (1, 3), (1, 2), (8, 10), (11, 14)]:
        check_plan(depth, budget)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on this chapter's idea. Guess first, then run the cell.
#
# **1.** Inside a `Function`'s `forward`, `x` requires grad. Does `x * 2`, computed
# there, require grad? And the output of `apply`?

# %%
def requires_grad_inside(lib):
    seen = []

    class Twice(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            seen.append(y.requires_grad)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            return 2 * grad_output

    out = Twice.apply(lib.tensor([1.0], requires_grad=True))
    return seen[0], out.requires_grad


print("inside forward, x * 2 requires grad:", requires_grad_inside(minigrad)[0],
      "; the output of apply:", requires_grad_inside(minigrad)[1])
check("(inside, output)", list(requires_grad_inside(minigrad)),
      list(requires_grad_inside(torch)), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# `forward` runs with recording off: the `Function`'s own node, added by `apply`, is
# the only record of what happened, and its `backward` is the only derivative.
# </details>
#
# **2.** A product written as a `Function`, `Mul.apply(a, b)`, whose backward returns
# `(grad_output * b, grad_output * a)`, is called as `Mul.apply(x, x)` at $x = 3$.
# What is `x.grad`?

# %%
def mul_twice(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            return grad_output * b, grad_output * a

    x = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
    Mul.apply(x, x).backward()
    return x.grad


print("x.grad:", mul_twice(minigrad))
check("x.grad of Mul.apply(x, x) at 3", mul_twice(minigrad), mul_twice(torch), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# `x` is both inputs, so it receives both gradients, $3 + 3 = 6 = 2x$, the derivative
# of $x^2$: chapter 04's sum over uses, with no help from the `Function`.
# </details>
#
# **3.** A `Function` for $e^x$ saves its *output* for backward (the derivative of
# $e^x$ is $e^x$). After the forward, the output is changed in place, `y.add_(1)`. What
# does `y.sum().backward()` do: the right gradient, a wrong one, or an error?

# %%
def exp_then_add_(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad_output):
            (y,) = ctx.saved_tensors
            return grad_output * y

    x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
    y = Exp.apply(x)
    y.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return str(error).split(":")[0]
    return x.grad.tolist()


print("minigrad:", exp_then_add_(minigrad))
print("torch:   ", exp_then_add_(torch))
check("the same error in both", exp_then_add_(minigrad) == exp_then_add_(torch), True,
      against="by hand", brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# What `save_for_backward` keeps is checked like any saved tensor (chapter 12): the
# in-place change bumped `y`'s version, and backward refuses rather than use $e^x + 1$
# as the derivative.
# </details>

# %% [markdown]
# ## Summary
#
# - A `Function` is an op of your own: `forward(ctx, ...)` computes and saves with
#   `ctx.save_for_backward`, `backward(ctx, grad_output)` returns one gradient per
#   input, and `apply` runs it. Write it when you know a better backward than the one
#   autograd would trace, or a more stable forward: log-sum-exp with the max shift is
#   $1000 + \log 2$ at $(1000, 1000, -3)$ where the naive graph gives `inf` and the
#   gradient $(\mathrm{nan}, \mathrm{nan}, 0)$ ($0 \cdot \infty$ and $0 \cdot
#   e^{-3}$).
# - Test a hand-written backward with `gradcheck`, and with `gradgradcheck` if it will
#   be differentiated again; a backward written with differentiable operations on what
#   `saved_tensors` returns gives correct second derivatives for free.
# - A straight-through estimator (round or sign forward, identity or clipped identity
#   backward) is deliberately not the derivative: `gradcheck` rejects it, rightly.
# - `register_hook` calls a function on a tensor's gradient; returning a tensor
#   replaces it (scale, clip), `handle.remove()` undoes it. A tensor's hook, on a leaf
#   or not, sees the sum of its contributions, once. Module hooks record a layer's activations
#   (`register_forward_hook`) and gradients (`register_full_backward_hook`).
# - The rest of the toolkit: `ctx.needs_input_grad` lets backward skip (return `None`
#   for) an input that needs no gradient; `ctx.mark_non_differentiable` marks an output
#   such as an index; `@once_differentiable` makes a backward that autograd cannot
#   record (numpy) raise when differentiated again instead of silently giving a wrong
#   second derivative; `jvp` with `ctx.save_for_forward` gives forward mode a tangent
#   rule ($\dot y = p \cdot \dot x$ for lse); `saved_tensors_hooks` sees, and decides,
#   what the graph keeps for backward.
# - `checkpoint` keeps a block's input instead of its activations and runs the block
#   again in backward: with a checkpoint every $k$ blocks, $\text{depth}/k$ inputs are
#   kept and the peak is about $\text{depth}/k + 2k$ activations here, for one more
#   forward per block. Pass `use_reentrant` explicitly; with `True`, the block's input
#   must require grad; `False` records the block and recomputes only what its ops
#   saved. The recomputation replays the forward's random state
#   (`preserve_rng_state=True`), so a dropout draws the same mask twice.
#
# Where this comes from: PyTorch's tutorial "Extending PyTorch" and "Double Backward
# with Custom Functions" (pytorch.org), the documentation of `torch.utils.checkpoint`,
# Bengio, Léonard and Courville (2013) for the straight-through estimator, and Chen et
# al., "Training Deep Nets with Sublinear Memory Cost" (2016), for the $\sqrt{n}$
# checkpointing schedule.
