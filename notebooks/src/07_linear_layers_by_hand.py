# %% [markdown]
# # 07 Linear layers by hand
#
# A linear layer, $f = x W + b$, is where most of a network's parameters live, and its
# backward pass is three short lines that every deep learning course shows:
#
# ```python
# inp.g = out.g @ w.t()
# w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
# b.g = out.g.sum(0)
# ```
#
# This chapter derives them the way a forum thread (seed 001) does: one element at a
# time, with the chain rule, until the matrices appear by themselves. Then we write a
# whole backward pass by hand in the `.g` style (mean squared error, ReLU, two linear
# layers), check every gradient against torch's autograd, and answer the thread's
# questions: why the bias gradient is a `sum(0)`, where the $1/\text{batch}$ of a mean
# loss goes, and when anyone needs the gradient of the *input*. Last, we meet
# `nn.Linear` and read minigrad's own fused backward for it.
#
# **Learning goals.** After this chapter you can
#
# 1. derive $\partial L / \partial x$, $\partial L / \partial W$ and
#    $\partial L / \partial b$ of a linear layer element by element, and write them as
#    matrix products;
# 2. explain why the bias gradient is the upstream gradient summed over the batch;
# 3. write `lin_grad`, `relu_grad` and `mse_grad` by hand and chain them into the
#    backward pass of a small network;
# 4. say what changes between a mean and a sum reduction of the loss;
# 5. say when the gradient of the input is needed, and read the shapes of
#    `nn.Linear`'s gradients (weight `(out, in)`, bias `(out,)`).

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source

# %% [markdown]
# ## 1. The forward pass, one element at a time
#
# Seed 001 writes the layer for one input vector $x$ of $n$ numbers, a weight matrix
# $w$ of shape $n \times m$ and $m$ biases:
#
# $$f_j = w_{1j} x_1 + w_{2j} x_2 + \dots + w_{nj} x_n + b_j, \qquad j = 1, \dots, m.$$
#
# We take $n = 3$ inputs and $m = 2$ outputs and compute $f$ with loops, exactly as
# written, then as one matrix product, and compare with torch. (The course uses float64
# throughout this chapter, so the comparisons are tight.)

# %%
x1 = np.array([1.0, -2.0, 0.5])
w1 = np.array([[0.2, -0.4], [0.7, 0.1], [-0.3, 0.5]])
b1 = np.array([0.05, -0.1])

f_loops = np.array([sum(w1[i, j] * x1[i] for i in range(3)) + b1[j] for j in range(2)])
f = minigrad.tensor(x1) @ minigrad.tensor(w1) + minigrad.tensor(b1)
f_torch = torch.tensor(x1) @ torch.tensor(w1) + torch.tensor(b1)
check_all({"f (loops)": (f_loops, f_torch), "f = x @ w + b": (f, f_torch)})

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
# Seed 001 writes the weight sum literally, a stack of outer products summed over the
# batch; `inp.T @ out.g` is the same sum in one matrix product.

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
# ## 6. A backward pass by hand, in the `.g` style
#
# The thread's code stores each gradient in a `.g` attribute, next to the tensor it
# belongs to: `inp.g` is $\frac{\partial L}{\partial \text{inp}}$. Torch tensors accept
# any new attribute, and so do minigrad's. Each `_grad` function reads the gradient of
# its output (`out.g`, left there by the function that ran before it) and writes the
# gradient of its inputs. The first one, for the loss, starts the chain. We write the
# three pieces for a two-layer network: linear, ReLU, linear, mean squared error.

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
    """Seed 001's three lines, for w of shape (in, out)."""
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
check_all({"out": (out, t_out), "loss": (loss, t_loss)})

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
           "x.g": (x.g, t_g["x"])})

# %% [markdown]
# ## 7. Mean or sum: where the $1/\text{batch}$ goes
#
# The thread asks whether gradients over a batch are summed or averaged. The answer in
# the thread: neither, *the loss* is. With the mean, $L = \frac{1}{N}\sum_n \ell_n$,
# and that $\frac{1}{N}$ is in `mse_grad` (the `/ inp.shape[0]`), so every gradient
# downstream carries it. With `reduction="sum"` it is gone and every gradient is $N$
# times larger; the bias gradient is still a sum over the batch, of $N$-times larger
# terms.

# %%
def layer_grads(reduction, lib):
    """Gradients of mse_loss(x W^T + b, y) for a fixed layer, in minigrad or torch."""
    weight = lib.tensor(data["w1"].T[:1], requires_grad=True)  # a layer with 1 output
    bias = lib.tensor(data["b2"], requires_grad=True)
    pred = lib.tensor(data["x"]) @ weight.T + bias
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
# So the choice only rescales the gradient, which a learning rate can absorb. The mean
# is the usual default because it makes the step size independent of the batch size.
#
# ## 8. Gradients of the input: when you need them
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
check("weight.grad", layer.weight.grad, layer_t.weight.grad)

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
        with lib.no_grad():
            img -= lr * img.grad
        losses.append(loss_in.item())
    return img, losses


img, losses = optimize_input(minigrad)
img_t, losses_t = optimize_input(torch)
check_all({"optimized input": (img, img_t), "losses": (losses, losses_t)})

# %%
fig, ax = plt.subplots(figsize=(5, 3))
ax.semilogy(losses, "o", label="minigrad")
ax.semilogy(losses_t, "-", label="torch")
ax.set_xlabel("step")
ax.set_ylabel("loss (only the input changes)")
ax.legend()
plt.show()

# %% [markdown]
# ## 9. `nn.Linear`: seed 000's example
#
# Torch stores a layer's weight the other way round from seed 001, with shape
# `(out_features, in_features)`, and computes $Y = X W^\top + b$. The tutorial's
# example, $B = 5$ examples, $d = 3$ inputs, $h = 4$ outputs, and $L = \sum Y$:

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
weight_t = torch.tensor(layer.weight.data, requires_grad=True)
bias_t = torch.tensor(layer.bias.data, requires_grad=True)
torch.nn.functional.linear(torch.tensor(X.data), weight_t, bias_t).sum().backward()
check_all({"weight.grad": (layer.weight.grad, weight_t.grad),
           "bias.grad": (layer.bias.grad, bias_t.grad)})

# %% [markdown]
# The shapes match the parameters, and the values match torch's. They also match when
# minigrad's layer is loaded with torch's weights and both get the same $X$.
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
           "bias.grad = 5": (layer_m.bias.grad, np.full(h, 5.0)),
           "weight.grad rows = X.sum(0)": (layer_m.weight.grad, np.tile(X_np.sum(0), (h, 1)))})

# %% [markdown]
# ## 10. The package's linear backward
#
# minigrad computes `x @ weight.T + bias` as one op with one backward (torch names its
# node `AddmmBackward0`), instead of two nodes, a matrix product and an addition. Here
# it is, read from the package:

# %%
show_source(minigrad.ops.linear.Linear.backward)

# %% [markdown]
# Line by line it is `lin_grad`, in torch's layout: the weight is $w^\top$, so its
# gradient is `g.T @ x`, the transpose of seed 001's `w.g`; the input gradient is
# `g @ weight` (that is, `out.g @ w.t()`), skipped when the input needs none; and the
# bias gradient is `g.sum(0)`. We run our `lin_grad` on the same numbers as the layer
# above and compare.

# %%
inp_m = minigrad.tensor(X_np)
out_m = layer_m(inp_m)
out_m.g = minigrad.ones(B, h, dtype=minigrad.float64)  # dL/dY for L = Y.sum()
w_in_out = layer_m.weight.detach().t()  # seed 001's layout: (in, out)
b_plain = layer_m.bias.detach()
lin_grad(inp_m, out_m, w_in_out, b_plain)
check_all({"w.g.T vs weight.grad": (w_in_out.g.t(), layer_t.weight.grad),
           "b.g vs bias.grad": (b_plain.g, layer_t.bias.grad)})

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your code and a locked cell that checks it. Replace
# `raise NotImplementedError()` with your answer, run your cell, then run the check
# cell below it: it calls your code on inputs of its own, compares with torch, and
# shows a table, or one line saying what differs and a hint. When you hand the
# chapter in, the grader runs the same checks and a few more on inputs you have not
# seen (other batch sizes, other layer sizes), so an answer that only fits the
# examples here loses its points. The points of each exercise are in its heading.
#
# ### Exercise 7.1: `lin_grad` in torch's layout (3 points)
#
# Write `lin_grad_tl(inp, out, weight, bias)` for a layer computed as
# `out = inp @ weight.t() + bias`, with `weight` of shape `(out_features,
# in_features)` as in `nn.Linear`. Like `lin_grad`, it reads `out.g` and sets `inp.g`,
# `weight.g` and `bias.g` (minigrad tensors, each of its tensor's shape), by hand: the
# check switches off autograd and minigrad's own linear and matrix-product backward.
# It tries batches of other sizes and layers with other numbers of inputs and
# outputs, including a single example and a single output.
#
# <details><summary>Hint</summary>
#
# This layer's `weight` is seed 001's `w` transposed. Substitute it into `lin_grad`'s
# three lines and simplify: a transpose of a transpose cancels, and the gradient of
# `weight` is the transpose of the gradient of `w`, which $(AB)^\top = B^\top A^\top$
# turns into one matrix product. Check each result's shape against its tensor's.
# </details>

# %% solution=ex07-lin-grad-torch-layout
def lin_grad_tl(inp, out, weight, bias):
    """Backward of out = inp @ weight.t() + bias, weight of shape (out, in)."""
    ### BEGIN SOLUTION
    inp.g = out.g @ weight
    weight.g = out.g.t() @ inp
    bias.g = out.g.sum(0)
    ### END SOLUTION

# %% test=ex07-lin-grad-torch-layout-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 7.1", hint="substitute weight = w.t() into lin_grad's three lines; "
            "each gradient has the shape of its tensor, and the bias sums over the "
            "batch") as g:
    package_backwards = [minigrad.ops.linear.Linear.backward,
                         minigrad.ops.matmul.Mm.backward, minigrad.ops.matmul.Matmul.backward]

    def check_layer(rng, batch, n_in, n_out):
        name = f"batch {batch}, {n_in} -> {n_out}"
        arrays = {"inp": rng.standard_normal((batch, n_in)),
                  "weight": rng.standard_normal((n_out, n_in)),
                  "bias": rng.standard_normal(n_out), "g": rng.standard_normal((batch, n_out))}
        inp, weight, bias = (minigrad.tensor(arrays[k]) for k in ["inp", "weight", "bias"])
        out = inp @ weight.t() + bias
        out.g = minigrad.tensor(arrays["g"])
        g.call(lin_grad_tl, inp, out, weight, bias, forbid=["autograd", *package_backwards])
        ts = {k: torch.tensor(arrays[k], requires_grad=True) for k in ["inp", "weight", "bias"]}
        torch.nn.functional.linear(ts["inp"], ts["weight"], ts["bias"]).backward(
            torch.tensor(arrays["g"]))
        for key, tensor in [("inp", inp), ("weight", weight), ("bias", bias)]:
            grad = getattr(tensor, "g", None)
            g.require(f"{name}: {key}.g is a minigrad tensor", type(grad) is minigrad.Tensor,
                      f"set {key}.g to a minigrad tensor")
            g.check(f"{name}: {key}.g", grad, ts[key].grad, rtol=1e-12, atol=1e-12)

    check_layer(np.random.default_rng(71), 6, 3, 2)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(710)
    for sizes in [(1, 4, 3), (9, 1, 2), (5, 4, 1), (3, 3, 3), (7, 2, 5)]:
        check_layer(rng, *sizes)
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
        g.check(f"{name}: inp.g", grad, pt.grad, rtol=1e-12, atol=1e-12)

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
        g.check(f"{name}: w_g", got[0], w.grad, rtol=1e-12, atol=1e-12)
        g.check(f"{name}: b_g", got[1], b.grad, rtol=1e-12, atol=1e-12)

    check_seq(np.random.default_rng(73), 2, 5, 3, 4)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(730)
    for sizes in [(1, 1, 2, 3), (3, 2, 1, 5), (4, 1, 6, 1), (1, 7, 2, 2), (5, 3, 4, 2),
                  (3, 4, 2, 3)]:
        check_seq(rng, *sizes)
    ### END HIDDEN TESTS

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
#   matches torch's autograd.
# - A mean loss puts $1/N$ into every gradient; a sum does not. The loss is reduced,
#   not the gradients.
# - The input's gradient is only needed when something upstream uses it (a previous
#   layer, or the pixels in style transfer).
# - `nn.Linear` keeps its weight as `(out, in)`: `weight.grad` has shape `(4, 3)` and
#   `bias.grad` `(4,)` in seed 000's example; minigrad's fused `Linear.backward` is
#   `lin_grad` in that layout.
#
# Next: [08 Accumulation](08_accumulation.ipynb), why `.grad` adds up across calls.
