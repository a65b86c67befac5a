# %% [markdown]
# # 12 Common problems
#
# Autograd fails in a handful of ways, and each one shows a recognisable symptom: an
# error with a fixed phrase, a gradient that is `None`, a loss that stays flat, swings or
# turns into `nan`. Debugging is reading the symptom back to its cause. This chapter
# provokes each failure on purpose, shows torch's error and minigrad's side by side
# (minigrad raises the same exception with torch's key phrase, plus a line that says
# how to fix it), explains what went wrong inside the graph, and applies the fix,
# checked against torch. The map, from what you see to where to look:
#
# <table>
# <tr>
# <th>symptom</th>
# <th>likely cause</th>
# <th>the tool that finds it</th>
# <th>section</th>
# </tr>
# <tr>
# <td><code>element 0 of tensors does not require grad and does not have a grad_fn</code></td>
# <td>nothing requires grad, or every path to the loss was cut (<code>detach()</code>,
# <code>.item()</code>, numpy)</td>
# <td><code>requires_grad</code> of each tensor along the forward pass</td>
# <td>1, 2</td>
# </tr>
# <tr>
# <td>no error, but a gradient too small: a term is missing</td>
# <td>part of the loss computed on a detached value (<code>detach()</code>, <code>.data</code>)</td>
# <td><code>requires_grad</code> of each term; a finite difference (chapter 11)</td>
# <td>2</td>
# </tr>
# <tr>
# <td>loss swings or explodes</td>
# <td>stale gradients (no <code>zero_grad()</code>); or a learning rate above 2/λ<sub>max</sub>
# (chapter 10)</td>
# <td>the size of <code>p.grad</code> at each step</td>
# <td>3</td>
# </tr>
# <tr>
# <td>a gradient exactly 0</td>
# <td>a ReLU off for every example (a dead unit), a mask that selects nothing, a step
# function in the path</td>
# <td>the activations: how many ReLU inputs are positive</td>
# <td>predict 1</td>
# </tr>
# <tr>
# <td>loss flat, the weights never move</td>
# <td><code>zero_grad()</code> between <code>backward()</code> and <code>step()</code>, or
# <code>step()</code> before <code>backward()</code></td>
# <td>a weight before and after <code>step()</code>; the widget of section 3</td>
# <td>3</td>
# </tr>
# <tr>
# <td><code>a leaf Variable that requires grad is being used in an in-place operation</code></td>
# <td>a parameter changed in place while recording</td>
# <td>the line in the traceback</td>
# <td>4</td>
# </tr>
# <tr>
# <td><code>one of the variables needed for gradient computation has been modified by an inplace
# operation</code></td>
# <td>a value saved for backward changed in place: <code>+=</code>, <code>add_</code>,
# <code>mul_</code>, <code>relu_</code>, <code>ReLU(inplace=True)</code>,
# <code>step()</code> before <code>backward()</code></td>
# <td>the versions in the message, <code>t._version</code>; <code>detect_anomaly()</code> names the
# forward op</td>
# <td>5, 8, Exercise 12.4</td>
# </tr>
# <tr>
# <td><code>Trying to backward through the graph a second time</code></td>
# <td>a second backward through one graph; often a tensor carried from one iteration to the next (a
# recurrent state, a running total)</td>
# <td><code>retain_graph</code> only if meant; <code>detach()</code> the carried tensor</td>
# <td>6</td>
# </tr>
# <tr>
# <td><code>.grad</code> is <code>None</code>, with a <code>UserWarning</code></td>
# <td><code>.grad</code> of a non-leaf: an intermediate, or a "parameter" made by
# <code>.double()</code> or <code>.to()</code> after <code>requires_grad=True</code></td>
# <td><code>t.is_leaf</code>; <code>retain_grad()</code></td>
# <td>7</td>
# </tr>
# <tr>
# <td><code>.grad</code> is <code>None</code> on a parameter, no warning</td>
# <td>the parameter is not on the path to the loss (a layer never called, a branch not
# taken)</td>
# <td>the names of the parameters whose <code>.grad</code> is <code>None</code></td>
# <td>predict 2</td>
# </tr>
# <tr>
# <td>loss or gradient <code>nan</code></td>
# <td>a function at the edge of its domain: <code>sqrt</code>, <code>log</code>, a division at 0,
# even in a branch that <code>where</code> does not pick</td>
# <td><code>autograd.detect_anomaly()</code> names the op</td>
# <td>8</td>
# </tr>
# </table>
#
# **Learning goals.** After this chapter you can
#
# 1. recognise the error of a missing gradient, and find where the graph was cut
#    (no `requires_grad`, `detach()`, a number taken out with `.item()`);
# 2. spot a stale gradient and fix it with `zero_grad()` in the right place;
# 3. explain the two in-place errors: on a leaf, and the version counter of a saved
#    value, and change a tensor in place only when it is safe;
# 4. say why a second `backward()` fails and when `retain_graph=True` is the fix;
# 5. get the gradient of an intermediate tensor with `retain_grad()`, and tell a
#    non-leaf made by `.double()` from a leaf;
# 6. find the op whose backward produced a `nan` with `autograd.detect_anomaly()`.

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
check("x.grad", x.grad, xt.grad, brief=True)

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
check("x.grad with a detached term", partly_detached(minigrad), partly_detached(torch),
      brief=True)

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
check("x.grad, fixed", x.grad, xt.grad, brief=True)

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
          rtol=1e-10, brief=True)

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
      add_to_unused_leaf(torch), brief=True)

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
x0 = minigrad.randn(3).detach().numpy()
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
           "x after add_": (results["minigrad"][1], results["torch"][1].detach())}, brief=True)

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
check("h._version before and after add_", versions["minigrad"], versions["torch"], brief=True)

# %% [markdown]
# The fix: do not change a saved value; make a new tensor instead (`h = h + 1`), or
# `clone()` before changing. Then backward uses the value that `**` saw (torch's `x`
# again made from minigrad's numbers).

# %%
minigrad.manual_seed(0)
x = minigrad.randn(3, requires_grad=True)
x_t = torch.tensor(x.detach().numpy(), requires_grad=True)
for lib_x in (x, x_t):
    h = lib_x * 2
    y = h ** 2
    h = h + 1.0
    (y.sum() + h.sum()).backward()
check("x.grad, out-of-place", x.grad, x_t.grad, brief=True)

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
check("x.grad after two backward passes through x + 1", twice["minigrad"], twice["torch"],
      brief=True)

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
check("x.grad after two backward passes", x.grad, xt.grad, brief=True)

# %% [markdown]
# The usual way to meet this error is not two `backward()` calls in a row but a tensor
# carried from one iteration to the next: a recurrent state `h`, updated each step from
# its previous value. The second step's loss reaches back through `h` into the first
# step's graph, which the first `backward()` has already freed:

# %% tags=raises-exception
w = torch.tensor([0.5, -0.5], requires_grad=True)
h = torch.zeros(2)
for _ in range(3):
    h = h * w + 1            # h carries the graph of every earlier step
    (h ** 2).sum().backward()

# %% tags=raises-exception
w = minigrad.tensor([0.5, -0.5], requires_grad=True)
h = minigrad.zeros(2)
for _ in range(3):
    h = h * w + 1
    (h ** 2).sum().backward()

# %% [markdown]
# `retain_graph=True` would silence it, and each step's backward would then walk back
# through every earlier step, ever longer. The fix is to cut the carried state:
# `h.detach()` keeps its value and starts each step's graph afresh (truncated
# backpropagation through time, one step long here).

# %%
carried = {}
for lib in (minigrad, torch):
    w = lib.tensor([0.5, -0.5], requires_grad=True)
    h = lib.zeros(2)
    for _ in range(3):
        h = h.detach() * w + 1   # the same value, without the earlier steps' graph
        (h ** 2).sum().backward()
    carried[lib.__name__] = w.grad
check("w.grad after three steps, h detached", carried["minigrad"], carried["torch"],
      brief=True)

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
      read_nonleaf_grad(torch)[0] is None, brief=True)

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
           "x.grad": (retained["minigrad"][1], retained["torch"][1])}, brief=True)

# %% [markdown]
# A parameter can be a non-leaf without meaning to. `.double()` (or `.to()`, or any op)
# applied *after* `requires_grad=True` returns a new tensor, the output of a conversion:
# gradients pass through it to the float32 leaf that no one keeps, and its own `.grad`
# stays `None`.

# %%
for lib in (minigrad, torch):
    w = lib.ones(3, requires_grad=True).double()   # the bug: an op after requires_grad
    w_fixed = lib.ones(3, dtype=lib.float64, requires_grad=True)
    print(f"{lib.__name__:8s} w.is_leaf {w.is_leaf}, w.grad_fn {w.grad_fn.name()}; "
          f"w_fixed.is_leaf {w_fixed.is_leaf}")
    (w * 2).sum().backward()
    (w_fixed * 2).sum().backward()
    print(f"{'':8s} w_fixed.grad {w_fixed.grad}")

# %% [markdown]
# The fix: give the dtype (and the device) when the tensor is made, as `w_fixed` does,
# or call `requires_grad_()` after the conversion.
#
# ## 8. A `nan` gradient: `detect_anomaly()`
#
# A `nan` in the loss or in a gradient poisons every step after it, and it rarely shows
# where it was made. The classic case: the forward pass is finite, the gradient is not.
# `where(x > 0, x.sqrt(), 0)` never uses $\sqrt{0}$, yet backward still runs `sqrt`'s
# backward at every entry, with the upstream gradient $0$ that `where` sends to the
# entries it did not pick: $0 \cdot \frac{1}{2\sqrt{0}} = 0 \cdot \infty$, which is
# `nan`.

# %%
nan_grads = {}
for lib in (minigrad, torch):
    x = lib.tensor([0.0, 1.0, 4.0], requires_grad=True)
    y = lib.where(x > 0, x.sqrt(), lib.zeros(3))
    y.sum().backward()
    nan_grads[lib.__name__] = (y, x.grad)
print("y      ", nan_grads["minigrad"][0])
print("x.grad ", nan_grads["minigrad"][1])
check_all({"y": (nan_grads["minigrad"][0], nan_grads["torch"][0]),
           "x.grad": (nan_grads["minigrad"][1], nan_grads["torch"][1])}, equal_nan=True,
          brief=True)

# %% [markdown]
# In a real network the `nan` surfaces far from its cause, in a weight's `.grad` or in
# the next step's loss. `autograd.detect_anomaly()` (torch's name; `set_detect_anomaly(True)`
# turns it on for good) finds the cause: during forward each op remembers the line that
# made it, and during backward the first op whose backward returns a `nan` raises an
# error naming it, after a warning that shows that forward line. It slows everything
# down, so it is for debugging only (its first warning says so). Both libraries, on the
# same program; the function catches the error and the warnings to print their first
# lines and the forward line (the file names in a notebook change from run to run):

# %%
def anomaly_report(lib):
    """The program above under detect_anomaly: its warnings, error and forward line."""
    x = lib.tensor([0.0, 1.0, 4.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = lib.where(x > 0, x.sqrt(), lib.zeros(3))
            try:
                y.sum().backward()
            except RuntimeError as error:
                message = str(error)
    first_lines = [str(w.message).splitlines()[0] for w in caught]
    code = [line.strip() for line in str(caught[-1].message).splitlines()
            if line.startswith("    ")]
    return {"warnings": first_lines, "error": message, "forward line": code[-1]}


reports = {lib.__name__: anomaly_report(lib) for lib in (torch, minigrad)}
for name, report in reports.items():
    print(name)
    for key, text in report.items():
        print(f"  {key}: {text}")
check_all({"the same warnings": (reports["minigrad"]["warnings"] == reports["torch"]["warnings"],
                                 True, "by hand"),
           "the error starts with torch's": (reports["minigrad"]["error"].startswith(
               reports["torch"]["error"]), True, "by hand"),
           "the same forward line": (reports["minigrad"]["forward line"]
                                     == reports["torch"]["forward line"], True, "by hand")})

# %% [markdown]
# The error names `SqrtBackward0`, and the warning the line `y = lib.where(x > 0,
# x.sqrt(), ...)`: the `sqrt` at $0$. The same warning comes with any other error raised
# in backward, such as the version-counter error of section 5: torch's message for that
# one ends with a hint to turn anomaly detection on. minigrad adds its usual fix. The
# fix here: keep the input of `sqrt` in its domain in *both* branches, by giving it a
# harmless value where the result is not used (the "double `where`"), so that no
# $0 \cdot \infty$ is ever formed. Clamping to a small positive number also works.

# %%
fixed = {}
for lib in (minigrad, torch):
    x = lib.tensor([0.0, 1.0, 4.0], requires_grad=True)
    safe = lib.where(x > 0, x, lib.ones(3))       # 1 where the result is not used
    y = lib.where(x > 0, safe.sqrt(), lib.zeros(3))
    y.sum().backward()
    fixed[lib.__name__] = x.grad
check("x.grad with the double where", fixed["minigrad"], fixed["torch"])

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 12.1: debug a training script (2 points)
#
# This chapter's problems rarely come one at a time. The function below was written to
# train a model with SGD (learning rate `lr`, momentum 0.9) on the mean squared error
# of `model(x)` against `y` (the mean over every entry) plus $\frac{\lambda}{2}$ times
# the sum of the squares of every parameter (chapter 10's L2 term, `lam` for
# $\lambda$), one step per batch `(x, y)`, returning the loss before each step as a
# float. It has several bugs. Some raise an error; some do not, and only give a wrong
# loss curve.

# %%
import numpy as np


def train_buggy(model, batches, lr, lam):
    """SGD with momentum on the mean squared error plus an L2 term: the losses, per step."""
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        pred = model(x).detach()  # free the graph's memory early
        err = pred - y
        err.mul_(err)  # squared in place, to save memory
        penalty = sum((p.data ** 2).sum() for p in model.parameters())
        loss = err.mean() + lam / 2 * penalty
        optimizer.step()
        loss.backward()
        losses.append(loss.item())
    return losses


# %% [markdown]
# A small model (3 -> 4 -> 2, a ReLU between) and three batches of five examples; run
# this cell again for a fresh model.

# %%
demo_rng = np.random.default_rng(12)
demo_model = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4, dtype=minigrad.float64),
                                    minigrad.nn.ReLU(),
                                    minigrad.nn.Linear(4, 2, dtype=minigrad.float64))
demo_batches = [(minigrad.tensor(demo_rng.standard_normal((5, 3))),
                 minigrad.tensor(demo_rng.standard_normal((5, 2)))) for _ in range(3)]

# %% tags=raises-exception
train_buggy(demo_model, demo_batches, lr=0.1, lam=0.01)

# %% [markdown]
# Write `train_fixed(model, batches, lr, lam)`: what `train_buggy` was meant to do,
# for any `minigrad.nn.Sequential` model, whatever its parameters' `.grad` holds when
# it is called. The check runs it with torch's autograd switched off and compares the
# losses, and the parameters after the last step, with the same training written in
# torch, on models and data of its own (others when you hand in). Fix one error at a
# time; when nothing raises any more, do not stop: write the same training in torch,
# from the demo model's weights and batches, and compare the two loss curves.
#
# <details><summary>Hint</summary>
#
# Read each line against the description above and against this chapter's sections:
# which line keeps backward from reaching the parameters, which changes a tensor that
# backward will need, which uses gradients that are not this batch's own, and which
# computes a term whose value is right but whose gradient is missing?
# </details>

# %% solution=ex12-debug-train
def train_fixed(model, batches, lr, lam):
    """SGD with momentum on the mean squared error plus an L2 term: the losses, per step."""
    ### BEGIN SOLUTION
    optimizer12 = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses12 = []
    for x, y in batches:
        optimizer12.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss12 = (err * err).mean() + lam / 2 * penalty
        loss12.backward()
        optimizer12.step()
        losses12.append(loss12.item())
    return losses12
    ### END SOLUTION

# %% test=ex12-debug-train-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 12.1", hint="run your function and torch's version of the "
            "description side by side, one step at a time: at which step do the losses "
            "part, and which parameters differ?") as g:
    def twin_models(sizes, seed):
        """A float64 torch Sequential and a minigrad one with the same weights."""
        torch.manual_seed(seed)
        modules = []
        for a, b in zip(sizes, sizes[1:], strict=False):
            modules += [torch.nn.Linear(a, b, dtype=torch.float64), torch.nn.ReLU()]
        theirs = torch.nn.Sequential(*modules[:-1])
        ours = minigrad.nn.Sequential(*[
            minigrad.nn.Linear(m.in_features, m.out_features, dtype=minigrad.float64)
            if isinstance(m, torch.nn.Linear) else minigrad.nn.ReLU() for m in theirs])
        ours.load_state_dict(theirs.state_dict())
        return theirs, ours

    def check_training(sizes, batch_sizes, lr, lam, seed, stale=False):
        theirs, ours = twin_models(sizes, seed)
        data = [(rng.standard_normal((n, sizes[0])), rng.standard_normal((n, sizes[-1])))
                for n in batch_sizes]
        batches = [(minigrad.tensor(x.copy()), minigrad.tensor(y.copy())) for x, y in data]
        if stale:  # gradients left over from some earlier computation
            for p in ours.parameters():
                p.grad = minigrad.ones(*p.shape, dtype=minigrad.float64) * 100
        label = f"sizes {sizes}, lr {lr}, lam {lam}" + (", stale .grad" if stale else "")
        losses = g.call(train_fixed, ours, batches, lr, lam, forbid="torch.autograd")
        g.require(f"{label}: batches unchanged",
                  all(np.array_equal(b[0].data, x) and np.array_equal(b[1].data, y)
                      for b, (x, y) in zip(batches, data, strict=True)),
                  "leave the batches as they are")
        runs = {}

        def run(how):
            """torch's training, right or with a common mistake: (losses, parameters)."""
            if how not in runs:
                model_t = twin_models(sizes, seed)[0]
                if stale:
                    for p in model_t.parameters():
                        p.grad = torch.full_like(p, 100.0)
                optimizer_t = torch.optim.SGD(model_t.parameters(), lr=lr, momentum=0.9)
                losses_t = []
                for x, y in data:
                    if how in ("right", "penalty-detached"):
                        optimizer_t.zero_grad()
                    x_t, y_t = torch.tensor(x), torch.tensor(y)
                    params = [p.detach() if how == "penalty-detached" else p
                              for p in model_t.parameters()]
                    loss_t = ((model_t(x_t) - y_t) ** 2).mean() + lam / 2 * sum(
                        (p ** 2).sum() for p in params)
                    loss_t.backward()
                    if how != "never-moves":
                        optimizer_t.step()
                    losses_t.append(loss_t.item())
                runs[how] = losses_t, dict(model_t.named_parameters())
            return runs[how]

        def mistakes(pick):
            return {how: (nudge, lambda how=how: pick(run(how))) for how, nudge in MISTAKES.items()}

        reference, params_t = run("right")
        g.check(f"{label}: the losses", losses, reference, rtol=1e-10, atol=1e-12,
                mistakes=mistakes(lambda r: r[0]))
        after = dict(ours.named_parameters())
        for name, p_t in params_t.items():
            g.check(f"{label}: {name} after the steps", after[name], p_t, rtol=1e-10,
                    atol=1e-12, mistakes=mistakes(lambda r, name=name: r[1][name]))

    MISTAKES = {
        "no-zero-grad": ("from the second step on, your losses are those of steps that add "
                         "up every earlier gradient: where is .grad cleared?"),
        "penalty-detached": ("your losses are those of a penalty that adds to the loss but "
                             "sends no gradient to the parameters: is the penalty computed "
                             "on tensors in the graph?"),
        "never-moves": ("your model never changes: what does .grad hold when step() runs?"),
    }
    rng = np.random.default_rng(12)
    check_training((3, 4, 2), (5, 5, 5), lr=0.1, lam=0.01, seed=12, stale=True)
    ### BEGIN HIDDEN TESTS
    check_training((2, 5, 3, 1), (4, 6, 3, 5), lr=0.05, lam=0.1, seed=121, stale=True)
    check_training((4, 2), (3, 3), lr=0.2, lam=0.0, seed=122)
    check_training((3, 3, 2), (6, 2, 4), lr=0.02, lam=0.5, seed=123)
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
# Which tensor did `exp` save for its backward, and which op changed it afterwards?
# For another `dim`: what shape must the sums have to broadcast back against `e`?
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

with graded("Exercise 12.2", hint="compare with torch.softmax on a small z, one dim at "
            "a time: do the values differ, or only the gradient, and for which dim?") as g:
    def softmax_and_grad(z0, mix, **kwargs):
        """Your softmax of a fresh tensor, and the gradient of sum(softmax * mix)."""
        z = minigrad.tensor(z0.copy(), requires_grad=True)
        out = softmax_fixed(z, **kwargs)
        if type(out) is not minigrad.Tensor:
            raise TypeError(f"softmax_fixed returned a {type(out).__name__}, "
                            "not a minigrad.Tensor")
        try:
            (out * minigrad.tensor(mix)).sum().backward()
        except RuntimeError as error:
            return out.detach().numpy().copy(), None, str(error)
        return out.detach().numpy().copy(), z.grad.numpy().copy(), None

    def other_dim(z_t, out):
        """The softmax along another dim, the one nearest to out."""
        others = [torch.softmax(z_t, dim=d).detach().numpy() for d in range(z_t.dim())]
        return min(others, key=lambda o: np.abs(o - out).max() if o.shape == out.shape
                   else np.inf)

    def check_softmax(z0, mix, **kwargs):
        out, grad, error = g.call(softmax_and_grad, z0, mix, **kwargs)
        label = f"shape {z0.shape}" + (f", dim={kwargs['dim']}" if kwargs else "")
        g.require(f"backward, {label}", error is None, f"backward raised RuntimeError: {error}",
                  mistakes={"in-place": ("backward refused a tensor changed in place: which "
                                         "tensor did exp save for its backward?", lambda:
                                         "modified by an inplace operation" in error)})
        z_t = torch.tensor(z0, requires_grad=True)
        out_t = torch.softmax(z_t, dim=kwargs.get("dim", 1))
        (grad_t,) = torch.autograd.grad((out_t * torch.tensor(mix)).sum(), z_t)
        g.check(f"softmax, {label}", out, out_t, rtol=1e-12, atol=1e-15, mistakes={
            "other-dim": ("your softmax is torch's along another dim: which dim do your "
                          "sums run along?", lambda: other_dim(z_t, out))})
        g.check(f"z.grad, {label}", grad, grad_t, rtol=1e-10, atol=1e-14, mistakes={
            "denominator-detached": ("your gradient is the one of e / S with the sum S held "
                                     "fixed: does the gradient flow through the sum?",
                                     lambda: mix * out_t.detach().numpy())})

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

with graded("Exercise 12.3", hint="after backward(), what does h.grad hold, and why? "
            "Section 7 says what to ask of h, and when") as g:
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
                  f"{type(got).__name__}", mistakes={
                      "no-retain-grad": ("h.grad was None when you read it: which tensors "
                                         "keep their .grad, and when must h be told to?",
                                         got is None)})
        g.require(f"{label}: one backward()", g.calls["minigrad.autograd"] - before == 1,
                  "run backward() once, on the loss")
        w1_t = torch.tensor(w10, requires_grad=True)
        w2_t = torch.tensor(w20, requires_grad=True)
        h_t = (torch.tensor(x0) @ w1_t).relu()
        h_t.retain_grad()
        ((h_t @ w2_t) ** 2).sum().backward()
        g.check(f"{label}: dL/dh", got, h_t.grad, rtol=1e-10, atol=1e-12, mistakes={
            "before-relu": ("yours is 0 wherever h is 0: is it the gradient of h, or of the "
                            "input of the relu?", lambda: h_t.grad * (h_t > 0))})
        for name, mine, theirs in [("w1", w1, w1_t), ("w2", w2, w2_t)]:
            g.check(f"{label}: {name}.grad", mine.grad, theirs.grad, rtol=1e-10, atol=1e-12)

    check_hidden(5, 4, 3, 2, seed=123)
    ### BEGIN HIDDEN TESTS
    check_hidden(1, 3, 5, 1, seed=1231)
    check_hidden(7, 2, 6, 3, seed=1232)
    check_hidden(3, 3, 3, 3, seed=1233)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 12.4: which in-place ops are safe? (2 points)
#
# In-place ops save memory, and a colleague used them freely in this residual block. For
# a batch `x` ($n \times k$, one example a row, not requiring grad) and parameters `w`
# ($k \times m$) and `b` ($m$) it is meant to compute
#
# $$c = x - \bar{x}\ \text{(each column minus its mean over the rows)}, \qquad z = c\,W,
# \qquad y = 2 \tanh(z + b) + z.$$
#
# It has three bugs, each one about an in-place op; only one of them raises an error.

# %%
def block_buggy(x, w, b):
    """y = 2 tanh(c W + b) + c W, c = x with each column centred (meant to be)."""
    x -= x.mean(dim=0)        # centre each column, in place to save memory
    z = x @ w
    skip = z                  # the skip path: c W
    z += b
    y = z.tanh()
    y *= 2
    y += skip
    return y

# %% tags=raises-exception
block_rng = np.random.default_rng(124)
x_demo = minigrad.tensor(block_rng.standard_normal((4, 3)))
w_demo = minigrad.tensor(block_rng.standard_normal((3, 2)), requires_grad=True)
b_demo = minigrad.tensor(block_rng.standard_normal(2), requires_grad=True)
block_buggy(x_demo, w_demo, b_demo).sum().backward()

# %% [markdown]
# Write `block_fixed(x, w, b)`: the block as it is meant to be, for any sizes, whose
# backward runs and which leaves the caller's `x` as it was. Change only what is wrong:
# keep an in-place op wherever it is safe. The check reads your result's version
# counter (`y._version`, section 5), which must show at least one in-place change, as
# the original's does. It compares `y`, and the gradients of `w` and `b`, with the same
# block written in torch, on inputs of its own (others when you hand in).
#
# <details><summary>Hint</summary>
#
# Fixing the error is not enough: write the block in torch out of place, from the
# formula, and compare. For each in-place line, ask two questions. Did an op save this
# tensor for its backward (the error names one such op)? Does another name point to the
# same numbers (a name bound by `=`, a `detach()`, the caller's own variable)?
# </details>

# %% solution=ex12-inplace-safe
def block_fixed(x, w, b):
    """y = 2 tanh(c W + b) + c W, c = x with each column centred; x left as it is."""
    ### BEGIN SOLUTION
    x = x - x.mean(dim=0)     # a new tensor: the caller's x stays as it was
    z = x @ w
    skip = z.clone()          # a copy: z += b must not change the skip path
    z += b                    # safe: @ saved x (for w's gradient), not z; + saves nothing
    y = 2 * z.tanh()          # tanh saved its output; 2 * ... makes a new tensor
    y += skip                 # safe: a multiplication by a number saves nothing
    return y
    ### END SOLUTION

# %% test=ex12-inplace-safe-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 12.4", hint="write the block in torch from the formula, out of "
            "place, and compare with yours on a small x: does x change, do the values "
            "agree, does backward run?") as g:
    def run_block(x0, w0, b0, mix):
        """Your block on fresh tensors: y, its version, x after the call, the gradients of
        sum(y * mix) or the error backward raised."""
        x = minigrad.tensor(x0.copy())
        w = minigrad.tensor(w0.copy(), requires_grad=True)
        b = minigrad.tensor(b0.copy(), requires_grad=True)
        y = block_fixed(x, w, b)
        if type(y) is not minigrad.Tensor:
            raise TypeError(f"block_fixed returned a {type(y).__name__}, not a "
                            "minigrad.Tensor")
        out, version = y.detach().numpy().copy(), y._version
        try:
            (y * minigrad.tensor(mix)).sum().backward()
        except RuntimeError as error:
            return out, version, x.numpy().copy(), None, None, str(error)
        return out, version, x.numpy().copy(), w.grad, b.grad, None

    def torch_block(x0, w0, b0, mix, how="right"):
        """The block in torch, right or with a common mistake: y and the gradients."""
        x_t = torch.tensor(x0)
        w_t = torch.tensor(w0, requires_grad=True)
        b_t = torch.tensor(b0, requires_grad=True)
        z = (x_t if how == "not-centred" else x_t - x_t.mean(dim=0)) @ w_t
        y = 2 * torch.tanh(z + b_t) + z + (b_t if how == "alias" else 0)
        grads = torch.autograd.grad((y * torch.tensor(mix)).sum(), (w_t, b_t))
        return y.detach(), *grads

    def check_block(n, k, m, seed):
        rng = np.random.default_rng(seed)
        x0, w0, b0 = (rng.standard_normal((n, k)), rng.standard_normal((k, m)),
                      rng.standard_normal(m))
        mix = rng.standard_normal((n, m))
        label = f"x {n}x{k}, w {k}x{m}"
        out, version, x_after, w_grad, b_grad, error = g.call(
            run_block, x0, w0, b0, mix, forbid="torch.autograd")
        g.require(f"{label}: x left as it was", np.array_equal(x_after, x0),
                  "your block changed the caller's x", mistakes={
                      "input-changed": ("the caller's x came back centred: which line "
                                        "writes into the numbers the caller passed in?",
                                        lambda: np.allclose(x_after, x0 - x0.mean(axis=0)))})
        g.require(f"{label}: backward runs", error is None,
                  f"backward raised RuntimeError: {error}", mistakes={
                      "saved-changed": ("backward refused a tensor changed in place: which "
                                        "op saved it, and which lines change it afterwards?",
                                        lambda: "modified by an inplace operation" in error)})
        runs = {}

        def mistakes(i):
            def run(how):
                if how not in runs:
                    runs[how] = torch_block(x0, w0, b0, mix, how)
                return runs[how][i]
            return {how: (nudge, lambda how=how: run(how)) for how, nudge in VALUES.items()}

        y_t, w_grad_t, b_grad_t = torch_block(x0, w0, b0, mix)
        g.check(f"{label}: y", out, y_t, rtol=1e-12, atol=1e-14, mistakes=mistakes(0))
        g.check(f"{label}: w.grad", w_grad, w_grad_t, rtol=1e-10, atol=1e-12,
                mistakes=mistakes(1))
        g.check(f"{label}: b.grad", b_grad, b_grad_t, rtol=1e-10, atol=1e-12,
                mistakes=mistakes(2))
        g.require(f"{label}: y changed in place", version >= 1,
                  f"y._version is {version}: keep the in-place ops that are safe",
                  mistakes={"out-of-place": ("your block has no in-place op left on y: "
                                             "which of the original's were safe?",
                                             version == 0)})

    VALUES = {
        "alias": ("your y has b twice: what did skip hold when z += b ran?"),
        "not-centred": ("your y is the block's on x itself: where are the columns centred?"),
    }
    # The example above, then other sizes.
    check_block(4, 3, 2, seed=124)
    ### BEGIN HIDDEN TESTS
    check_block(6, 2, 3, seed=1241)
    check_block(2, 5, 1, seed=1242)
    check_block(5, 4, 4, seed=1243)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Which in-place changes are safe?
#
# After an op `y = f(h)`, is it safe to change `h` in place? And `y`? Guess for each op,
# then run the cell: it tries both changes, `h.add_(1)` or `y.add_(1)`, before
# `backward()`, in both libraries.

# %%
SAFE_OPS = {
    "h + 1": lambda h: h + 1, "h * 2": lambda h: h * 2, "h * h": lambda h: h * h,
    "h ** 2": lambda h: h ** 2, "h.sin()": lambda h: h.sin(), "h.log()": lambda h: h.log(),
    "h.exp()": lambda h: h.exp(), "h.sigmoid()": lambda h: h.sigmoid(),
    "h.tanh()": lambda h: h.tanh(), "h.relu()": lambda h: h.relu(),
    "h.sqrt()": lambda h: h.sqrt(),
}


def change_then_backward(lib, op, change):
    """y = op(h), then h or y changed in place: 'safe', or 'raises' the version error."""
    x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
    h = x * 1.0                       # a non-leaf, so that it may be changed in place
    y = op(h)
    (h if change == "h" else y).add_(1.0)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return "raises" if "modified by an inplace operation" in str(error) else str(error)
    return "safe"


safety = {lib.__name__: {name: [change_then_backward(lib, op, change) for change in "hy"]
                         for name, op in SAFE_OPS.items()} for lib in (minigrad, torch)}
print(f"{'y = ':13s} {'h.add_(1)':10s} y.add_(1)")
for name, (after_h, after_y) in safety["minigrad"].items():
    print(f"{name:13s} {after_h:10s} {after_y}")
check("raises, [change h, change y], every op",
      [[r == "raises" for r in row] for row in safety["minigrad"].values()],
      [[r == "raises" for r in row] for row in safety["torch"].values()], brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# An op saves what its derivative needs, and only that. $h + 1$ and $2h$ have the
# derivatives $1$ and $2$: they save nothing, and both changes are safe. $h \cdot h$,
# $h^2$, $\sin h$ and $\log h$ need their input ($2h$, $\cos h$, $1/h$): changing `h`
# breaks backward, changing `y` does not. `exp`, `sigmoid`, `tanh`, `relu` and `sqrt`
# write their derivative with their output ($y$, $y(1 - y)$, $1 - y^2$, $[y > 0]$,
# $1/(2y)$), so they save `y`, and `h` may change. The version counter checks all this for you:
# when in doubt, try it, and when an op raises, change a `clone()` or write the op out
# of place.
# </details>

# %% [markdown]
# ## Predict before you run
#
# Guess each answer, then run the cell.
#
# **1.** $w = 0.5$ and $x = (-1, -2, -3)$. After `relu(w * x).sum().backward()`, is
# `w.grad` `None`, $0$, or an error?

# %%
dead = {}
for lib in (minigrad, torch):
    w = lib.tensor(0.5, requires_grad=True)
    x = lib.tensor([-1.0, -2.0, -3.0])
    lib.nn.functional.relu(w * x).sum().backward()
    dead[lib.__name__] = w.grad
print("w.grad:", dead["minigrad"])
check("w.grad through a ReLU that is off everywhere", dead["minigrad"], dead["torch"],
      brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The graph reaches `w`, so a gradient arrives; the ReLU's derivative is $0$ at every
# negative input, so it is $0$. A unit whose input is negative on every example (a
# "dead" ReLU) never learns again, and nothing raises.
# </details>
#
# **2.** A model of two layers, `a` and `b`, whose loss uses only `a`. After
# `backward()`, is `b.weight.grad` a tensor of zeros, or `None`?

# %%
unused = {}
for lib in (minigrad, torch):
    lib.manual_seed(0)
    a, b = lib.nn.Linear(2, 2), lib.nn.Linear(2, 1)
    (a(lib.ones(1, 2)) ** 2).sum().backward()
    unused[lib.__name__] = [b.weight.grad is None, a.weight.grad is None]
print("[b.weight.grad is None, a.weight.grad is None]:", unused["minigrad"])
check("[b.weight.grad is None, a.weight.grad is None]", unused["minigrad"], unused["torch"],
      brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Backward only visits the graph of the loss; a parameter outside it is never reached,
# so its `.grad` stays `None` (not zero), and `step()` skips it. A `None` where you
# expected a number means "not on the path to the loss".
# </details>
#
# **3.** `h = x * x`, `y = h * h`, then `d = h.detach()` and `d.add_(1)`. `detach()`
# made a new tensor: does `y.sum().backward()` still work?

# %%
def detach_then_change(lib):
    """[h after d.add_(1), raised the version-counter error]."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = h * h                # saves h
    d = h.detach()
    d.add_(1)
    try:
        y.sum().backward()
    except RuntimeError as error:
        return [h.detach().numpy().tolist(), "modified by an inplace operation" in str(error)]
    return [h.detach().numpy().tolist(), False]


changed = {lib.__name__: detach_then_change(lib) for lib in (minigrad, torch)}
print("minigrad:", changed["minigrad"], " torch:", changed["torch"])
check_all({"h after d.add_(1)": (changed["minigrad"][0], changed["torch"][0]),
           "raised the version-counter error": (changed["minigrad"][1], changed["torch"][1])},
          brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# `detach()` shares the data (and the version counter) with `h`: it is a new tensor
# object, not a copy. `d.add_(1)` changes `h` to $(2, 5)$, the saved value `h * h`
# needs, and backward refuses. Use `h.detach().clone()` for a copy you may change.
# </details>

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
# - Whether an in-place change is safe depends on what the ops saved: `+` and a
#   multiplication by a number save nothing; `*` of two tensors, `**`, `sin` and `log`
#   save their input; `exp`, `sigmoid`, `tanh`, `relu` and `sqrt` their output. A second
#   name bound by `=`, or a `detach()`, shares the numbers: `clone()` makes a copy.
# - `Trying to backward through the graph a second time`: the first backward freed
#   the saved values (a graph that saved nothing runs again silently). Fix: recompute
#   the forward pass, or `retain_graph=True`.
# - `Trying to backward through the graph a second time` in a loop: a tensor carried
#   from one iteration to the next. Fix: `detach()` it at the start of each iteration.
# - `.grad` is `None` on an intermediate, with a warning: only leaves keep `.grad`.
#   Fix: `retain_grad()` before backward. A "parameter" made by `.double()` or `.to()`
#   after `requires_grad=True` is such an intermediate: give the dtype when making it.
# - A `nan` gradient from a finite forward pass: an op at the edge of its domain, even
#   in a branch `where` did not pick ($0 \cdot \infty$). `autograd.detect_anomaly()`
#   names the op and its forward line; keep its input in the domain in both branches.
#
# minigrad raises each of these with torch's exception type and words, and adds the
# fix. Next: [13 Capstone](13_capstone.ipynb), a network's backward pass by hand.
