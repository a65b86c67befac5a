# %% [markdown]
# # 06 Vector outputs
#
# `loss.backward()` works because a loss is one number. A tensor of several numbers
# has no single gradient: each of its entries has its own. Before backpropagation can
# start, we must say how to weigh the entries into one number, and that weighting is a
# vector $v$ of the output's shape. `y.backward(v)` then computes $v^\top J$, a
# *vector-Jacobian product* (VJP): the step every backward pass takes at every node of
# the graph. Without a $v$, torch refuses with an error every PyTorch user meets sooner
# or later, "grad can be implicitly created only for scalar outputs". The same idea runs
# the backward pass of a network split in two (the second half hands the first
# $\partial L / \partial y$), and it sets the price of a full Jacobian: one backward pass
# per output, which is why training differentiates a scalar loss and never a vector.
#
# **Learning goals.** After this chapter you can
#
# 1. explain why `backward()` without arguments needs an output of exactly one element,
#    and read the error it raises otherwise;
# 2. reduce a vector output with `.sum()` and predict the resulting gradient;
# 3. say what the `gradient` argument of `backward()` means, as a vector-Jacobian
#    product $v^\top J$, and compute one by hand: the `mm` example of the PyTorch forum
#    thread "'gradient' argument in out.backward(gradient)"
#    (see [Sources](../book/sources.md));
# 4. build a full Jacobian row by row with one backward pass per output, and explain
#    why that cost is avoided in training;
# 5. split a network in two and run its backward pass in two halves, passing
#    $\partial L / \partial y$ from one to the other.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.vjp_view import vjp_widget

# %% [markdown]
# ## 1. A vector output has no single gradient
#
# The example of the course's reference tutorial (see [Sources](../book/sources.md)):
# $x = (1, 2, 3)$ and $y = x^2$ elementwise. The output $y$ holds
# three numbers. Backpropagation answers "how does *one number* change when each input
# changes?", and $y$ is not one number: $\frac{\partial y}{\partial x}$ is a $3 \times
# 3$ matrix (a Jacobian), not a vector the shape of $x$. Torch will not guess which
# single number we mean, so `y.backward()` raises:

# %% tags=raises-exception
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward()

# %% [markdown]
# minigrad raises the same exception type with the same message, and adds one line on
# how to fix it:

# %% tags=raises-exception
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward()

# %% [markdown]
# For a scalar output there is no such question: $\frac{\partial L}{\partial L} = 1$ is
# where backpropagation starts, and `backward()` creates that $1$ itself ("implicitly").
# That is the whole difference.

# %%
x = minigrad.tensor(2.0, requires_grad=True)
loss = x ** 2
loss.backward()
xt = torch.tensor(2.0, requires_grad=True)
(xt ** 2).backward()
check("x.grad (x**2 at 2)", x.grad, xt.grad, brief=True)

# %% [markdown]
# The rule is not about the number of dimensions but the number of elements: exactly
# one. A tensor of shape `(1,)` (or `(1, 1)`) holds one number, and `backward()`
# accepts it, in both libraries, starting from a $1$ of that shape:

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
one = (x ** 2).sum().reshape(1)
one.backward()
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
one_t = (xt ** 2).sum().reshape(1)
one_t.backward()
print(one.shape, one_t.shape)
check("x.grad, output of shape (1,)", x.grad, xt.grad, brief=True)

# %% [markdown]
# ## 2. Reduce to a scalar: `y.sum()` weighs every output by 1
#
# The most common fix is to say which number we mean. With
# $s = \sum_i y_i = \sum_i x_i^2$, each $\frac{\partial s}{\partial x_i} = 2x_i$, so the
# gradient is $(2, 4, 6)$. The reference tutorial's snippet, in torch:

# %%
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
loss = y.sum()
loss.backward()
print(x.grad)  # tensor([2., 4., 6.])

# %% [markdown]
# The same snippet with `torch` replaced by `minigrad`:

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
loss = y.sum()
loss.backward()
print(x.grad)  # tensor([2., 4., 6.])
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).sum().backward()
check("x.grad (y.sum())", x.grad, xt.grad, brief=True)

# %% [markdown]
# ## 3. `y.backward(v)` computes $v^\top J$
#
# The other fix is to pass `backward()` a tensor $v$ of $y$'s shape, its `gradient`
# argument. With ones, the
# reference tutorial gets the same $(2, 4, 6)$:

# %%
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward(torch.tensor([1.0, 1.0, 1.0]))
print(x.grad)  # tensor([2., 4., 6.])

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward(minigrad.tensor([1.0, 1.0, 1.0]))
print(x.grad)  # tensor([2., 4., 6.])
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).backward(torch.tensor([1.0, 1.0, 1.0]))
check("x.grad (gradient=ones)", x.grad, xt.grad, brief=True)

# %% [markdown]
# What does the argument mean? It is the *upstream gradient*: the gradient, with
# respect to $y$, of some scalar that comes after $y$. `y.backward(v)` computes the
# gradient of $\sum_i v_i y_i$, the scalar whose gradient with respect to $y$ is
# exactly $v$. With $v$ all ones that scalar is `y.sum()`, which is why both ways gave
# $(2, 4, 6)$. With another $v$, each output is weighted:
#
# $$\frac{\partial}{\partial x_j} \sum_i v_i y_i = \sum_i v_i
# \frac{\partial y_i}{\partial x_j} = (v^\top J)_j,$$
#
# where $J_{ij} = \frac{\partial y_i}{\partial x_j}$ is the Jacobian of $y$. That is a
# **vector-Jacobian product** (VJP), and it is what every backward pass computes,
# node by node. Here $J = \mathrm{diag}(2x)$, so $v^\top J = 2 x v$.

# %%
v = [1.0, 0.5, -2.0]
x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
(x ** 2).backward(minigrad.tensor(v, dtype=minigrad.float64))
xt = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64, requires_grad=True)
(xt ** 2).backward(torch.tensor(v, dtype=torch.float64))
check_all({"x.grad (gradient=v)": (x.grad, xt.grad),
           "2 x v": (x.grad, 2 * np.array([1.0, 2.0, 3.0]) * v, "formula")})

# %% [markdown]
# And the same gradient through the scalar $\sum_i v_i y_i$:

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64, requires_grad=True)
((x ** 2) * minigrad.tensor(v, dtype=minigrad.float64)).sum().backward()
check("x.grad ((v * y).sum())", x.grad, xt.grad, brief=True)

# %% [markdown]
# This is how backward works inside a network: a layer in the middle receives, from
# the layers after it, the gradient of the loss with respect to its output, and turns
# it into the gradient with respect to its input. `y.backward(v)` lets us start that
# process in the middle, with a $v$ we choose (section 7 does it on a real split).
#
# ## 4. $v^\top J$ of a matrix product: the forum thread's `mm` example
#
# The same idea on a matrix output. In the PyTorch forum thread "'gradient' argument in
# out.backward(gradient)" (see [Sources](../book/sources.md)) a learner asks what the
# argument is for, and several answers follow. The thread's test multiplies a
# $2 \times 3$ matrix of ones by a $3 \times 4$ one and passes a $2 \times 4$
# `gradient`. It was written in the old spelling, `Variable(...)` and
# `torch.FloatTensor(...)`, which today are plain tensors; here it is in today's:

# %%
x = torch.ones(2, 3, requires_grad=True)
a = torch.ones(3, 4)
out = torch.mm(x, a)  # shape: (2,4)
gradient = torch.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8]])  # shape=(2,4)
out.backward(gradient)
print(x.grad)

# %% [markdown]
# The same code, with `torch` replaced by `minigrad`:

# %%
x = minigrad.ones(2, 3, requires_grad=True)
a = minigrad.ones(3, 4)
out = minigrad.mm(x, a)  # shape: (2,4)
gradient = minigrad.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8]])  # shape=(2,4)
out.backward(gradient)
print(x.grad)
xt = torch.ones(2, 3, requires_grad=True)
torch.mm(xt, torch.ones(3, 4)).backward(torch.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8]]))
check("x.grad (the thread's mm)", x.grad, xt.grad, brief=True)

# %% [markdown]
# Where does $10 = 1 + 2 + 3 + 4$ come from? With `a` all ones, every entry of row $i$
# of `out` is the same sum, $\mathrm{out}_{ij} = x_{i1} + x_{i2} + x_{i3}$. The gradient
# argument $g$ makes the scalar $\sum_{ij} g_{ij}\, \mathrm{out}_{ij}$. The input
# $x_{11}$ appears in all four entries of row 1, with weights $g_{11}, \dots, g_{14} =
# 1, 2, 3, 4$, and in no entry of row 2 (the thread writes it as
# $1+2+3+4+0+0+0+0$). So $\frac{\partial}{\partial x_{11}} = 1 + 2 + 3 + 4 = 10$, and
# the same for $x_{12}, x_{13}$; row 2 gets $5 + 6 + 7 + 8 = 26$. The thread's guess,
# "gradient will perform a dot product on out", is right: `out.backward(g)`
# differentiates the inner product $\langle g, \mathrm{out} \rangle = \sum_{ij} g_{ij}\,
# \mathrm{out}_{ij}$. The product is taken inside the backward pass, not on the tensor:
# `out` itself is unchanged (the cell below checks it). In general, for
# $\mathrm{out} = x\, a$,
#
# $$\frac{\partial}{\partial x} \sum_{ij} g_{ij}\, \mathrm{out}_{ij} = g\, a^\top,$$
#
# which is exactly the line in minigrad's matrix-product backward:

# %%
show_source(minigrad.ops.matmul.Mm.backward)

# %%
g = np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]])
check_all({"g @ a.T": (g @ np.ones((3, 4)).T, xt.grad), "row sums of g": (
    np.repeat(g.sum(1, keepdims=True), 3, axis=1), xt.grad),
    "out after backward(g): still x @ a": (out, torch.mm(xt, torch.ones(3, 4)))})

# %% [markdown]
# ## 5. The full Jacobian: one backward pass per row
#
# Sometimes we do want every $\frac{\partial y_i}{\partial x_j}$. A VJP with the one-hot
# vector $e_i$ picks out row $i$ of the Jacobian: $e_i^\top J = J_{i,:}$. So $m$
# backward passes, one per output, give the whole $m \times n$ matrix. We need
# `retain_graph=True` (the graph is reused $m$ times) and must clear `x.grad` between
# passes, since backward *adds* into it (chapter 08).
#
# Our example maps $\mathbb{R}^3 \to \mathbb{R}^4$: $y = \tanh(A x)$ with a fixed
# $4 \times 3$ matrix $A$.

# %%
A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
x0 = np.array([0.5, -1.0, 2.0])


def f_minigrad(x):
    return (minigrad.tensor(A) @ x).tanh()


def f_torch(x):
    return torch.tanh(torch.tensor(A) @ x)


def jacobian_rows(f, x0):
    """The Jacobian of f at x0, one backward pass (one VJP with e_i) per output."""
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    rows = []
    for i in range(y.shape[0]):
        x.grad = None
        e_i = np.zeros(y.shape[0])
        e_i[i] = 1.0
        y.backward(minigrad.tensor(e_i), retain_graph=True)
        rows.append(x.grad.numpy())
    return np.stack(rows)


J = jacobian_rows(f_minigrad, x0)
J_torch = torch.autograd.functional.jacobian(f_torch, torch.tensor(x0))
print(J.shape)
check("Jacobian of tanh(A x)", J, J_torch, brief=True)

# %% [markdown]
# Every backward we ran before was one VJP with this matrix: `y.backward(v)` is
# $v^\top J$, a weighted sum of its rows.

# %%
v4 = np.array([1.0, -1.0, 2.0, 0.5])
x = minigrad.tensor(x0, requires_grad=True)
f_minigrad(x).backward(minigrad.tensor(v4))
check_all({"x.grad (gradient=v)": (x.grad, v4 @ J_torch.numpy()),
           "torch's vjp": (x.grad, torch.autograd.functional.vjp(
               f_torch, torch.tensor(x0), torch.tensor(v4))[1])}, brief=True)

# %% [markdown]
# The Jacobian as a picture: row $i$ is what one backward pass from $y_i$ fills in.

# %%
fig, ax = plt.subplots(figsize=(3.6, 3.4))
image = ax.imshow(J, cmap="RdBu_r", vmin=-1, vmax=1)
ax.set_xlabel("input j")
ax.set_ylabel("output i (one backward pass each)")
ax.set_xticks(range(3))
ax.set_yticks(range(4))
for (i, j), value in np.ndenumerate(J):
    ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=8)
fig.colorbar(image)
plt.show()

# %% [markdown]
# Try it. The sliders set $g$, and `x.grad` after `y.backward(g)` follows, beside
# torch's: every $g$ gives a weighted sum of the Jacobian's rows. "next row" runs one
# more backward pass, with $e_0$, then $e_1$, ..., and writes what lands in `x.grad` as
# the next row of the Jacobian: four passes for four outputs. The widget works on its
# own tensors, so it changes nothing above.

# %%
vjp_widget(A, x0)

# %% [markdown]
# ## 6. What the Jacobian costs
#
# Each backward pass costs a small multiple of the forward pass. A scalar loss needs
# *one*, whatever the number of parameters: that is why reverse mode is the right tool
# for training, where millions of inputs (parameters) feed one output (the loss). A
# full Jacobian needs one per *output*. For $y = \tanh(x)$ with $n$ entries, the
# Jacobian is an $n \times n$ matrix that is zero off the diagonal, built from $n$
# backward passes, while the single VJP that training uses never forms it. The cell
# below runs the $n = 64$ passes of the Jacobian without clearing `x.grad` in between.
# Backward *adds* into `.grad` (chapter 08), so what is left in it is the sum of the 64
# rows, $e_1^\top J + \dots + e_{64}^\top J = \mathbf{1}^\top J$: the gradient of
# `y.sum()`, which one pass gives directly.

# %%
def count_passes(n):
    x = minigrad.tensor(np.linspace(-1, 1, n), requires_grad=True)
    y = x.tanh()
    passes = 0
    for i in range(n):
        e_i = np.zeros(n)
        e_i[i] = 1.0
        y.backward(minigrad.tensor(e_i), retain_graph=True)
        passes += 1
    return passes, x.grad


passes, summed = count_passes(64)
xt = torch.tensor(np.linspace(-1, 1, 64), requires_grad=True)
xt.tanh().sum().backward()
print(f"full Jacobian of a 64-vector: {passes} backward passes; the gradient of y.sum(): 1")
check("the rows add up to the gradient of y.sum()", summed, xt.grad, brief=True)

# %% [markdown]
# And measured (your times will differ). Each time is the best of several runs (five
# for the VJP, three for the slower Jacobian), after one run that is not timed, so the
# first size does not pay for warming up. In principle
# the full Jacobian costs $n$ backward passes of $O(n)$ work each, $O(n^2)$ in all, and
# one VJP costs $O(n)$. At these sizes a pass is dominated by its fixed per-call
# overhead, not by the $n$ numbers it touches, so the Jacobian's line only looks linear
# in $n$ and the VJP's looks flat; the $n^2$ and the $n$ show only for much larger $n$.
# (The mirror image is *forward mode*, chapter 14: one pass per *input*, so it builds a
# Jacobian column by column and wins when there are fewer inputs than outputs.)

# %% tags=nbval-ignore-output
def one_vjp(n):
    x = minigrad.tensor(np.linspace(-1, 1, n), requires_grad=True)
    x.tanh().sum().backward()


def best_of(f, n, repeats=5):
    f(n)  # not timed: the first call warms caches up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        f(n)
        times.append(time.perf_counter() - start)
    return min(times)


sizes = [16, 64, 256, 512]
jac_times = [best_of(count_passes, n, repeats=3) for n in sizes]
vjp_times = [best_of(one_vjp, n) for n in sizes]
fig, ax = plt.subplots(figsize=(5, 3.2))
ax.loglog(sizes, jac_times, "o-", label="full Jacobian (n backward passes)")
ax.loglog(sizes, vjp_times, "s-", label="one VJP (y.sum().backward())")
ax.set_xticks(sizes, [str(s) for s in sizes])
ax.minorticks_off()
ax.set_xlabel("number of outputs n")
ax.set_ylabel("seconds")
ax.legend()
plt.show()

# %% [markdown]
# ## 7. Splitting a network: `y.backward(dL/dy)`
#
# Section 3 said that $v$ is the gradient of some scalar that comes after $y$. Choose
# that scalar to be the loss, $v = \partial L / \partial y$, and `y.backward(v)` gives
# every input before $y$ the same gradient as `L.backward()` (when $L$ depends on
# those inputs only through $y$). So a backward pass can be cut in two: the part after
# $y$ computes $\partial L / \partial y$, and hands it to the part before. That is the
# best answer of the forum thread on `backward(gradient)` (see
# [Sources](../book/sources.md)): "if you're doing backpropagation manually, and you
# know the gradient of the input of the next layer, then you can pass [it] to the
# previous layer".
#
# We split a two-layer network at its hidden activation $y$: the second half gets $y$
# as a new leaf (`detach()` cuts the history, `requires_grad_()` makes it a leaf that
# collects a gradient), so its backward stops there and leaves
# $\partial L / \partial y$ in that leaf's `.grad`; then `y.backward(dL/dy)` runs the
# first half. The first layer's gradients are those of one `L.backward()` through the
# whole network, run in torch.

# %%
rng = np.random.default_rng(60)
data = {name: rng.standard_normal(shape) for name, shape in
        [("X", (5, 3)), ("W1", (4, 3)), ("b1", (4,)), ("W2", (2, 4)), ("t", (5, 2))]}


def network(lib):
    """Leaves W1, b1 and the two halves: y = relu(X W1^T + b1), L = mean((y W2^T - t)^2)."""
    W1 = lib.tensor(data["W1"], requires_grad=True)
    b1 = lib.tensor(data["b1"], requires_grad=True)

    def first(X):
        return (lib.tensor(X) @ W1.t() + b1).relu()

    def second(y):
        return ((y @ lib.tensor(data["W2"]).t() - lib.tensor(data["t"])) ** 2).mean()

    return W1, b1, first, second


W1t, b1t, first_t, second_t = network(torch)  # torch: one backward through the whole
second_t(first_t(data["X"])).backward()
W1, b1, first, second = network(minigrad)  # minigrad: two halves
y = first(data["X"])
y_leaf = y.detach().requires_grad_()  # where the second half starts
second(y_leaf).backward()  # fills y_leaf.grad = dL/dy
y.backward(y_leaf.grad)  # the first half, from dL/dy
check_all({"W1.grad (split at y)": (W1.grad, W1t.grad),
           "b1.grad (split at y)": (b1.grad, b1t.grad)}, brief=True)

# %% [markdown]
# The same idea answers another question of the thread: **"I have an image A of size
# 720x720 and I want to calculate its gradient. What should the values of `gradient`
# be? Randomly initialized?"** A tensor has no gradient of its own; a *scalar computed
# from it* does. The values to pass are $\partial L / \partial A$ for the scalar $L$
# you care about, exactly as for $y$ above. Random values $r$ give the
# gradient of $\sum r_{ij} A_{ij}$, a random weighting of the image: a correct answer to
# a question nobody asked. And the full Jacobian of the image with respect to its
# input would take one backward pass per pixel, $720 \times 720 = 518{,}400$ of them.
# On a small case: a 3x3 "image" $A = M x$ made from an input $x$, and the scalar
# $L$, its mean squared distance to a target $T$.

# %%
M = np.array([[2.0, -1.0, 0.0], [0.5, 1.0, 0.5], [0.0, -1.0, 2.0]])
x_img = np.array([[0.2, 0.4, 0.6], [1.0, -0.5, 0.0], [0.3, 0.3, -1.2]])
T = np.eye(3)


def image_and_loss(lib, x):
    A = lib.tensor(M) @ x
    return A, ((A - lib.tensor(T)) ** 2).mean()


x = minigrad.tensor(x_img, requires_grad=True)
A, L = image_and_loss(minigrad, x)
dL_dA = 2 * (A.detach().numpy() - T) / A.numel()  # the gradient of L with respect to A, by hand
A.backward(minigrad.tensor(dL_dA))
xt = torch.tensor(x_img, requires_grad=True)
_, Lt = image_and_loss(torch, xt)
Lt.backward()
check("x.grad from A.backward(dL/dA)", x.grad, xt.grad, brief=True)

# %% [markdown]
# If $L$ also uses an input directly, `A.backward(dL/dA)` misses that path. With
# $L_2 = L + \sum_{ij} x_{ij}^2$, the direct term adds $2x$ to torch's gradient, and
# only `A`'s part arrives through `A.backward`:

# %%
xt2 = torch.tensor(x_img, requires_grad=True)
_, Lt2 = image_and_loss(torch, xt2)
(Lt2 + (xt2 ** 2).sum()).backward()
check("x.grad from A.backward(dL/dA) + 2x", x.grad.numpy() + 2 * x_img, xt2.grad,
      against="torch, L2.backward()", brief=True)

# %% [markdown]
# A random `gradient` instead differentiates the random projection
# $\sum r_{ij} A_{ij}$, nothing else; and the whole Jacobian of the $3 \times 3$ image
# takes $9$ backward passes, one per pixel (`torch.autograd.functional.jacobian` runs
# them for us), where $L$ needed one. For the thread's image it would be 518,400.

# %%
rng = np.random.default_rng(6)
r = rng.standard_normal((3, 3))
x = minigrad.tensor(x_img, requires_grad=True)
A, _ = image_and_loss(minigrad, x)
A.backward(minigrad.tensor(r))
xt = torch.tensor(x_img, requires_grad=True)
(torch.tensor(r) * (torch.tensor(M) @ xt)).sum().backward()
J_img = torch.autograd.functional.jacobian(lambda t: torch.tensor(M) @ t, torch.tensor(x_img))
print("Jacobian of A:", tuple(J_img.shape), "->", A.numel(), "backward passes;",
      "a 720x720 image:", 720 * 720)
check_all({"x.grad from A.backward(r)": (x.grad, xt.grad),
           "the same, from the Jacobian": (x.grad, np.einsum("ij,ijkl->kl", r, J_img.numpy()))},
          brief=True)

# %% [markdown]
# ## 8. The gradient has the output's shape
#
# $v$ weighs each entry of the output, so it has exactly the output's shape. Two more
# posts of the thread run into this rule.
#
# **"`out.backward()` is equivalent to `out.backward(torch.Tensor([1]))`."** An answer
# says so, and it was true when the thread was written (torch 0.3): a loss was then a
# tensor of shape `(1,)`. Since torch 0.4 a loss such as `.sum()` or `mse_loss` is 0-d,
# shape `()`, and the gradient must have the output's shape exactly, so the `[1]`
# (shape `(1,)`) is refused, in torch and in minigrad alike:

# %% tags=raises-exception
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss_t = (xt ** 2).sum()
loss_t.backward(torch.Tensor([1]))

# %% tags=raises-exception
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
loss = (x ** 2).sum()
loss.backward(minigrad.Tensor([1]))

# %% [markdown]
# What `backward()` creates today is a 0-d one, `tensor(1.)`: passing that is the
# same as passing nothing.

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x ** 2).sum().backward(minigrad.tensor(1.0))
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).sum().backward(torch.tensor(1.0))
x_plain = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x_plain ** 2).sum().backward()
print(torch.tensor(1.0), torch.tensor(1.0).shape)
check_all({"backward(tensor(1.))": (x.grad, xt.grad),
           "backward()": (x.grad, x_plain.grad)}, brief=True)

# %% [markdown]
# The other: the commented-out line of the thread's test (section 4),
# `gradient = torch.ones(4, 4)`, for an `out` of shape `(2, 4)`. Both libraries refuse
# it with the same error.

# %% tags=raises-exception
xt = torch.ones(2, 3, requires_grad=True)
out_t = torch.mm(xt, torch.ones(3, 4))
out_t.backward(torch.ones(4, 4))

# %% tags=raises-exception
x = minigrad.ones(2, 3, requires_grad=True)
out = minigrad.mm(x, minigrad.ones(3, 4))
out.backward(minigrad.ones(4, 4))

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 6.1: a weighted sum of outputs, by hand (2 points)
#
# Let `z = w ** 3`, elementwise. `z.backward(v)` puts into `w.grad` the gradient of the
# scalar $\sum_i v_i z_i$, the VJP $v^\top J$. Write `cube_vjp(w, v)` that returns that
# gradient for numpy arrays `w` and `v` of the same shape (any shape), worked out by
# hand: no `backward()`, no autograd (the check switches both off). Start from the
# Jacobian of $z$: which of its entries are not zero?
#
# The check's first example is $w = (1, -2, 0.5, 3)$ and the scalar $z_1 - z_2 + 2 z_4$
# (indices from 1): which $v$ is that? Predict the gradient before you run it.
#
# <details><summary>Hint</summary>
#
# $z_i$ depends on $w_i$ alone, so $J$ is diagonal, like section 3's
# $\mathrm{diag}(2x)$. A diagonal matrix times a vector is an elementwise product, so
# no matrix is needed at all, and the answer keeps `w`'s shape.
# </details>

# %% solution=ex06-weighted-sum
def cube_vjp(w, v):
    """The gradient of (v * w ** 3).sum() with respect to w, by hand."""
    ### BEGIN SOLUTION
    return 3 * w ** 2 * v
    ### END SOLUTION

# %% test=ex06-weighted-sum-test points=2
import numpy as np
import torch

from minigrad.course.grading import graded

with graded("Exercise 6.1", hint="z_i depends on w_i alone: which entries of the "
            "Jacobian are not zero, and what does v^T J keep of them?") as g:
    def mistakes(w, v):
        """What the common mistakes give for w and v."""
        return {
            "cube-as-square": ("your local derivative of w**3 is that of w**2: check it "
                               "against a numeric slope at one point", 2 * w * v),
            "sum-of-v": ("every entry of your result is weighted by all of v: which z_j "
                         "does w_i reach?", 3 * w ** 2 * v.sum()),
            "one-number": ("you return one number: how many entries has the gradient of "
                           "a function of w?", lambda: np.dot(3 * w ** 2, v)),
            "outputs-not-gradient": ("your result is v times z itself: where is the "
                                     "derivative of z?", v * w ** 3),
            "ignores-v": ("your result does not change with v: what does v weigh?",
                          3 * w ** 2),
        }

    def check_cube_vjp(w, v, name):
        got = g.call(cube_vjp, w.copy(), v.copy(), forbid="autograd")
        wt = torch.tensor(w, requires_grad=True)
        (wt ** 3).backward(torch.tensor(v))
        g.check(f"cube_vjp, {name}", got, wt.grad, rtol=1e-12, mistakes=mistakes(w, v))

    # z1 - z2 + 2 z4: torch differentiates that scalar itself.
    w = np.array([1.0, -2.0, 0.5, 3.0])
    got = g.call(cube_vjp, w.copy(), np.array([1.0, -1.0, 0.0, 2.0]), forbid="autograd")
    wt = torch.tensor(w, requires_grad=True)
    zt = wt ** 3
    (zt[0] - zt[1] + 2 * zt[3]).backward()
    g.check("cube_vjp for z1 - z2 + 2 z4", got, wt.grad, rtol=1e-12,
            mistakes=mistakes(w, np.array([1.0, -1.0, 0.0, 2.0])))
    rng = np.random.default_rng(61)
    check_cube_vjp(rng.standard_normal(5), rng.standard_normal(5), "random w and v of 5")
    ### BEGIN HIDDEN TESTS
    for shape in [(1,), (8,), (3, 2), (2, 2, 3), ()]:
        check_cube_vjp(np.asarray(rng.standard_normal(shape) * 2),
                       np.asarray(rng.standard_normal(shape)), f"shape {shape}")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 6.2: a network on several machines (2 points)
#
# A network too large for one machine is cut into *stages*, one per machine (this is
# pipeline parallelism). A tensor sent from one machine to the next arrives as a new
# tensor with no history: the receiving machine cannot backpropagate into the sender's
# graph, and the sender's graph does not know what happened after it. Write
# `pipeline_backward(stages, x)`. `stages` is a list of functions, one per machine:
# `stages[0]` takes the data `x`, each later stage takes the previous stage's output,
# and the last returns the scalar loss $L$. Each stage refuses a tensor that has a
# history (a `grad_fn`), as a real machine would never receive one. Your function runs
# the forward pass through every stage and then the backward pass, machine by machine,
# so that every parameter of every stage ends with its `.grad` equal to that of one
# `L.backward()` through the whole network on one machine. It returns the list of the
# gradients the machines sent each other, $\partial L / \partial y_k$ for the output
# $y_k$ of each stage but the last, in the order of the stages.
#
# The stages hold their parameters out of your reach, so `.grad` can only get there
# through backward passes. The check runs networks of two to four stages, with other
# layers, losses and batch sizes than its example, and compares with torch's single
# backward pass.
#
# <details><summary>Hint</summary>
#
# Section 7 split a network in two. With more stages, ask what each machine needs to
# start its own backward pass, and which machine can give it that first.
# </details>

# %% solution=ex06-split-network
def pipeline_backward(stages, x):
    """Forward through every stage, then backward stage by stage; the gradients sent."""
    ### BEGIN SOLUTION
    inputs, outputs = [x], []
    for stage in stages:
        outputs.append(stage(inputs[-1]))
        inputs.append(outputs[-1].detach().requires_grad_())
    outputs[-1].backward()
    sent = []
    for k in reversed(range(len(stages) - 1)):
        received = inputs[k + 1].grad
        outputs[k].backward(received)
        sent.insert(0, received.data)
    return sent
    ### END SOLUTION

# %% test=ex06-split-network-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.raised import raised

with graded("Exercise 6.2", hint="every machine starts its backward pass from the "
            "gradient of L with respect to its own output; only the machine after it "
            "can compute that, once its own backward pass has run") as g:
    def make_stages(lib, arrays, acts, loss):
        """One function per machine: a linear layer, then its activation (or the loss)."""
        params = [(lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True))
                  for w, b in arrays["layers"]]
        target = lib.tensor(arrays["target"])

        def stage(k):
            def run(inp):
                if lib is minigrad and (type(inp) is not minigrad.Tensor
                                        or inp.grad_fn is not None):
                    raise RuntimeError(f"stage {k} runs on its own machine: it takes a "
                                       "tensor without history, as one sent over a network")
                w, b = params[k]
                out = inp @ w.t() + b
                if k < len(params) - 1:
                    return getattr(out, acts[k])()
                diff = out - target
                return (diff ** 2).mean() if loss == "mse" else (diff ** 4).sum()
            return run

        return [stage(k) for k in range(len(params))], params

    def boundary_mistakes(arrays, acts, loss, sent_t, j):
        """What the common mistakes give for dL/dy(j + 1), from torch's own stages."""
        stages_t, _ = make_stages(torch, arrays, acts, loss)
        n = len(sent_t)

        def vjp_of_next(upstream):
            y = sent_t[j].detach().requires_grad_()
            out = stages_t[j + 1](y)
            return torch.autograd.grad(out, y, upstream(out))[0]

        def from_zeros():
            h, sent = torch.zeros_like(sent_t[0]).new_zeros(arrays["x"].shape), []
            for stage in stages_t[:-1]:
                h = stage(h)
                h.retain_grad()
                sent.append(h)
            stages_t[-1](h).backward()
            return sent[j].grad

        mistakes = {"ignores-x": ("your boundary gradients are those of another input: "
                                  "which x does the first stage run on?", from_zeros)}
        if n > 1:
            mistakes["reversed"] = ("your gradient for this boundary belongs to another "
                                    "one: in which order do you return them?",
                                    sent_t[n - 1 - j].grad)
        if j < n - 1:
            mistakes |= {
                "ones-upstream": ("this boundary's gradient is the later stage's backward "
                                  "from ones: what does that stage's output contribute to "
                                  "L?", lambda: vjp_of_next(torch.ones_like)),
                "activation-upstream": ("this boundary's gradient is the later stage's "
                                        "backward from its output values: which gradient "
                                        "should that backward start from?",
                                        lambda: vjp_of_next(lambda out: out.detach())),
                "forward-order": ("this boundary's gradient is zero: had the later stage "
                                  "run its backward when this one started?",
                                  torch.zeros_like(sent_t[j])),
            }
        return mistakes

    def check_pipeline(rng, widths, acts, loss, name):
        batch = widths[0]
        sizes = widths[1:]
        arrays = {"x": rng.standard_normal((batch, sizes[0])),
                  "layers": [(rng.standard_normal((n_out, n_in)), rng.standard_normal(n_out))
                             for n_in, n_out in zip(sizes, sizes[1:], strict=False)]}
        arrays["target"] = rng.standard_normal((batch, sizes[-1]))
        stages, params = make_stages(minigrad, arrays, acts, loss)
        got = g.call(pipeline_backward, stages, minigrad.tensor(arrays["x"].copy()),
                     forbid=["torch.autograd", "minigrad.func"], mistakes={
                         "received-without-grad": (
                             "a stage's backward got no upstream gradient: does the tensor "
                             "each machine receives keep a .grad for the one before it?",
                             raised(RuntimeError, "implicitly created only for scalar"))})
        g.require(f"{name}: one gradient per boundary", type(got) in (tuple, list)
                  and len(got) == len(stages) - 1,
                  f"return a list of {len(stages) - 1} gradients, one per stage but the last")
        stages_t, params_t = make_stages(torch, arrays, acts, loss)
        h, sent_t = torch.tensor(arrays["x"]), []
        for stage in stages_t[:-1]:
            h = stage(h)
            h.retain_grad()
            sent_t.append(h)
        stages_t[-1](h).backward()
        for k, (y_t, mine) in enumerate(zip(sent_t, got, strict=True)):
            g.check(f"{name}: dL/dy{k + 1}", mine, y_t.grad, rtol=1e-10, atol=1e-12,
                    mistakes=boundary_mistakes(arrays, acts, loss, sent_t, k))
        reached = [w.grad is not None for w, _ in params]
        if not all(reached):
            g.require(f"{name}: every stage's weight.grad", False,
                      "a .grad is None until backward() reaches that tensor", mistakes={
                          "earlier-stages-skipped": (
                              "only the last two machines ran their backward pass: which "
                              "machines are still waiting for a gradient?",
                              len(reached) > 2 and reached[-2:] == [True, True]
                              and not any(reached[:-2]))})
        for k, ((w, b), (w_t, b_t)) in enumerate(zip(params, params_t, strict=True)):
            g.check(f"{name}: stage {k} weight.grad", w.grad, w_t.grad, rtol=1e-10,
                    atol=1e-12)
            g.check(f"{name}: stage {k} bias.grad", b.grad, b_t.grad, rtol=1e-10,
                    atol=1e-12)

    check_pipeline(np.random.default_rng(62), (4, 3, 5, 4, 2), ["tanh", "relu"], "mse",
                   "3 stages")
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(620)
    check_pipeline(rng, (6, 2, 3, 1), ["sigmoid"], "quartic", "2 stages, a sum loss")
    check_pipeline(rng, (1, 4, 4, 4, 4, 3), ["relu", "tanh", "sigmoid"], "mse",
                   "4 stages, one example")
    check_pipeline(rng, (5, 3, 6, 2, 3), ["sigmoid", "tanh"], "quartic", "3 stages, 5 examples")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 6.3: a Jacobian with `minigrad.autograd.grad` (2 points)
#
# `minigrad.autograd.grad(outputs, inputs, grad_outputs, retain_graph=True)` returns
# the VJP instead of adding it into `.grad` (torch has the same function), so no
# clearing is needed. Write `jacobian(f, x0)` that returns the Jacobian of `f` at the
# numpy vector `x0` as a numpy array of shape (outputs, inputs), with one
# `minigrad.autograd.grad` call per output (the check counts them). `f` takes and
# returns a one-dimensional minigrad tensor, not necessarily of the same length.
#
# <details><summary>Hint</summary>
#
# Make `x0` a minigrad tensor that requires grad and compute `f` of it *once*. Row $i$
# of the Jacobian is the VJP with the one-hot vector $e_i$, whose length is the
# number of *outputs*; the graph is used once per row, so it must be kept. `grad`
# returns a tuple with one gradient per input.
# </details>

# %% solution=ex06-jacobian
def jacobian(f, x0):
    """The Jacobian of f at x0: row i is the gradient of output i."""
    ### BEGIN SOLUTION
    inp = minigrad.tensor(x0, requires_grad=True)
    outp = f(inp)
    eye = np.eye(outp.shape[0])
    return np.stack([
        minigrad.autograd.grad(outp, inp, minigrad.tensor(eye[i]), retain_graph=True)[0].numpy()
        for i in range(outp.shape[0])])
    ### END SOLUTION

# %% test=ex06-jacobian-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.autograd.gradcheck import analytical_jacobian
from minigrad.course.raised import raised  # noqa: F811 - a test cell imports what it uses

with graded("Exercise 6.3", hint="compute y = f(x) once, then one "
            "minigrad.autograd.grad call per output, with a one-hot vector of y's "
            "length, each giving one row") as g:
    grad_fn = minigrad.autograd.grad

    def check_jacobian(f, f_torch, x0, name, outputs):
        before = g.calls.get(grad_fn, 0)
        got = g.call(jacobian, f, x0.copy(), count=[grad_fn],
                     forbid=["torch.autograd", analytical_jacobian], mistakes={
                         "graph-freed": ("your second grad call found the graph gone: what "
                                         "does a grad call do to the graph, unless told?",
                                         raised(RuntimeError, "a second time"))})
        g.require(f"{name}: one minigrad.autograd.grad call per output",
                  g.calls[grad_fn] - before == outputs,
                  f"call minigrad.autograd.grad {outputs} times, once per output")
        reference = torch.autograd.functional.jacobian(f_torch, torch.tensor(x0)).numpy()
        g.check(f"{name}: Jacobian", got, reference, rtol=1e-12, mistakes={
            "transposed": ("your matrix has the outputs along the columns: which index of "
                           "J is the output's?", reference.T),
            "ones-not-one-hot": ("every row of your matrix is the same: which output does "
                                 "each grad call pick out?",
                                 np.tile(reference.sum(0), (len(reference), 1)))})

    check_jacobian(lambda t: t * t.sum(), lambda t: t * t.sum(), np.array([0.3, -1.2, 2.0]),
                   "x * x.sum() at (0.3, -1.2, 2)", 3)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(63)
    B = rng.standard_normal((2, 3))
    check_jacobian(lambda t: (minigrad.tensor(B) @ t).sigmoid(),
                   lambda t: torch.sigmoid(torch.tensor(B) @ t), rng.standard_normal(3),
                   "sigmoid(B x), 3 -> 2", 2)
    A = rng.standard_normal((5, 2))
    check_jacobian(lambda t: (minigrad.tensor(A) @ t).tanh(),
                   lambda t: torch.tanh(torch.tensor(A) @ t), rng.standard_normal(2),
                   "tanh(A x), 2 -> 5", 5)
    c = np.array([1.0, -2.0, 0.5, 3.0])
    check_jacobian(lambda t: t * minigrad.tensor(c), lambda t: t * torch.tensor(c),
                   np.array([0.7]), "x * c, 1 -> 4", 4)
    check_jacobian(lambda t: (t ** 3).sum().reshape(1), lambda t: (t ** 3).sum().reshape(1),
                   rng.standard_normal(4), "sum of cubes, 4 -> 1", 1)
    check_jacobian(lambda t: t * t.sum(), lambda t: t * t.sum(), rng.standard_normal(4),
                   "x * x.sum(), 4 -> 4", 4)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Four questions on the chapter's idea. Write your guess down, then run the cell.
#
# **1.** For $x = (1, 2, 3)$, `(x ** 2).mean().backward()`: what is `x.grad`?

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x ** 2).mean().backward()
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).mean().backward()
check("x.grad of (x**2).mean()", x.grad, xt.grad)

# %% [markdown]
# <details><summary>Why</summary>
#
# The mean weighs every output by $1/3$, so $v = (\tfrac13, \tfrac13, \tfrac13)$ and
# $v^\top J = 2x/3$, not the $(2, 4, 6)$ of the sum.
# </details>
#
# **2.** `x` has shape `(2, 3)`, `out = x @ a` has shape `(2, 4)`, and we call
# `out.backward(torch.ones(2, 4))`. What is the shape of `x.grad`?

# %%
x = minigrad.ones(2, 3, requires_grad=True)
out = x @ minigrad.ones(3, 4)
out.backward(minigrad.ones(2, 4))
xt = torch.ones(2, 3, requires_grad=True)
(xt @ torch.ones(3, 4)).backward(torch.ones(2, 4))
print("out:", tuple(out.shape), " gradient:", (2, 4), " x.grad:", tuple(x.grad.shape))
check("x.grad", x.grad, xt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The `gradient` argument has the shape of the *output* it weighs; `x.grad` always has
# the shape of `x`. $v^\top J$ turns one into the other.
# </details>
#
# **3.** `loss = (x ** 2).sum()` is a scalar. What does `loss.backward(torch.tensor(2.0))`
# leave in `x.grad`, for $x = (1, 2, 3)$: an error, $(2, 4, 6)$, or something else?

# %%
x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
(x ** 2).sum().backward(minigrad.tensor(2.0))
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).sum().backward(torch.tensor(2.0))
check("x.grad after backward(tensor(2.))", x.grad, xt.grad)

# %% [markdown]
# <details><summary>Why</summary>
#
# A 0-d `gradient` is allowed for a 0-d output, and it weighs the output: the result is
# the gradient of $2 \cdot \text{loss}$, $(4, 8, 12)$. `backward()` alone passes $1$.
# </details>
#
# **4.** A function maps $\mathbb{R}^3$ to $\mathbb{R}^4$. What is the shape of its
# Jacobian, and how many backward passes does section 5's `jacobian_rows` run?

# %%
B = np.arange(12.0).reshape(4, 3) / 10
J = jacobian_rows(lambda t: (minigrad.tensor(B) @ t).tanh(), np.array([0.5, -1.0, 2.0]))
J_t = torch.autograd.functional.jacobian(lambda t: torch.tanh(torch.tensor(B) @ t),
                                         torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64))
print("Jacobian:", J.shape, "-> one backward pass per row:", J.shape[0])
check("Jacobian", J, J_t, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $J_{ij} = \partial y_i / \partial x_j$: one row per *output* (4), one column per
# input (3). Reverse mode fills a row per pass, so 4 passes; forward mode (chapter 14)
# would fill a column per pass, 3.
# </details>

# %% [markdown]
# ## Summary
#
# - `backward()` with no argument starts from $\partial L / \partial L = 1$, which only
#   makes sense for an output of exactly one element (shape `()`, `(1,)`...); otherwise
#   it raises "grad can be implicitly created only for scalar outputs", in torch and in
#   minigrad.
# - `y.sum().backward()` and `y.backward(ones)` both give the gradient of the sum: for
#   $y = x^2$ at $(1, 2, 3)$, $(2, 4, 6)$.
# - `y.backward(v)` computes the vector-Jacobian product $v^\top J$: the gradient of
#   $\sum_i v_i y_i$; `y` itself is unchanged. The forum thread's example: for
#   `out = mm(x, a)`, `x.grad = g @ a.T`, so with `a` all ones each row of $g$ is
#   summed, $1 + 2 + 3 + 4 = 10$ and $26$. The gradient must have the output's shape
#   exactly: a 0-d loss takes `tensor(1.)`, not `Tensor([1])`.
# - Split a network at `y`: `y.backward(dL/dy)` gives the layers before `y` the same
#   gradients as `L.backward()`, when $L$ depends on them only through `y`. That is the
#   `gradient` argument's main use; it also builds a Jacobian row by row (section 5),
#   and `torch.autograd.backward(tensors, grad_tensors)` takes one for each of several
#   outputs at once.
# - A full Jacobian takes one backward pass per output (a VJP with each $e_i$); one
#   scalar loss takes one pass in all, which is why training differentiates a scalar.
#
# Next: [07 Linear layers by hand](07_linear_layers_by_hand.ipynb), the VJP of a whole
# layer, written out.
