# %% [markdown]
# # 08 Accumulation
#
# `backward()` does not *write* a gradient into `.grad`: it *adds* to whatever is
# there. That one design choice explains a useful trick (splitting a batch that does
# not fit in memory into microbatches, whose gradients add up to the full batch's) and
# the most common bug of hand-written training loops (forgetting to clear the old
# gradient, so every update is pushed by all the previous ones). This chapter shows
# the rule with the tutorial's own example, the ways to clear a gradient, the
# microbatch trick, and the bug, each in minigrad and in PyTorch side by side.
#
# **Learning goals.** After this chapter you can
#
# 1. predict `.grad` after several `backward()` calls: the sum of their gradients;
# 2. clear gradients with `zero_grad()` (to `None`, torch's default, or to zeros) and
#    with `.grad.zero_()`, and say how the two differ;
# 3. accumulate microbatch gradients that equal the full-batch gradient, for a sum and
#    for a mean loss (with the right scaling);
# 4. recognise the stale-gradient bug from its loss curve, and fix it.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source
from minigrad.function import AccumulateGrad

# %% [markdown]
# ## 1. `backward()` adds into `.grad`
#
# The tutorial's example: $y = x^2$ and then $z = 3x$, at $x = 2$, each followed by
# `backward()`. First in PyTorch, exactly as the tutorial writes it:

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
# `minigrad`, with torch's numbers beside them (`xt`) in each cell:

# %%
x = minigrad.tensor(2.0, requires_grad=True)
y = x ** 2
y.backward()
print(x.grad)  # tensor(4.)

xt = torch.tensor(2.0, requires_grad=True)
(xt ** 2).backward()
check("x.grad after y.backward()", x.grad, xt.grad)

# %%
z = 3 * x
z.backward()
print(x.grad)  # tensor(7.)

(3 * xt).backward()
check("x.grad after z.backward()", x.grad, xt.grad)

# %% [markdown]
# Where does the adding happen? A leaf's node in the graph is its `AccumulateGrad`:
# the first gradient that reaches it becomes `.grad`, every later one is added in
# place. It is the same `+=` that makes a value used twice in one graph get both
# contributions (chapter 04), applied across calls.

# %%
show_source(AccumulateGrad.accumulate)

# %% [markdown]
# Adding in place means `x.grad` stays the *same tensor* across calls, in both
# libraries: a reference to it taken earlier sees the new value.

# %%
x = minigrad.tensor(2.0, requires_grad=True)
xt = torch.tensor(2.0, requires_grad=True)
(x ** 2).backward()
(xt ** 2).backward()
first, first_t = x.grad, xt.grad
(3 * x).backward()
(3 * xt).backward()
print("same tensor:", first is x.grad, "(minigrad),", first_t is xt.grad, "(torch)")
check("the reference taken after the first backward", first, first_t)

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
# First `.grad.zero_()`, on the seed example: after clearing, $y = x^2$ gives $4$
# again, not $11$.

# %%
x.grad.zero_()
xt.grad.zero_()
print(x.grad)  # tensor(0.)
(x ** 2).backward()
(xt ** 2).backward()
print(x.grad)  # tensor(4.)
check("x.grad after zero_() and y.backward()", x.grad, xt.grad)

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
check_all({"weight": (model.weight, model_t.weight), "bias": (model.bias, model_t.bias)})

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
      sum(p.grad is None for p in model_t.parameters()))

# %%
((model(X) - y) ** 2).mean().backward()
((model_t(X_t) - y_t) ** 2).mean().backward()
model.zero_grad(set_to_none=False)
model_t.zero_grad(set_to_none=False)
check_all({"weight.grad (zeros)": (model.weight.grad, model_t.weight.grad),
           "bias.grad (zeros)": (model.bias.grad, model_t.bias.grad)})

# %% [markdown]
# `optimizer.zero_grad()` does the same for the parameters the optimizer holds (here,
# the whole model). Its code, from the package:

# %%
show_source(minigrad.optim.Optimizer.zero_grad)

# %% [markdown]
# ## 3. Microbatches equal the full batch
#
# A loss that *sums* over the examples of a batch has a gradient that sums too:
#
# $$\nabla_\theta \sum_{i=1}^{N} \ell_i = \sum_{k} \nabla_\theta \sum_{i \in B_k} \ell_i$$
#
# for any split of the batch into microbatches $B_1, \dots, B_K$. So we can run
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
           "bias.grad, 4 microbatches vs full": (model.bias.grad, model_t.bias.grad)})

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
           "bias.grad, mean loss / K": (model.bias.grad, model_t.bias.grad)})

# %% [markdown]
# Forget the division and the accumulated gradient is $K = 4$ times too large: as if
# the learning rate were 4 times larger.

# %%
model = twin_linears(seed=1)[0]
for rows in np.split(np.arange(16), K):
    start, stop = rows[0], rows[-1] + 1
    ((model(X[start:stop]) - y[start:stop]) ** 2).mean().backward()

check("weight.grad without / K, divided by torch's full-batch grad",
      model.weight.grad.data / model_t.weight.grad.numpy(), np.full((1, 3), 4.0))

# %% [markdown]
# ## 4. The stale-gradient bug
#
# The tutorial warns: "Without `zero_grad()`, gradients from previous batches
# contaminate the current update." Let us watch it happen. The data: 64 points of a
# noisy linear function of 3 inputs. The training loop is one function that works for
# both libraries, since minigrad has torch's names; `clear=False` drops the
# `zero_grad()` call.

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
             for clear, (ours, theirs) in runs.items()})

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
    fresh_sum += minigrad.autograd.grad(loss, model.weight, retain_graph=True)[0].data
    loss.backward()  # no zero_grad: adds into .grad
    optimizer.step()
    ((model_t(X_reg_t) - y_reg_t) ** 2).mean().backward()
    optimizer_t.step()
check_all({"stale weight.grad vs the sum of the 5 fresh gradients": (model.weight.grad, fresh_sum),
           "stale weight.grad vs torch's": (model.weight.grad, model_t.weight.grad)})

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your code and a locked cell that checks it against
# torch. Replace `raise NotImplementedError()` with your answer and run both cells.
#
# ### Exercise 8.1: predict the accumulated gradient
#
# Let `a8 = minigrad.tensor([1.0, -2.0, 0.5], dtype=minigrad.float64,
# requires_grad=True)`. Three losses are computed from it and `backward()` is called on
# each in turn, without clearing: $L_1 = \sum a^3$, $L_2 = \sum 4a$, $L_3 = \sum a
# \cdot a$. First write `predicted`, a numpy array holding what `a8.grad` will be,
# *by hand* from the derivatives. Then make `a8` and run the three backward calls, so
# that `a8.grad` can be compared too.
#
# <details><summary>Hint</summary>
#
# The derivatives are $3a^2$, $4$ and $2a$, and `.grad` holds their sum. For
# `predicted`, work on a numpy array `np.array([1.0, -2.0, 0.5])`.
# </details>

# %% solution=ex08-predict
### BEGIN SOLUTION
values = np.array([1.0, -2.0, 0.5])
predicted = 3 * values ** 2 + 4 + 2 * values
a8 = minigrad.tensor([1.0, -2.0, 0.5], dtype=minigrad.float64, requires_grad=True)
(a8 ** 3).sum().backward()
(4 * a8).sum().backward()
(a8 * a8).sum().backward()
### END SOLUTION

# %% test=ex08-predict-test points=2
# Exercise 8.1 checks: the prediction and a8.grad against torch's accumulated gradient.
a8_t = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64, requires_grad=True)
(a8_t ** 3).sum().backward()
(4 * a8_t).sum().backward()
(a8_t * a8_t).sum().backward()
check_all({"predicted": (predicted, a8_t.grad), "a8.grad": (a8.grad, a8_t.grad)})

# %% [markdown]
# ### Exercise 8.2: microbatches of unequal size
#
# Write `accumulate_microbatches(model, X, y, sizes)`: clear the model's gradients,
# split the rows of `X` and `y` into consecutive microbatches of the given `sizes`
# (they add up to the number of rows), and call `backward()` on each microbatch's
# *mean* squared error, scaled so that `.grad` ends up equal to the gradient of the
# mean squared error over all the rows. With unequal sizes, dividing by the number
# of microbatches is not right any more.
#
# <details><summary>Hint</summary>
#
# The full mean is $\frac{1}{N}\sum_i \ell_i = \sum_k \frac{n_k}{N} \cdot
# \frac{1}{n_k}\sum_{i \in B_k} \ell_i$: scale microbatch $k$'s mean by $n_k / N$.
# Start with `model.zero_grad()`, and slice with `X[start:start + n]`.
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
# Exercise 8.2 checks: against torch's full-batch gradient, and called twice (it must
# clear the old gradient first).
torch.manual_seed(8)
X10_t = torch.randn(10, 3, dtype=torch.float64)
y10_t = torch.randn(10, 1, dtype=torch.float64)
X10, y10 = minigrad.tensor(X10_t.numpy()), minigrad.tensor(y10_t.numpy())
ours8, theirs8 = twin_linears(seed=9)
torch.nn.functional.mse_loss(theirs8(X10_t), y10_t).backward()
accumulate_microbatches(ours8, X10, y10, [5, 3, 2])
accumulate_microbatches(ours8, X10, y10, [5, 3, 2])
check_all({"weight.grad": (ours8.weight.grad, theirs8.weight.grad),
           "bias.grad": (ours8.bias.grad, theirs8.bias.grad)})
### BEGIN HIDDEN TESTS
accumulate_microbatches(ours8, X10, y10, [1, 9])
check("weight.grad, sizes [1, 9]", ours8.weight.grad, theirs8.weight.grad)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 8.3: training with gradient accumulation
#
# Write `train_accumulated(model, X, y, K, steps, lr)`: `steps` SGD steps with
# `minigrad.optim.SGD(model.parameters(), lr=lr)`, each one on the full mean squared
# error of `(X, y)`, but with its gradient accumulated over `K` equal microbatches.
# Clear the gradients in the right place. If it is right, training ends exactly where
# torch's full-batch training ends.
#
# <details><summary>Hint</summary>
#
# Per step: `optimizer.zero_grad()`, then for each of the `K` microbatches
# `(microbatch_mean / K).backward()`, then `optimizer.step()`. `np.split(np.arange(N),
# K)` gives the rows of each microbatch.
# </details>

# %% solution=ex08-train
def train_accumulated(model, X, y, K, steps, lr):
    """SGD on the mean squared error, each step's gradient accumulated over K microbatches."""
    ### BEGIN SOLUTION
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    for _step in range(steps):
        opt.zero_grad()
        for part in np.split(np.arange(X.shape[0]), K):
            lo, hi = part[0], part[-1] + 1
            part_loss = ((model(X[lo:hi]) - y[lo:hi]) ** 2).mean()
            (part_loss / K).backward()
        opt.step()
    ### END SOLUTION

# %% test=ex08-train-test points=2
# Exercise 8.3 checks: the parameters after 20 steps against torch's full-batch training,
# and that backward() ran K = 8 times per step (full-batch training ends at the same place).
ours83, theirs83 = twin_linears(seed=10)
train(torch, theirs83, X_reg_t, y_reg_t, steps=20, lr=0.05)
backward_calls = []
original_backward = minigrad.Tensor.backward
def counting_backward(self, *args, **kwargs):
    backward_calls.append(1)
    return original_backward(self, *args, **kwargs)
minigrad.Tensor.backward = counting_backward
try:
    train_accumulated(ours83, X_reg, y_reg, K=8, steps=20, lr=0.05)
finally:
    minigrad.Tensor.backward = original_backward
check_all({"weight": (ours83.weight, theirs83.weight), "bias": (ours83.bias, theirs83.bias)},
          rtol=1e-10)
assert len(backward_calls) == 8 * 20, f"backward() ran {len(backward_calls)} times, not 8 * 20"

# %% [markdown]
# ## Summary
#
# - `backward()` adds into `.grad`; it never replaces it. In the tutorial's example,
#   $y = x^2$ then $z = 3x$ at $x = 2$ leave $4$ and then $4 + 3 = 7$, in torch and
#   in minigrad.
# - `zero_grad()` (of a module or an optimizer) sets gradients to None by default, as
#   torch does; `zero_grad(set_to_none=False)` and `.grad.zero_()` fill them with
#   zeros instead.
# - Gradients of microbatches add up to the full-batch gradient: exactly for a sum
#   loss, and for a mean loss once each microbatch's mean is scaled by its share of
#   the batch.
# - Forgetting to clear makes every step use the sum of all past gradients; the loss
#   swings instead of converging. Clear once per optimizer step, before `backward()`.
#
# Next: [09 Disabling gradients](09_disabling_gradients.ipynb), computing without
# building a graph at all.
