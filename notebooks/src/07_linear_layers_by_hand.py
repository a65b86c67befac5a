# %% [markdown]
# # 07 Linear layers by hand
#
# A linear layer, $f = x W + b$, is where most of a network's parameters live, and its
# whole backward pass is three short lines: two matrix products and a sum over the
# batch. Given the gradient of the loss with respect to the layer's output, `out.g`,
# the lines that every deep learning course shows give the gradients of its input,
# its weights and its bias:
#
# ```python
# inp.g = out.g @ w.t()
# w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
# b.g = out.g.sum(0)
# ```
#
# They come from fast.ai's course (Part 2, "deep learning from the foundations"), and
# this chapter derives them the way **the fast.ai forum thread "Understanding gradient
# calculation"** (see [Sources](../book/sources.md)) does: a thread on forums.fast.ai
# where students of that course asked how these lines work and got element-by-element
# answers. One element at a time, with the chain rule, until the matrices appear by
# themselves. Then the payoff: a whole backward pass by hand in the `.g` style (mean
# squared error, ReLU, two linear layers), every gradient checked against torch's
# autograd, and a network trained with it, step for step the same as torch's. On the
# way we answer the thread's questions: why the bias gradient is a `sum(0)`, whether
# the `.g` lines work in place, and where the $1/\text{batch}$ of a mean loss goes.
# An optional part at the end goes inside: fast.ai's classes and minigrad's
# `Function`, when anyone needs the gradient of the *input*, and torch's `nn.Linear`
# (its weight layout, the example of the course's reference tutorial, see
# [Sources](../book/sources.md), and its graph).
#
# **Learning goals.** After this chapter you can
#
# 1. derive $\partial L / \partial x$, $\partial L / \partial W$ and
#    $\partial L / \partial b$ of a linear layer element by element, and write them as
#    matrix products;
# 2. explain why the bias gradient is the upstream gradient summed over the batch;
# 3. write `lin_grad`, `relu_grad` and `mse_grad` by hand and chain them into the
#    backward pass of a small network, and train the network with it;
# 4. say what changes between a mean and a sum reduction of the loss, and what torch's
#    `mse_loss` divides by;
# 5. (optional part) say what fast.ai's classes and minigrad's `Function` change, when
#    the gradient of the input is needed, and read the shapes of `nn.Linear`'s
#    gradients (weight `(out, in)`, bias `(out,)`).

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source

# %% [markdown]
# ## 1. The forward pass, one element at a time
#
# The thread writes the layer for one input vector $x$ of $n$ numbers, a weight matrix
# $w$ of shape $n \times m$ and $m$ biases:
#
# $$f_j = w_{1j} x_1 + w_{2j} x_2 + \dots + w_{nj} x_n + b_j, \qquad j = 1, \dots, m.$$
#
# We take $n = 3$ inputs and $m = 2$ outputs and compute $f$ with loops, exactly as
# written, then as one matrix product, and compare with torch. (The hand-written
# comparisons of this chapter use float64, so they are tight; only section 11 runs the
# reference tutorial's `nn.Linear` code as written, in torch's default float32.)

# %%
x1 = np.array([1.0, -2.0, 0.5])
w1 = np.array([[0.2, -0.4], [0.7, 0.1], [-0.3, 0.5]])
b1 = np.array([0.05, -0.1])

f_loops = np.array([sum(w1[i, j] * x1[i] for i in range(3)) + b1[j] for j in range(2)])
f = minigrad.tensor(x1) @ minigrad.tensor(w1) + minigrad.tensor(b1)
f_torch = torch.tensor(x1) @ torch.tensor(w1) + torch.tensor(b1)
check_all({"f (loops)": (f_loops, f_torch), "f = x @ w + b": (f, f_torch)}, brief=True)

# %% [markdown]
# ## 2. The gradient of the input, element by element
#
# The backward pass receives the *incoming gradient* $\frac{\partial L}{\partial f}$,
# one number per output (chapter 06's upstream gradient; here we just pick one, `gf`),
# and must produce $\frac{\partial L}{\partial x}$, $\frac{\partial L}{\partial w}$ and
# $\frac{\partial L}{\partial b}$.
#
# Take $x_1$. It appears in every output, with coefficient $w_{1j}$ in $f_j$, so
# $\frac{\partial f_j}{\partial x_1} = w_{1j}$, and the chain rule sums over the outputs:
#
# $$\frac{\partial L}{\partial x_i} = \sum_j \frac{\partial L}{\partial f_j}\,
# \frac{\partial f_j}{\partial x_i} = \sum_j \frac{\partial L}{\partial f_j}\, w_{ij}.$$
#
# That is a vector of $m$ numbers times the transpose of $w$: `out.g @ w.t()`.

# %%
gf = np.array([1.5, -0.5])
dx_loops = np.array([sum(gf[j] * w1[i, j] for j in range(2)) for i in range(3)])

xt = torch.tensor(x1, requires_grad=True)
wt = torch.tensor(w1, requires_grad=True)
bt = torch.tensor(b1, requires_grad=True)
(xt @ wt + bt).backward(torch.tensor(gf))
check_all({"dL/dx (loops)": (dx_loops, xt.grad), "gf @ w.T": (gf @ w1.T, xt.grad)})

# %% [markdown]
# ## 3. The gradient of the weights
#
# $w_{ij}$ appears in one output only, $f_j$, multiplied by $x_i$. So
# $\frac{\partial L}{\partial w_{ij}} = x_i \frac{\partial L}{\partial f_j}$: every
# input times every incoming gradient, an *outer product* of shape $n \times m$, the
# shape of $w$.

# %%
dw_loops = np.array([[x1[i] * gf[j] for j in range(2)] for i in range(3)])
check_all({"dL/dw (loops)": (dw_loops, wt.grad), "outer(x, gf)": (np.outer(x1, gf), wt.grad)})

# %% [markdown]
# ## 4. The gradient of the bias
#
# $b_j$ appears only in $f_j$, with coefficient 1: $\frac{\partial f_k}{\partial b_j}$
# is $1$ if $k = j$ and $0$ otherwise, so $\frac{\partial f}{\partial b}$ is the
# identity matrix and the bias gradient is the incoming gradient itself. Raise $b_j$ by
# a little, and $f_j$ rises by exactly that much.

# %%
check("dL/db = gf", gf, bt.grad)

# %% [markdown]
# ## 5. A batch, and why the bias gradient is `sum(0)`
#
# In practice $x$ is a batch: a matrix with one row per example, and so is the
# incoming gradient (one row of $\frac{\partial L}{\partial f}$ per example). Each
# row's input gradient only involves its own row: `inp.g = out.g @ w.t()` unchanged.
# But every example uses *the same* $w$ and *the same* $b$. A value used several times
# receives the sum of the gradients of its uses (chapter 04, and chapter 05's
# broadcasting: $b$ is broadcast over the batch). So the per-example answers of
# sections 3 and 4 are summed over the batch:
#
# $$\frac{\partial L}{\partial w_{ij}} = \sum_k x_{ki}\, g_{kj}, \qquad
# \frac{\partial L}{\partial b_j} = \sum_k g_{kj}.$$
#
# The thread's code writes the weight sum literally, a stack of outer products summed
# over the batch; `inp.T @ out.g` is the same sum in one matrix product.

# %%
rng = np.random.default_rng(0)
X = rng.standard_normal((5, 3))
G = rng.standard_normal((5, 2))
inp, out_g = minigrad.tensor(X), minigrad.tensor(G)
w_g_outer = (inp.unsqueeze(-1) * out_g.unsqueeze(1)).sum(0)  # (5, 3, 2) summed over 5
b_g = out_g.sum(0)

Xt = torch.tensor(X, requires_grad=True)
Wt = torch.tensor(w1, requires_grad=True)
Bt = torch.tensor(b1, requires_grad=True)
(Xt @ Wt + Bt).backward(torch.tensor(G))
check_all({"w.g (outer products)": (w_g_outer, Wt.grad), "w.g = inp.T @ out.g": (X.T @ G, Wt.grad),
           "b.g = out.g.sum(0)": (b_g, Bt.grad), "inp.g": (G @ w1.T, Xt.grad)})

# %% [markdown]
# Each example pulls the bias its own way; the bias gets the total. In a picture, the
# five per-example bias gradients (the rows of `out.g`) stacked, and their sum:

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 3), sharey=True)
for j, ax in enumerate(axes):
    bottom_pos = bottom_neg = 0.0
    for n in range(5):
        value = G[n, j]
        bottom = bottom_pos if value >= 0 else bottom_neg
        ax.bar(0, value, bottom=bottom, label=f"example {n}")
        if value >= 0:
            bottom_pos += value
        else:
            bottom_neg += value
    ax.bar(1, G[:, j].sum(), color="black")
    ax.axhline(0, color="gray", lw=0.5)
    ax.set_xticks([0, 1], ["per example (stacked)", "b.g = sum"])
    ax.set_title(f"bias entry {j}")
axes[0].legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# How does `(inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)` make those outer products?
# Follow the shapes. `inp` is `(5, 3)` and `out.g` is `(5, 2)`. `unsqueeze(-1)` makes the
# inputs `(5, 3, 1)`, `unsqueeze(1)` makes the gradients `(5, 1, 2)`, and broadcasting
# (chapter 05) multiplies them into `(5, 3, 2)`: slice `k` holds $x_{ki}\, g_{kj}$ for
# every $i, j$, the outer product of example $k$'s input and its incoming gradient.
# `.sum(0)` adds the five slices into `(3, 2)`, the shape of `w`.

# %%
lhs, rhs = inp.unsqueeze(-1), out_g.unsqueeze(1)
prod = lhs * rhs
print(tuple(lhs.shape), "x", tuple(rhs.shape), "->", tuple(prod.shape), "->",
      tuple(prod.sum(0).shape))
prod_t = torch.tensor(X).unsqueeze(-1) * torch.tensor(G).unsqueeze(1)
check_all({"(5, 3, 2) product": (prod, prod_t)}
          | {f"slice {k} = outer(x_{k}, g_{k})": (prod[k], np.outer(X[k], G[k]), "formula")
             for k in range(5)}
          | {"sum(0)": (prod.sum(0), Wt.grad)})

# %% [markdown]
# The whole argument of the thread fits in one picture: the layer as a bipartite graph,
# inputs on the left, outputs on the right, one edge per weight $w_{ij}$ and a bias on
# each output. Pick a number below. An input $x_{ki}$ feeds *every* output of its own
# example, so its gradient sums over the outputs $j$ (`out.g @ w.t()`). A weight
# $w_{ij}$ is one edge: it touches only $f_j$, through $x_i$, but in *every* example, so
# its gradient sums $x_{ki}\, g_{kj}$ over the batch. A bias $b_j$ touches $f_j$ with
# coefficient 1 in every example: $\sum_k g_{kj}$. The readout writes each sum out, term
# by term, beside torch's value for the same number (the data of the cell above).

# %%
from minigrad.course.widgets.linear_layer_view import layer_widget

layer_widget(X, w1, b1, G, start="w_21")

# %% [markdown]
# ## 6. A backward pass by hand, in the `.g` style
#
# The thread's code stores each gradient in a `.g` attribute, next to the tensor it
# belongs to: `inp.g` is $\frac{\partial L}{\partial \text{inp}}$. Torch tensors accept
# any new attribute, and so do minigrad's. Each `_grad` function reads the gradient of
# its output (`out.g`, left there by the function that ran before it) and writes the
# gradient of its inputs. The first one, for the loss, starts the chain.
#
# The thread asks: "what is `inp.g`, does this happen in place?" No. `inp.g = ...` is
# ordinary Python attribute assignment: it binds the name `g` on the tensor object to a
# new tensor. Nothing is written into `inp`'s numbers or into an old `.g`, and autograd
# neither sees nor records it: `.grad` stays None and the tensor's version counter
# (which counts in-place changes, chapter 12) stays 0.

# %%
t_attr = torch.tensor([1.0, 2.0], requires_grad=True)
old_g = torch.zeros(2)
t_attr.g = old_g
t_attr.g = torch.tensor([5.0, 6.0])  # binds a new tensor; old_g is untouched
m_attr = minigrad.tensor([1.0, 2.0], requires_grad=True)
m_attr.g = minigrad.tensor([5.0, 6.0])
print("torch:    .grad", t_attr.grad, " version", t_attr._version, " grad_fn", t_attr.grad_fn)
print("minigrad: .grad", m_attr.grad, " version", m_attr._version, " grad_fn", m_attr.grad_fn)
check_all({".g": (m_attr.g, t_attr.g), "the tensor itself": (m_attr, t_attr),
           "old .g untouched": (old_g, np.zeros(2), "by hand"),
           "version counter": (m_attr._version, t_attr._version)}, brief=True)

# %% [markdown]
# We write the three pieces for a two-layer network: linear, ReLU, linear, mean squared
# error. The network's output has shape `(N, 1)` and the targets `(N,)`, so `mse` and
# `mse_grad` first `squeeze(-1)` the output to `(N,)`.

# %%
def lin(x, w, b):
    return x @ w + b


def relu(x):
    return x.relu()


def mse(output, targ):
    return ((output.squeeze(-1) - targ) ** 2).mean()


def mse_grad(inp, targ):
    """dL/dinp for L = mse(inp, targ): 2 (inp - targ) / N, in inp's shape (N, 1)."""
    inp.g = 2.0 * (inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]


def relu_grad(inp, out):
    """ReLU passes the gradient where its input was positive, and blocks it elsewhere."""
    inp.g = (inp > 0).double() * out.g


def lin_grad(inp, out, w, b):
    """The thread's three lines, for w of shape (in, out)."""
    inp.g = out.g @ w.t()
    w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)

# %% [markdown]
# Some data and parameters: a batch of 8 examples with 3 features, a hidden layer of 4
# units, one output. The forward pass keeps every intermediate, since the backward
# functions need them. Torch runs the same forward on the same numbers, with
# `requires_grad=True` so that its autograd can check our backward below.

# %%
rng = np.random.default_rng(1)
data = {"x": rng.standard_normal((8, 3)), "y": rng.standard_normal(8),
        "w1": rng.standard_normal((3, 4)) / 3 ** 0.5, "b1": np.zeros(4) + 0.1,
        "w2": rng.standard_normal((4, 1)) / 2, "b2": np.zeros(1)}
x, y, w1_, b1_, w2_, b2_ = (minigrad.tensor(data[k]) for k in ["x", "y", "w1", "b1", "w2", "b2"])

l1 = lin(x, w1_, b1_)
l2 = relu(l1)
out = lin(l2, w2_, b2_)
loss = mse(out, y)

t = {k: torch.tensor(v, requires_grad=True) for k, v in data.items()}
t_out = torch.relu(t["x"] @ t["w1"] + t["b1"]) @ t["w2"] + t["b2"]
t_loss = torch.nn.functional.mse_loss(t_out.squeeze(-1), t["y"])
print(f"loss = {loss.item():.6f}")
check_all({"out": (out, t_out), "loss": (loss, t_loss)}, brief=True)

# %% [markdown]
# The backward pass is the forward pass read backwards, each function handing the
# next its `.g`. Torch's autograd does the same on its side with one call,
# `torch.autograd.grad` (chapter 04), and every gradient we wrote by hand is checked
# against it. It returns the gradients instead of adding them into `.grad`, and
# `retain_graph=True` keeps torch's graph, so this cell gives the same result each time
# it runs.

# %%
mse_grad(out, y)
lin_grad(l2, out, w2_, b2_)
relu_grad(l1, l2)
lin_grad(x, l1, w1_, b1_)

names = ["w1", "b1", "w2", "b2", "x"]
t_g = dict(zip(names, torch.autograd.grad(t_loss, [t[k] for k in names], retain_graph=True),
               strict=True))
check_all({"w1.g": (w1_.g, t_g["w1"]), "b1.g": (b1_.g, t_g["b1"]),
           "w2.g": (w2_.g, t_g["w2"]), "b2.g": (b2_.g, t_g["b2"]),
           "x.g": (x.g, t_g["x"])}, brief=True)

# %% [markdown]
# Why the `squeeze(-1)`? Without it, `out - y` subtracts a `(8,)` vector from an
# `(8, 1)` column, and broadcasting (chapter 05) makes an `(8, 8)` table of every
# prediction minus every target. The mean of that table is a number, so nothing fails;
# it is just the wrong loss. Torch does the same; its `mse_loss` at least warns:

# %%
import warnings

diff_wrong = out - y  # (8, 1) - (8,)
loss_wrong = (diff_wrong ** 2).mean()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    loss_wrong_t = torch.nn.functional.mse_loss(t_out, t["y"])
print("out - y:", tuple(diff_wrong.shape), " out.squeeze(-1) - y:",
      tuple((out.squeeze(-1) - y).shape))
print(f"loss without squeeze {loss_wrong.item():.6f}, with squeeze {loss.item():.6f}")
print("torch warns:", str(caught[0].message).split(". ")[0])
hidden = np.maximum(data["x"] @ data["w1"] + data["b1"], 0)
table = hidden @ data["w2"] + data["b2"] - data["y"]  # (8, 1) - (8,) = (8, 8)
check_all({"loss without squeeze": (loss_wrong, loss_wrong_t),
           "mean of the (8, 8) table": (loss_wrong, (table ** 2).mean(), "formula")}, brief=True)

# %% [markdown]
# ## 7. The payoff: a network trained with the hand-written backward
#
# These four functions are all a network needs to learn. One step of gradient descent
# runs the forward pass, the hand-written backward pass, and moves every parameter a
# little against its `.g`: `w -= lr * w.g`. No autograd anywhere: the parameters are
# plain minigrad tensors without `requires_grad`. Torch trains the same network from
# the same numbers with its autograd (and `torch.optim.SGD`, which makes the same
# update; chapter 10), and the two loss curves must coincide.

# %%
def train_by_hand(steps=100, lr=0.1):
    p = {k: minigrad.tensor(data[k]) for k in ["w1", "b1", "w2", "b2"]}
    inp, targ = minigrad.tensor(data["x"]), minigrad.tensor(data["y"])
    losses = []
    for _ in range(steps):
        hid_pre = lin(inp, p["w1"], p["b1"])  # forward, keeping the intermediates
        hid = relu(hid_pre)
        pred = lin(hid, p["w2"], p["b2"])
        losses.append(mse(pred, targ).item())
        mse_grad(pred, targ)  # backward, by hand
        lin_grad(hid, pred, p["w2"], p["b2"])
        relu_grad(hid_pre, hid)
        lin_grad(inp, hid_pre, p["w1"], p["b1"])
        for w in p.values():  # one step of gradient descent
            w -= lr * w.g
    return losses


def train_torch(steps=100, lr=0.1):
    p = {k: torch.tensor(data[k], requires_grad=True) for k in ["w1", "b1", "w2", "b2"]}
    optimizer = torch.optim.SGD(p.values(), lr=lr)
    losses = []
    for _ in range(steps):
        pred = torch.relu(torch.tensor(data["x"]) @ p["w1"] + p["b1"]) @ p["w2"] + p["b2"]
        loss_t = torch.nn.functional.mse_loss(pred.squeeze(-1), torch.tensor(data["y"]))
        losses.append(loss_t.item())
        optimizer.zero_grad()
        loss_t.backward()
        optimizer.step()
    return losses


losses_hand, losses_torch = train_by_hand(), train_torch()
fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(losses_hand, "o", ms=3, label="minigrad, backward by hand")
ax.plot(losses_torch, "-", label="torch, autograd")
ax.set_xlabel("step")
ax.set_ylabel("mean squared error")
ax.legend()
plt.show()
print(f"loss: {losses_hand[0]:.4f} at the start, {losses_hand[-1]:.4f} after 100 steps")
check("losses of 100 steps", losses_hand, losses_torch, brief=True)

# %% [markdown]
# ## 8. Mean or sum: where the $1/\text{batch}$ goes
#
# The thread asks whether gradients over a batch are summed or averaged. The answer in
# the thread: neither, *the loss* is. With the mean, $L = \frac{1}{N}\sum_n \ell_n$,
# and that $\frac{1}{N}$ is in `mse_grad` (the `/ inp.shape[0]`), so every gradient
# downstream carries it. With `reduction="sum"` it is gone and every gradient is $N$
# times larger; the bias gradient is still a sum over the batch, of $N$-times larger
# terms.

# %%
layer_rng = np.random.default_rng(8)
layer_w, layer_b = layer_rng.standard_normal((3, 1)), layer_rng.standard_normal(1)


def layer_grads(reduction, lib):
    """Gradients of mse_loss(x w + b, y) for a layer with 3 inputs and 1 output."""
    weight = lib.tensor(layer_w, requires_grad=True)
    bias = lib.tensor(layer_b, requires_grad=True)
    pred = lib.tensor(data["x"]) @ weight + bias
    lib.nn.functional.mse_loss(pred, lib.tensor(data["y"][:, None]),
                               reduction=reduction).backward()
    return weight.grad, bias.grad


mean_w, mean_b = layer_grads("mean", minigrad)
sum_w, sum_b = layer_grads("sum", minigrad)
tmean_w, tmean_b = layer_grads("mean", torch)
tsum_w, tsum_b = layer_grads("sum", torch)
check_all({"weight.grad (mean)": (mean_w, tmean_w), "weight.grad (sum)": (sum_w, tsum_w),
           "bias.grad (sum)": (sum_b, tsum_b), "sum = 8 x mean": (sum_w, 8 * tmean_w)})

# %% [markdown]
# So the choice only rescales the gradient. With plain SGD a learning rate absorbs that:
# a step of $\eta$ on the mean's gradient is a step of $\eta / 8$ on the sum's. That
# fails once other parts of training look at the gradient's size: clipping to a fixed
# norm (say 1) leaves both gradients with norm 1, so the step of $\eta / 8$ is then 8
# times smaller, and weight decay, added to the gradient, weighs 8 times less beside the
# sum's. Adam divides by the gradient's own size and barely notices the scale. The mean
# is the usual default because it keeps the gradient's *expected* scale roughly
# independent of the batch size: each example's term is divided by the number of terms,
# so learning rates for a batch of 8 and a batch of 64 are roughly comparable. Not
# equal: the gradient's noise still shrinks as the batch grows (other examples, other
# terms), and in practice the learning rate is re-tuned with the batch size (for SGD
# often in proportion to it, the "linear scaling rule" of Goyal et al., 2017).
#
# What does "mean" divide by? `mse_loss` averages over *every element*, not over the
# examples: for a prediction of shape `(N, m)` it divides by $N \cdot m$. A `(4, 3)`
# prediction of zeros against targets of ones has the gradient
# $2 (0 - 1) / 12 = -2/12$ in every entry, not $-2/4$:

# %%
pred_m = minigrad.zeros(4, 3, dtype=minigrad.float64, requires_grad=True)
pred_t = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
minigrad.nn.functional.mse_loss(pred_m, minigrad.ones(4, 3, dtype=minigrad.float64)).backward()
torch.nn.functional.mse_loss(pred_t, torch.ones(4, 3, dtype=torch.float64)).backward()
check_all({"mse_loss (4, 3) grad": (pred_m.grad, pred_t.grad),
           "= -2/12 everywhere": (pred_t.grad, np.full((4, 3), -2 / 12), "formula")})

# %% [markdown]
# The slider below changes the batch size $N$ of a layer with $m = 3$ outputs and
# shows the norm of `weight.grad` with each reduction (minigrad's solid, torch's
# dotted): the mean's stays about the same size, the sum's grows with $N$, and their
# ratio is exactly $N \cdot m$.

# %%
from minigrad.course.widgets.linear_layer_view import reduction_widget

reduction_widget(max_batch=32, start=8)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 7.1: a whole network's backward pass, by hand (3 points)
#
# Section 6 ran the backward pass of a network with one output, in the thread's layout.
# Now the same network the way torch builds it: two `nn.Linear` layers, whose weights
# have shape `(out_features, in_features)`, several outputs, and torch's `mse_loss`.
# Write `two_layer_grads(X, Y, W1, b1, W2, b2)`, where every argument is a numpy
# array: `X` of shape `(N, D)` holds $N$ examples, `Y` of shape `(N, M)` their targets,
# `W1` `(H, D)` and `b1` `(H,)` are the first layer, `W2` `(M, H)` and `b2` `(M,)` the
# second. The forward pass is
#
# $$\text{hidden} = \mathrm{relu}(X W_1^\top + b_1), \qquad
# \text{out} = \text{hidden}\, W_2^\top + b_2, \qquad
# L = \texttt{mse\_loss}(\text{out}, Y).$$
#
# Return the four gradients $(\partial L / \partial W_1, \partial L / \partial b_1,
# \partial L / \partial W_2, \partial L / \partial b_2)$, each of its parameter's shape.
# Every gradient is yours: the check switches off autograd, torch's and minigrad's, and
# minigrad's own linear and matrix-product backward. It runs networks of other sizes
# than its example (other $N$, $D$, $H$, $M$, down to one example or one output).
#
# <details><summary>Hint</summary>
#
# Run the forward pass and keep what the backward pass will need. Then go backwards one
# step at a time, as section 6 does: the loss, the second layer, the ReLU, the first
# layer, each step turning the gradient of an output into the gradients of its inputs.
# Section 8 says what `mse_loss` divides by. Compare the shape of every gradient with
# the shape of its tensor as you go.
# </details>

# %% solution=ex07-two-layer-backward
def two_layer_grads(X, Y, W1, b1, W2, b2):
    """dL/dW1, dL/db1, dL/dW2, dL/db2 for L = mse_loss(relu(X W1^T + b1) W2^T + b2, Y)."""
    ### BEGIN SOLUTION
    pre = X @ W1.T + b1
    hidden = np.maximum(pre, 0)
    out = hidden @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_pre = (d_out @ W2) * (pre > 0)
    return d_pre.T @ X, d_pre.sum(0), d_out.T @ hidden, d_out.sum(0)
    ### END SOLUTION

# %% test=ex07-two-layer-backward-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 7.1", hint="go backwards one step at a time (the loss, the second "
            "layer, the ReLU, the first layer); mse_loss averages over every element, and "
            "each gradient has the shape of its parameter") as g:
    package_backwards = [minigrad.ops.linear.Linear.backward,
                         minigrad.ops.matmul.Mm.backward, minigrad.ops.matmul.Matmul.backward]

    NUDGES = {
        "mean-over-examples": "your gradients are off by the number of outputs per example: "
                              "over how many numbers does mse_loss average?",
        "relu-left-out": "your first layer's gradients flow through units the ReLU switched "
                         "off: what is the ReLU's slope where its input is negative?",
        "in-out-layout": "your weight gradient has the shape (in, out): which shape has "
                         "weight itself?",
        "bias-averaged": "your bias gradient is averaged over the batch: how many times "
                         "does the bias take part in the loss?",
        "dW2-from-pre-activation": "your second weight's gradient uses the hidden values "
                                   "before the ReLU: what does the second layer see?",
        "two-forgotten": "your gradients are half the size: what does squaring do to a "
                         "small change?",
        "ignores-b1": "your gradients are those of a network without the first bias: "
                      "where does b1 enter the forward pass?",
    }

    def variant_grads(how, X, Y, W1, b1, W2, b2):
        """(dW1, db1, dW2, db2) as one of the common mistakes computes them."""
        h = X @ W1.T + (0 if how == "ignores-b1" else b1)
        a = np.maximum(h, 0)
        out = a @ W2.T + b2
        scale = {"mean-over-examples": 2 / X.shape[0], "two-forgotten": 1 / Y.size}
        d_out = (out - Y) * scale.get(how, 2 / Y.size)
        d_h = d_out @ W2 * (1 if how == "relu-left-out" else h > 0)
        reduce = np.mean if how == "bias-averaged" else np.sum
        dW1 = X.T @ d_h if how == "in-out-layout" else d_h.T @ X
        dW2 = d_out.T @ (h if how == "dW2-from-pre-activation" else a)
        return dW1, reduce(d_h, 0), (d_out.T @ a).T if how == "in-out-layout" else dW2, \
            reduce(d_out, 0)

    def check_network(rng, N, D, H, M):
        name = f"N={N}, {D} -> {H} -> {M}"
        shapes = [(N, D), (N, M), (H, D), (H,), (M, H), (M,)]
        arrays = [rng.standard_normal(shape) for shape in shapes]
        got = g.call(two_layer_grads, *(a.copy() for a in arrays),
                     forbid=["autograd", *package_backwards])
        g.require(f"{name}: four gradients", type(got) in (tuple, list) and len(got) == 4,
                  "return (dW1, db1, dW2, db2)")
        X_t, Y_t = torch.tensor(arrays[0]), torch.tensor(arrays[1])
        params = [torch.tensor(a, requires_grad=True) for a in arrays[2:]]
        hidden_t = torch.relu(torch.nn.functional.linear(X_t, params[0], params[1]))
        torch.nn.functional.mse_loss(torch.nn.functional.linear(hidden_t, params[2],
                                                                params[3]), Y_t).backward()
        for i, (label, mine, p) in enumerate(zip(["dW1", "db1", "dW2", "db2"], got, params,
                                                  strict=True)):
            g.check(f"{name}: {label}", mine, p.grad, rtol=1e-10, atol=1e-12, mistakes={
                how: (nudge, lambda how=how, i=i: variant_grads(how, *arrays)[i])
                for how, nudge in NUDGES.items()})

    check_network(np.random.default_rng(71), 8, 3, 4, 2)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(710)
    for sizes in [(1, 2, 3, 1), (5, 1, 6, 3), (12, 4, 2, 2), (3, 3, 3, 4), (6, 5, 1, 2)]:
        check_network(rng, *sizes)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 7.2: `mae_grad` (2 points)
#
# The mean absolute error of a prediction `inp` of shape `(N, 1)` against targets
# `targ` of shape `(N,)` is `(inp.squeeze(-1) - targ).abs().mean()` (torch's
# `l1_loss`). Write `mae_grad(inp, targ)` that sets `inp.g` to its gradient, a
# minigrad tensor in `inp`'s shape, like `mse_grad` above, by hand (the check switches
# autograd off and tries other batch sizes). Assume no prediction equals its target.
#
# <details><summary>Hint</summary>
#
# $\frac{d}{du}|u|$ is $+1$ for $u > 0$ and $-1$ for $u < 0$: the sign of $u$. Then
# comes the $\frac{1}{N}$ of the mean, and the shape `(N, 1)` of `inp`, as in
# `mse_grad`. A numpy result becomes a minigrad tensor with `minigrad.tensor(...)`.
# </details>

# %% solution=ex07-mae-grad
def mae_grad(inp, targ):
    """dL/dinp for L = mean(|inp - targ|), in inp's shape (N, 1)."""
    ### BEGIN SOLUTION
    diff = inp.squeeze(-1) - targ
    inp.g = ((diff > 0).double() * 2 - 1).unsqueeze(-1) / inp.shape[0]
    ### END SOLUTION

# %% test=ex07-mae-grad-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 7.2", hint="the derivative of |u| is the sign of u; divide by "
            "the batch size and keep inp's shape (N, 1)") as g:
    def check_mae(pred_np, targ_np):
        name = f"N = {len(targ_np)}"
        pred = minigrad.tensor(pred_np)
        g.call(mae_grad, pred, minigrad.tensor(targ_np), forbid="autograd")
        grad = getattr(pred, "g", None)
        g.require(f"{name}: inp.g is a minigrad tensor", type(grad) is minigrad.Tensor,
                  "set inp.g to a minigrad tensor")
        pt = torch.tensor(pred_np, requires_grad=True)
        torch.nn.functional.l1_loss(pt.squeeze(-1), torch.tensor(targ_np)).backward()
        diff = pred_np[:, 0] - targ_np
        signs, n = ((diff > 0) * 2.0 - 1)[:, None], len(targ_np)
        g.check(f"{name}: inp.g", grad, pt.grad, rtol=1e-12, atol=1e-12, mistakes={
            "ignores-targ": ("your gradient does not change with targ: what is the sign "
                             "taken of?", np.sign(pred_np) / n),
            "mean-not-divided": ("your gradient is N times too big: how does a mean differ "
                                 "from a sum?", signs),
            "sign-flipped": ("your gradient has the right size and the wrong sign: does the "
                             "loss grow when inp grows above targ?", -signs / n),
            "mse-gradient": ("your gradient grows with the error: what is the slope of |u| "
                             "away from 0?", 2 * diff[:, None] / n),
            "shape-N": ("your gradient has the shape (N,): which shape has inp?",
                        signs[:, 0] / n)})

    rng = np.random.default_rng(72)
    check_mae(rng.standard_normal((7, 1)), rng.standard_normal(7))
    ### BEGIN HIDDEN TESTS
    check_mae(np.array([[0.25]]), np.array([1.5]))
    check_mae(np.array([[2.0]]), np.array([-1.0]))
    check_mae(np.array([[1.0], [-2.0], [0.5]]), np.array([0.0, -1.0, 3.0]))
    rng = np.random.default_rng(720)
    for n in [12, 2]:
        check_mae(rng.standard_normal((n, 1)) * 3, rng.standard_normal(n))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 7.3: a batch of sequences (2 points)
#
# A linear layer applied to a batch of sequences sees an input of shape `(B, T, n)`:
# `B` sequences of `T` steps each. The same `w` (shape `(n, m)`) and `b` (shape `(m,)`)
# serve every one of the `B * T` positions. Write `seq_lin_grads(inp, out_g)` that
# returns `(w_g, b_g)`, the weight and bias gradients, as numpy arrays, given the input
# and the incoming gradient `out_g` of shape `(B, T, m)` (both numpy arrays), by hand
# (the check switches autograd and minigrad's own backward functions off). The check
# uses other values of `B`, `T`, `n` and `m` than its example.
#
# <details><summary>Hint</summary>
#
# Every one of the `B * T` positions is one example of section 5's batch, using the
# same `w` and `b`: a weight's gradient is the sum, over all positions, of input times
# incoming gradient, and the bias's is the incoming gradient summed over *both*
# leading dimensions. One way: gather the positions into a single batch of `B * T`
# rows (a reshape that keeps the last dimension), then apply section 5's rule.
# </details>

# %% solution=ex07-seq-grads
def seq_lin_grads(inp, out_g):
    """Gradients of w and b for out = inp @ w + b with inp of shape (B, T, n)."""
    ### BEGIN SOLUTION
    n, m = inp.shape[-1], out_g.shape[-1]
    return inp.reshape(-1, n).T @ out_g.reshape(-1, m), out_g.sum(axis=(0, 1))
    ### END SOLUTION

# %% test=ex07-seq-grads-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 7.3", hint="treat the B * T positions as one batch: sum the "
            "per-position outer products for w and the incoming gradient over both "
            "leading dimensions for b") as g:
    package_backwards = [minigrad.ops.linear.Linear.backward,
                         minigrad.ops.matmul.Mm.backward, minigrad.ops.matmul.Matmul.backward]

    def check_seq(rng, B, T, n, m):
        name = f"({B}, {T}, {n}) -> {m}"
        seq, seq_g = rng.standard_normal((B, T, n)), rng.standard_normal((B, T, m))
        got = g.call(seq_lin_grads, seq.copy(), seq_g.copy(),
                     forbid=["autograd", *package_backwards])
        g.require(f"{name}: a pair (w_g, b_g)", type(got) in (tuple, list) and len(got) == 2,
                  "return two arrays")
        w = torch.tensor(rng.standard_normal((n, m)), requires_grad=True)
        b = torch.zeros(m, dtype=torch.float64, requires_grad=True)
        (torch.tensor(seq) @ w + b).backward(torch.tensor(seq_g))
        k = B * T
        g.check(f"{name}: w_g", got[0], w.grad, rtol=1e-12, atol=1e-12, mistakes={
            "scrambled-reshape": ("your w_g mixes entries of different positions: which "
                                  "axis of inp keeps its length in the reshape?",
                                  seq.reshape(n, -1) @ seq_g.reshape(-1, m)),
            "averaged": ("your w_g is averaged over the positions: how many times does w "
                         "take part?", seq.reshape(-1, n).T @ seq_g.reshape(-1, m) / k),
            "first-sequence-only": ("your w_g counts one sequence of the batch: what about "
                                    "the others?", seq[0].T @ seq_g[0]),
            "first-step-only": ("your w_g counts one step of each sequence: what about the "
                                "other steps?", seq[:, 0].T @ seq_g[:, 0])})
        g.check(f"{name}: b_g", got[1], b.grad, rtol=1e-12, atol=1e-12, mistakes={
            "bias-batch-only": ("your b_g keeps one row per step: over which axes does b "
                                "take part?", seq_g.sum(axis=0))})

    check_seq(np.random.default_rng(73), 2, 5, 3, 4)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(730)
    for sizes in [(1, 1, 2, 3), (3, 2, 1, 5), (4, 1, 6, 1), (1, 7, 2, 2), (5, 3, 4, 2),
                  (3, 4, 2, 3)]:
        check_seq(rng, *sizes)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on the chapter's idea. Write your guess down, then run the cell.
#
# **1.** A layer $f = x w + b$ with 2 outputs gets a batch of 5 examples, and
# $L = \sum f$. What is `b.grad`?

# %%
rng_p = np.random.default_rng(70)
xp, wp, bp = rng_p.standard_normal((5, 3)), rng_p.standard_normal((3, 2)), np.zeros(2)
b_m = minigrad.tensor(bp, requires_grad=True)
(minigrad.tensor(xp) @ minigrad.tensor(wp) + b_m).sum().backward()
b_t = torch.tensor(bp, requires_grad=True)
(torch.tensor(xp) @ torch.tensor(wp) + b_t).sum().backward()
check("b.grad", b_m.grad, b_t.grad)

# %% [markdown]
# <details><summary>Why</summary>
#
# Each example's output gradient is all ones, and the bias collects the sum over the
# batch (`out.g.sum(0)`): $5$ in each entry, not $1$.
# </details>
#
# **2.** With a mean loss, we feed the same batch twice over (every example repeated).
# Does `w.grad` change?

# %%
yp = np.random.default_rng(71).standard_normal((5, 2))


def w_grad(lib, inputs, targets):
    w = lib.tensor(wp, requires_grad=True)
    lib.nn.functional.mse_loss(lib.tensor(inputs) @ w, lib.tensor(targets)).backward()
    return w.grad


once, twice = w_grad(minigrad, xp, yp), w_grad(minigrad, np.vstack([xp, xp]), np.vstack([yp, yp]))
check_all({"w.grad, batch twice over": (twice, w_grad(torch, np.vstack([xp, xp]),
                                                      np.vstack([yp, yp]))),
           "= w.grad, batch once": (twice, once, "minigrad, once")}, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The sum over the batch doubles, and so does the $N$ the mean divides by: the mean's
# gradient stays the same. With `reduction="sum"` it would double.
# </details>
#
# **3.** Every input of a ReLU layer is negative: `relu(x @ w + b)` with all
# pre-activations below zero. What is `w.grad` after the backward pass of
# `relu(x @ w + b).sum()`?

# %%
w_m = minigrad.tensor(wp, requires_grad=True)
minigrad.relu(minigrad.tensor(xp) @ w_m - 100.0).sum().backward()
w_t = torch.tensor(wp, requires_grad=True)
torch.relu(torch.tensor(xp) @ w_t - 100.0).sum().backward()
check("w.grad", w_m.grad, w_t.grad)

# %% [markdown]
# <details><summary>Why</summary>
#
# ReLU passes the gradient only where its input was positive (`relu_grad`): nowhere
# here, so every gradient behind it is exactly zero. A unit in that state learns
# nothing (a "dead" ReLU).
# </details>

# %% [markdown]
# ## Optional: inside `nn.Linear` and minigrad's `Function`
#
# The rest of the chapter is for the curious: how fast.ai turns the `.g` functions
# into classes and minigrad into a `Function` (section 9), when the gradient of the
# *input* is needed and how torch skips it (section 10), and torch's own linear layer:
# its weight layout, the reference tutorial's `nn.Linear` example, and the nodes of its
# graph (sections 11 to 13). Nothing in the exercises above needs it.

# %% [markdown]
# ## 9. From `.g` functions to classes, and from classes to `Function`
#
# fast.ai's course does not stop at `_grad` functions. It refactors them into small
# classes: each layer's `__call__` runs the forward pass and *keeps its input and
# output* (`self.inp`, `self.out`), so its `backward()` needs no arguments, and a
# `Model` calls the layers forward, then their `backward()` in reverse. The same
# classes, on minigrad tensors:

# %%
class Relu:
    def __call__(self, inp):
        self.inp = inp
        self.out = inp.relu()
        return self.out

    def backward(self):
        self.inp.g = (self.inp > 0).double() * self.out.g


class Lin:
    def __init__(self, w, b):
        self.w, self.b = w, b

    def __call__(self, inp):
        self.inp = inp
        self.out = inp @ self.w + self.b
        return self.out

    def backward(self):
        self.inp.g = self.out.g @ self.w.t()
        self.w.g = (self.inp.unsqueeze(-1) * self.out.g.unsqueeze(1)).sum(0)
        self.b.g = self.out.g.sum(0)


class Mse:
    def __call__(self, inp, targ):
        self.inp, self.targ = inp, targ
        self.out = ((inp.squeeze(-1) - targ) ** 2).mean()
        return self.out

    def backward(self):
        self.inp.g = 2.0 * (self.inp.squeeze(-1) - self.targ).unsqueeze(-1) / self.targ.shape[0]


class Model:
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1, b1), Relu(), Lin(w2, b2)]
        self.loss = Mse()

    def __call__(self, x, targ):
        for layer in self.layers:
            x = layer(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for layer in reversed(self.layers):
            layer.backward()

# %% [markdown]
# The same numbers as the `_grad` functions, and as torch:

# %%
x_c, y_c, w1_c, b1_c, w2_c, b2_c = (minigrad.tensor(data[k])
                                    for k in ["x", "y", "w1", "b1", "w2", "b2"])
model_c = Model(w1_c, b1_c, w2_c, b2_c)
loss_c = model_c(x_c, y_c)
model_c.backward()
check_all({"loss": (loss_c, t_loss), "w1.g": (w1_c.g, t_g["w1"]), "b1.g": (b1_c.g, t_g["b1"]),
           "w2.g": (w2_c.g, t_g["w2"]), "b2.g": (b2_c.g, t_g["b2"]), "x.g": (x_c.g, t_g["x"])},
          brief=True)

# %% [markdown]
# One step separates these classes from minigrad's `Function`, which has the shape of
# torch's. A `Function` is a pair of static methods, `forward(ctx, ...)` and
# `backward(ctx, grad_output)`, and `ctx` is the node of the graph:
#
# - `__call__` keeps `self.inp` (and `self.out`); `forward` calls
#   `ctx.save_for_backward(...)` with what backward will need;
# - `backward()` reads `self.out.g`; `backward(ctx, grad_output)` receives it as an
#   argument;
# - `backward()` writes `self.inp.g` and `self.w.g`; `backward` *returns* one gradient
#   per input, and the engine hands each to that input's node (summing where several
#   paths meet) and, at a leaf, adds it into `.grad`;
# - `Model.backward` calls the layers in reverse; `loss.backward()` walks the recorded
#   graph in topological order (chapter 03).
#
# The engine, not the layer, decides where each gradient goes, which is why a tensor
# used twice gets the sum (chapter 04), where `.g =` would keep only the last write.
# `Lin` as a minigrad `Function` (forward and backward get tensors, as in torch; forward
# runs with recording off):

# %%
from minigrad.autograd.function import Function


class LinFunction(Function):
    @staticmethod
    def forward(ctx, inp, w, b):
        ctx.save_for_backward(inp, w)
        return inp @ w + b

    @staticmethod
    def backward(ctx, grad_output):
        inp, w = ctx.saved_tensors
        return (grad_output @ w.T,  # inp.g
                (inp[:, :, None] * grad_output[:, None, :]).sum(0),  # w.g
                grad_output.sum(0))  # b.g


x_f, w1_f, b1_f = (minigrad.tensor(data[k], requires_grad=True) for k in ["x", "w1", "b1"])
w2_f, b2_f = (minigrad.tensor(data[k], requires_grad=True) for k in ["w2", "b2"])
out_f = LinFunction.apply(LinFunction.apply(x_f, w1_f, b1_f).relu(), w2_f, b2_f)
loss_f = ((out_f.squeeze(-1) - minigrad.tensor(data["y"])) ** 2).mean()
loss_f.backward()
print(out_f.grad_fn, out_f.grad_fn.next_functions)
check_all({"w1.grad": (w1_f.grad, t_g["w1"]), "b1.grad": (b1_f.grad, t_g["b1"]),
           "w2.grad": (w2_f.grad, t_g["w2"]), "b2.grad": (b2_f.grad, t_g["b2"]),
           "x.grad": (x_f.grad, t_g["x"])}, brief=True)

# %% [markdown]
# minigrad's own ops are written exactly so. Its matrix product, read from the package
# (`needs_input_grad` lets it skip a gradient nobody needs, section 10):

# %%
show_source(minigrad.ops.matmul.Mm)

# %% [markdown]
# ## 10. Gradients of the input: when you need them
#
# `inp.g = out.g @ w.t()` is needed *inside* a network, to pass the gradient on to the
# layer before. For the first layer, whose input is the data, nobody uses it, as the
# thread observes: a training step does not change the data. Torch (and minigrad) skip
# it unless the input requires a gradient, and the first layer's input does not:

# %%
torch.manual_seed(0)
layer_t = torch.nn.Linear(3, 2, dtype=torch.float64)
layer = minigrad.nn.Linear(3, 2, dtype=minigrad.float64)
layer.load_state_dict(layer_t.state_dict())
batch, batch_t = minigrad.tensor(data["x"]), torch.tensor(data["x"])
layer(batch).sum().backward()
layer_t(batch_t).sum().backward()
print("input's grad:", batch.grad, batch_t.grad)
check("weight.grad", layer.weight.grad, layer_t.weight.grad, brief=True)

# %% [markdown]
# `.grad is None` alone does not prove the input's gradient was skipped: a non-leaf's
# `.grad` is None even when its gradient is computed (chapter 12). The graph shows it.
# The layer's node has one slot per input in `next_functions`; the input's slot is
# None, so backward sends nothing there. And the node did not even keep what the input
# gradient needs: `out.g @ w.t()` needs the weight, and torch saved no weight
# (`_saved_mat2`, the second matrix of `addmm`, is None). Give the input
# `requires_grad=True` and both change. (Torch's `addmm` node takes the bias, the input
# and the transposed weight, in that order; minigrad's takes the input, the weight and
# the bias. For the same reason torch's saved weight is the transposed one, `weight.t()`
# of shape (in, out) = (3, 2), while minigrad's fused node saves the weight itself,
# (out, in) = (2, 3).)

# %%
def slots(node):
    """The names in a node's next_functions (torch holds (node, index) pairs)."""
    items = [f[0] if isinstance(f, tuple) else f for f in node.next_functions]
    return [None if f is None else f.name().split("::")[-1] for f in items]


for needs in (False, True):
    inp_t = torch.tensor(data["x"], requires_grad=needs)
    inp_m = minigrad.tensor(data["x"], requires_grad=needs)
    node_t, node_m = layer_t(inp_t).grad_fn, layer(inp_m).grad_fn
    saved_t = node_t._saved_mat2
    saved_m = node_m.saved_tensors[1]
    print(f"input requires grad: {needs}")
    print(f"  torch    {node_t.name()} {slots(node_t)}, weight saved:",
          None if saved_t is None else tuple(saved_t.shape))
    print(f"  minigrad {node_m.name()} {slots(node_m)}, weight saved:",
          None if saved_m is None else saved_m.shape)
    check(f"weight saved (requires_grad={needs})", saved_m is not None, saved_t is not None,
          brief=True)

# %% [markdown]
# The reverse case exists: in neural style transfer the network is fixed and the
# *image* is optimized, so only the input needs gradients (and the weights none). A
# toy version: a fixed linear layer, and an input that we change step by step until
# the layer's output hits a target. Only the input requires a gradient; minigrad and
# torch take the same steps.

# %%
A_fixed = np.array([[1.0, 0.5, -0.3], [0.2, -1.0, 0.8]])
target = np.array([[1.0, -1.0]])


def optimize_input(lib, steps=30, lr=0.2):
    img = lib.zeros(1, 3, dtype=lib.float64, requires_grad=True)
    weight, losses = lib.tensor(A_fixed), []
    for _ in range(steps):
        loss_in = ((img @ weight.T - lib.tensor(target)) ** 2).sum()
        img.grad = None
        loss_in.backward()
        with lib.no_grad():  # the update itself is not recorded (chapter 09)
            img -= lr * img.grad
        losses.append(loss_in.item())
    return img, losses


img, losses = optimize_input(minigrad)
img_t, losses_t = optimize_input(torch)
check_all({"optimized input": (img, img_t), "losses": (losses, losses_t)}, brief=True)

# %%
fig, ax = plt.subplots(figsize=(5, 3))
ax.semilogy(losses, "o", label="minigrad")
ax.semilogy(losses_t, "-", label="torch")
ax.set_xlabel("step")
ax.set_ylabel("loss (only the input changes)")
ax.legend()
plt.show()

# %% [markdown]
# ## 11. `nn.Linear`: the reference tutorial's example
#
# Torch stores a layer's weight the other way round from the thread's `w`, with shape
# `(out_features, in_features)`, and computes $Y = X W^\top + b$. The reference
# tutorial's example, $B = 5$ examples, $d = 3$ inputs, $h = 4$ outputs, and
# $L = \sum Y$, in torch's default dtype, float32:

# %%
torch.manual_seed(0)
B = 5
d = 3
h = 4
layer = torch.nn.Linear(d, h)
X = torch.randn(B, d)
Y = layer(X)
L = Y.sum()
L.backward()
print(layer.weight.grad.shape)  # torch.Size([4, 3])
print(layer.bias.grad.shape)  # torch.Size([4])
print(layer.weight.dtype)  # torch.float32

# %% [markdown]
# With `torch` replaced by `minigrad`; the cell ends with torch's gradients for
# minigrad's numbers (its weights, bias and $X$), for comparison:

# %%
minigrad.manual_seed(0)
B = 5
d = 3
h = 4
layer = minigrad.nn.Linear(d, h)
X = minigrad.randn(B, d)
Y = layer(X)
L = Y.sum()
L.backward()
print(layer.weight.grad.shape)  # minigrad.Size([4, 3])
print(layer.bias.grad.shape)  # minigrad.Size([4])
print(layer.weight.dtype)  # minigrad.float32
weight_t = torch.tensor(layer.weight.detach().numpy(), requires_grad=True)
bias_t = torch.tensor(layer.bias.detach().numpy(), requires_grad=True)
torch.nn.functional.linear(torch.tensor(X.detach().numpy()), weight_t, bias_t).sum().backward()
check_all({"weight.grad": (layer.weight.grad, weight_t.grad),
           "bias.grad": (layer.bias.grad, bias_t.grad)}, brief=True)

# %% [markdown]
# The shapes match the parameters, and the values match torch's (in float32, to
# float32's precision). They also match when minigrad's layer is loaded with torch's
# weights and both get the same $X$, from here on in float64.
# With $L = \sum Y$ the incoming gradient is all ones, so the bias gradient is
# $B = 5$ in every entry (a sum over the batch of ones), and each row of the weight
# gradient is $\sum_k x_k$, the column sums of $X$.

# %%
torch.manual_seed(0)
layer_t = torch.nn.Linear(d, h, dtype=torch.float64)
X_np = np.random.default_rng(7).standard_normal((B, d))
layer_t(torch.tensor(X_np)).sum().backward()

layer_m = minigrad.nn.Linear(d, h, dtype=minigrad.float64)
layer_m.load_state_dict(layer_t.state_dict())
layer_m(minigrad.tensor(X_np)).sum().backward()
check_all({"weight.grad": (layer_m.weight.grad, layer_t.weight.grad),
           "bias.grad": (layer_m.bias.grad, layer_t.bias.grad),
           "bias.grad = 5": (layer_m.bias.grad, np.full(h, 5.0), "formula"),
           "weight.grad rows = X.sum(0)": (layer_m.weight.grad, np.tile(X_np.sum(0), (h, 1)),
                                           "formula")})

# %% [markdown]
# ## 12. Why `w.t()`? The layout, and torch's graph
#
# The thread explains the `w.t()` in `inp.g = out.g @ w.t()` by PyTorch storing weights
# "as n * m, for historical reasons", and a later post corrects it: the transpose comes
# from the derivation. $\partial L / \partial x_i = \sum_j g_j w_{ij}$ is $g$ times
# $w^\top$ for the thread's $w$ of shape `(n, m)`, in any library. What is true of
# PyTorch is the other layout: `nn.Linear` stores its weight as `(out_features,
# in_features)`, so each *output's* weights are one row (`weight[j]` is output $j$'s, and
# $f_j$ = `weight[j] @ x + bias[j]`), and the layer computes `x @ weight.t()`: the
# transpose is in the forward pass, and in torch's graph.

# %%
torch.manual_seed(0)
lin_t = torch.nn.Linear(3, 2, dtype=torch.float64)
x_lin = torch.tensor(data["x"][:1])
y_lin = lin_t(x_lin)
check_all({f"f_{j} = weight[{j}] @ x + bias[{j}]":
           (y_lin[0, j], lin_t.weight[j] @ x_lin[0] + lin_t.bias[j]) for j in range(2)},
          against="formula", brief=True)
y_2d = lin_t(torch.tensor(data["x"]))
y_3d = lin_t(torch.tensor(data["x"]).reshape(2, 4, 3))
print("2-D input:", y_2d.grad_fn.name(), slots(y_2d.grad_fn))
print("  its weight slot:", slots(y_2d.grad_fn.next_functions[2][0]))
print("3-D input:", y_3d.grad_fn.name(), slots(y_3d.grad_fn), "->",
      slots(y_3d.grad_fn.next_functions[0][0]))

# %% [markdown]
# So torch's graph for `nn.Linear` is not one node: `AddmmBackward0` (the fused
# `bias + x @ w`) takes the bias's `AccumulateGrad`, the input's slot (None here), and
# `TBackward0`, the transpose of the weight, whose backward transposes the gradient back
# into the weight's `(out, in)` shape. A 3-D input is flattened to rows and the result
# reshaped back, which adds a `ViewBackward0` on top.

# %% [markdown]
# ## 13. Compare with the package: minigrad's linear backward
#
# Exercise 7.1 wrote a linear layer's backward in torch's layout, twice over. minigrad
# computes `x @ weight.T + bias` as one op with one backward, which it names
# `AddmmBackward0` like torch's main node but which also does the transpose's and (for
# a 3-D input) the reshape's work, instead of two or three nodes. Compare it with
# yours:

# %%
show_source(minigrad.ops.linear.Linear.backward)

# %% [markdown]
# Line by line it is `lin_grad`, in torch's layout: the weight is $w^\top$, so its
# gradient is `g.T @ x`, the transpose of the thread's `w.g`; the input gradient is
# `g @ weight` (that is, `out.g @ w.t()`), skipped when the input needs none; and the
# bias gradient is `g.sum(0)`. We run our `lin_grad` on the same numbers as section
# 11's layer and compare.

# %%
inp_m = minigrad.tensor(X_np)
out_m = layer_m(inp_m)
out_m.g = minigrad.ones(B, h, dtype=minigrad.float64)  # dL/dY for L = Y.sum()
w_in_out = layer_m.weight.detach().t()  # the thread's layout: (in, out)
b_plain = layer_m.bias.detach()
lin_grad(inp_m, out_m, w_in_out, b_plain)
check_all({"w.g.T vs weight.grad": (w_in_out.g.t(), layer_t.weight.grad),
           "b.g vs bias.grad": (b_plain.g, layer_t.bias.grad)}, brief=True)

# %% [markdown]
# ## Summary
#
# - Element by element, for $f = x w + b$ with incoming gradient $g = \partial L /
#   \partial f$: $\partial L / \partial x_i = \sum_j g_j w_{ij}$, $\partial L /
#   \partial w_{ij} = x_i g_j$, $\partial L / \partial b_j = g_j$. As matrices:
#   `inp.g = out.g @ w.t()`; for one example `w.g = outer(inp, out.g)` and
#   `b.g = out.g`; for a batch `w.g = inp.t() @ out.g` and `b.g = out.g.sum(0)`.
# - In a batch every example uses the same $w$ and $b$, so their gradients are summed
#   over the batch: that is the `sum(0)`.
# - The `.g` style chains hand-written `_grad` functions, each reading `out.g` and
#   writing its inputs' `.g`, starting from the loss (`mse_grad`). Every gradient
#   matches torch's autograd, and gradient descent on them trains the network step for
#   step as torch does (loss 2.12 to 0.25 in 100 steps).
# - A mean loss puts $1/N$ into every gradient ($1/(N m)$ for `mse_loss` on `(N, m)`
#   outputs: it averages every element); a sum does not. The loss is reduced, not the
#   gradients, and the mean keeps the gradient's scale roughly independent of $N$.
# - `inp.g = ...` is attribute assignment, nothing in place, invisible to autograd.
# - Optional part: the input's gradient is only needed when something upstream uses it (a previous
#   layer, or the pixels in style transfer); when the input needs none, its slot in the
#   node's `next_functions` is None and the weight is not saved for it.
# - `nn.Linear` keeps its weight as `(out, in)`: `weight.grad` has shape `(4, 3)` and
#   `bias.grad` `(4,)` in the reference tutorial's example; torch's graph for it is
#   `AddmmBackward0` with a `TBackward0` for the weight, and minigrad's one fused
#   `Linear.backward` is `lin_grad` in that layout.
# - fast.ai's classes keep their input in `__call__` and compute `backward()` from it;
#   a `Function` keeps it with `ctx.save_for_backward`, receives `grad_output` and
#   returns the gradients, and the engine routes them.
#
# Next: [08 Accumulation](08_accumulation.ipynb), why `.grad` adds up across calls.
