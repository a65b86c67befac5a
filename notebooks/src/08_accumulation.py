# %% [markdown]
# # 08 Accumulation
#
# `backward()` does not *write* a gradient into `.grad`: it *adds* to whatever is there.
# That one design choice explains a useful trick (splitting a batch that does not fit in
# memory into microbatches, whose gradients add up to the full batch's) and the most
# common bug of hand-written training loops (forgetting to clear the old gradient, so
# every update is pushed by all the previous ones). This chapter shows the rule with the
# example of the course's reference tutorial (see [Sources](../book/sources.md)), the
# ways to clear a gradient (and where clearing to None and to zeros train differently),
# the microbatch trick and where it fails, and the bug, each in minigrad and in PyTorch
# side by side.
#
# **Learning goals.** After this chapter you can
#
# 1. predict `.grad` after several `backward()` calls: the sum of their gradients;
# 2. clear gradients with `zero_grad()` (to `None`, torch's default, or to zeros) and
#    with `.grad.zero_()`, and say how the two differ;
# 3. accumulate microbatch gradients that equal the full-batch gradient, for a sum and
#    for a mean loss (with the right scaling);
# 4. say what happens at a leaf within one backward pass (contributions summed, then
#    added into `.grad`) and across passes (added into `.grad`);
# 5. recognise the stale-gradient bug from its loss curve and in weight space, and fix
#    it.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.accumulation_view import zero_grad_widget
from minigrad.course.tensor_graph import draw_side_by_side
from minigrad.autograd.function import AccumulateGrad

# %% [markdown]
# ## 1. `backward()` adds into `.grad`
#
# The reference tutorial's example: $y = x^2$ and then $z = 3x$, at $x = 2$, each
# followed by `backward()`. First in PyTorch, exactly as the tutorial writes it:

# %%
x = torch.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
print(x.grad)  # tensor(4.)
z = 3 * x
z.backward()
print(x.grad)  # tensor(7.)

# %% [markdown]
# The second gradient, $\frac{dz}{dx} = 3$, was *added* to the first,
# $\frac{dy}{dx} = 2x = 4$: $4 + 3 = 7$. The same lines with `torch` replaced by
# `minigrad`, then torch's numbers (`xt`) for comparison:

# %%
x = minigrad.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
print(x.grad)  # tensor(4.)
z = 3 * x
z.backward()
print(x.grad)  # tensor(7.)

xt = torch.tensor(2.0, requires_grad=True)
(xt ** 2).backward()
(3 * xt).backward()
check("x.grad after y.backward(), then z.backward()", x.grad, xt.grad, brief=True)

# %% [markdown]
# Where does the adding happen? A leaf's node in the graph is its `AccumulateGrad`:
# the first gradient that reaches it becomes `.grad`, every later one is added in
# place.

# %%
show_source(AccumulateGrad.accumulate)

# %% [markdown]
# Both graphs, `y` and `z`, end at the *same* node: a leaf has one `AccumulateGrad`,
# whichever graph reaches it.

# %%
xt = torch.tensor(2.0, requires_grad=True)
yt, zt = xt ** 2, 3 * xt
x = minigrad.tensor(2.0, requires_grad=True)
ym, zm = x ** 2, 3 * x
same_t = yt.grad_fn.next_functions[0][0] is zt.grad_fn.next_functions[0][0]
same_m = ym.grad_fn.next_functions[0] is zm.grad_fn.next_functions[0]
print("one AccumulateGrad for x in both graphs:", same_m, "(minigrad),", same_t, "(torch)")
check("same node", same_m, same_t, brief=True)

# %% [markdown]
# Now put both uses in *one* graph, $L = x^2 + 3x$, and call `backward()` once. The
# drawing (from `minigrad.course.tensor_graph`, minigrad's graph beside torch's) shows
# the two paths meeting at x's one `AccumulateGrad`. Within one backward pass, torch's
# engine first *sums* what arrives at a node from every path ($4 + 3$ in the node's
# input buffer) and runs the node once, when all its inputs are in. A hook that torch
# calls each time `AccumulateGrad` has run (`register_post_accumulate_grad_hook`) fires
# once, with `.grad` already 7. Across calls (the cells above) there is nothing to sum
# first, so each `backward()` runs `AccumulateGrad` once and the adding happens in
# `.grad`.

# %%
xt = torch.tensor(2.0, requires_grad=True)
x = minigrad.tensor(2.0, requires_grad=True)
draw_side_by_side(x ** 2 + 3 * x, xt ** 2 + 3 * xt)

# %%
xt = torch.tensor(2.0, requires_grad=True)
runs_t = []
xt.register_post_accumulate_grad_hook(lambda leaf: runs_t.append(leaf.grad.item()))
(xt ** 2 + 3 * xt).backward()
print("torch: AccumulateGrad ran", len(runs_t), "time(s), .grad after each run:", runs_t)
check_all({"AccumulateGrad runs": (len(runs_t), 1, "by hand"),
           "x.grad after one backward of x**2 + 3*x": (xt.grad, 7.0, "by hand")})

# %% [markdown]
# minigrad's engine does the same: what reaches a leaf from every path is summed first
# (here 4 and 3), then `accumulate` runs once. minigrad has torch's hook too (chapter 16):

# %%
x = minigrad.tensor(2.0, requires_grad=True)
runs = []
x.register_post_accumulate_grad_hook(lambda leaf: runs.append(leaf.grad.item()))
(x ** 2 + 3 * x).backward()
print("minigrad: AccumulateGrad ran", len(runs), "time(s), .grad after each run:", runs)
check_all({"AccumulateGrad runs": (len(runs), len(runs_t)),
           "x.grad after one backward of x**2 + 3*x": (x.grad, xt.grad)}, brief=True)

# %% [markdown]
# Adding in place means `x.grad` stays the *same tensor* across calls, in both
# libraries: a reference to it taken earlier sees the new value. (Except under
# `backward(create_graph=True)`, chapter 15: there both libraries add out of place, to
# record the addition, and `.grad` becomes a new tensor with a `grad_fn`.)

# %%
x = minigrad.tensor(2.0, requires_grad=True)
xt = torch.tensor(2.0, requires_grad=True)
(x ** 2).backward()
(xt ** 2).backward()
first, first_t = x.grad, xt.grad
(3 * x).backward()
(3 * xt).backward()
print("same tensor:", first is x.grad, "(minigrad),", first_t is xt.grad, "(torch)")
check("the reference taken after the first backward", first, first_t, brief=True)

# %% [markdown]
# ## 2. Clearing gradients
#
# Because gradients add up, something has to clear them before the next batch. There
# are two ways to clear, and torch offers both:
#
# - **set to None** (`x.grad = None`, `model.zero_grad()`, `optimizer.zero_grad()`,
#   torch's default since 2.0): the memory is released, the next `backward()` *assigns*
#   a fresh gradient, and an optimizer skips a parameter whose `.grad` is None;
# - **set to zero** (`x.grad.zero_()`, `zero_grad(set_to_none=False)`): the tensor is
#   kept and filled with zeros, and the next `backward()` adds into it.
#
# First `.grad.zero_()`, on the reference tutorial's example: after clearing,
# $y = x^2$ gives $4$ again, not $11$.

# %%
x = minigrad.tensor(2.0, requires_grad=True)
xt = torch.tensor(2.0, requires_grad=True)
(x ** 2 + 3 * x).backward()
(xt ** 2 + 3 * xt).backward()
x.grad.zero_()
xt.grad.zero_()
print(x.grad)  # tensor(0.)
(x ** 2).backward()
(xt ** 2).backward()
print(x.grad)  # tensor(4.)
check("x.grad after zero_() and y.backward()", x.grad, xt.grad, brief=True)

# %% [markdown]
# Now a layer. A small helper builds the same `Linear` in both libraries, in float64,
# copying torch's initial weights into minigrad with `load_state_dict`, so every later
# number can be compared.

# %%
def twin_linears(seed, n_in=3, n_out=1):
    """(minigrad Linear, torch Linear) with torch's initial weights, in float64."""
    torch.manual_seed(seed)
    theirs = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
    ours = minigrad.nn.Linear(n_in, n_out, dtype=minigrad.float64)
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


torch.manual_seed(0)
X_t = torch.randn(16, 3, dtype=torch.float64)
y_t = torch.randn(16, 1, dtype=torch.float64)
X, y = minigrad.tensor(X_t.numpy()), minigrad.tensor(y_t.numpy())
model, model_t = twin_linears(seed=1)
check_all({"weight": (model.weight, model_t.weight), "bias": (model.bias, model_t.bias)},
          brief=True)

# %% [markdown]
# After a backward, both have gradients; `model.zero_grad()` sets them to None, and
# `zero_grad(set_to_none=False)` to zeros:

# %%
def grads(m):
    """What each parameter's .grad holds, in words."""
    return ["None" if p.grad is None else f"{tuple(p.grad.shape)} array"
            for p in m.parameters()]


((model(X) - y) ** 2).mean().backward()
((model_t(X_t) - y_t) ** 2).mean().backward()
print("after backward:  ", grads(model), grads(model_t))
model.zero_grad()
model_t.zero_grad()
print("after zero_grad: ", grads(model), grads(model_t))
check("parameters whose .grad is None", sum(p.grad is None for p in model.parameters()),
      sum(p.grad is None for p in model_t.parameters()), brief=True)

# %%
((model(X) - y) ** 2).mean().backward()
((model_t(X_t) - y_t) ** 2).mean().backward()
model.zero_grad(set_to_none=False)
model_t.zero_grad(set_to_none=False)
check_all({"weight.grad (zeros)": (model.weight.grad, model_t.weight.grad),
           "bias.grad (zeros)": (model.bias.grad, model_t.bias.grad)}, brief=True)

# %% [markdown]
# `optimizer.zero_grad()` does the same for the parameters the optimizer holds (here,
# the whole model). Its code, from the package:

# %%
show_source(minigrad.optim.Optimizer.zero_grad)

# %% [markdown]
# **Where None and zeros differ.** For a parameter that gets a gradient at every step,
# nowhere: a zero `.grad` plus the new gradient is the new gradient. They differ for a
# parameter that gets *no* gradient in some step: a layer skipped for that batch, the
# embedding row of a word absent from it. Plain SGD moves it by $\eta \cdot 0$ either
# way. But SGD with *momentum* (chapter 10) keeps a running sum of past gradients per
# parameter, $b \leftarrow \mu b + g$, and steps $p \leftarrow p - \eta b$; and weight
# decay adds $\lambda p$ to the gradient. With `.grad` None, the optimizer skips the
# parameter: it stays where it is. With `.grad` zeros, it takes the step: momentum keeps
# carrying it ($b$ shrinks by $\mu$ each step but is not zero), and weight decay pulls it
# towards zero.
#
# Two scalar parameters, `shared` and `rare`, both start at 0. The first batch's loss
# uses both, $(\text{shared} - 1)^2 + (\text{rare} - 1)^2$; the next three use
# `shared` only. SGD with $\eta = 0.1$ and $\mu = 0.9$, `zero_grad()` before each
# step, in minigrad and in torch:

# %%
def rare_path(lib, set_to_none, momentum=0.9, weight_decay=0.0, steps=4):
    """The value of `rare` after each step; only the first batch's loss uses it."""
    shared = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
    rare = lib.tensor(0.0, dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([shared, rare], lr=0.1, momentum=momentum,
                              weight_decay=weight_decay)
    path = []
    for step in range(steps):
        optimizer.zero_grad(set_to_none=set_to_none)
        loss = (shared - 1) ** 2
        if step == 0:
            loss = loss + (rare - 1) ** 2
        loss.backward()
        optimizer.step()
        path.append(rare.item())
    return path


print("rare after each step, momentum 0.9")
print("  zero_grad(set_to_none=True): ", rare_path(minigrad, True))
print("  zero_grad(set_to_none=False):", [round(v, 4) for v in rare_path(minigrad, False)])
check_all({"set_to_none=True": (rare_path(minigrad, True), rare_path(torch, True)),
           "set_to_none=False": (rare_path(minigrad, False), rare_path(torch, False)),
           "set_to_none=False, weight decay 0.5, no momentum": (
               rare_path(minigrad, False, 0.0, 0.5), rare_path(torch, False, 0.0, 0.5))})

# %% [markdown]
# The first step is the same in both: the gradient $2(0 - 1) = -2$ moves `rare` to
# $0.2$. Then, with None, `rare` stays at $0.2$. With zeros, it goes on moving:
# $b = 0.9 \cdot (-2) + 0 = -1.8$, so `rare` becomes $0.2 + 0.1 \cdot 1.8 = 0.38$, then
# $0.542$, $0.6878$, towards a target no batch asked for; with weight decay and no
# momentum it shrinks instead ($0.2 \to 0.19 \to 0.1805$). Neither is wrong, but they
# are different training runs, which is why torch's switch of the default to
# `set_to_none=True` (in 2.0) could change results.

# %% [markdown]
# ## 3. Microbatches equal the full batch
#
# A loss that *sums* over the examples of a batch has a gradient that sums too:
#
# $$\nabla_\theta \sum_{i=1}^{N} \ell_i = \sum_{k} \nabla_\theta \sum_{i \in B_k} \ell_i$$
#
# for any split of the batch into microbatches $B_1, \dots, B_K$, as long as each
# example's loss $\ell_i$ depends on that example alone. So we can run
# `backward()` on each microbatch in turn, without clearing, and `.grad` ends up
# holding the full-batch gradient, while only one microbatch's graph is in memory at a
# time. We split our 16 examples into 4 microbatches of 4 and compare with torch's
# gradient of the whole batch in one go.

# %%
model, model_t = twin_linears(seed=1)
for rows in np.split(np.arange(16), 4):
    start, stop = rows[0], rows[-1] + 1
    ((model(X[start:stop]) - y[start:stop]) ** 2).sum().backward()

((model_t(X_t) - y_t) ** 2).sum().backward()  # torch: the full batch at once
check_all({"weight.grad, 4 microbatches vs full": (model.weight.grad, model_t.weight.grad),
           "bias.grad, 4 microbatches vs full": (model.bias.grad, model_t.bias.grad)}, brief=True)

# %% [markdown]
# A *mean* loss needs one more step. The full-batch mean is
# $\frac{1}{N}\sum_i \ell_i$; each microbatch's mean is $\frac{1}{n}\sum_{i \in B_k}
# \ell_i$ with $n = N / K$, so summing the $K$ microbatch means gives $K$ times the
# full mean. Dividing each microbatch loss by $K$ before `backward()` fixes it:

# %%
K = 4
model, model_t = twin_linears(seed=1)
for rows in np.split(np.arange(16), K):
    start, stop = rows[0], rows[-1] + 1
    loss = ((model(X[start:stop]) - y[start:stop]) ** 2).mean()
    (loss / K).backward()

((model_t(X_t) - y_t) ** 2).mean().backward()
check_all({"weight.grad, mean loss / K": (model.weight.grad, model_t.weight.grad),
           "bias.grad, mean loss / K": (model.bias.grad, model_t.bias.grad)}, brief=True)

# %% [markdown]
# Forget the division and the accumulated gradient is $K = 4$ times too large: as if
# the learning rate were 4 times larger.

# %%
model = twin_linears(seed=1)[0]
for rows in np.split(np.arange(16), K):
    start, stop = rows[0], rows[-1] + 1
    ((model(X[start:stop]) - y[start:stop]) ** 2).mean().backward()

check("weight.grad without / K, divided by torch's full-batch grad",
      model.weight.grad.numpy() / model_t.weight.grad.numpy(), np.full((1, 3), 4.0))

# %% [markdown]
# The condition "each example's loss depends on that example alone" matters. Batch
# normalisation in training mode breaks it: it subtracts the *batch's* mean from each
# example, so a microbatch sees its own mean, not the full batch's, and the
# accumulated gradient is a different one (the same holds for contrastive losses
# that compare the examples of a batch, and for a mean over tokens when the
# microbatches hold unequal numbers of tokens). A loss that subtracts the batch mean
# of the predictions and targets, as batch norm does, shows it: minigrad's 4
# microbatches and torch's full batch no longer agree, while torch's sum of the 4
# microbatch losses does.

# %%
def centred_loss(pred, target):
    """Squared error after subtracting the batch's mean, as batch norm does: it couples
    the examples of a batch."""
    return (((pred - pred.mean()) - (target - target.mean())) ** 2).sum()


model, model_t = twin_linears(seed=1)
full_t = twin_linears(seed=1)[1]
for rows in np.split(np.arange(16), 4):
    start, stop = rows[0], rows[-1] + 1
    centred_loss(model(X[start:stop]), y[start:stop]).backward()
    centred_loss(model_t(X_t[start:stop]), y_t[start:stop]).backward()
centred_loss(full_t(X_t), y_t).backward()
gap = np.abs(model.weight.grad.numpy() - full_t.weight.grad.numpy()).max()
print(f"4 microbatches vs the full batch: weight.grad differs by up to {gap:.3f}")
check("weight.grad, 4 microbatches", model.weight.grad, model_t.weight.grad,
      against="torch, 4 microbatches", brief=True)

# %% [markdown]
# With a real `BatchNorm1d` layer between two linear layers the gap is the same in
# kind: minigrad's 4 microbatches match torch's 4 microbatches, and neither matches
# the full batch.

# %%
def twin_bn_nets(seed):
    """Linear(3, 4), BatchNorm1d(4), Linear(4, 1) in both libraries, torch's weights."""
    torch.manual_seed(seed)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4, dtype=torch.float64),
                                 torch.nn.BatchNorm1d(4, dtype=torch.float64),
                                 torch.nn.Linear(4, 1, dtype=torch.float64))
    ours = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4, dtype=minigrad.float64),
                                  minigrad.nn.BatchNorm1d(4, dtype=minigrad.float64),
                                  minigrad.nn.Linear(4, 1, dtype=minigrad.float64))
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


net, net_t = twin_bn_nets(seed=1)
full_bn = twin_bn_nets(seed=1)[1]
for rows in np.split(np.arange(16), 4):
    start, stop = rows[0], rows[-1] + 1
    ((net(X[start:stop]) - y[start:stop]) ** 2).sum().backward()
    ((net_t(X_t[start:stop]) - y_t[start:stop]) ** 2).sum().backward()
((full_bn(X_t) - y_t) ** 2).sum().backward()
gap_bn = np.abs(net[0].weight.grad.numpy() - full_bn[0].weight.grad.numpy()).max()
print(f"first layer's weight.grad, 4 microbatches vs the full batch: differs by up to {gap_bn:.1f}")
check("first layer's weight.grad, 4 microbatches", net[0].weight.grad, net_t[0].weight.grad,
      against="torch, 4 microbatches", brief=True)

# %% [markdown]
# ## 4. The stale-gradient bug
#
# The reference tutorial warns: "Without `zero_grad()`, gradients from previous
# batches contaminate the current update." Let us watch it happen. The data: 64
# points of a noisy linear function of 3 inputs. The training loop is one function
# that works for both libraries, since minigrad has torch's names; `clear=False` drops
# the `zero_grad()` call.

# %%
torch.manual_seed(2)
X_reg_t = torch.randn(64, 3, dtype=torch.float64)
w_true = torch.tensor([[2.0], [-1.0], [0.5]], dtype=torch.float64)
y_reg_t = X_reg_t @ w_true + 0.1 * torch.randn(64, 1, dtype=torch.float64)
X_reg, y_reg = minigrad.tensor(X_reg_t.numpy()), minigrad.tensor(y_reg_t.numpy())


def train(lib, model, X, y, steps=30, lr=0.1, clear=True):
    """Full-batch SGD on the mean squared error; returns the losses and gradient norms."""
    optimizer = lib.optim.SGD(model.parameters(), lr=lr)
    losses, grad_norms = [], []
    for _ in range(steps):
        loss = ((model(X) - y) ** 2).mean()
        if clear:
            optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        grad_norms.append(sum((p.grad ** 2).sum().item() for p in model.parameters()) ** 0.5)
    return np.array(losses), np.array(grad_norms)


runs = {}
for clear in (True, False):
    model, model_t = twin_linears(seed=3)
    runs[clear] = (train(minigrad, model, X_reg, y_reg, clear=clear),
                   train(torch, model_t, X_reg_t, y_reg_t, clear=clear))
check_all({f"losses, clear={clear}": (ours[0], theirs[0]) for clear, (ours, theirs) in runs.items()}
          | {f"grad norms, clear={clear}": (ours[1], theirs[1])
             for clear, (ours, theirs) in runs.items()}, brief=True)

# %% [markdown]
# Both libraries agree on both loops, step by step. Now look at them:

# %%
fig, (ax_loss, ax_norm) = plt.subplots(1, 2, figsize=(11, 3.5))
for clear, label in [(True, "with zero_grad()"), (False, "without zero_grad()")]:
    (losses, norms), (losses_t, norms_t) = runs[clear]
    ax_loss.semilogy(losses, label=f"minigrad, {label}")
    ax_loss.semilogy(losses_t, "k:", lw=1)
    ax_norm.plot(norms, label=f"minigrad, {label}")
    ax_norm.plot(norms_t, "k:", lw=1)
ax_loss.plot([], [], "k:", lw=1, label="torch (dotted)")
ax_loss.set(title="loss", xlabel="step")
ax_norm.set(title="norm of the .grad the step used", xlabel="step")
ax_loss.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# With `zero_grad()` the loss falls steadily and the gradient shrinks towards zero.
# Without it, `.grad` at step $t$ is $g_1 + g_2 + \dots + g_t$: the sum of *every*
# gradient so far. Even when the parameters are at a good place and the current
# gradient is small, the old gradients keep pushing them on, past the minimum; then
# the new gradients point back and slowly cancel the old ones. The loss swings up and
# down instead of converging. (This is momentum with $\mu = 1$, no decay at all;
# chapter 10 uses $\mu < 1$, which is useful.)
#
# The same two runs in weight space, for a model small enough to draw: `nn.Linear(1,
# 1)`, whose two parameters $w$ and $b$ are the axes, on 32 points of a noisy line. The
# grey lines are contours of the loss over $(w, b)$. Move the slider: with
# `zero_grad()` each step goes downhill from where it is and settles in the middle;
# without it, the path overshoots and circles, carried by every gradient it has met.
# The readout gives both positions after that many steps, and compares each with
# torch's own `nn.Linear` and `optim.SGD` run the same way (dotted in the picture).

# %%
zero_grad_widget(steps=40, start_step=5)

# %% [markdown]
# Is the stale `.grad` really that sum? Run the stale loop by hand for 5 steps and, at
# each step, also ask for the step's *fresh* gradient with `minigrad.autograd.grad`
# (torch's `torch.autograd.grad`), which returns a gradient without touching `.grad`.
# Add the fresh gradients up and compare.

# %%
model, model_t = twin_linears(seed=3)
optimizer = minigrad.optim.SGD(model.parameters(), lr=0.1)
optimizer_t = torch.optim.SGD(model_t.parameters(), lr=0.1)
fresh_sum = np.zeros((1, 3))
for _ in range(5):
    loss = ((model(X_reg) - y_reg) ** 2).mean()
    fresh_sum += minigrad.autograd.grad(loss, model.weight, retain_graph=True)[0].numpy()
    loss.backward()  # no zero_grad: adds into .grad
    optimizer.step()
    ((model_t(X_reg_t) - y_reg_t) ** 2).mean().backward()
    optimizer_t.step()
check_all({"stale weight.grad vs the sum of the 5 fresh gradients": (model.weight.grad, fresh_sum),
           "stale weight.grad vs torch's": (model.weight.grad, model_t.weight.grad)})

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 8.1: predict the accumulated gradient (2 points)
#
# Three losses are computed from the same tensor $a$ and `backward()` is called on
# each in turn, without clearing: $L_1 = \sum a^3$, $L_2 = \sum 4a$,
# $L_3 = \sum a \cdot a$. Write two functions:
#
# - `predicted_grad(a)`: from a numpy array `a` (of any shape), return a numpy array
#   holding what `.grad` will be after the three calls, *by hand* from the
#   derivatives (the check switches autograd off while it runs);
# - `accumulated(a0)`: make a float64 minigrad tensor from the numpy array `a0` that
#   requires grad, call `backward()` on $L_1$, $L_2$ and $L_3$ in this order (once each,
#   nothing cleared), and return the tensor, so that its `.grad` can be compared.
#
# The worked example is `a = np.array([1.0, -2.0, 0.5])`.
#
# <details><summary>Hint</summary>
#
# Write down the derivative of each loss with respect to one entry $a_i$; `.grad`
# keeps all three, because nothing clears it between the calls. The product
# $a \cdot a$ uses $a$ twice.
# </details>

# %% solution=ex08-predict
def predicted_grad(a):
    """What .grad holds after backward() of sum(a**3), sum(4a), sum(a*a), by hand."""
    ### BEGIN SOLUTION
    return 3 * a ** 2 + 4 + 2 * a
    ### END SOLUTION


def accumulated(a0):
    """A float64 tensor from a0, after the three backward() calls without clearing."""
    ### BEGIN SOLUTION
    a = minigrad.tensor(a0, dtype=minigrad.float64, requires_grad=True)
    (a ** 3).sum().backward()
    (4 * a).sum().backward()
    (a * a).sum().backward()
    return a
    ### END SOLUTION

# %% test=ex08-predict-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 8.1", hint="add up the derivatives of the three losses, and call "
            "backward() once on each loss without clearing in between") as g:
    def torch_accumulated(values):
        """torch's .grad after the three backward() calls, nothing cleared."""
        t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
        (t ** 3).sum().backward()
        (4 * t).sum().backward()
        (t * t).sum().backward()
        return t.grad

    def check_both(values, label):
        got = g.call(predicted_grad, np.array(values, dtype=np.float64), forbid="autograd")
        before = g.calls.get("minigrad.autograd", 0)
        a = g.call(accumulated, np.array(values, dtype=np.float64), forbid="torch.autograd",
                   count="minigrad.autograd")
        calls = g.calls["minigrad.autograd"] - before
        a0 = np.array(values, dtype=np.float64)
        g.check(f"predicted_grad({label})", got, torch_accumulated(values), rtol=1e-12,
                mistakes={
                    "last-loss-only": ("your prediction is the last loss's derivative alone: "
                                       "what does each backward() do to what .grad holds?",
                                       2 * a0),
                    "product-one-factor": ("your derivative of a * a counts one factor: how "
                                           "many factors of a change?", 3 * a0 ** 2 + 4 + a0),
                    "linear-as-4a": ("your derivative of sum(4a) grows with a: what is the "
                                     "slope of 4a?", 3 * a0 ** 2 + 6 * a0)})
        g.require(f"accumulated({label}) is a float64 minigrad.Tensor of a0",
                  type(a) is minigrad.Tensor and a.dtype == minigrad.float64
                  and np.array_equal(a.detach().numpy(), np.array(values)),
                  "return the tensor you made from a0, in float64", mistakes={
                      "ignores-a0": ("your tensor holds the worked example's values: which "
                                     "values does a0 hold?", lambda: np.array_equal(
                                         a.detach().numpy(), [1.0, -2.0, 0.5]))})
        g.require(f"accumulated({label}): backward() called 3 times", calls == 3,
                  f"call backward() once on each loss (it was called {calls} times)")
        g.check(f"accumulated({label}).grad", a.grad, torch_accumulated(values), rtol=1e-12,
                mistakes={"cleared-between": ("your .grad holds the last loss's derivative "
                                              "only: where did the earlier backward() calls' "
                                              "shares go?", 2 * a0)})

    check_both([1.0, -2.0, 0.5], "[1, -2, 0.5]")
    ### BEGIN HIDDEN TESTS
    check_both([0.25, 3.0, -1.5, -0.75, 2.0], "5 other values")
    check_both([[1.5, -0.5], [0.0, -3.25], [2.5, 0.125]], "a 3 x 2 array")
    check_both(-1.0 / 3.0, "a single number")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 8.2: microbatches of unequal size (3 points)
#
# Write `accumulate_microbatches(model, X, y, sizes)`: clear the model's gradients,
# split the rows of `X` and `y` into consecutive microbatches of the given `sizes`
# (they add up to the number of rows), run the model once on each microbatch (and on
# nothing else), and call `backward()` once per microbatch, on its *mean* squared
# error scaled so that `.grad` ends up equal to the gradient of the mean squared error
# over all the rows. With unequal sizes, dividing by the number of microbatches is not
# right any more. The check gives the model stale gradients first, counts the rows of
# each forward pass and the `backward()` calls, and compares with torch's full-batch
# gradient.
#
# <details><summary>Hint</summary>
#
# Write the full mean $\frac{1}{N}\sum_i \ell_i$ as a sum over the microbatches of
# their means, each times a weight: which weight makes the two equal? Keep a running
# start row while you walk through `sizes`.
# </details>

# %% solution=ex08-unequal
def accumulate_microbatches(model, X, y, sizes):
    """Leave in .grad the gradient of the full-batch mean squared error."""
    ### BEGIN SOLUTION
    net = model
    net.zero_grad()
    total = sum(sizes)
    first = 0
    for n in sizes:
        chunk_loss = ((net(X[first:first + n]) - y[first:first + n]) ** 2).mean()
        (chunk_loss * (n / total)).backward()
        first += n
    ### END SOLUTION

# %% test=ex08-unequal-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 8.2", hint="clear the gradients first, then one forward and one "
            "backward() per microbatch; write the full mean as a weighted sum of the "
            "microbatch means: which weights make them equal?") as g:
    class RowCounter(minigrad.nn.Module):
        """A layer that notes how many rows each forward pass gets."""

        def __init__(self, layer):
            super().__init__()
            self.layer, self.rows = layer, []

        def forward(self, x):
            self.rows.append(x.shape[0])
            return self.layer(x)

    def check_sizes(shape_x, n_out, sizes, seed):
        torch.manual_seed(seed)
        theirs = torch.nn.Linear(shape_x[-1], n_out, dtype=torch.float64)
        ours = minigrad.nn.Linear(shape_x[-1], n_out, dtype=minigrad.float64)
        ours.load_state_dict(theirs.state_dict())
        X_t = torch.randn(*shape_x, dtype=torch.float64)
        y_t = torch.randn(*shape_x[:-1], n_out, dtype=torch.float64)
        for p in ours.parameters():  # stale gradients from an earlier batch
            p.grad = minigrad.tensor(np.full(p.shape, 0.5))
        model = RowCounter(ours)
        before = g.calls.get("minigrad.autograd", 0)
        g.call(accumulate_microbatches, model, minigrad.tensor(X_t.numpy().copy()),
               minigrad.tensor(y_t.numpy().copy()), list(sizes), forbid="torch.autograd",
               count="minigrad.autograd")
        calls = g.calls["minigrad.autograd"] - before
        g.require(f"sizes {sizes}: rows of each forward pass", model.rows == list(sizes),
                  f"run the model once on each microbatch (it got {model.rows} rows)")
        g.require(f"sizes {sizes}: one backward() per microbatch", calls == len(sizes),
                  f"call backward() once per microbatch ({calls} calls for {len(sizes)})")
        torch.nn.functional.mse_loss(theirs(X_t), y_t).backward()

        def variant(how):
            """weight.grad as a common mistake computes it (torch, the same start)."""
            torch.manual_seed(seed)
            layer = torch.nn.Linear(shape_x[-1], n_out, dtype=torch.float64)
            total, first, loss = sum(sizes), 0, 0
            for n in sizes:
                rows = slice(0, n) if how == "start-not-advancing" else slice(first, first + n)
                share = {"divided-by-count": 1 / len(sizes), "not-scaled": 1}.get(how, n / total)
                loss = loss + torch.nn.functional.mse_loss(layer(X_t[rows]), y_t[rows]) * share
                first += n
            loss.backward()
            return layer.weight.grad + (0.5 if how == "stale-not-cleared" else 0)

        g.check(f"sizes {sizes}: weight.grad", ours.weight.grad, theirs.weight.grad,
                rtol=1e-9, atol=1e-12, mistakes={
                    "stale-not-cleared": ("your gradient is off by what .grad held before "
                                          "the call: what does the first backward() add "
                                          "to?", lambda: variant("stale-not-cleared")),
                    "divided-by-count": ("each microbatch counts the same in your gradient: "
                                         "does a microbatch of 2 rows weigh as much as one "
                                         "of 5 in the full mean?",
                                         lambda: variant("divided-by-count")),
                    "not-scaled": ("your gradient is a sum of the microbatches' means: how "
                                   "does that compare with one mean over every row?",
                                   lambda: variant("not-scaled")),
                    "start-not-advancing": ("your microbatches all start at row 0: which "
                                            "rows does each one hold?",
                                            lambda: variant("start-not-advancing"))})
        g.check(f"sizes {sizes}: bias.grad", ours.bias.grad, theirs.bias.grad,
                rtol=1e-9, atol=1e-12)

    check_sizes((10, 3), 1, [5, 3, 2], seed=8)
    ### BEGIN HIDDEN TESTS
    check_sizes((10, 3), 1, [1, 9], seed=81)
    check_sizes((10, 3), 1, [2, 2, 2, 2, 2], seed=82)
    check_sizes((7, 4), 2, [3, 1, 3], seed=83)
    check_sizes((7, 4), 2, [7], seed=84)
    check_sizes((6, 2, 3), 2, [4, 2], seed=85)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 8.3: find the stale gradient (2 points)
#
# A colleague trains on a stream of batches and skips the batches whose loss is above
# a threshold (a few of them have corrupted targets, and she does not want to learn
# from those). Here is her loop, run on eight batches of which the fourth is
# corrupted:

# %%
def train_skipping_buggy(model, batches, lr, max_loss):
    """One SGD step per batch, except on batches whose loss is above max_loss."""
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        if loss.item() > max_loss:  # a corrupted batch: do not learn from it
            continue
        optimizer.step()
        optimizer.zero_grad()
    return losses


rng_demo = np.random.default_rng(80)
w_demo = rng_demo.standard_normal((3, 1))
demo_batches = []
for k in range(8):
    X_k = rng_demo.standard_normal((16, 3))
    y_k = X_k @ w_demo + 0.1 * rng_demo.standard_normal((16, 1))
    if k == 3:
        y_k = 30 * y_k  # corrupted targets
    demo_batches.append((minigrad.tensor(X_k), minigrad.tensor(y_k)))
losses_demo = train_skipping_buggy(twin_linears(seed=4)[0], demo_batches, lr=0.1,
                                   max_loss=20.0)
print("loss of each batch:", ", ".join(f"{v:.3g}" for v in losses_demo))

# %% [markdown]
# The fourth batch is skipped, as intended, and yet two batches later the loss jumps
# and stays high, so that the loop skips good batches too. Find out why (print what
# `.grad` holds at each step, or compare one step with the fresh gradient of its
# batch), then write `train_skipping(model, batches, lr, max_loss)`: the same loop,
# fixed, that returns every batch's loss as hers does. A
# skipped batch must change nothing, neither the parameters nor any later step; every
# other batch makes one SGD step (`minigrad.optim.SGD`) with the gradient of its own
# loss. The check hands your loop a model whose parameters still hold gradients from
# earlier work, and batches with corrupted ones at places you do not know, and
# compares every loss and the trained parameters with torch's.
#
# <details><summary>Hint</summary>
#
# Follow `.grad` through the loop by hand for a skipped batch and the batch after it:
# what does the next `step()` use? Then ask the same about the very first step, for a
# model handed to you by someone else.
# </details>

# %% solution=ex08-stale-skip
def train_skipping(model, batches, lr, max_loss):
    """One SGD step per batch on its own gradient; batches above max_loss change nothing."""
    ### BEGIN SOLUTION
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        if loss.item() > max_loss:
            continue
        loss.backward()
        optimizer.step()
    return losses
    ### END SOLUTION

# %% test=ex08-stale-skip-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 8.3", hint="backward() adds to whatever .grad holds: what does "
            "each step() find there, after a skipped batch, and at the very first "
            "step?") as g:
    def simulate(how, arrays, seed, n_in, n_out, lr, max_loss):
        """(losses, weight, bias) as a common wrong loop gives them (torch)."""
        torch.manual_seed(seed)
        model = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
        for p in model.parameters():
            p.grad = torch.full_like(p, 0.5)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        if how == "zero-before-loop":
            opt.zero_grad()
        losses = []
        for X, y in arrays:
            if how in ("no-skip", "break"):
                opt.zero_grad()
            if how == "weight-only-cleared":
                model.weight.grad = None
            loss = ((model(torch.tensor(X)) - torch.tensor(y)) ** 2).mean()
            losses.append(loss.item())
            if how == "break" and loss.item() > max_loss:
                break
            loss.backward()
            if how != "no-skip" and loss.item() > max_loss:
                continue
            if how == "zero-between":
                opt.zero_grad()
            opt.step()
            if how in ("supplied-loop", "zero-before-loop"):
                opt.zero_grad()
        return losses, model.weight.detach(), model.bias.detach()

    LOOPS = {
        "supplied-loop": "your steps use gradients left in .grad, at the first step and "
                         "after a skipped batch: when is .grad cleared in your loop?",
        "zero-before-loop": "a skipped batch's gradient reaches the next step: when is "
                            ".grad cleared after a skipped batch?",
        "zero-between": "your model never changes: what is left in .grad when step() "
                        "runs?",
        "no-skip": "your model learns from the corrupted batches too: does a batch over "
                   "max_loss change the weights?",
        "weight-only-cleared": "your bias steps with gradients left in its .grad: which "
                               "parameters are cleared?",
        "break": "your loop stops at the first corrupted batch: what about the batches "
                 "after it?",
    }

    def check_skipping(seed, n_in, n_out, rows, corrupted, lr, max_loss):
        rng = np.random.default_rng(seed)
        w_true = rng.standard_normal((n_in, n_out))
        arrays = []
        for k in range(len(rows)):
            X_k = rng.standard_normal((rows[k], n_in))
            y_k = X_k @ w_true + 0.1 * rng.standard_normal((rows[k], n_out))
            arrays.append((X_k, 30 * y_k if k in corrupted else y_k))
        torch.manual_seed(seed)
        theirs = torch.nn.Linear(n_in, n_out, dtype=torch.float64)
        ours = minigrad.nn.Linear(n_in, n_out, dtype=minigrad.float64)
        ours.load_state_dict(theirs.state_dict())
        for p in ours.parameters():  # gradients left from earlier work
            p.grad = minigrad.tensor(np.full(p.shape, 0.5))
        name = f"{len(rows)} batches, corrupted {sorted(corrupted)}, lr={lr}"
        batches = [(minigrad.tensor(X.copy()), minigrad.tensor(y.copy())) for X, y in arrays]
        got = g.call(train_skipping, ours, batches, lr, max_loss, forbid="torch.autograd")
        optimizer = torch.optim.SGD(theirs.parameters(), lr=lr)
        losses_t = []
        for X, y in arrays:  # torch: a corrupted batch is left out altogether
            loss = ((theirs(torch.tensor(X)) - torch.tensor(y)) ** 2).mean()
            losses_t.append(loss.item())
            if loss.item() > max_loss:
                continue
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        g.require(f"{name}: skipped as torch", sum(v > max_loss for v in losses_t)
                  == len(corrupted), "internal: the corrupted batches are not the skipped ones")
        runs = {}

        def loops(i):
            def run(how):
                if how not in runs:
                    runs[how] = simulate(how, arrays, seed, n_in, n_out, lr, max_loss)
                return runs[how][i]
            return {how: (nudge, lambda how=how: run(how)) for how, nudge in LOOPS.items()}

        g.check(f"{name}: losses", got, losses_t, rtol=1e-10, atol=1e-12, mistakes=loops(0))
        g.check(f"{name}: weight", ours.weight, theirs.weight, rtol=1e-10, atol=1e-12,
                mistakes=loops(1))
        g.check(f"{name}: bias", ours.bias, theirs.bias, rtol=1e-10, atol=1e-12,
                mistakes=loops(2))

    check_skipping(83, 3, 1, [16] * 8, {3}, lr=0.1, max_loss=20.0)
    ### BEGIN HIDDEN TESTS
    check_skipping(830, 3, 1, [16] * 8, {0}, lr=0.1, max_loss=20.0)
    check_skipping(831, 4, 2, [12, 10, 12, 8, 12, 12], {1, 2}, lr=0.05, max_loss=40.0)
    check_skipping(832, 2, 1, [8] * 6, set(), lr=0.2, max_loss=20.0)
    check_skipping(833, 3, 3, [20, 5, 20, 20, 9, 20, 20], {1, 4}, lr=0.15, max_loss=40.0)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Four questions on the chapter's idea. Write your guess down, then run the cell.
#
# **1.** $L = x^2$ at $x = 3$, and we call `L.backward(retain_graph=True)` and then
# `L.backward()` on the *same* graph. What is `x.grad`?

# %%
x = minigrad.tensor(3.0, requires_grad=True)
L = x ** 2
L.backward(retain_graph=True)
L.backward()
xt = torch.tensor(3.0, requires_grad=True)
Lt = xt ** 2
Lt.backward(retain_graph=True)
Lt.backward()
check("x.grad after two backward() of x**2 at 3", x.grad, xt.grad)

# %% [markdown]
# <details><summary>Why</summary>
#
# Each pass adds its $2x = 6$: $6 + 6 = 12$. Running the same backward twice is no
# different from two losses.
# </details>
#
# **2.** $L = x \cdot x$ uses $x$ twice. How many times does $x$'s `AccumulateGrad`
# run during `L.backward()`, and what is `x.grad` at $x = 3$?

# %%
x = minigrad.tensor(3.0, requires_grad=True)
runs = []
x.register_post_accumulate_grad_hook(lambda leaf: runs.append(leaf.grad.item()))
(x * x).backward()
xt = torch.tensor(3.0, requires_grad=True)
runs_t = []
xt.register_post_accumulate_grad_hook(lambda leaf: runs_t.append(leaf.grad.item()))
(xt * xt).backward()
print("AccumulateGrad ran", len(runs), "time(s), .grad after each run:", runs)
check_all({"runs": (len(runs), len(runs_t)), "x.grad": (x.grad, xt.grad)})

# %% [markdown]
# <details><summary>Why</summary>
#
# Once, with $3 + 3 = 6$: within one pass the engine sums what arrives along the two
# paths before it runs the node. Adding *into* `.grad` is what happens across passes.
# </details>
#
# **3.** After `optimizer.zero_grad()`, with no argument, what does `weight.grad` hold:
# zeros, or something else?

# %%
model, model_t = twin_linears(seed=4)
optimizer = minigrad.optim.SGD(model.parameters(), lr=0.1)
optimizer_t = torch.optim.SGD(model_t.parameters(), lr=0.1)
((model(X) - y) ** 2).mean().backward()
((model_t(X_t) - y_t) ** 2).mean().backward()
optimizer.zero_grad()
optimizer_t.zero_grad()
print("minigrad:", model.weight.grad, "  torch:", model_t.weight.grad)
check("weight.grad is None", model.weight.grad is None, model_t.weight.grad is None)

# %% [markdown]
# <details><summary>Why</summary>
#
# `None`: `set_to_none=True` has been torch's default since 2.0. Code that reads
# `weight.grad` right after `zero_grad()` (to log its norm, say) must expect None.
# </details>
#
# **4.** A model has a parameter that no loss ever uses. We train with momentum 0.9 and
# `zero_grad(set_to_none=False)` before each step. Section 2 showed zeros keep a
# parameter moving; does this one move?

# %%
def unused_after(lib, steps=3):
    used = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
    unused = lib.tensor([1.0], dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([used, unused], lr=0.1, momentum=0.9)
    for _ in range(steps):
        optimizer.zero_grad(set_to_none=False)
        ((used - 2) ** 2).sum().backward()
        optimizer.step()
    return unused.detach(), unused.grad is None


(value, no_grad_m), (value_t, no_grad_t) = unused_after(minigrad), unused_after(torch)
print("unused after 3 steps:", value.item(), " its .grad is None:", no_grad_m)
check_all({"unused": (value, value_t), ".grad is None": (no_grad_m, no_grad_t)})

# %% [markdown]
# <details><summary>Why</summary>
#
# No. `zero_grad(set_to_none=False)` fills an *existing* `.grad` with zeros; a
# parameter that never received a gradient has none to fill, so its `.grad` stays None
# and the optimizer skips it. Only a parameter that got a gradient once and then none
# keeps moving.
# </details>

# %% [markdown]
# ## Summary
#
# - Within one backward pass, torch sums what reaches a leaf along every path and runs
#   its `AccumulateGrad` once; minigrad does the same (`accumulate` runs once, with
#   $4 + 3 = 7$).
# - `backward()` adds into `.grad`; it never replaces it. In the reference tutorial's
#   example, $y = x^2$ then $z = 3x$ at $x = 2$ leave $4$ and then $4 + 3 = 7$, in
#   torch and in minigrad.
# - `zero_grad()` (of a module or an optimizer) sets gradients to None by default, as
#   torch does; `zero_grad(set_to_none=False)` and `.grad.zero_()` fill them with
#   zeros instead. The two differ for a parameter that gets no gradient in a step: with
#   None, SGD skips it; with zeros, momentum keeps moving it (0.2, then 0.38, 0.542,
#   0.6878 in section 2's example) and weight decay shrinks it.
# - Gradients of microbatches add up to the full-batch gradient when each example's
#   loss depends on that example alone: exactly for a sum loss, and for a mean loss
#   once each microbatch's mean is scaled by its share of the batch. Batch norm in
#   training mode, or any loss that couples the examples of a batch, breaks it.
# - Forgetting to clear makes every step use the sum of all past gradients; the loss
#   swings instead of converging. Clear once per optimizer step, before `backward()`.
#
# Next: [09 Disabling gradients](09_disabling_gradients.ipynb), computing without
# building a graph at all.
