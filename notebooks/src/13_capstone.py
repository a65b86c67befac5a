# %% [markdown]
# # 13 Capstone: your own backward pass of a trained network
#
# Everything so far comes together here. We take a small network, a 64-32-10
# multilayer perceptron with a cross-entropy loss that reads $8 \times 8$ images of
# handwritten digits, and **you** write its backward pass: every intermediate
# gradient, one step at a time, each checked against torch's autograd while autograd
# is switched off for your code. Then you train the network with your backward and
# watch it reach the test accuracy of torch's own training, and you break one line of
# a backward on purpose to see the check table point at it. The forward pass, left to
# right, and the gradients your backward computes, right to left:
#
# ```text
# forward:   x --lin(w1, b1)--> l1 --relu--> a1 --lin(w2, b2)--> logits --log_softmax--> logp --> L
# backward:  w1.g, b1.g <-- l1.g <-- a1.g, w2.g, b2.g <-- logits.g <-- logp.g <-- L
# ```
#
# **Learning goals.** After this chapter you can
#
# 1. write the gradient of cross-entropy in its two steps (the mean of $-\log p$ at the
#    labels, then log-softmax) and fused, $(\mathrm{softmax} - \mathrm{onehot})/N$;
# 2. write the gradients of ReLU (a mask) and of a linear layer (a transpose, and a
#    sum over the batch for the bias);
# 3. chain them into the backward pass of a network, checked intermediate by
#    intermediate against torch;
# 4. train with your own backward and get torch's losses, step for step;
# 5. find a wrong line of a backward from the first wrong row of the check table;
# 6. write the two hardest steps of a hand-written backward: batch normalisation (a
#    statistic of the whole batch) and an embedding's lookup (a row used many times).
# 7. differentiate a forward pass line by line, through a maximum, a reciprocal, a
#    power, broadcasts, sums and a lookup, each gradient checked against torch's.
#
# How the exercises work: see [Exercises](../book/exercises.md). Here they are the
# chapter. Their checks switch autograd off (torch's and minigrad's: the gradients are
# yours to write), and the cells between them run without your answers; the training of
# section 8 waits for them.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all
from minigrad.course.capstone import (BackwardCheck, accuracy, break_widget, init_params,
                                      load_digits_split, train_minigrad, train_torch)

torch.set_num_threads(1)  # tiny models: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. The data and the network
#
# The digits data set of scikit-learn (shipped with it, no download): 1797 images of
# $8 \times 8$ pixels with values $0..16$, which we scale to $[0, 1]$, and their labels
# $0..9$. `load_digits_split` shuffles them with a fixed seed and keeps 1500 images
# for training and 297 for testing.

# %%
x_train_np, y_train, x_test_np, y_test = load_digits_split(n_train=1500, seed=0)
x_train, x_test = minigrad.tensor(x_train_np), minigrad.tensor(x_test_np)
print(x_train.shape, x_test.shape, x_train.dtype, y_train[:10])

fig, axes = plt.subplots(1, 8, figsize=(8, 1.3))
for ax, image, label in zip(axes, x_train_np, y_train, strict=False):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set_title(str(label))
    ax.axis("off")
plt.show()

# %% [markdown]
# The network, for a batch $x$ of $N$ rows:
#
# $$l_1 = x W_1 + b_1, \quad a_1 = \mathrm{relu}(l_1), \quad z = a_1 W_2 + b_2, \quad
# \ell = \mathrm{log\_softmax}(z), \quad L = -\frac{1}{N}\sum_n \ell_{n, y_n}.$$
#
# $z$ holds the *logits*, one score per class; $\ell_{n,c} = z_{n,c} - \log \sum_k
# e^{z_{n,k}}$ is the log of the probability the network gives class $c$; the loss is
# the mean over the batch of $-\log$ of the probability of the right class
# (cross-entropy). As in the fast.ai thread, weights have shape `(in, out)` so that a
# layer is `x @ w + b`. `init_params` draws them with a seeded numpy generator, scaled
# by $\sqrt{2/\text{in}}$ for ReLU, biases zero; all in float64, so that the checks
# can be tight.

# %%
p0 = init_params(sizes=(64, 32, 10), seed=0)
params = {name: minigrad.tensor(value.copy()) for name, value in p0.items()}
{name: tuple(value.shape) for name, value in params.items()}

# %% [markdown]
# ## 2. The forward pass, keeping every value
#
# The backward pass needs the intermediate values, so the forward pass returns them
# all, by name. No tensor requires grad: minigrad records nothing, your backward does
# the work. Log-softmax subtracts each row's maximum first: the result is the same
# (the maximum cancels) and `exp` never overflows.

# %%
def lin(x, w, b):
    return x @ w + b


def log_softmax(z):
    shifted = z - z.max(dim=1, keepdim=True).values
    return shifted - shifted.exp().sum(dim=1, keepdim=True).log()


def nll(logp, labels):
    """The mean of -logp at each row's label: cross-entropy, given log-probabilities."""
    return -logp[np.arange(len(labels)), labels].mean()


def forward(x, p):
    """All the values of the forward pass, by name."""
    l1 = lin(x, p["w1"], p["b1"])
    a1 = l1.relu()
    logits = lin(a1, p["w2"], p["b2"])
    return {"x": x, "l1": l1, "a1": a1, "logits": logits, "logp": log_softmax(logits)}


values5 = forward(x_train[:5], params)
print(values5["logp"].grad_fn)  # None: nothing was recorded

# %% [markdown]
# Checked against torch on the same five images: its `log_softmax` and its
# `cross_entropy` (which is `log_softmax` followed by `nll_loss`).

# %%
t5 = {name: torch.tensor(value) for name, value in p0.items()}
logits5_t = (torch.tensor(x_train_np[:5]) @ t5["w1"] + t5["b1"]).relu() @ t5["w2"] + t5["b2"]
labels5 = np.asarray(y_train[:5])
check_all({"logits": (values5["logits"], logits5_t),
           "logp": (values5["logp"], torch.log_softmax(logits5_t, dim=1)),
           "loss": (nll(values5["logp"], labels5),
                    torch.nn.functional.cross_entropy(logits5_t, torch.tensor(labels5)))},
          rtol=1e-12, brief=True)

# %% [markdown]
# ## 3. Backward, one step at a time, in `.g`
#
# Backward runs the forward pass in reverse. Each step is a function that reads the
# gradient of its output, `out.g`, and sets the gradients of its inputs (and
# parameters): for $\text{out} = f(\text{inp})$, $\text{inp.g} = \text{out.g} \cdot
# \partial\,\text{out} / \partial\,\text{inp}$, the chain rule of chapter 03 with
# tensors. `.g` is a plain attribute, not `.grad`: autograd never reads it. The style
# is that of fast.ai's Part 2 course (2019, lesson 8, the notebook
# `02_fully_connected.ipynb` in the repository fastai/course-v3), where `mse_grad`,
# `relu_grad` and `lin_grad` first appear; chapter 07 follows the fast.ai forum thread
# that asks how it works (see [Sources](../book/sources.md)).
#
# **Assignment works only for a chain.** `inp.g = ...` *replaces* what `inp.g` held.
# In this network every value feeds exactly one later step, so each gradient has one
# source and assignment is right. A value used twice (fan-out, chapter 04) gets a
# gradient from each use, and its gradient is their **sum**: there you would write
# `inp.g = inp.g + ...`, as every backward adds into `.grad`. Here is the difference,
# on $b = 3a$, $c = b \cdot b + b$, where $b$ is used twice:

# %%
a_val = 2.0
b_val = 3 * a_val
c_g = 1.0
b_g_assigned = 2 * b_val * c_g      # from b * b ...
b_g_assigned = 1.0 * c_g            # ... replaced by the one from + b
b_g_added = 2 * b_val * c_g + 1.0 * c_g

a_t = torch.tensor(a_val, requires_grad=True)
b_t = 3 * a_t
b_t.retain_grad()
(b_t * b_t + b_t).backward()
print(f"assigned: {b_g_assigned}, added: {b_g_added}, torch: {b_t.grad.item()}")
check("b.g, added", b_g_added, b_t.grad, brief=True)

# %% [markdown]
# ## 4. The plan, and what a wrong line looks like
#
# Your backward will compute, in this order: `logp.g` (the loss), `logits.g`
# (log-softmax), `w2.g`, `b2.g` and `a1.g` (the second layer), `l1.g` (ReLU), then
# `w1.g` and `b1.g` (the first layer). Each exercise checks its steps against torch,
# and Exercise 13.5 checks them all, in this order. A wrong line spoils its own
# gradient and every gradient computed from it, never one before it: so **the first
# failing row points at the wrong line**. (A line in a helper that several layers
# call, such as the linear layer's backward, runs once per layer, so it also spoils
# the same gradient of every later call; the first failing row is still its first
# call.) Before you write yours, watch this on torch's own backward, spoilt on purpose:
# `minigrad.course.capstone` reads torch's intermediate gradients (`retain_grad()`,
# chapter 12) and can change them the way each of four common slips of a hand-written
# backward would:

# %%
from minigrad.course.capstone import BREAKS

for name, line in BREAKS.items():
    print(f"{name:14} {line}")

# %% [markdown]
# `BackwardCheck` runs it on a batch of 64 training images and compares each gradient
# with torch's, unspoilt. Nothing broken, every row passes:

# %%
batch_check = BackwardCheck(x_train_np[:64], y_train[:64], p0)
batch_check.table()

# %% [markdown]
# Drop the ReLU mask: pass `a1`'s gradient to `l1` unchanged. The rows above it still
# pass: `l1.g` is the first to fail, and `w1.g`, `b1.g`, computed from it, fail with it.

# %%
relu_table = batch_check.table(["relu mask"])
assert relu_table.first_wrong == "l1.g"
relu_table

# %% [markdown]
# Forget the $1/N$ of the mean. The very first row fails, and so does every row
# after it, each by the same factor: the batch size, 64. Every gradient too large by
# exactly the batch size is the signature of a forgotten mean.

# %%
from minigrad.course.capstone import broken_gradients

n_table = batch_check.table(["1/N"])
assert n_table.first_wrong == "logp.g"
broken = broken_gradients(x_train_np[:64], y_train[:64], p0, breaks=["1/N"])
check("w1.g without 1/N, divided by 64", broken["w1"] / 64, batch_check.reference["w1"],
      rtol=1e-10, brief=True)
n_table

# %% [markdown]
# Give the weights' gradients the layout of torch's own `nn.Linear` weight, `(out, in)`,
# where this network's weights are `(in, out)`. The shape column says it before any
# number: `(10, 32)` where torch has `(32, 10)`. The input's gradient is
# not affected, so the rows between pass. Yet `w1.g` fails too, though it is not
# computed from `w2.g`: the wrong line is in the linear layer's backward, which runs
# for both layers, and it is wrong at each call. (Summing the bias over the wrong axis
# does the same to `b2.g` and `b1.g`.)

# %%
t_table = batch_check.table(["transpose"])
assert t_table.first_wrong == "w2.g"
failing = {name: [row.name for row in batch_check.table([name]).rows if not row.ok]
           for name in ("transpose", "bias sum axis")}
print("failing rows:", failing)
assert failing == {"transpose": ["w2.g", "w1.g"], "bias sum axis": ["b2.g", "b1.g"]}
t_table

# %% [markdown]
# Try it: each box breaks one line; the table turns red from the first gradient that
# line spoils. Combine two, and the first red row is the earlier of the
# two lines. (The widget works on its own copy of the batch and the parameters.)

# %% tags=nbval-ignore-output
break_widget(BackwardCheck(x_train_np[:64], y_train[:64], p0))

# %% [markdown]
# ## 5. The loss end: from $L$ to the logits
#
# Start at the loss, $L = -\frac{1}{N}\sum_n \ell_{n, y_n}$. It touches one entry of
# each row of $\ell$, with weight $-1/N$; every other entry does not move $L$. So
#
# $$\frac{\partial L}{\partial \ell_{n,c}} = -\frac{1}{N}\,[c = y_n],$$
#
# minus the one-hot rows of the labels, divided by $N$. Then log-softmax. Row by
# row, $\ell_c = z_c - \log\sum_k e^{z_k}$, so $\partial \ell_c / \partial z_j = [c = j]
# - \mathrm{softmax}(z)_j$, and summing over $c$ with the upstream gradient $g =$
# `logp.g`:
#
# $$\frac{\partial L}{\partial z_j} = g_j - \mathrm{softmax}(z)_j \sum_c g_c,$$
#
# where $\mathrm{softmax}(z) = e^{\ell}$: the forward pass already holds it, as
# `exp(logp)`, finite for any logits.
#
# The Jacobian in numbers, for one row of three logits $z = (1, 2, 0.5)$: row $c$ of
# $\partial \ell / \partial z$ is the one-hot row $e_c$ minus the same
# $p = \mathrm{softmax}(z)$, so the matrix is the identity minus $p$ in every row:

# %%
z3 = np.array([1.0, 2.0, 0.5])
p3 = np.exp(z3) / np.exp(z3).sum()
jacobian3 = np.eye(3) - p3  # row c: [c = j] - p_j
jacobian3_t = torch.autograd.functional.jacobian(lambda z: torch.log_softmax(z, dim=0),
                                                 torch.tensor(z3))
print("p =", np.round(p3, 4))
print(np.round(jacobian3, 4))
check("the Jacobian of log_softmax at (1, 2, 0.5)", jacobian3, jacobian3_t, rtol=1e-12)

# %% [markdown]
# A row of upstream gradients $g$ times this matrix adds up $g_c$ times row $c$:
# $\sum_c g_c (e_c - p) = g - p \sum_c g_c$, the formula above.
#
# ### Exercise 13.1: the loss and log-softmax steps (3 points)
#
# Write `nll_grad(logp, labels)`, which sets `logp.g` to $\partial L / \partial \ell$
# for $L$ = `nll(logp, labels)`, and `log_softmax_grad(logits, logp)`, which sets
# `logits.g` from `logp.g` for `logp = log_softmax(logits)`, whatever `logp.g` holds
# (not only the loss's). Both take and set minigrad tensors of shape $(N, C)$;
# `labels` is a numpy array of $N$ integers in $0..C-1$. They must work for any $N$
# and $C$, stay finite for logits as large as $\pm 1000$, and not change their inputs.
#
# <details><summary>Hint</summary>
#
# `np.eye(C)[labels]` gives one-hot rows. For log-softmax: the softmax is the `exp()`
# of `logp`; each row's sum of `logp.g` is a `sum(dim=1, keepdim=True)`, which
# broadcasts back over the row.
# </details>

# %% solution=ex13-loss-steps-grad
def nll_grad(logp, labels):
    """Set logp.g to the gradient of nll(logp, labels)."""
    ### BEGIN SOLUTION
    onehot = np.eye(logp.shape[1])[labels]
    logp.g = minigrad.tensor(-onehot / logp.shape[0])
    ### END SOLUTION


def log_softmax_grad(logits, logp):
    """Set logits.g from logp.g, for logp = log_softmax(logits)."""
    ### BEGIN SOLUTION
    softmax = logp.exp()
    logits.g = logp.g - softmax * logp.g.sum(dim=1, keepdim=True)
    ### END SOLUTION

# %% test=ex13-loss-steps-grad-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.ops.losses import CrossEntropy

with graded("Exercise 13.1", hint="compare the failing row with the derivation of "
            "section 5: which entries of logp move the loss, by how much each, and does "
            "your log_softmax_grad use the logp.g it is given?") as g:
    routes = ["autograd", CrossEntropy.backward]

    def grad_of(fn, first, *rest):
        fn(first, *rest)
        return getattr(first, "g", None)

    def check_steps(z0, labels, up0, label):
        lp0 = torch.log_softmax(torch.tensor(z0), dim=1).numpy()
        logp = minigrad.tensor(lp0.copy())
        mine = g.call(grad_of, nll_grad, logp, labels.copy(), forbid=routes)
        g.require(f"{label}: logp.g is a minigrad.Tensor", type(mine) is minigrad.Tensor,
                  "set logp.g to a minigrad tensor")
        g.require(f"{label}: logp unchanged", np.array_equal(logp.detach().numpy(), lp0),
                  "compute new tensors; do not change logp in place")
        lp_t = torch.tensor(lp0, requires_grad=True)
        loss_t = torch.nn.functional.nll_loss(lp_t, torch.tensor(labels))
        ref = torch.autograd.grad(loss_t, lp_t)[0].numpy()
        g.check(f"{label}: nll_grad, logp.g", mine, ref, rtol=1e-12, atol=1e-15, mistakes={
            "mean-not-divided": (f"your logp.g is {len(labels)} times torch's: what does a "
                                 "mean do to each entry's share of the loss?",
                                 ref * len(labels)),
            "sign-flipped": ("your logp.g has torch's size and the opposite sign: does the "
                             "loss go up or down when the right class's log-probability "
                             "grows?", -ref)})
        z, logp = minigrad.tensor(z0.copy()), minigrad.tensor(lp0.copy())
        logp.g = minigrad.tensor(up0.copy())
        mine = g.call(grad_of, log_softmax_grad, z, logp, forbid=routes)
        g.require(f"{label}: logits.g is a minigrad.Tensor", type(mine) is minigrad.Tensor,
                  "set logits.g to a minigrad tensor")
        g.require(f"{label}: logits unchanged", np.array_equal(z.detach().numpy(), z0),
                  "compute new tensors; do not change logits in place")
        z_t = torch.tensor(z0, requires_grad=True)
        (ref,) = torch.autograd.grad(torch.log_softmax(z_t, dim=1), z_t, torch.tensor(up0))
        g.check(f"{label}: log_softmax_grad, logits.g", mine, ref, rtol=1e-10, atol=1e-14,
                mistakes={
            "softmax-term-forgotten": ("your logits.g is logp.g unchanged: each logit moves "
                                       "every log-probability of its row, through the "
                                       "log of the sum; where is that part?", up0)})

    rng = np.random.default_rng(1310)
    check_steps(rng.standard_normal((6, 4)) * 3, np.array([0, 3, 1, 1, 2, 3]),
                rng.standard_normal((6, 4)), "N=6, C=4")
    check_steps(np.array([[1000.0, 998.0, 990.0], [-1000.0, -1001.0, -999.5]]),
                np.array([1, 2]), rng.standard_normal((2, 3)), "logits near +-1000")
    ### BEGIN HIDDEN TESTS
    for n, c, scale in [(1, 2, 1.0), (9, 3, 2.0), (4, 7, 0.5), (5, 10, 300.0)]:
        check_steps(rng.standard_normal((n, c)) * scale, rng.integers(0, c, n),
                    rng.standard_normal((n, c)) * 2, f"N={n}, C={c}, scale {scale}")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 13.2: the two steps fused (2 points)
#
# When `logp.g` is the loss's gradient, $-\mathrm{onehot}/N$, each row of it sums to
# $-1/N$, and the log-softmax step gives
#
# $$\frac{\partial L}{\partial z} = \frac{\mathrm{softmax}(z) - \mathrm{onehot}}{N},$$
#
# the gradient every classifier trained with cross-entropy starts its backward from.
# Write `cross_entropy_grad(logits, labels)` that sets `logits.g` to $\partial L /
# \partial z$ for the mean cross-entropy, straight from the logits (no `logp` given),
# in one function. It must work for any $N$ and $C$, stay finite for logits as large
# as $\pm 1000$ (where $e^{z}$ overflows), and not change `logits`.
#
# <details><summary>Hint</summary>
#
# Softmax does not change if you subtract the same number from every entry of a row:
# pick one that keeps `exp` in range. `np.eye` makes one-hot rows.
# </details>
# %% solution=ex13-cross-entropy-grad
def cross_entropy_grad(logits, labels):
    """Set logits.g to the gradient of the mean cross-entropy."""
    ### BEGIN SOLUTION
    e = (logits - logits.max(dim=1, keepdim=True).values).exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (softmax - onehot) / logits.shape[0]
    ### END SOLUTION

# %% test=ex13-cross-entropy-grad-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.ops.losses import CrossEntropy

with graded("Exercise 13.2", hint="if only the large logits fail, see what exp makes of "
            "them; if every entry is off by the same factor, count the rows the mean "
            "divides by") as g:
    def your_grad(fn, logits, labels):
        fn(logits, labels)
        return getattr(logits, "g", None)

    def check_ce(z0, labels, label):
        z = minigrad.tensor(z0.copy())
        got = g.call(your_grad, cross_entropy_grad, z, labels.copy(),
                     forbid=["autograd", CrossEntropy.backward])
        g.require(f"{label}: logits.g is a minigrad.Tensor", type(got) is minigrad.Tensor,
                  "set logits.g to a minigrad tensor, as mse_grad does")
        g.require(f"{label}: logits unchanged", np.array_equal(z.detach().numpy(), z0),
                  "compute new tensors; do not change logits in place")
        z_t = torch.tensor(z0, requires_grad=True)
        loss_t = torch.nn.functional.cross_entropy(z_t, torch.tensor(labels))
        (ref,) = torch.autograd.grad(loss_t, z_t)
        ref = ref.numpy()

        def no_max():  # the softmax of exp(z) / sum(exp(z)) as written, overflow and all
            with np.errstate(all="ignore"):
                naive = np.exp(z0) / np.exp(z0).sum(axis=1, keepdims=True)
            return ref + (naive - torch.softmax(torch.tensor(z0), dim=1).numpy()) / len(labels)

        g.check(f"{label}: logits.g", got, ref, rtol=1e-10, atol=1e-15, mistakes={
            "mean-not-divided": (f"your logits.g is {len(labels)} times torch's: how many "
                                 "rows does the mean share the loss between?",
                                 ref * len(labels)),
            "sign-flipped": ("your logits.g has torch's size and the opposite sign: should "
                             "a step against it raise or lower the right class's logit?",
                             -ref),
            "no-max-subtracted": ("your logits.g is not a number where the logits are "
                                  "large: what is exp(1000) in float64, and which number "
                                  "may a softmax subtract from its row?", no_max)})

    rng = np.random.default_rng(131)
    check_ce(rng.standard_normal((6, 4)) * 3, np.array([0, 3, 1, 1, 2, 3]), "N=6, C=4")
    check_ce(np.array([[1000.0, 998.0, 990.0], [-1000.0, -1001.0, -999.5]]),
             np.array([1, 2]), "logits near +-1000")
    ### BEGIN HIDDEN TESTS
    for n, c, scale in [(1, 2, 1.0), (9, 3, 2.0), (4, 7, 0.5), (5, 5, 50.0), (3, 10, 400.0)]:
        labels = rng.integers(0, c, n)
        check_ce(rng.standard_normal((n, c)) * scale, labels, f"N={n}, C={c}, scale {scale}")
    check_ce(np.zeros((3, 4)), np.array([2, 2, 0]), "equal logits")
    ### END HIDDEN TESTS

# %% [markdown]
# ## 6. Through the layers: ReLU and linear
#
# ReLU passes the gradient where its input was positive and stops it elsewhere: its
# derivative is $1$ or $0$, a **mask**. (At exactly $0$ torch takes $0$.)
#
# A linear layer $\text{out} = x W + b$ with $x$ of shape $(N, \text{in})$ and $W$ of
# shape $(\text{in}, \text{out})$ (chapter 07 derives each line element by element):
#
# - the input's gradient is $\text{out.g}\, W^\top$: **transpose** $W$, shape
#   $(N, \text{out}) \times (\text{out}, \text{in}) = (N, \text{in})$;
# - the weight's is $x^\top \text{out.g}$, the sum over the batch of the outer products
#   $x_n^\top \text{out.g}_n$, shape $(\text{in}, \text{out})$ as $W$;
# - the bias's is $\text{out.g}$ **summed over the batch** (axis 0), because every row
#   used the same $b$: shape $(\text{out},)$ as $b$.
#
# A gradient always has its tensor's shape: a first check of any line you write.
#
# ### Exercise 13.3: the ReLU and linear steps (3 points)
#
# Write `relu_grad(inp, out)`, which sets `inp.g` from `out.g` for `out =
# inp.relu()`, and `lin_grad(inp, out, w, b)`, which sets `inp.g`, `w.g` and `b.g`
# from `out.g` for `out = lin(inp, w, b)`. Tensors of any fitting shapes; each `.g`
# a minigrad tensor of its tensor's shape.
#
# <details><summary>Hint</summary>
#
# A comparison such as `inp > 0` gives a boolean tensor, and `.double()` turns it into
# 0s and 1s. For the layer, the three bullets above: `.t()` transposes a matrix and
# `.sum(axis)` sums over one axis.
# </details>

# %% solution=ex13-layer-grads
def relu_grad(inp, out):
    """Set inp.g from out.g, for out = inp.relu()."""
    ### BEGIN SOLUTION
    inp.g = (inp > 0).double() * out.g
    ### END SOLUTION


def lin_grad(inp, out, w, b):
    """Set inp.g, w.g and b.g from out.g, for out = inp @ w + b."""
    ### BEGIN SOLUTION
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
    ### END SOLUTION

# %% test=ex13-layer-grads-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 13.3", hint="compare each gradient's shape with its tensor's shape "
            "first; with the right shape and wrong numbers, ask which axis the batch runs "
            "along, and what torch takes at exactly 0") as g:
    routes = ["autograd"]

    def relu_result(fn, inp, out):
        fn(inp, out)
        return getattr(inp, "g", None)

    def lin_result(fn, inp, out, w, b):
        fn(inp, out, w, b)
        return [getattr(t, "g", None) for t in (inp, w, b)]

    def check_relu(x0, up0, label):
        inp, out = minigrad.tensor(x0.copy()), minigrad.tensor(np.maximum(x0, 0.0))
        out.g = minigrad.tensor(up0.copy())
        mine = g.call(relu_result, relu_grad, inp, out, forbid=routes)
        g.require(f"{label}: inp.g is a minigrad.Tensor", type(mine) is minigrad.Tensor,
                  "set inp.g to a minigrad tensor")
        x_t = torch.tensor(x0, requires_grad=True)
        (ref,) = torch.autograd.grad(x_t.relu(), x_t, torch.tensor(up0))
        g.check(f"{label}: relu_grad, inp.g", mine, ref, rtol=1e-12, atol=1e-15, mistakes={
            "upstream-forgotten": ("your inp.g holds only 0s and 1s: the mask is ReLU's "
                                   "local derivative; what does the chain rule multiply it "
                                   "by?", (x0 > 0) * 1.0),
            "derivative-at-zero": ("your inp.g differs where inp is exactly 0: which "
                                   "derivative does torch take there?",
                                   np.where(x0 == 0, up0, ref.numpy()))})

    def check_lin(x0, w0, b0, up0, label):
        inp, w, b = (minigrad.tensor(v.copy()) for v in (x0, w0, b0))
        out = minigrad.tensor(x0 @ w0 + b0)
        out.g = minigrad.tensor(up0.copy())
        mine = g.call(lin_result, lin_grad, inp, out, w, b, forbid=routes)
        leaves = [torch.tensor(v, requires_grad=True) for v in (x0, w0, b0)]
        refs = torch.autograd.grad(leaves[0] @ leaves[1] + leaves[2], leaves,
                                   torch.tensor(up0))
        refs = [ref.numpy() for ref in refs]
        mistakes = {"w.g": {"transposed": ("your w.g has the shape of torch's nn.Linear "
                                           "weight, (out, in): which shape has w here?",
                                           refs[1].T)},
                    "b.g": {"bias-wrong-axis": ("your b.g has one entry per row of the "
                                                "batch: which shape has b?", up0.sum(axis=1))}}
        for name, got, ref in zip(("inp.g", "w.g", "b.g"), mine, refs, strict=True):
            g.require(f"{label}: {name} is a minigrad.Tensor", type(got) is minigrad.Tensor,
                      f"set {name} to a minigrad tensor")
            g.check(f"{label}: lin_grad, {name}", got, ref, rtol=1e-10, atol=1e-14,
                    mistakes=mistakes.get(name))

    rng = np.random.default_rng(1330)
    r0 = rng.standard_normal((5, 7))
    r0[0, :3] = 0.0  # exact zeros: torch's derivative there is 0
    check_relu(r0, rng.standard_normal((5, 7)), "shape (5, 7)")
    check_lin(rng.standard_normal((6, 4)), rng.standard_normal((4, 3)),
              rng.standard_normal(3), rng.standard_normal((6, 3)), "N=6, 4 -> 3")
    ### BEGIN HIDDEN TESTS
    for shape in [(1, 3), (4, 4), (8,)]:
        x0 = rng.standard_normal(shape)
        x0.flat[::2] = 0.0
        check_relu(x0, rng.standard_normal(shape), f"shape {shape}")
    for n, n_in, n_out in [(1, 5, 2), (9, 3, 3), (4, 2, 7)]:
        check_lin(rng.standard_normal((n, n_in)), rng.standard_normal((n_in, n_out)),
                  rng.standard_normal(n_out), rng.standard_normal((n, n_out)),
                  f"N={n}, {n_in} -> {n_out}")
    ### END HIDDEN TESTS

# %% [markdown]
# ### A harder step: batch normalisation
#
# Karpathy's lecture "Building makemore Part 4: Becoming a Backprop Ninja" (the fifth of
# *Neural Networks: Zero to Hero*) writes a
# network's backward by hand, like this chapter, and its hardest step is a
# batch-normalisation layer (torch's `nn.BatchNorm1d`, minigrad's too). In training it
# normalises each column of its input $x$ of shape $(N, D)$ with the batch's own
# statistics, then scales and shifts it with two parameters of shape $(D,)$:
#
# $$\mu = \frac{1}{N}\sum_n x_n, \quad \sigma^2 = \frac{1}{N}\sum_n (x_n - \mu)^2, \quad
# \hat x_n = \frac{x_n - \mu}{\sqrt{\sigma^2 + \varepsilon}}, \quad
# \text{out}_n = \gamma\, \hat x_n + \beta.$$
#
# (The variance divides by $N$: the batch's own variance, as torch's training mode. The
# running estimate torch keeps for evaluation uses $N - 1$; no gradient goes through it.)
# Here it is with minigrad's operators, checked against torch's and minigrad's
# `BatchNorm1d` in training mode:

# %%
def batchnorm(x, gamma, beta, eps=1e-5):
    """Batch normalisation of the rows of x (training mode), scaled by gamma, shifted by beta."""
    mean = x.mean(0)
    var = ((x - mean) ** 2).mean(0)
    return gamma * (x - mean) / (var + eps) ** 0.5 + beta


bn_rng = np.random.default_rng(134)
bn_x = bn_rng.standard_normal((6, 3)) * 2 + 1
bn_layer_t = torch.nn.BatchNorm1d(3).double()
bn_layer_m = minigrad.nn.BatchNorm1d(3, dtype=minigrad.float64)
bn_ref = bn_layer_t(torch.tensor(bn_x))  # weight 1, bias 0 at the start
bn_ours = batchnorm(minigrad.tensor(bn_x), minigrad.tensor(np.ones(3)),
                    minigrad.tensor(np.zeros(3)))
check_all({"batchnorm": (bn_ours, bn_ref),
           "minigrad's BatchNorm1d": (bn_layer_m(minigrad.tensor(bn_x)), bn_ref)}, rtol=1e-12)

# %% [markdown]
# The gradients of $\beta$ and $\gamma$ are like a bias's and a scale's. The input's is
# the hard one: $\mu$ and $\sigma^2$ are computed from **every** row, so each $x_n$
# reaches $\text{out}$ by three paths, directly through $\hat x_n$, through $\mu$ and
# through $\sigma^2$, and by the chain rule of chapter 04 the three add.
#
# ### Exercise 13.4: the backward of batch normalisation (3 points)
#
# Write `batchnorm_grad(inp, out, gamma, beta, eps=1e-5)`, which sets `inp.g`,
# `gamma.g` and `beta.g` from `out.g`, for `out = batchnorm(inp, gamma, beta, eps)`.
# `inp` has shape $(N, D)$ for any $N \ge 2$ and $D$; `out.g` is any upstream gradient
# (not only a loss's). Recompute what you need from `inp` (`gamma` may hold zeros), use
# minigrad's operators, and do not change the inputs. The check compares with torch's
# autograd on other shapes, scales and values of `eps` too.
#
# <details><summary>Hint</summary>
#
# Work one path at a time, in the order of the forward pass undone: $\hat x$'s gradient
# from `out.g`; then what reaches $\sigma^2$ (a sum over the rows); then what reaches
# $\mu$, both directly and through $\sigma^2$; then add what reaches $x_n$ by each
# path. Check each intermediate's shape as you go: a statistic of shape $(D,)$ gets a
# gradient of shape $(D,)$.
# </details>

# %% solution=ex13-batchnorm
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    """Set inp.g, gamma.g and beta.g from out.g, for out = batchnorm(inp, gamma, beta, eps)."""
    ### BEGIN SOLUTION
    n = inp.shape[0]
    mean = inp.mean(0)
    invstd = (((inp - mean) ** 2).mean(0) + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
    ### END SOLUTION

# %% test=ex13-batchnorm-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 13.4", hint="the first failing row names the gradient that "
            "differs; for inp.g, list the paths from x_n to out (through x-hat, the mean "
            "and the variance) and check which one your formula leaves out or counts "
            "twice") as g:
    def your_grads(fn, inp, out, gamma, beta, *args, **kwargs):
        fn(inp, out, gamma, beta, *args, **kwargs)
        return [getattr(t, "g", None) for t in (inp, gamma, beta)]

    def check_bn(x0, gamma0, beta0, up0, label, *args, **kwargs):
        eps = (list(args) + list(kwargs.values()) + [1e-5])[0]
        out0 = torch.nn.functional.batch_norm(
            torch.tensor(x0), None, None, torch.tensor(gamma0), torch.tensor(beta0),
            training=True, eps=eps).numpy()
        inp, gamma, beta = (minigrad.tensor(v.copy()) for v in (x0, gamma0, beta0))
        out = minigrad.tensor(out0)
        out.g = minigrad.tensor(up0.copy())
        mine = g.call(your_grads, batchnorm_grad, inp, out, gamma, beta, *args,
                      forbid="autograd", **kwargs)
        g.require(f"{label}: inp unchanged", np.array_equal(inp.data, x0),
                  "compute new tensors; do not change inp in place")
        leaves = [torch.tensor(v, requires_grad=True) for v in (x0, gamma0, beta0)]
        out_t = torch.nn.functional.batch_norm(leaves[0], None, None, leaves[1], leaves[2],
                                               training=True, eps=eps)
        refs = torch.autograd.grad(out_t, leaves, torch.tensor(up0))

        def cut(mean_cut, var_cut):
            """torch's inp.g with the mean's or the variance's path cut (detached)."""
            x_t = torch.tensor(x0, requires_grad=True)
            mean = x_t.mean(0).detach() if mean_cut else x_t.mean(0)
            var = ((x_t - mean) ** 2).mean(0)
            var = var.detach() if var_cut else var
            y = torch.tensor(gamma0) * (x_t - mean) / (var + eps) ** 0.5 + torch.tensor(beta0)
            return torch.autograd.grad(y, x_t, torch.tensor(up0))[0]

        paths = ("list the paths from x_n to out: through x-hat directly, through the mean "
                 "and through the variance; ")
        mistakes = {"inp.g": {
            "direct-path-only": ("your inp.g treats the mean and the variance as constants: "
                                 + paths + "which ones does yours follow?",
                                 lambda: cut(True, True)),
            "variance-path-forgotten": ("your inp.g follows x-hat and the mean: " + paths
                                        + "which one is missing?", lambda: cut(False, True)),
            "mean-path-forgotten": ("your inp.g follows x-hat and the variance: " + paths
                                    + "which one is missing?", lambda: cut(True, False))}}
        for name, got, ref in zip(("inp.g", "gamma.g", "beta.g"), mine, refs, strict=True):
            g.require(f"{label}: {name} is a minigrad.Tensor", type(got) is minigrad.Tensor,
                      f"set {name} to a minigrad tensor")
            g.check(f"{label}: {name}", got, ref, rtol=1e-9, atol=1e-12,
                    mistakes=mistakes.get(name))

    rng = np.random.default_rng(1340)
    check_bn(rng.standard_normal((8, 3)) * 2 + 1, rng.standard_normal(3) + 1,
             rng.standard_normal(3), rng.standard_normal((8, 3)), "N=8, D=3")
    x0, gamma0 = rng.standard_normal((5, 4)), rng.standard_normal(4)
    gamma0[1] = 0.0  # a zero scale: x-hat cannot be read back from out
    check_bn(x0, gamma0, rng.standard_normal(4), rng.standard_normal((5, 4)),
             "N=5, D=4, eps=0.1, a zero in gamma", eps=0.1)
    ### BEGIN HIDDEN TESTS
    for n, d, scale, shift, eps in [(2, 3, 1.0, 0.0, 1e-5), (16, 2, 0.1, 5.0, 1e-3),
                                    (7, 6, 10.0, -3.0, 0.5), (3, 1, 1.0, 0.0, 2.0)]:
        gamma0 = rng.standard_normal(d)
        gamma0[0] = 0.0  # a zero scale: x-hat cannot be read back from out
        check_bn(rng.standard_normal((n, d)) * scale + shift, gamma0, rng.standard_normal(d),
                 rng.standard_normal((n, d)), f"N={n}, D={d}, scale {scale}, eps={eps}",
                 eps)
    ### END HIDDEN TESTS

# %% [markdown]
# ## 7. The whole backward pass
#
# The backward pass calls the steps in the reverse order of the forward pass, each
# given the input and the output of the step it undoes: the loss, log-softmax, the
# second layer, ReLU, the first layer.
#
# ### Exercise 13.5: the network's backward (3 points)
#
# Write `forward_and_backward(x, labels, p)`: run `forward(x, p)`, compute the loss
# with `nll`, then fill `.g` of every value of the forward pass from `logp` down to
# `x`, and of the four parameters `p["w1"] ... p["b2"]`, with your functions of
# Exercises 13.1 and 13.3. Return `(loss, values)`, where `values` is the dict that
# `forward` returned. The check compares every gradient with torch's, in the order
# your backward computes them (`logp.g`, `logits.g`, `w2.g`, `b2.g`, `a1.g`, `l1.g`,
# `w1.g`, `b1.g`), on networks of other widths too: the first row that fails is the
# first wrong step (section 4).
#
# <details><summary>Hint</summary>
#
# Five calls after the loss, last layer first; `relu_grad` takes the pre-activation
# and the activation of the first layer.
# </details>

# %% solution=ex13-backward
def forward_and_backward(x, labels, p):
    """Forward, loss, and the hand-written backward; returns (loss, values)."""
    ### BEGIN SOLUTION
    v = forward(x, p)
    loss = nll(v["logp"], labels)
    nll_grad(v["logp"], labels)
    log_softmax_grad(v["logits"], v["logp"])
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return loss, v
    ### END SOLUTION

# %% test=ex13-backward-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.capstone import STEPS, init_params, load_digits_split, torch_gradients
from minigrad.course.grading import graded

with graded("Exercise 13.5", hint="the first failing row names the first wrong step "
            "(section 4): which call computes that gradient, and which tensors did you "
            "hand it?") as g:
    def every_g(fn, x, labels, p):
        loss, vals = fn(x, labels, p)
        found = {name: getattr(vals[name], "g", None) for name in ("logp", "logits", "a1", "l1")}
        return loss, found | {name: getattr(t, "g", None) for name, t in p.items()}

    def check_backward(x0, labels, sizes, seed):
        q0 = init_params(sizes, seed)
        q0 = {name: value + 0.05 for name, value in q0.items()}  # nonzero biases
        q = {name: minigrad.tensor(value.copy()) for name, value in q0.items()}
        loss, grads = g.call(every_g, forward_and_backward, minigrad.tensor(x0.copy()),
                             labels.copy(), q, forbid="autograd")
        refs = torch_gradients(x0, labels, q0)
        z_t = torch.tensor(x0) @ torch.tensor(q0["w1"]) + torch.tensor(q0["b1"])
        z_t = z_t.relu() @ torch.tensor(q0["w2"]) + torch.tensor(q0["b2"])
        label = "-".join(map(str, sizes)) + f", N={len(x0)}"
        g.check(f"{label}: loss", loss,
                torch.nn.functional.cross_entropy(z_t, torch.tensor(labels)),
                rtol=1e-12, atol=1e-15)
        mistakes = {
            "logits": {"log-softmax-skipped": ("your logits.g is logp.g: which step of the "
                                               "forward pass lies between them?",
                                               refs["logp"])},
            "l1": {"relu-skipped": ("your l1.g is a1.g: which step of the forward pass lies "
                                    "between them?", refs["a1"])},
            "w1": {"wrong-output-given": ("your w1.g pairs the input x with the gradient of "
                                          "another value than the first layer's output: "
                                          "which tensors did you hand the first layer's "
                                          "step?", lambda: x0.T @ refs["a1"])}}
        for name in STEPS:
            g.require(f"{label}: {name}.g is a minigrad.Tensor",
                      type(grads[name]) is minigrad.Tensor, f"fill {name}.g")
            g.check(f"{label}: {name}.g", grads[name], refs[name], rtol=1e-10, atol=1e-14,
                    mistakes=mistakes.get(name))

    x_dig, y_dig = load_digits_split(n_train=1500, seed=0)[:2]
    check_backward(x_dig[:20], y_dig[:20], (64, 32, 10), seed=135)
    ### BEGIN HIDDEN TESTS
    check_backward(x_dig[300:333], y_dig[300:333], (64, 32, 10), seed=1351)
    rng = np.random.default_rng(1352)
    for n, sizes in [(7, (5, 4, 3)), (1, (3, 6, 2)), (4, (2, 8, 5))]:
        check_backward(rng.standard_normal((n, sizes[0])), rng.integers(0, sizes[-1], n),
                       sizes, seed=n)
    ### END HIDDEN TESTS
# %% [markdown]
# ## 8. Training with your backward
#
# Stochastic gradient descent: for each mini-batch, run the forward pass and your
# backward, then move each parameter against its gradient, $w \leftarrow w -
# \text{lr} \cdot w.g$. Each epoch visits every training row once, in a new order: a
# fresh permutation of the rows, drawn from a seeded generator, cut into batches.
#
# ### Exercise 13.6: one epoch of training (2 points)
#
# Write `train_epoch(p, x, labels, batch, lr, rng)`: draw `order =
# rng.permutation(N)` once ($N$ the number of rows), cut it into consecutive batches
# of `batch` rows (the last one shorter if $N$ is not a multiple of `batch`), and for
# each batch in turn run `forward_and_backward` on those rows of `x` and `labels`
# and update every parameter of `p` in the dict (`p[name]` becomes `p[name] - lr *
# p[name].g`). Return the list of the batches' losses, as Python floats
# (`loss.item()`). Called again with the same `rng`, it trains a second epoch, in a
# new order. The check trains two epochs from the same start as torch, on the same
# batches, and compares every loss and the trained parameters.
#
# <details><summary>Hint</summary>
#
# `range(0, N, batch)` gives the first row of each batch; `order[i:i + batch]` its
# rows (numpy and minigrad index with an array of rows). Update after the backward of
# each batch, before the next forward.
# </details>

# %% solution=ex13-train-epoch
def train_epoch(p, x, labels, batch, lr, rng):
    """One epoch of SGD with the hand-written backward; returns the batches' losses."""
    ### BEGIN SOLUTION
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]
        loss, _ = forward_and_backward(x[rows], labels[rows], p)
        for name in p:
            p[name] = p[name] - lr * p[name].g
        epoch_losses.append(loss.item())
    return epoch_losses
    ### END SOLUTION

# %% test=ex13-train-epoch-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.capstone import init_params, load_digits_split
from minigrad.course.grading import graded

with graded("Exercise 13.6", hint="if the first loss already differs, compare your batches "
            "with the exercise's description (how many permutations, which rows, the last "
            "batch); if a later one does, look at when and how the parameters move") as g:
    def two_epochs(fn, p, x, labels, batch, lr, rng):
        seen = [[float(v) for v in fn(p, x, labels, batch, lr, rng)] for _ in range(2)]
        return seen, {name: np.array(p[name].detach().numpy()) for name in p}

    def torch_two_epochs(q0, x0, labels, batch, lr, seed, shuffle=True):
        gen = np.random.default_rng(seed)
        leaves = {name: torch.tensor(value, requires_grad=True) for name, value in q0.items()}
        per_epoch = []
        for _ in range(2):
            perm = gen.permutation(len(labels)) if shuffle else np.arange(len(labels))
            seen = []
            for first in range(0, len(labels), batch):
                idx = perm[first:first + batch]
                h = (torch.tensor(x0[idx]) @ leaves["w1"] + leaves["b1"]).relu()
                ce = torch.nn.functional.cross_entropy(h @ leaves["w2"] + leaves["b2"],
                                                       torch.tensor(labels[idx]))
                grads = torch.autograd.grad(ce, list(leaves.values()))
                with torch.no_grad():
                    for leaf, grad in zip(leaves.values(), grads, strict=True):
                        leaf -= lr * grad
                seen.append(ce.item())
            per_epoch.append(seen)
        return per_epoch, {name: leaf.detach().numpy() for name, leaf in leaves.items()}

    def check_training(x0, labels, sizes, batch, lr, seed):
        q0 = init_params(sizes, seed)
        q = {name: minigrad.tensor(value.copy()) for name, value in q0.items()}
        seen, trained = g.call(two_epochs, train_epoch, q, minigrad.tensor(x0.copy()),
                               labels.copy(), batch, lr, np.random.default_rng(seed),
                               forbid="autograd")
        ref_seen, ref_trained = torch_two_epochs(q0, x0, labels, batch, lr, seed)
        label = "-".join(map(str, sizes)) + f", N={len(x0)}, batch {batch}, lr {lr}"
        g.require(f"{label}: one loss per batch", [len(s) for s in seen] ==
                  [len(s) for s in ref_seen], f"{len(ref_seen[0])} batches in an epoch",
                  mistakes={"last-batch-dropped": (
                      f"your epochs have {len(labels) // batch} batches: what happens to "
                      f"the last {len(labels) % batch} rows?",
                      [len(s) for s in seen] == [len(labels) // batch] * 2
                      and np.allclose(seen[0], ref_seen[0][:len(seen[0])], rtol=1e-10))})
        for epoch in (0, 1):
            g.check(f"{label}: epoch {epoch + 1}, losses", seen[epoch], ref_seen[epoch],
                    rtol=1e-10, atol=1e-14, mistakes={
                "no-shuffle": ("your losses are those of the rows in their stored order: "
                               "where does each epoch's order come from?",
                               lambda e=epoch: torch_two_epochs(q0, x0, labels, batch, lr,
                                                                seed, shuffle=False)[0][e]),
                "step-up": ("your losses are those of steps along the gradient: which way "
                            "does a step go to lower the loss?",
                            lambda e=epoch: torch_two_epochs(q0, x0, labels, batch, -lr,
                                                             seed)[0][e])})
        for name in q0:
            g.check(f"{label}: trained {name}", trained[name], ref_trained[name],
                    rtol=1e-9, atol=1e-12)

    x_dig, y_dig = load_digits_split(n_train=1500, seed=0)[:2]
    check_training(x_dig[:130], y_dig[:130], (64, 16, 10), batch=32, lr=0.2, seed=136)
    ### BEGIN HIDDEN TESTS
    check_training(x_dig[500:577], y_dig[500:577], (64, 32, 10), batch=25, lr=0.5, seed=1361)
    rng = np.random.default_rng(1362)
    check_training(rng.standard_normal((20, 5)), rng.integers(0, 3, 20), (5, 4, 3),
                   batch=7, lr=0.1, seed=1363)
    ### END HIDDEN TESTS

# %% [markdown]
# Now the whole run: 20 epochs, batches of 32, learning rate 0.1, from the start of
# section 1, and the same run four other ways, each on the same batches (the same
# permutations of the rows): torch's autograd, minigrad's autograd
# (`minigrad.nn.functional.cross_entropy` and `optim.SGD`), logistic regression (one
# linear layer 64-10, the baseline a network must beat) and the 64-32-10 network with
# the mean squared error on one-hot rows instead of cross-entropy. After each epoch,
# the accuracy on the 297 test images.

# %%
epochs, batch, lr, batch_seed = 20, 32, 0.1, 1
data = (x_train_np, y_train, x_test_np, y_test)
torch_losses, torch_accs = train_torch(p0, data, epochs, batch, lr, batch_seed)
auto_losses, auto_accs = train_minigrad(p0, data, epochs, batch, lr, batch_seed)
_, logistic_accs = train_torch(init_params(sizes=(64, 10), seed=0), data, epochs, batch,
                               lr, batch_seed)
_, mse_accs = train_torch(p0, data, epochs, batch, lr, batch_seed, loss="mse")

p_yours = {name: minigrad.tensor(value.copy()) for name, value in p0.items()}
batch_rng = np.random.default_rng(batch_seed)
your_losses, your_accs = [], []
try:
    for _ in range(epochs):
        your_losses += train_epoch(p_yours, x_train, y_train, batch, lr, batch_rng)
        your_accs.append(accuracy({k: v.detach().numpy() for k, v in p_yours.items()}, x_test_np,
                                  y_test))
except NotImplementedError:
    your_accs = None
    print("Your run appears here once Exercises 13.1, 13.3, 13.5 and 13.6 are solved.")

compared = {"minigrad autograd: losses": (auto_losses, torch_losses),
            "minigrad autograd: test accuracies": (auto_accs, torch_accs)}
if your_accs is not None:
    compared |= {"your backward: losses": (your_losses, torch_losses),
                 "your backward: test accuracies": (your_accs, torch_accs)}
check_all(compared, rtol=1e-8, brief=True)

# %% [markdown]
# Every loss of your run is torch's, step for step (940 steps), and so is every
# accuracy. The curves:

# %%
ep = np.arange(1, epochs + 1)
fig, ax = plt.subplots(figsize=(7.5, 4))
ax.plot(ep, torch_accs, "-", linewidth=5, alpha=0.3, label="torch autograd")
ax.plot(ep, auto_accs, "o", markersize=6, fillstyle="none", label="minigrad autograd")
if your_accs is not None:
    ax.plot(ep, your_accs, "k.", markersize=6, label="your backward")
ax.plot(ep, logistic_accs, "--", label="logistic regression (64-10)")
ax.plot(ep, mse_accs, ":", label="64-32-10, mean squared error on one-hot")
ax.axhline(0.97, color="gray", linewidth=0.8)
ax.set_xlabel("epoch")
ax.set_ylabel("test accuracy (297 images)")
ax.set_xticks(ep[1::2])
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
finals = {"torch autograd": torch_accs[-1], "minigrad autograd": auto_accs[-1],
          "logistic regression": logistic_accs[-1], "MSE on one-hot": mse_accs[-1]}
if your_accs is not None:
    finals["your backward"] = your_accs[-1]
    assert your_accs[-1] >= 0.97, f"your run reached {your_accs[-1]:.3f}, below 0.97"
for name, value in finals.items():
    print(f"{name:20} {value:.3f}")
# %% [markdown]
# Your backward reaches at least 0.97 on images it never saw (checked in the cell),
# above logistic regression: the hidden layer earns its place.
#
# **Why cross-entropy, and not the mean squared error of chapter 07.** The same
# network trained on one-hot targets with the mean squared error, on the same batches
# with the same learning rate, ends far lower (the dotted line), below logistic
# regression. Two reasons, both visible in the gradients. The mean squared error's
# gradient on an output is $\frac{2}{10 N}(o - y)$: for the same error, a fifth of
# cross-entropy's $\frac{1}{N}(p - y)$, so each step moves less. That one is only a
# smaller effective learning rate, and most of the gap: the next cell gives the mean
# squared error a learning rate five times larger, $0.5$, and it ends at $0.953$, above
# logistic regression at $0.1$ (at $0.5$, logistic regression reaches $0.970$), still
# below cross-entropy's $0.980$. The second reason is the rest of the gap. The mean
# squared error asks each of the ten outputs to hit $0$ or $1$ exactly, a regression,
# spending its steps on outputs that are already ranked right; cross-entropy asks only
# that the right class's probability beat the others', and its gradient on a wrong
# class is that class's probability, which stays large exactly where the network is
# wrong.

# %%
_, mse_accs_5x = train_torch(p0, data, epochs, batch, 5 * lr, batch_seed, loss="mse")
_, logistic_accs_5x = train_torch(init_params(sizes=(64, 10), seed=0), data, epochs, batch,
                                  5 * lr, batch_seed)
print(f"MSE, lr {5 * lr:.1f}: {mse_accs_5x[-1]:.3f}   logistic regression, lr {5 * lr:.1f}:"
      f" {logistic_accs_5x[-1]:.3f}")
print(f"(at lr {lr}: MSE {mse_accs[-1]:.3f}, logistic regression {logistic_accs[-1]:.3f},"
      f" cross-entropy {torch_accs[-1]:.3f})")
assert logistic_accs[-1] < mse_accs_5x[-1] < torch_accs[-1]
assert round(mse_accs_5x[-1], 3) == 0.953 and round(logistic_accs_5x[-1], 3) == 0.970

# %% [markdown]
# ## 9. A lookup table: the embedding's backward
#
# The other step of "Backprop Ninja" that most often goes wrong is the first one of a
# language model: an **embedding**, a table `weight` of shape $(V, D)$, one row per
# token of a vocabulary of $V$, looked up by an integer array `idx` of any shape (a
# batch of sequences, say): `out = weight[idx]` has shape `idx.shape + (D,)`. It is
# torch's `nn.Embedding` (and minigrad's): a layer with no arithmetic at all, a
# *gather*.

# %%
emb_idx = np.array([[1, 4, 1], [0, 1, 3]])
emb_layer = minigrad.nn.Embedding(5, 2, dtype=minigrad.float64)
emb_out = emb_layer.weight.detach()[emb_idx]
check("nn.Embedding(idx) is weight[idx]", emb_layer(minigrad.tensor(emb_idx)), emb_out,
      rtol=0, brief=True)
print(emb_out.shape)

# %% [markdown]
# Its backward has nothing to differentiate, and yet it is easy to get wrong: which
# entries of `out` come from row $v$ of `weight`, and what does section 3 say about a
# value that is used more than once? `nn.Embedding` also takes a `padding_idx`: the
# row of a padding token, looked up like any other row, whose gradient is always zero
# (so that training never moves it); a negative `padding_idx` counts from the end of
# the table, as a negative index does.
#
# ### Exercise 13.7: the backward of an embedding (3 points)
#
# Write `embedding_grad(idx, weight, out, padding_idx=None)`, which sets `weight.g`
# (a minigrad tensor of `weight`'s shape) from `out.g`, for `out = weight[idx]` with
# torch's `padding_idx`. `idx` is a numpy array of integers of any shape, `weight` of
# shape $(V, D)$. The check compares with torch's autograd through
# `torch.nn.functional.embedding`, on other shapes, tables and padding rows too.
#
# <details><summary>Hint</summary>
#
# Start from a table of zeros of `weight`'s shape and think of each position of `idx`
# in turn: which row does its slice of `out.g` belong to, and what happens when a
# second position names the same row? numpy has an operation for exactly that, and a
# matrix product with one-hot rows does it too.
# </details>

# %% solution=ex13-embedding
def embedding_grad(idx, weight, out, padding_idx=None):
    """Set weight.g from out.g, for out = weight[idx] (torch's padding_idx)."""
    ### BEGIN SOLUTION
    onehot = np.eye(weight.shape[0])[np.asarray(idx).reshape(-1)]
    if padding_idx is not None:
        onehot[:, padding_idx] = 0.0
    weight.g = minigrad.tensor(onehot).t() @ out.g.reshape(-1, weight.shape[1])
    ### END SOLUTION

# %% test=ex13-embedding-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 13.7", hint="compare the failing rows of weight.g with the number "
            "of times idx names them (section 3: a value used twice), and with "
            "padding_idx") as g:
    def your_grad(fn, idx, weight, out, *args, **kwargs):
        fn(idx, weight, out, *args, **kwargs)
        return getattr(weight, "g", None)

    def check_emb(idx, w0, up0, label, *args, **kwargs):
        weight = minigrad.tensor(w0.copy())
        out = minigrad.tensor(w0[idx])
        out.g = minigrad.tensor(up0.copy())
        got = g.call(your_grad, embedding_grad, idx.copy(), weight, out, *args,
                     forbid="autograd", **kwargs)
        g.require(f"{label}: weight.g is a minigrad.Tensor", type(got) is minigrad.Tensor,
                  "set weight.g to a minigrad tensor")
        g.require(f"{label}: weight unchanged", np.array_equal(weight.data, w0),
                  "compute a new tensor; do not change weight in place")
        w_t = torch.tensor(w0, requires_grad=True)
        padding = (list(args) + list(kwargs.values()) + [None])[0]
        out_t = torch.nn.functional.embedding(torch.tensor(idx), w_t, padding_idx=padding)
        (ref,) = torch.autograd.grad(out_t, w_t, torch.tensor(up0))
        ref = ref.numpy()
        w_free = torch.tensor(w0, requires_grad=True)
        (no_padding,) = torch.autograd.grad(
            torch.nn.functional.embedding(torch.tensor(idx), w_free), w_free, torch.tensor(up0))

        def assigned():  # each row's gradient written, not added, at every lookup
            rows = np.zeros_like(w0)
            rows[idx.reshape(-1)] = up0.reshape(-1, w0.shape[1])
            if padding is not None:
                rows[padding] = 0.0
            return rows

        lookups = np.bincount(idx.reshape(-1), minlength=len(w0))
        g.check(f"{label}: weight.g", got, ref, rtol=1e-12, atol=1e-15, mistakes={
            "assignment-not-accumulated": ("your weight.g keeps one lookup's gradient in "
                                           "rows that idx names twice: what does section 3 "
                                           "say about a value used twice?", assigned),
            "mean-of-lookups": ("your weight.g averages the lookups of each row: does a row "
                                "looked up twice move the loss once or twice?",
                                ref / np.maximum(lookups, 1)[:, None]),
            "padding-row-updated": ("your weight.g moves the padding row: which gradient does "
                                    "torch give the row of padding_idx?", no_padding.numpy())})

    rng = np.random.default_rng(1370)
    idx = np.array([[1, 4, 1, 6], [0, 1, 3, 4], [6, 6, 0, 1]])
    check_emb(idx, rng.standard_normal((7, 3)), rng.standard_normal((3, 4, 3)),
              "idx (3, 4), V=7, D=3")
    idx = np.array([[2, 0, 0], [1, 2, 0]])
    check_emb(idx, rng.standard_normal((4, 2)), rng.standard_normal((2, 3, 2)),
              "idx (2, 3), V=4, D=2, padding_idx=0", padding_idx=0)
    ### BEGIN HIDDEN TESTS
    for shape, v, d, padding in [((9,), 5, 4, None), ((2, 3, 4), 6, 2, 2), ((5, 5), 3, 3, -1),
                                 ((4, 2), 10, 1, 7), ((6,), 1, 5, None), ((3, 7), 8, 3, 5)]:
        idx = rng.integers(0, v, shape)
        label = f"idx {shape}, V={v}, D={d}, padding_idx={padding}"
        if padding is None:
            check_emb(idx, rng.standard_normal((v, d)), rng.standard_normal(shape + (d,)),
                      label)
        else:
            check_emb(idx, rng.standard_normal((v, d)), rng.standard_normal(shape + (d,)),
                      label, padding)
    ### END HIDDEN TESTS

# %% [markdown]
# ## 10. Line by line: the puzzle of "Becoming a Backprop Ninja"
#
# The first exercise of Karpathy's lecture (named in the batch-normalisation section
# above) is a puzzle: the forward pass of a network written out one operation a line,
# every intermediate its own named tensor, and the backward pass written the same way,
# one gradient a line, each compared with torch's. This chapter's steps fused several
# lines into one (log-softmax in one formula, batch normalisation in
# another); the puzzle takes them apart again, down to the awkward lines that the fused
# formulas hide: the maximum subtracted from the logits, an `(n, 1)` column used across
# every entry of its row, $1/x$ and $x^{-1/2}$, a variance with Bessel's correction
# ($n - 1$), a mean spread back over the batch, and the lookup of each row's label.
#
# The network is a 64-16-10 one on the digits, with a batch-normalised tanh hidden
# layer, as in the lecture; the names of the intermediates are his, the data and the
# sizes this chapter's (his network also has an embedding, a bias before the batch
# norm, and a gain and a bias after it; see [Sources](../book/sources.md)). As in the
# lecture, the variance divides by $n - 1$, where torch's `BatchNorm1d` in training
# mode, and Exercise 13.4, divide by $n$. The forward pass, on $n$ rows of $x$:

# %%
def ninja_forward(x, labels, p):
    """Every intermediate of the puzzle's forward pass, by name (the loss last)."""
    n = x.shape[0]
    hprebn = x @ p["w1"]                               # (n, H)
    bnmeani = hprebn.sum(0, keepdim=True) / n          # (1, H) the batch mean
    bndiff = hprebn - bnmeani                          # (n, H)
    bndiff2 = bndiff ** 2                              # (n, H)
    bnvar = bndiff2.sum(0, keepdim=True) / (n - 1)     # (1, H) Bessel's correction: n - 1
    bnvar_inv = (bnvar + 1e-5) ** -0.5                 # (1, H)
    bnraw = bndiff * bnvar_inv                         # (n, H)
    h = bnraw.tanh()                                   # (n, H)
    logits = h @ p["w2"] + p["b2"]                     # (n, C)
    logit_maxes = logits.max(1, keepdim=True).values   # (n, 1)
    norm_logits = logits - logit_maxes                 # (n, C)
    counts = norm_logits.exp()                         # (n, C)
    counts_sum = counts.sum(1, keepdim=True)           # (n, 1)
    counts_sum_inv = counts_sum ** -1                  # (n, 1)
    probs = counts * counts_sum_inv                    # (n, C)
    logprobs = probs.log()                             # (n, C)
    loss = -logprobs[np.arange(n), labels].mean()      # ()
    return {"x": x, "hprebn": hprebn, "bnmeani": bnmeani, "bndiff": bndiff,
            "bndiff2": bndiff2, "bnvar": bnvar, "bnvar_inv": bnvar_inv, "bnraw": bnraw,
            "h": h, "logits": logits, "logit_maxes": logit_maxes, "norm_logits": norm_logits,
            "counts": counts, "counts_sum": counts_sum, "counts_sum_inv": counts_sum_inv,
            "probs": probs, "logprobs": logprobs, "loss": loss}


q0 = init_params(sizes=(64, 16, 10), seed=138)
ninja_p0 = {"w1": q0["w1"], "w2": q0["w2"],
            "b2": np.random.default_rng(138).standard_normal(10) * 0.1}
ninja_p = {name: minigrad.tensor(value.copy()) for name, value in ninja_p0.items()}
ninja_v = ninja_forward(x_train[:10], y_train[:10], ninja_p)
for name, value in ninja_v.items():
    print(f"{name:15} {tuple(value.shape)}")

# %% [markdown]
# Checked against torch: the variance is torch's `var` with its default correction
# ($n - 1$), the loss torch's `cross_entropy` of the same logits.

# %%
hprebn_t = torch.tensor(x_train_np[:10]) @ torch.tensor(ninja_p0["w1"])
bnraw_t = (hprebn_t - hprebn_t.mean(0)) / (hprebn_t.var(0) + 1e-5) ** 0.5
logits_t = bnraw_t.tanh() @ torch.tensor(ninja_p0["w2"]) + torch.tensor(ninja_p0["b2"])
check_all({"bnvar": (ninja_v["bnvar"], hprebn_t.var(0, keepdim=True)),
           "logits": (ninja_v["logits"], logits_t),
           "loss": (ninja_v["loss"], torch.nn.functional.cross_entropy(
               logits_t, torch.tensor(y_train[:10])))}, rtol=1e-12, brief=True)

# %% [markdown]
# The picture: each line reads the values above it, and four values are read by two
# later lines (fan-out, section 3), so their gradients have two parts that add:
#
# ```text
# hprebn  --> bnmeani, bndiff        bndiff --> bndiff2, bnraw
# logits  --> logit_maxes, norm_logits   counts --> counts_sum, probs
# ```
#
# Four intermediates have one number per row or per column and are used across it
# (broadcast): `bnmeani` and `bnvar_inv` of shape `(1, H)`, `logit_maxes` and
# `counts_sum_inv` of shape `(n, 1)`; so is the bias `b2`. Broadcasting copies the
# number to every entry of its row or column, and a copy is a use: as the bias of
# section 6, such a value's gradient is the **sum** of the gradients of the entries it
# reached. The other way
# round, a sum over a dimension gives each summed entry the gradient of the sum:
# **spread back**. Both on a small example, a column `c` of shape `(2, 1)` times a
# `(2, 3)` matrix `a`, and the row sums `s` of `a`, with upstream gradients `g`:

# %%
a_bc = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64,
                    requires_grad=True)
c_bc = torch.tensor([[10.0], [20.0]], dtype=torch.float64, requires_grad=True)
g_bc = torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], dtype=torch.float64)
(c_grad,) = torch.autograd.grad(a_bc * c_bc, c_bc, g_bc)
s_g = torch.tensor([[2.0], [-1.0]], dtype=torch.float64)
(a_grad,) = torch.autograd.grad(a_bc.sum(1, keepdim=True), a_bc, s_g)
print("c.grad:", c_grad.flatten().tolist(), "  a.grad of the sums:", a_grad.tolist())
check_all({"c.grad: the sum over the row of a * g": (
               (a_bc * g_bc).sum(1, keepdim=True), c_grad, "by hand"),
           "a.grad: s.g spread over each row": (
               s_g * torch.ones(2, 3, dtype=torch.float64), a_grad, "by hand")}, brief=True)

# %% [markdown]
# ### Exercise 13.8: the puzzle, line by line (4 points)
#
# Write `ninja_backward(v, labels, p)`: given the values `v` of `ninja_forward` (the
# dict it returns, `v["x"]` included), the labels and the parameters `p`, return a dict
# with the gradient of the loss with respect to every intermediate and parameter:
# keys `"logprobs"`, `"probs"`, `"counts_sum_inv"`, `"counts_sum"`, `"counts"`,
# `"norm_logits"`, `"logit_maxes"`, `"logits"`, `"h"`, `"w2"`, `"b2"`, `"bnraw"`,
# `"bnvar_inv"`, `"bnvar"`, `"bndiff2"`, `"bndiff"`, `"bnmeani"`, `"hprebn"`, `"w1"`,
# each a minigrad tensor (or numpy array) of its value's shape. Work one line of the
# forward pass at a time, from the loss up, as the keys are listed. The check shows
# Karpathy's comparison for every row (exact, approximate, the largest difference from
# torch's gradient read with `retain_grad()`), then checks the rows in this order, with
# autograd switched off while your code runs, on other batch sizes, widths and seeds
# too: the first failing row is your first wrong line.
#
# <details><summary>Hint</summary>
#
# For each line `out = f(a, b)`, the gradient of `a` is `out`'s gradient times the
# local derivative, of `a`'s shape: a value broadcast in the line gets a sum over the
# broadcast dimension, a value summed in the line gets the gradient spread back, and a
# value used by two lines gets both parts. `np.eye(C)[rows]` gives one-hot rows (for
# the label lookup and for where each row's maximum is); `.numpy().argmax(1)` finds
# the maximum.
# </details>

# %% solution=ex13-ninja
def ninja_backward(v, labels, p):
    """The gradient of the loss of ninja_forward with respect to every intermediate."""
    ### BEGIN SOLUTION
    n, c = v["logits"].shape
    d = {}
    onehot = np.zeros((n, c))
    onehot[np.arange(n), labels] = 1.0
    d["logprobs"] = minigrad.tensor(-onehot / n)
    d["probs"] = d["logprobs"] / v["probs"]
    d["counts_sum_inv"] = (v["counts"] * d["probs"]).sum(1, keepdim=True)
    d["counts_sum"] = -v["counts_sum"] ** -2 * d["counts_sum_inv"]
    d["counts"] = v["counts_sum_inv"] * d["probs"] + d["counts_sum"]
    d["norm_logits"] = v["counts"] * d["counts"]
    d["logit_maxes"] = -d["norm_logits"].sum(1, keepdim=True)
    at_max = minigrad.tensor(np.eye(c)[v["logits"].numpy().argmax(1)])
    d["logits"] = d["norm_logits"] + at_max * d["logit_maxes"]
    d["h"] = d["logits"] @ p["w2"].t()
    d["w2"] = v["h"].t() @ d["logits"]
    d["b2"] = d["logits"].sum(0)
    d["bnraw"] = (1 - v["h"] ** 2) * d["h"]
    d["bnvar_inv"] = (v["bndiff"] * d["bnraw"]).sum(0, keepdim=True)
    d["bnvar"] = -0.5 * (v["bnvar"] + 1e-5) ** -1.5 * d["bnvar_inv"]
    d["bndiff2"] = minigrad.ones_like(v["bndiff2"]) * d["bnvar"] / (n - 1)
    d["bndiff"] = v["bnvar_inv"] * d["bnraw"] + 2 * v["bndiff"] * d["bndiff2"]
    d["bnmeani"] = -d["bndiff"].sum(0, keepdim=True)
    d["hprebn"] = d["bndiff"] + d["bnmeani"] / n
    d["w1"] = v["x"].t() @ d["hprebn"]
    return d
    ### END SOLUTION

# %% test=ex13-ninja-test points=4
import numpy as np
from IPython.display import display

import minigrad
from minigrad.course.capstone import init_params, load_digits_split
from minigrad.course.grading import graded
from minigrad.course.ninja import EPS, ORDER, cmp_table, torch_puzzle

with graded("Exercise 13.8", hint="the first failing row is the first wrong line: compare "
            "its shape with its value's, and list every line of the forward pass that "
            "reads that value") as g:
    def puzzle_mistakes(name, vals, refs, variant):
        """The values the common slips give at this row (each by torch's autograd on a
        variant of the forward, or a factor of torch's gradient)."""
        n = len(vals["x"])
        found = {"sign-flipped": (f"your d{name} has torch's size and the opposite sign: "
                                  "which derivative of this line has a minus sign?",
                                  -refs[name])}
        if name in ("logprobs", "hprebn"):
            found["mean-not-divided"] = (
                f"your d{name} is off where a mean of n = {n} numbers touched it: by how "
                "much does each entry of a mean move it?",
                refs[name] * n if name == "logprobs" else
                lambda: variant("mean undivided")[name])
        if f"{name}:wide" in refs:
            found["broadcast-not-summed"] = (
                f"your d{name} has the shape {refs[name + ':wide'].shape}, {name} has "
                f"{refs[name].shape}: {name} was copied across a dimension; what happens "
                "to the gradients of the copies?", refs[name + ":wide"])
        cut = {"counts": "cut counts_sum", "bndiff": "cut bndiff2", "hprebn": "cut bnmeani"}
        if name in cut:
            found["fan-out-not-added"] = (
                f"your d{name} has one path's part: which lines of the forward pass read "
                f"{name}?", lambda: variant(cut[name])[name])
        if name in ("counts_sum", "bnvar"):
            base = vals["counts_sum"] if name == "counts_sum" else vals["bnvar"] + EPS
            found["power-rule"] = (f"your d{name} is off by the factor {name} itself "
                                   "(plus eps): what is the derivative of x to a power?",
                                   refs[name] * base)
        if name == "bndiff2":
            found["bessel-n"] = (f"your dbndiff2 is {n - 1}/{n} of torch's: by what does "
                                 "this variance divide?", refs[name] * (n - 1) / n)
        if name in ("w1", "w2"):
            found["transposed"] = (f"your d{name} has the shape {refs[name].T.shape}: "
                                   f"which shape has {name}?", refs[name].T)
        return found

    def check_ninja(x0, labels, p0, label, show=False):
        vals, refs = torch_puzzle(x0, labels, p0)
        v = {name: minigrad.tensor(value.copy()) for name, value in vals.items()}
        p = {name: minigrad.tensor(value.copy()) for name, value in p0.items()}
        grads = g.call(ninja_backward, v, labels.copy(), p, forbid="autograd")
        g.require(f"{label}: a dict of gradients", type(grads) is dict,
                  "return a dict {name: gradient}")
        missing = [name for name in ORDER if grads.get(name) is None]
        g.require(f"{label}: every gradient", not missing, f"add {missing}")
        if show:
            display(cmp_table(grads, refs))
        for name in ORDER:
            g.check(f"{label}: d{name}", grads[name], refs[name], rtol=1e-10, atol=1e-14,
                    mistakes=puzzle_mistakes(
                        name, vals, refs,
                        lambda variant: torch_puzzle(x0, labels, p0, variant)[1]))

    def puzzle_params(sizes, seed):
        q = init_params(sizes, seed)
        return {"w1": q["w1"], "w2": q["w2"],
                "b2": np.random.default_rng(seed).standard_normal(sizes[-1]) * 0.1}

    x_dig, y_dig = load_digits_split(n_train=1500, seed=0)[:2]
    check_ninja(x_dig[:10], y_dig[:10], puzzle_params((64, 16, 10), 138), "64-16-10, n=10",
                show=True)
    ### BEGIN HIDDEN TESTS
    check_ninja(x_dig[700:732], y_dig[700:732], puzzle_params((64, 24, 10), 1381),
                "64-24-10, n=32")
    rng = np.random.default_rng(1382)
    for n, sizes in [(2, (3, 4, 2)), (5, (7, 3, 6)), (9, (4, 9, 4))]:
        check_ninja(rng.standard_normal((n, sizes[0])) * 2, rng.integers(0, sizes[-1], n),
                    puzzle_params(sizes, n), "-".join(map(str, sizes)) + f", n={n}")
    ### END HIDDEN TESTS

# %% [markdown]
# Two rows of the table are worth a second look.
#
# **`dlogit_maxes` is zero, up to rounding.** Subtracting the same number from every
# logit of a row leaves its softmax, hence the loss, unchanged: whatever the maximum
# is, the loss does not move when it moves. So its gradient is $0$ in exact arithmetic,
# and the max is there only to keep `exp` in range. In floating point the row's
# gradients $-\sum_c \text{dnorm\_logits}_c$ cancel to zero or to a few units of
# rounding; torch's values for the ten rows of the example, and the loss with each row's
# logits less another number than its maximum:

# %%
ninja_t = {name: torch.tensor(value, requires_grad=True) for name, value in ninja_p0.items()}
ninja_vt = ninja_forward(torch.tensor(x_train_np[:10]), y_train[:10], ninja_t)  # torch runs it too
ninja_vt["logit_maxes"].retain_grad()
ninja_vt["loss"].backward()
print("dlogit_maxes:", ninja_vt["logit_maxes"].grad.flatten().numpy())


def loss_shifted(logits, labels, shift):
    """The loss of the puzzle's last lines, each row's logits less shift instead of its max."""
    counts = (logits - shift).exp()
    probs = counts / counts.sum(1, keepdim=True)
    return -probs.log()[np.arange(len(labels)), labels].mean()


row_max = ninja_v["logits"].max(1, keepdim=True).values
for shift in (row_max, 0.0, 7.0):
    print(f"shift {'the max' if shift is row_max else shift}:",
          f"loss {loss_shifted(ninja_v['logits'], y_train[:10], shift).item():.15f}")
assert ninja_vt["logit_maxes"].grad.abs().max() < 1e-15

# %% [markdown]
# The same loss whatever is subtracted, up to rounding in the 15th decimal. So `dlogits` is
# `dnorm_logits` plus a near-zero correction at each row's maximum, and dropping that
# correction would change nothing a check at this tolerance can see; writing it keeps
# the backward line-for-line honest.
#
# **The `exact` column.** A row is exact where your operations round as torch's do;
# where they are done in another order (a sum taken before a product, say) the last
# bits differ, and the largest difference stays at rounding's scale, far inside the
# check's tolerance ($10^{-10}$ relative). "Exact" is too strict a test for
# floating-point gradients; "approximate" is the one that counts.

# %% [markdown]
# ## Predict before you run
#
# Guess each answer, then run the cell. Each uses autograd (minigrad's and torch's):
# the exercises are behind you.
#
# **1.** Add $100$ to every logit of every row. Does the gradient of the cross-entropy
# with respect to the logits change?

# %%
rng_p = np.random.default_rng(13)
z0, labels0 = rng_p.standard_normal((4, 10)), np.array([3, 0, 9, 3])
shift_grads = {}
for shift in (0.0, 100.0):
    for lib in (minigrad, torch):
        z = lib.tensor(z0 + shift, requires_grad=True)
        lib.nn.functional.cross_entropy(z, lib.tensor(labels0)).backward()
        shift_grads[(shift, lib.__name__)] = z.grad
shift_change = (shift_grads[(100.0, "minigrad")] - shift_grads[(0.0, "minigrad")]).abs().max()
print("logits.grad changed by less than 1e-14:", shift_change.item() < 1e-14)
check_all({"logits.grad": (shift_grads[(0.0, "minigrad")], shift_grads[(0.0, "torch")]),
           "logits.grad, logits + 100": (shift_grads[(100.0, "minigrad")],
                                         shift_grads[(100.0, "torch")]),
           "the same after the shift": (shift_grads[(100.0, "minigrad")],
                                        shift_grads[(0.0, "torch")], "by hand")},
          rtol=1e-10, atol=1e-14, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The gradient is $(\mathrm{softmax}(z) - \mathrm{onehot}) / N$, and the softmax does
# not change when a row is shifted by a constant ($e^{100}$ cancels between numerator
# and denominator): the loss is flat along that direction, so only differences between
# logits get a gradient. What changes is rounding, below $10^{-14}$.
# </details>
#
# **2.** Add up each row of that gradient, `logits.grad.sum(dim=1)`. What do you get?

# %%
row_sums = {name: shift_grads[(0.0, name)].sum(dim=1).numpy() for name in ("minigrad", "torch")}
rounded = {name: np.round(sums, 12) + 0.0 for name, sums in row_sums.items()}  # + 0.0: no -0
print("row sums, to 12 decimals:", rounded["minigrad"])
check_all({"row sums of logits.grad, to 12 decimals": (rounded["minigrad"], rounded["torch"]),
           "zero": (rounded["minigrad"], np.zeros(4), "formula")}, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Zero, to rounding: each row of softmax adds up to $1$, and so does each one-hot row.
# The same fact as question 1 seen from the other side: moving all the logits of a row
# together does not change the loss, so the gradient has no component along
# $(1, \ldots, 1)$. (Unrounded, the sums are of order $10^{-17}$: rounding.)
# </details>
#
# **3.** The network of this chapter with every weight and bias set to $0$. After one
# backward pass on a batch, which of `w1.grad`, `b1.grad`, `w2.grad`, `b2.grad` are not
# zero?

# %%
nonzero = {}
for lib in (minigrad, torch):
    zero = {name: lib.tensor(np.zeros_like(value), requires_grad=True)
            for name, value in p0.items()}
    hidden = (lib.tensor(x_train_np[:32]) @ zero["w1"] + zero["b1"]).relu()
    logits = hidden @ zero["w2"] + zero["b2"]
    lib.nn.functional.cross_entropy(logits, lib.tensor(y_train[:32])).backward()
    nonzero[lib.__name__] = [bool(np.abs(zero[name].grad.numpy()).max() > 0)
                             for name in ("w1", "b1", "w2", "b2")]
print("[w1, b1, w2, b2] have a non-zero gradient:", nonzero["minigrad"])
check("[w1, b1, w2, b2] non-zero", nonzero["minigrad"], nonzero["torch"], brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Only `b2`. With $W_1 = 0$ and $b_1 = 0$ the hidden activations are $0$, so
# `w2.grad` $= a_1^\top$ `logits.grad` $= 0$; with $W_2 = 0$ the gradient passed back
# to the hidden layer, `logits.grad` $W_2^\top$, is $0$, so nothing reaches `w1` and
# `b1` (and the ReLU's derivative at $0$ is $0$ anyway). Training would move only the
# output bias, towards the class frequencies: random initial weights are what lets the
# hidden units learn, and learn different things.
# </details>

# %% [markdown]
# ## Summary
#
# - A network's backward pass is its forward pass in reverse: the loss gradient first,
#   then, step by step, a function that turns `out.g` into the gradients of the step's
#   input and parameters. `.g =` assignment is right only where each value is used
#   once (a chain); with fan-out the contributions add.
# - Cross-entropy in two steps: $-\mathrm{onehot}/N$ on the log-probabilities, then
#   log-softmax's $g - \mathrm{softmax} \cdot \sum g$; fused,
#   $(\mathrm{softmax} - \mathrm{onehot})/N$.
# - ReLU's gradient is a mask; a linear layer's is `out.g @ w.t()` for the input,
#   `inp.t() @ out.g` for the weight and `out.g.sum(0)` for the bias, each of its
#   tensor's shape.
# - Checking every intermediate gradient against torch, in backward order, points at
#   the first wrong line: a forgotten mask, a forgotten $1/N$ (every row off by the
#   batch size), a transpose (the shape column), a sum over the wrong axis.
# - Batch normalisation's input gradient adds three paths (through $\hat x$, the mean and
#   the variance); an embedding's backward is a scatter that **adds** the gradients of
#   every lookup of a row, and gives the padding row none.
# - Line by line, every gradient has its value's shape: a value broadcast across a
#   dimension gets a sum over it, a value summed gets its gradient spread back, a value
#   read by two lines gets both parts, and the row maximum subtracted before `exp` gets
#   zero up to rounding (the softmax does not see it).
# - Trained with your backward, the network follows torch's losses step for step and
#   reaches at least 0.97 test accuracy, where the mean squared error on one-hot rows
#   stays far below at the same learning rate (0.838; 0.953 with a five times larger
#   one, most of the gap being its smaller gradient) and logistic regression below.
#
# This is what `loss.backward()` does for you, for every op, in every network: the
# course's chapters 05 to 12 showed how minigrad (and torch) organise it. Next, past
# first derivatives: [14 Forward mode](14_forward_mode.ipynb).
