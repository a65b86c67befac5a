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
#    value, and change a tensor in place only when it is safe;
# 4. say why a second `backward()` fails and when `retain_graph=True` is the fix;
# 5. get the gradient of an intermediate tensor with `retain_grad()`.

# %%
import warnings

import matplotlib.pyplot as plt
import torch
from IPython.display import display

import minigrad
from minigrad import check, check_all
from minigrad.course.widgets.step_order import step_order_widget

# %% [markdown]
# ## 1. Missing gradient: nothing requires grad
#
# The first problem of the course's reference tutorial (see
# [Sources](../book/sources.md)). `x` is an ordinary tensor, so `y = x ** 2` records
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
# test for a cut: every tensor on the way to the loss should have `requires_grad=True`.
# (`grad_fn` tells the same only for results of ops: a leaf such as `x`, or a
# parameter, has `grad_fn = None` and still requires grad.)

# %%
x = minigrad.tensor(2.0, requires_grad=True)
term = x.detach() ** 3
print("x:                 requires_grad", x.requires_grad, " grad_fn", x.grad_fn)
print("the detached term: requires_grad", term.requires_grad, " grad_fn", term.grad_fn)
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
# Chapter 10, section 3 tried a few wrong orders. The widget takes any: pick the four
# calls of one iteration (a call may come twice, or not at all), with or without a
# hidden layer, and it runs ten iterations in minigrad and in torch from the same
# weights: the two loss curves, or the error the loop raises, with its type and key
# phrase in both libraries. Try `backward` twice; try forward, step, zero_grad,
# backward with and without the hidden layer (section 5 explains why only the model
# with the hidden layer fails).

# %% tags=nbval-ignore-output
order_box = step_order_widget()
display(check("the widget's losses: zero_grad, forward, backward, step",
              order_box.run.ours.losses, order_box.run.theirs.losses, rtol=1e-10))
order_box

# %% [markdown]
# ## 4. In-place change of a leaf
#
# The tutorial's third problem changes `x` in place after using it:
#
# ```python
# x = torch.randn(3, requires_grad=True)
# y = x ** 2
# x.add_(1.0)  # may break autograd
# loss = y.sum()
# loss.backward()
# ```
#
# In fact it breaks at once, at `add_`, before the loss is even computed: `x` is a leaf
# that requires grad, and an in-place change of such a leaf is refused while gradients
# are being recorded, whether or not an op has used it yet. The reason is the graph,
# not the saved value: a recorded in-place op rewrites the tensor's history (the
# tensor becomes the output of `add_` and gets a `grad_fn`), but a leaf is the tensor
# that *receives* the gradient (through its `AccumulateGrad` node), so it cannot become
# an op's output.

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
# A leaf that no op has used yet is refused too, in both libraries:

# %%
def add_to_unused_leaf(lib):
    """add_ on a fresh leaf that requires grad: [raised RuntimeError, torch's phrase]."""
    try:
        lib.ones(3, requires_grad=True).add_(1.0)
    except RuntimeError as error:
        return [True, "a leaf Variable that requires grad" in str(error)]
    return [False, False]


print("minigrad:", add_to_unused_leaf(minigrad), " torch:", add_to_unused_leaf(torch))
check("add_ on an unused leaf: [raises, torch's phrase]", add_to_unused_leaf(minigrad),
      add_to_unused_leaf(torch))

# %% [markdown]
# minigrad's message names two ways out: change `x` under `no_grad()` *after*
# `backward()`, or (for a plain tensor) build a new one with `x = x + 1`. Neither works
# *at the `add_` line*, between `y = x ** 2` and `backward()`, as the snippet has it;
# the first one, moved after `backward()`, is the fix shown at the end of this section.
#
# **Under `no_grad()`** the `add_` goes through (nothing is recorded), but `y = x ** 2`
# saved `x`: its derivative $2x$ needs the old value. The tutorial's `loss.backward()`
# then meets the version-counter error of section 5, in both libraries. (minigrad's
# `randn` draws its own numbers, so torch's `x` is made from minigrad's data.)

# %% tags=raises-exception
minigrad.manual_seed(0)
x0 = minigrad.randn(3).data
x = torch.tensor(x0, requires_grad=True)
y = x ** 2
with torch.no_grad():
    x.add_(1.0)
loss = y.sum()
loss.backward()

# %% tags=raises-exception
x = minigrad.tensor(x0, requires_grad=True)
y = x ** 2
with minigrad.no_grad():
    x.add_(1.0)
loss = y.sum()
loss.backward()

# %% [markdown]
# **An out-of-place op**, `x = x + 1`, makes a new tensor and leaves the saved one alone.
# That works for a plain tensor, but `x` is then a non-leaf and is no longer the tensor
# that receives the gradient. For a module's parameter it is refused outright, with a
# `TypeError`, in both libraries: the new tensor would not be a parameter, and
# `parameters()` (and the optimizer) would lose it.

# %% tags=raises-exception
torch.manual_seed(0)
layer_t = torch.nn.Linear(3, 1)
layer_t.weight = layer_t.weight + 1

# %% tags=raises-exception
layer = minigrad.nn.Linear(3, 1)
layer.weight = layer.weight + 1

# %% [markdown]
# The rule: **do not change a tensor that the graph saved, between the forward pass and
# the backward pass.** Change a leaf after `backward()`, under `no_grad()`: exactly what
# an optimizer's `step()` does. The snippet, in that order: the gradient is $2x$ of the
# old $x$, and then $x$ moves.

# %%
results = {}
for lib in (minigrad, torch):
    x = lib.tensor(x0, requires_grad=True)
    y = x ** 2
    loss = y.sum()
    loss.backward()          # first the backward, which reads the saved x
    with lib.no_grad():
        x.add_(1.0)          # then the change, as step() makes it
    results[lib.__name__] = (x.grad, x)
check_all({"x.grad = 2 x (the old x)": (results["minigrad"][0], results["torch"][0]),
           "x after add_": (results["minigrad"][1], results["torch"][1].detach())})

# %% [markdown]
# In place is not always wrong. It is safe on a tensor that no recorded op has saved:
# here `h = x + 1` saves nothing (the derivative of a sum is $1$) and neither does
# multiplying by a number, so `h.mul_(2)` is recorded like `h = h * 2`, and `h ** 2`
# saves the new `h`. The gradient is $2h \cdot 2 = 8(x + 1)$:

# %%
safe = {}
for lib in (minigrad, torch):
    x = lib.tensor(x0, requires_grad=True)
    h = x + 1
    h.mul_(2)                # in place, on a value nothing saved
    loss = (h ** 2).sum()
    loss.backward()
    safe[lib.__name__] = x.grad
check_all({"x.grad, in-place mul_": (safe["minigrad"], safe["torch"]),
           "x.grad = 8 (x + 1)": (safe["minigrad"], 8 * (x0 + 1), "formula")})

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
# This is the error the widget of section 3 raises for forward, step, zero_grad,
# backward, and only with the hidden layer. `step()` changes every weight in place
# (each change bumps the weight's version) between the forward pass and `backward()`.
# That breaks backward only if an op saved a weight. A linear layer saves its weight
# only when its *input* requires grad, since the weight is needed for the input's
# gradient $g W$, not for the weight's own ($g^\top X$ needs the input). A single
# `Linear` on the data saves only `X`, which `step()` does not touch: the loop runs
# (one step late). With a hidden layer, the second `Linear`'s input is the hidden
# activation, which requires grad, so that layer saves its weight, and `step()`
# changes it. The same bug is classic in GAN training with two optimizers: one
# network's `step()` runs before the other's loss, which saved those weights, is
# backpropagated. Both orders, in both libraries:

# %%
def step_before_backward(lib, hidden):
    """Two iterations of forward, step, zero_grad, backward: [raised the in-place error]."""
    lib.manual_seed(0)
    layers = ([lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1)] if hidden
              else [lib.nn.Linear(3, 1)])
    model = lib.nn.Sequential(*layers)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    inputs, targets = lib.ones(8, 3), lib.zeros(8, 1)
    try:
        for _ in range(2):
            loss = ((model(inputs) - targets) ** 2).mean()
            optimizer.step()
            optimizer.zero_grad()
            loss.backward()
    except RuntimeError as error:
        return "modified by an inplace operation" in str(error)
    return False


raised = {lib.__name__: [step_before_backward(lib, hidden) for hidden in (False, True)]
          for lib in (minigrad, torch)}
print("raises [one Linear, with a hidden layer]:", raised)
check_all({"in-place error, [one Linear, hidden layer]": (raised["minigrad"], raised["torch"]),
           "only the model with a hidden layer fails": (raised["torch"], [False, True],
                                                        "by hand")})

# %% [markdown]
# ## 6. Backward through the graph a second time
#
# To save memory, backward frees what each op saved as soon as it has used it. A
# second `backward()` on the same graph finds the saved values gone, and says so.
# Here `x ** 2` saved `x`:

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
# The error comes only where something was saved. `y = x + 1` saves nothing (its
# derivative is $1$, whatever $x$ is), so a second backward through it runs without a
# word, in both libraries, and adds the gradient again: $1 + 1 = 2$.

# %%
twice = {}
for lib in (minigrad, torch):
    x = lib.tensor(3.0, requires_grad=True)
    y = x + 1
    y.backward()
    y.backward()             # no error: nothing was saved, nothing was freed
    twice[lib.__name__] = x.grad
check("x.grad after two backward passes through x + 1", twice["minigrad"], twice["torch"])

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
# Each exercise has a cell for your code and a locked cell that checks it. Replace
# `raise NotImplementedError()` with your answer, run your cell, then run the check
# cell below it: it calls your code on inputs of its own, compares with torch, and
# shows a table, or one line saying what differs and a hint. When you hand the
# chapter in, the grader runs the same checks and a few more on inputs you have not
# seen (other models, learning rates, shapes and dims), so an answer that only fits
# the examples here loses its points. The points of each exercise are in its heading.
#
# ### Exercise 12.1: a training step in the right order (2 points)
#
# Chapter 10, section 2 ran the tutorial's training step inline. Here it becomes a
# function a loop can call: `train_step(model, optimizer, X, y)`, one step of the given
# optimizer on the mean squared error $\frac{1}{N}\sum (\text{model}(X) - y)^2$ (the
# mean over every entry), returning the loss before the step as a Python float. What is
# new: it must be right whatever `.grad` holds when it is called (the check starts from
# stale gradients of 100), for any minigrad model and optimizer (hidden layers,
# momentum, weight decay). The check counts your `backward()` and `step()` calls and
# compares several steps with torch's.
#
# <details><summary>Hint</summary>
#
# Section 3's fixed loop, one iteration of it: what must happen to the old gradients
# before `backward()` adds the new ones? Use the optimizer you are given, and turn the
# loss into a float at the end.
# </details>

# %% solution=ex12-train-step
def train_step(model, optimizer, X, y):
    """One optimizer step on the mean squared error; returns the loss before the step."""
    ### BEGIN SOLUTION
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    return step_loss.item()
    ### END SOLUTION

# %% test=ex12-train-step-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.optim import SGD, Optimizer

with graded("Exercise 12.1", hint="zero the optimizer's gradients before backward(), "
            "then backward(), then the optimizer's step(); return the loss as a "
            "float") as g:
    def twin_models(layers, seed):
        """A float64 torch model and a minigrad model with the same weights."""
        torch.manual_seed(seed)
        lib_t = [torch.nn.Linear(i, o, dtype=torch.float64) if o else torch.nn.ReLU()
                 for i, o in layers]
        lib_m = [minigrad.nn.Linear(i, o, dtype=minigrad.float64) if o else minigrad.nn.ReLU()
                 for i, o in layers]
        model_t, model_m = torch.nn.Sequential(*lib_t), minigrad.nn.Sequential(*lib_m)
        model_m.load_state_dict(model_t.state_dict())
        return model_t, model_m

    def compare_training(layers, n, steps, seed, **sgd):
        model_t, model_m = twin_models(layers, seed)
        X0 = rng.standard_normal((n, layers[0][0]))
        y0 = rng.standard_normal((n, layers[-1][1]))
        for p in model_m.parameters():  # stale gradients from some earlier computation
            p.grad = minigrad.ones(*p.shape, dtype=minigrad.float64) * 100
        opt_m = SGD(model_m.parameters(), **sgd)
        label = "-".join(str(i) for i, o in layers if o) + f"-{layers[-1][1]}, N={n}, " + \
            ", ".join(f"{k}={v}" for k, v in sgd.items())
        before = dict(g.calls)
        losses = [g.call(train_step, model_m, opt_m, minigrad.tensor(X0.copy()),
                         minigrad.tensor(y0.copy()),
                         count=["minigrad.autograd", SGD.step, Optimizer.zero_grad])
                  for _ in range(steps)]
        counts = {k: v - before.get(k, 0) for k, v in g.calls.items()}
        g.require(f"{label}: losses are Python floats",
                  all(type(v) is float for v in losses), "return loss.item()")
        g.require(f"{label}: one backward() and one step() per call",
                  counts["minigrad.autograd"] == steps and counts[SGD.step] == steps,
                  "call backward() on the loss once, then the optimizer's step() once")
        opt_t = torch.optim.SGD(model_t.parameters(), **sgd)
        X_t, y_t = torch.tensor(X0), torch.tensor(y0)
        losses_t = []
        for _ in range(steps):
            loss_t = torch.nn.functional.mse_loss(model_t(X_t), y_t)
            opt_t.zero_grad()
            loss_t.backward()
            opt_t.step()
            losses_t.append(loss_t.item())
        g.check(f"{label}: losses", losses, losses_t, rtol=1e-10, atol=1e-12)
        params_m = dict(model_m.named_parameters())
        for name, p_t in model_t.named_parameters():
            g.check(f"{label}: {name} after the steps", params_m[name], p_t, rtol=1e-10,
                    atol=1e-12)

    rng = np.random.default_rng(121)
    # The worked example: a linear layer 2 -> 1, six examples, three steps.
    compare_training([(2, 1)], n=6, steps=3, seed=121, lr=0.2)
    ### BEGIN HIDDEN TESTS
    compare_training([(3, 4), (4, 0), (4, 2)], n=7, steps=4, seed=1211, lr=0.05,
                     momentum=0.9)
    compare_training([(1, 1)], n=3, steps=2, seed=1212, lr=0.5)
    compare_training([(4, 3)], n=5, steps=3, seed=1213, lr=0.01, weight_decay=0.1)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 12.2: softmax without the in-place bug (2 points)
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
# Write `softmax_fixed(z, dim=1)`: the same function, along the dimension `dim` (1 by
# default, as above; any dimension of a tensor of any number of dimensions, negative
# ones counting from the end, as in torch), without any in-place op, so that backward
# works. It returns a minigrad tensor in the graph. The check compares its values and
# the gradient that flows back through it with `torch.softmax`.
#
# <details><summary>Hint</summary>
#
# Keep `exp`'s output as `exp` saved it: make a *new* tensor for the normalized
# values, summing along `dim` with `keepdim=True` so that the sums broadcast back.
# </details>

# %% solution=ex12-softmax
def softmax_fixed(z, dim=1):
    """Softmax along dim, out of place."""
    ### BEGIN SOLUTION
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True)
    ### END SOLUTION

# %% test=ex12-softmax-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 12.2", hint="divide exp(z) by its sum along dim (keepdim=True) "
            "into a new tensor, never in place") as g:
    def softmax_and_grad(z0, mix, **kwargs):
        """Your softmax of a fresh tensor, and the gradient of sum(softmax * mix)."""
        z = minigrad.tensor(z0.copy(), requires_grad=True)
        out = softmax_fixed(z, **kwargs)
        if type(out) is not minigrad.Tensor:
            raise TypeError(f"softmax_fixed returned a {type(out).__name__}, "
                            "not a minigrad.Tensor")
        (out * minigrad.tensor(mix)).sum().backward()
        return out.data.copy(), z.grad.data.copy()

    def check_softmax(z0, mix, **kwargs):
        out, grad = g.call(softmax_and_grad, z0, mix, **kwargs)
        z_t = torch.tensor(z0, requires_grad=True)
        out_t = torch.softmax(z_t, dim=kwargs.get("dim", 1))
        (grad_t,) = torch.autograd.grad((out_t * torch.tensor(mix)).sum(), z_t)
        label = f"shape {z0.shape}" + (f", dim={kwargs['dim']}" if kwargs else "")
        g.check(f"softmax, {label}", out, out_t, rtol=1e-12, atol=1e-15)
        g.check(f"z.grad, {label}", grad, grad_t, rtol=1e-10, atol=1e-14)

    rng = np.random.default_rng(122)
    # The example above, then a 4 x 5 batch.
    check_softmax(np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]]), rng.standard_normal((2, 3)))
    check_softmax(rng.standard_normal((4, 5)), rng.standard_normal((4, 5)))
    ### BEGIN HIDDEN TESTS
    for shape, dim in [((3, 5), 0), ((2, 3, 4), 2), ((2, 3, 4), 0), ((4, 2, 3), -1),
                       ((6,), 0), ((5, 3), -2), ((3, 4, 2), 1)]:
        check_softmax(rng.standard_normal(shape) * 2, rng.standard_normal(shape), dim=dim)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 12.3: the gradient of a hidden layer (2 points)
#
# Write `hidden_grad(x, w1, w2)`: it computes $h = \mathrm{relu}(x W_1)$ and the loss
# $L = \sum (h W_2)^2$, runs backward once (so that `w1.grad` and `w2.grad` are
# filled, as in training), and returns $\partial L / \partial h$, a minigrad tensor of
# $h$'s shape, which autograd would otherwise not keep. `x` does not require grad;
# `w1` and `w2` do. The check makes its own inputs, of several shapes, and compares
# with torch.
#
# <details><summary>Hint</summary>
#
# Section 7: an intermediate tensor keeps its gradient only if you ask it to, and you
# must ask before `backward()` runs.
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
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 12.3", hint="ask h to keep its gradient (retain_grad) before "
            "backward() runs, then hand back the gradient h kept") as g:
    def check_hidden(n, k, m, p, seed):
        rng = np.random.default_rng(seed)
        x0, w10, w20 = (rng.standard_normal((n, k)), rng.standard_normal((k, m)),
                        rng.standard_normal((m, p)))
        x = minigrad.tensor(x0.copy())
        w1 = minigrad.tensor(w10.copy(), requires_grad=True)
        w2 = minigrad.tensor(w20.copy(), requires_grad=True)
        before = g.calls.get("minigrad.autograd", 0)
        got = g.call(hidden_grad, x, w1, w2, forbid="torch.autograd",
                     count="minigrad.autograd")
        label = f"x {n}x{k}, w1 {k}x{m}, w2 {m}x{p}"
        g.require(f"{label}: a minigrad.Tensor", type(got) is minigrad.Tensor,
                  f"hand back the gradient h kept, a minigrad.Tensor; got "
                  f"{type(got).__name__}")
        g.require(f"{label}: one backward()", g.calls["minigrad.autograd"] - before == 1,
                  "run backward() once, on the loss")
        w1_t = torch.tensor(w10, requires_grad=True)
        w2_t = torch.tensor(w20, requires_grad=True)
        h_t = (torch.tensor(x0) @ w1_t).relu()
        h_t.retain_grad()
        ((h_t @ w2_t) ** 2).sum().backward()
        g.check(f"{label}: dL/dh", got, h_t.grad, rtol=1e-10, atol=1e-12)
        for name, mine, theirs in [("w1", w1, w1_t), ("w2", w2, w2_t)]:
            g.check(f"{label}: {name}.grad", mine.grad, theirs.grad, rtol=1e-10, atol=1e-12)

    check_hidden(5, 4, 3, 2, seed=123)
    ### BEGIN HIDDEN TESTS
    check_hidden(1, 3, 5, 1, seed=1231)
    check_hidden(7, 2, 6, 3, seed=1232)
    check_hidden(3, 3, 3, 3, seed=1233)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# - `element 0 of tensors does not require grad`: no input requires grad, or the graph
#   was cut (`detach()`, `.item()`). Fix: `requires_grad=True`, keep the computation
#   on tensors.
# - A gradient missing a term and no error: part of the computation was detached. Check
#   that every tensor on the way to the loss requires grad (the non-leaves among them
#   have a `grad_fn`; leaves have none).
# - The loss swings, the updates are too big: stale gradients added up. Fix:
#   `optimizer.zero_grad()` every step.
# - `a leaf Variable that requires grad is being used in an in-place operation`: a
#   parameter changed in place while recording. Fix: change it after `backward()`, under
#   `no_grad()`, as `step()` does. `w = w + 1` on a module's parameter is a `TypeError`
#   (`cannot assign ... as parameter`).
# - `modified by an inplace operation`: a value saved for backward was changed, and
#   the version counter noticed (`step()` before `backward()` does it to any weight a
#   layer saved because its input requires grad). Fix: do not change a saved tensor
#   between forward and backward; change it after backward, or use an out-of-place op
#   or `clone()` first.
# - `Trying to backward through the graph a second time`: the first backward freed
#   the saved values (a graph that saved nothing runs again silently). Fix: recompute
#   the forward pass, or `retain_graph=True`.
# - `.grad` is `None` on an intermediate, with a warning: only leaves keep `.grad`.
#   Fix: `retain_grad()` before backward.
#
# minigrad raises each of these with torch's exception type and words, and adds the
# fix. Next: [13 Capstone](13_capstone.ipynb), a network's backward pass by hand.
