# %% [markdown]
# # 12 Common problems
#
# Autograd fails in a handful of ways, and they come back again and again: a gradient
# that never arrives, a gradient that is silently too big, a value changed after it
# was saved, a graph used twice, a `.grad` that stays `None`. This chapter provokes
# each one on purpose, shows torch's error and minigrad's side by side (minigrad
# raises the same exception with torch's key phrase, plus a line that says how to fix
# it), explains what went wrong inside the graph, and applies the fix, checked against
# torch.
#
# **Learning goals.** After this chapter you can
#
# 1. recognise the error of a missing gradient, and find where the graph was cut
#    (no `requires_grad`, `detach()`, a number taken out with `.item()`);
# 2. spot a stale gradient and fix it with `zero_grad()` in the right place;
# 3. explain the two in-place errors: on a leaf, and the version counter of a saved
#    value;
# 4. say why a second `backward()` fails and when `retain_graph=True` is the fix;
# 5. get the gradient of an intermediate tensor with `retain_grad()`.

# %%
import warnings

import matplotlib.pyplot as plt
import torch

import minigrad
from minigrad import check, check_all

# %% [markdown]
# ## 1. Missing gradient: nothing requires grad
#
# The tutorial's first problem. `x` is an ordinary tensor, so `y = x ** 2` records
# nothing, and there is no graph for `backward()` to walk. torch first:

# %% tags=raises-exception
x = torch.tensor(2.0)
y = x ** 2
y.backward()

# %% [markdown]
# minigrad, the same three lines: the same `RuntimeError`, the same words, and the fix.

# %% tags=raises-exception
x = minigrad.tensor(2.0)
y = x ** 2
y.backward()

# %% [markdown]
# The fix is to ask for the gradient *before* computing: `requires_grad=True`.

# %%
x = minigrad.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
xt = torch.tensor(2.0, requires_grad=True)
(xt ** 2).backward()
print(x.grad)  # tensor(4.), as torch's
check("x.grad", x.grad, xt.grad)

# %% [markdown]
# ## 2. Missing gradient: a detached computation
#
# The input may require grad and the graph still be cut on the way: `detach()` (or
# `.item()`, or a trip through numpy) makes a tensor that autograd does not follow.
# If *everything* after the cut is detached, backward fails as above:

# %% tags=raises-exception
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(x.item()) ** 2
y.backward()

# %% tags=raises-exception
x = minigrad.tensor(2.0, requires_grad=True)
y = minigrad.tensor(x.item()) ** 2
y.backward()

# %% [markdown]
# Worse is a *partial* cut: no error at all, just a gradient that is missing a term.
# For $y = x^2 + x^3$ at $x = 2$ the derivative is $2x + 3x^2 = 16$; detach the second
# term and backward quietly returns $4$, in both libraries.

# %%
def partly_detached(lib):
    x = lib.tensor(2.0, requires_grad=True)
    y = x ** 2 + x.detach() ** 3  # the bug: x.detach()
    y.backward()
    return x.grad


print(partly_detached(minigrad))
check("x.grad with a detached term", partly_detached(minigrad), partly_detached(torch))

# %% [markdown]
# The fix is to keep the whole computation on tensors that are in the graph. A quick
# test for a cut: every tensor on the way to the loss should have a `grad_fn`.

# %%
x = minigrad.tensor(2.0, requires_grad=True)
term = x.detach() ** 3
print("grad_fn of the detached term:", term.grad_fn)
y = x ** 2 + x ** 3
y.backward()
xt = torch.tensor(2.0, requires_grad=True)
(xt ** 2 + xt ** 3).backward()
check("x.grad, fixed", x.grad, xt.grad)

# %% [markdown]
# ## 3. Stale gradients: a loop without `zero_grad()`
#
# `backward()` *adds* into `.grad` (chapter 08). The tutorial's second problem is a
# training loop that never clears it:
#
# ```python
# loss.backward()
# optimizer.step()
# # next iteration
# loss.backward()
# optimizer.step()
# ```
#
# Each step then uses the sum of all the gradients so far. We run this loop, and the
# fixed one, on a linear model with mean squared error. One function serves both
# libraries; the models start from the same weights (torch's, loaded into minigrad)
# and everything is float64.

# %%
torch.manual_seed(0)
X_t = torch.randn(8, 3, dtype=torch.float64)
Y_t = torch.randn(8, 1, dtype=torch.float64)
X_m, Y_m = minigrad.tensor(X_t.numpy()), minigrad.tensor(Y_t.numpy())
start = torch.nn.Linear(3, 1, dtype=torch.float64).state_dict()


def train(lib, X, y, steps, zero_grad):
    """Losses of `steps` SGD steps, with or without zero_grad."""
    model = lib.nn.Linear(3, 1, dtype=lib.float64)
    model.load_state_dict(start)
    sgd = lib.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(steps):
        pred = model(X)
        batch_loss = ((pred - y) ** 2).mean()
        if zero_grad:
            sgd.zero_grad()
        batch_loss.backward()
        sgd.step()
        losses.append(batch_loss.item())
    return losses


runs = {}
for zero_grad in (False, True):
    runs[zero_grad] = (train(minigrad, X_m, Y_m, 40, zero_grad),
                       train(torch, X_t, Y_t, 40, zero_grad))
check_all({"losses without zero_grad": runs[False], "losses with zero_grad": runs[True]},
          rtol=1e-10)

# %% [markdown]
# Both libraries agree, bug included. The picture shows what the bug does: the stale
# gradients pile up like a momentum that never decays, and the loss swings instead of
# settling.

# %%
fig, ax = plt.subplots(figsize=(7, 3.8))
for zero_grad, label in [(False, "without zero_grad"), (True, "with zero_grad")]:
    ours, theirs = runs[zero_grad]
    ax.plot(theirs, "-", linewidth=3, alpha=0.4, label=f"torch, {label}")
    ax.plot(ours, "k." if zero_grad else "r.", label=f"minigrad, {label}")
ax.set_yscale("log")
ax.set_xlabel("step")
ax.set_ylabel("mean squared error")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# The fix is the tutorial's order: `optimizer.zero_grad()`, then `loss.backward()`,
# then `optimizer.step()`, every iteration (zeroing anywhere between one `step()` and
# the next `backward()` works).
#
# ## 4. In-place change of a leaf
#
# The tutorial's third problem changes `x` in place after using it:
#
# ```python
# x = torch.randn(3, requires_grad=True)
# y = x ** 2
# x.add_(1.0)  # may break autograd
# ```
#
# In fact it breaks at once, before any backward: `x` is a leaf that requires grad,
# and an in-place change of a leaf is refused while gradients are being recorded
# (its gradient would be the gradient of a value that no longer exists).

# %% tags=raises-exception
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
y = x ** 2
x.add_(1.0)

# %% tags=raises-exception
minigrad.manual_seed(0)
x = minigrad.randn(3, requires_grad=True)
y = x ** 2
x.add_(1.0)

# %% [markdown]
# The error names the fix for a leaf: change it under `no_grad()`, which is exactly
# what an optimizer's `step()` does. Then nothing is recorded, and the number changes.

# %%
minigrad.manual_seed(0)
x = minigrad.randn(3, requires_grad=True)
x_t = torch.tensor(x.data, requires_grad=True)
with minigrad.no_grad():
    x.add_(1.0)
with torch.no_grad():
    x_t.add_(1.0)
check("x after add_ under no_grad", x, x_t)

# %% [markdown]
# ## 5. In-place change of a saved value: the version counter
#
# A non-leaf may be changed in place, and the change is recorded in the graph. But if
# an op *saved* that tensor for its backward, the saved value is now wrong. Here
# `y = h ** 2` saves `h` (its derivative is $2h$), and then `h` changes:

# %% tags=raises-exception
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
h = x * 2
y = h ** 2
h.add_(1.0)
y.sum().backward()

# %% tags=raises-exception
minigrad.manual_seed(0)
x = minigrad.randn(3, requires_grad=True)
h = x * 2
y = h ** 2
h.add_(1.0)
y.sum().backward()

# %% [markdown]
# How does autograd know? Every tensor carries a *version counter* that each in-place
# op increments (`_version`, in torch and minigrad). When `**` saved `h` it noted the
# version, $0$; at backward time it finds $1$ and refuses rather than compute
# $2(h + 1)$ instead of $2h$.

# %%
versions = {}
for lib in (minigrad, torch):
    lib.manual_seed(0)
    x = lib.randn(3, requires_grad=True)
    h = x * 2
    before = h._version
    h.add_(1.0)
    versions[lib.__name__] = (before, h._version)
print(versions)
check("h._version before and after add_", versions["minigrad"], versions["torch"])

# %% [markdown]
# The fix: do not change a saved value; make a new tensor instead (`h = h + 1`), or
# `clone()` before changing. Then backward uses the value that `**` saw. (minigrad's
# `randn` draws its own numbers, so torch's `x` is made from minigrad's data.)

# %%
minigrad.manual_seed(0)
x = minigrad.randn(3, requires_grad=True)
x_t = torch.tensor(x.data, requires_grad=True)
for lib_x in (x, x_t):
    h = lib_x * 2
    y = h ** 2
    h = h + 1.0
    (y.sum() + h.sum()).backward()
check("x.grad, out-of-place", x.grad, x_t.grad)

# %% [markdown]
# ## 6. Backward through the graph a second time
#
# To save memory, backward frees what each op saved as soon as it has used it. A
# second `backward()` on the same graph finds nothing, and says so:

# %% tags=raises-exception
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()
y.backward()

# %% tags=raises-exception
x = minigrad.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()
y.backward()

# %% [markdown]
# Usually the fix is to recompute the forward pass (a training loop does so anyway).
# If you really need two backward passes through one graph, pass `retain_graph=True`
# to all but the last. The gradients then add up: $6 + 6 = 12$.

# %%
x = minigrad.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward(retain_graph=True)
y.backward()
xt = torch.tensor(3.0, requires_grad=True)
yt = xt ** 2
yt.backward(retain_graph=True)
yt.backward()
check("x.grad after two backward passes", x.grad, xt.grad)

# %% [markdown]
# ## 7. `.grad` of a non-leaf is `None`
#
# Only leaves (tensors you made, like `x` and parameters) keep `.grad`; an
# intermediate such as `y = x ** 2` passes its gradient on and forgets it. Reading
# `y.grad` gives `None` and a `UserWarning`. We catch the warning to show it.

# %%
def read_nonleaf_grad(lib):
    x = lib.tensor(2.0, requires_grad=True)
    y = x ** 2
    z = 3 * y
    z.backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = y.grad
    return grad, [str(w.message).split(". ")[0] for w in caught]


for lib in (torch, minigrad):
    print(lib.__name__, read_nonleaf_grad(lib))
check("y.grad is None", read_nonleaf_grad(minigrad)[0] is None,
      read_nonleaf_grad(torch)[0] is None)

# %% [markdown]
# The fix: call `retain_grad()` on the intermediate before backward. Then
# $\frac{\partial z}{\partial y} = 3$ is kept, and $\frac{\partial z}{\partial x} =
# 3 \cdot 2x = 12$ as before.

# %%
retained = {}
for lib in (minigrad, torch):
    x = lib.tensor(2.0, requires_grad=True)
    y = x ** 2
    y.retain_grad()
    z = 3 * y
    z.backward()
    retained[lib.__name__] = (y.grad, x.grad)
check_all({"y.grad": (retained["minigrad"][0], retained["torch"][0]),
           "x.grad": (retained["minigrad"][1], retained["torch"][1])})

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your code and a locked cell that checks it against
# torch. Replace `raise NotImplementedError()` with your answer and run both cells.
#
# ### Exercise 12.1: a training step in the right order
#
# Write `train_step(model, optimizer, X, y)`: one SGD step on the mean squared error
# $\frac{1}{N}\sum (\text{model}(X) - y)^2$, that cannot suffer from stale gradients,
# returning the loss as a Python float. It must work with minigrad's modules (and,
# written with operators, torch's too).
#
# <details><summary>Hint</summary>
#
# Five lines: prediction, loss, `optimizer.zero_grad()`, `loss.backward()`,
# `optimizer.step()`; return `loss.item()`.
# </details>

# %% solution=ex12-train-step
def train_step(model, optimizer, X, y):
    """One SGD step on the mean squared error; returns the loss before the step."""
    ### BEGIN SOLUTION
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    return step_loss.item()
    ### END SOLUTION

# %% test=ex12-train-step-test points=2
# Exercise 12.1 checks: three steps, starting from stale gradients, against torch.
torch.manual_seed(121)
Xs_t = torch.randn(6, 2, dtype=torch.float64)
ys_t = torch.randn(6, 1, dtype=torch.float64)
net_t = torch.nn.Linear(2, 1, dtype=torch.float64)
net_m = minigrad.nn.Linear(2, 1, dtype=minigrad.float64)
net_m.load_state_dict(net_t.state_dict())
opt_t = torch.optim.SGD(net_t.parameters(), lr=0.2)
opt_m = minigrad.optim.SGD(net_m.parameters(), lr=0.2)
net_m.weight.grad = minigrad.ones(1, 2, dtype=minigrad.float64) * 100  # stale
losses_m = [train_step(net_m, opt_m, minigrad.tensor(Xs_t.numpy()),
                       minigrad.tensor(ys_t.numpy())) for _ in range(3)]
losses_t = []
for _ in range(3):
    loss_t = ((net_t(Xs_t) - ys_t) ** 2).mean()
    opt_t.zero_grad()
    loss_t.backward()
    opt_t.step()
    losses_t.append(loss_t.item())
check_all({"losses": (losses_m, losses_t), "weight": (net_m.weight, net_t.weight),
           "bias": (net_m.bias, net_t.bias)}, rtol=1e-10)

# %% [markdown]
# ### Exercise 12.2: softmax without the in-place bug
#
# This softmax divides in place, and its backward fails: `exp` saved its output, which
# `div_` then changed.

# %%
def softmax_inplace(z):
    e = z.exp()
    e.div_(e.sum(dim=1, keepdim=True))
    return e

# %% tags=raises-exception
z_bad = minigrad.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], requires_grad=True)
softmax_inplace(z_bad).sum().backward()

# %% [markdown]
# Write `softmax_fixed(z)`, the same function (softmax along `dim=1` of a 2-D tensor)
# without any in-place op, so that backward works.
#
# <details><summary>Hint</summary>
#
# `e / e.sum(dim=1, keepdim=True)` makes a new tensor; `e` stays as `exp` saved it.
# </details>

# %% solution=ex12-softmax
def softmax_fixed(z):
    """Softmax along dim 1, out of place."""
    ### BEGIN SOLUTION
    e = z.exp()
    return e / e.sum(dim=1, keepdim=True)
    ### END SOLUTION

# %% test=ex12-softmax-test points=2
# Exercise 12.2 checks: values and gradient against torch.softmax.
torch.manual_seed(122)
s_t = torch.randn(4, 5, dtype=torch.float64, requires_grad=True)
mix_t = torch.randn(4, 5, dtype=torch.float64)
s_m = minigrad.tensor(s_t.detach().numpy(), requires_grad=True)
out_m = softmax_fixed(s_m)
(out_m * minigrad.tensor(mix_t.numpy())).sum().backward()
out_t = torch.softmax(s_t, dim=1)
(out_t * mix_t).sum().backward()
check_all({"softmax": (out_m, out_t), "z.grad": (s_m.grad, s_t.grad)})

# %% [markdown]
# ### Exercise 12.3: the gradient of a hidden layer
#
# Write `hidden_grad(x, w1, w2)`: it computes $h = \mathrm{relu}(x W_1)$ and the loss
# $L = \sum (h W_2)^2$, runs backward, and returns $\partial L / \partial h$ (a tensor
# of $h$'s shape), which autograd would otherwise not keep.
#
# <details><summary>Hint</summary>
#
# `h = (x @ w1).relu()`, then `h.retain_grad()` before `backward()`; return `h.grad`.
# </details>

# %% solution=ex12-hidden-grad
def hidden_grad(x, w1, w2):
    """dL/dh for h = relu(x @ w1), L = ((h @ w2) ** 2).sum()."""
    ### BEGIN SOLUTION
    h = (x @ w1).relu()
    h.retain_grad()
    ((h @ w2) ** 2).sum().backward()
    return h.grad
    ### END SOLUTION

# %% test=ex12-hidden-grad-test points=2
# Exercise 12.3 checks: against torch with retain_grad.
torch.manual_seed(123)
x3_t = torch.randn(5, 4, dtype=torch.float64)
w1_t = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
w2_t = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
h_t = (x3_t @ w1_t).relu()
h_t.retain_grad()
((h_t @ w2_t) ** 2).sum().backward()
hg_m = hidden_grad(minigrad.tensor(x3_t.numpy()),
                   minigrad.tensor(w1_t.detach().numpy(), requires_grad=True),
                   minigrad.tensor(w2_t.detach().numpy(), requires_grad=True))
check("dL/dh", hg_m, h_t.grad)

# %% [markdown]
# ## Summary
#
# - `element 0 of tensors does not require grad`: no input requires grad, or the graph
#   was cut (`detach()`, `.item()`). Fix: `requires_grad=True`, keep the computation
#   on tensors.
# - A gradient too small and no error: part of the computation was detached. Check that
#   every tensor on the way to the loss has a `grad_fn`.
# - The loss swings, the updates are too big: stale gradients added up. Fix:
#   `optimizer.zero_grad()` every step.
# - `a leaf Variable that requires grad is being used in an in-place operation`: a
#   parameter changed in place while recording. Fix: change it under `no_grad()`.
# - `modified by an inplace operation`: a value saved for backward was changed, and
#   the version counter noticed. Fix: an out-of-place op, or `clone()` first.
# - `Trying to backward through the graph a second time`: the first backward freed
#   the saved values. Fix: recompute the forward pass, or `retain_graph=True`.
# - `.grad` is `None` on an intermediate, with a warning: only leaves keep `.grad`.
#   Fix: `retain_grad()` before backward.
#
# minigrad raises each of these with torch's exception type and words, and adds the
# fix. Next: [13 Capstone](13_capstone.ipynb), a network's backward pass by hand.
