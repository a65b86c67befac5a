# %% [markdown]
# # 05 Tensor gradients
#
# A network does not have one parameter but millions, stored in tensors: a weight
# matrix, a bias vector. Chapters 01-04 computed derivatives one number at a time with
# `Value`; this chapter moves to `minigrad.Tensor`, which holds a whole array and
# records the operations on it as torch does. The central fact is simple: the gradient
# of a scalar loss with respect to a tensor is a tensor *of the same shape*, one
# partial derivative per entry. Then comes broadcasting, where a small tensor is
# silently stretched to meet a big one, and its reverse in the backward pass: the
# gradient is summed back over the stretched dimensions. Every result is checked
# against PyTorch in the cell that computes it.
#
# **Learning goals.** After this chapter you can
#
# 1. make minigrad tensors that require gradients and read their `.grad`;
# 2. explain why `W.grad` has the shape of `W`, and what each of its entries means;
# 3. derive the gradient of a simple tensor expression such as `(W ** 2).sum()` by hand;
# 4. say which dimensions broadcasting stretches, and why the backward pass sums the
#    gradient over exactly those dimensions;
# 5. find the one place in minigrad that undoes broadcasting.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.broadcast_view import broadcast_widget
from minigrad.course.tensor_graph import draw_side_by_side, graph_nodes

# %% [markdown]
# ## 1. A tensor that records what is done to it
#
# `minigrad.tensor` mirrors `torch.tensor`: it copies the numbers into a new leaf
# tensor, `float32` for Python floats unless a `dtype` says otherwise. With
# `requires_grad=True`, every operation on it records a node (`grad_fn`), exactly as
# in torch. We make the same tensor in both libraries and compare a small computation
# (how the record looks inside comes at the end of section 3).

# %%
values = [[1.0, -2.0, 0.5], [3.0, 0.0, -1.5]]
a = minigrad.tensor(values, dtype=minigrad.float64, requires_grad=True)
at = torch.tensor(values, dtype=torch.float64, requires_grad=True)
b = a * 3 + a ** 2
bt = at * 3 + at ** 2
print(a.is_leaf, b.is_leaf, b.grad_fn)
check("a * 3 + a ** 2", b, bt, brief=True)

# %% [markdown]
# The numbers live in a numpy array (`a.detach().numpy()` returns it, as in torch); the
# shape is a `minigrad.Size`, which prints like `torch.Size`. Nothing has been
# differentiated yet, so `a.grad` is still `None`, as in torch.

# %%
print(a.shape, at.shape)
print(a.grad, at.grad)

# %% [markdown]
# ## 2. The gradient has the tensor's shape
#
# The example of the course's reference tutorial (see [Sources](../book/sources.md)): a
# random $3 \times 4$ matrix $W$ and the loss $L = \sum_{i,j} W_{ij}^2$. First in torch,
# exactly as the reference tutorial writes it:

# %%
torch.manual_seed(0)
W = torch.randn(3, 4, requires_grad=True)
L = (W ** 2).sum()
L.backward()
print(W.shape)  # torch.Size([3, 4])
print(W.grad.shape)  # torch.Size([3, 4])

# %% [markdown]
# Now the same snippet with `torch` replaced by `minigrad`. The random numbers differ
# (minigrad has its own generator), but the shapes are the same. To compare with torch
# on the same numbers, the cell then copies minigrad's $W$ into a torch tensor and runs
# torch's backward on it.

# %%
minigrad.manual_seed(0)
W = minigrad.randn(3, 4, requires_grad=True)
L = (W ** 2).sum()
L.backward()
print(W.shape)  # minigrad.Size([3, 4])
print(W.grad.shape)  # minigrad.Size([3, 4])
Wt = torch.tensor(W.detach().numpy(), requires_grad=True)
(Wt ** 2).sum().backward()
check_all({"W.grad": (W.grad, Wt.grad),
           "W.grad == 2 * W": (W.grad, 2 * W.detach().numpy(), "formula")})

# %% [markdown]
# Why that shape? $L$ is one number that depends on twelve numbers $W_{ij}$. Its
# gradient collects the twelve partial derivatives
# $\frac{\partial L}{\partial W_{ij}}$, and the natural place to put the one for
# $W_{ij}$ is at position $(i, j)$. Only one term of the sum contains $W_{ij}$, so
#
# $$\frac{\partial L}{\partial W_{ij}} = \frac{\partial}{\partial W_{ij}} W_{ij}^2
# = 2 W_{ij}, \qquad \text{i.e.} \quad \nabla_W L = 2W,$$
#
# which is the second line of the check above.
#
# Look at the two side by side: every entry of the gradient is twice the entry of $W$,
# same sign, same place. Where $W$ is far from zero, $L$ is most sensitive to it.

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 2.6))
for ax, (title, data) in zip(axes, [("W", W.detach().numpy()), ("W.grad", W.grad.numpy())],
                             strict=True):
    image = ax.imshow(data, cmap="RdBu_r", vmin=-4, vmax=4)
    ax.set_title(title)
    ax.set_xticks(range(4))
    ax.set_yticks(range(3))
    for (i, j), v in np.ndenumerate(data):
        ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=8)
fig.colorbar(image, ax=axes)
plt.show()

# %% [markdown]
# ## 3. Each entry is a partial derivative
#
# The gradient is not a new kind of object: entry $(i, j)$ answers "if I nudge
# $W_{ij}$ alone by $h$, how much does $L$ move, per unit of $h$?" We can ask that
# question twelve times with numpy, once per entry, and rebuild the whole gradient
# from central differences. We use float64 so the differences are accurate.

# %%
def loss_np(w):
    return (w ** 2).sum()


def numeric_gradient(f, w, h=1e-6):
    """Central differences, one entry at a time; the result has w's shape."""
    grad = np.zeros_like(w)
    for index in np.ndindex(w.shape):
        step = np.zeros_like(w)
        step[index] = h
        grad[index] = (f(w + step) - f(w - step)) / (2 * h)
    return grad


W64 = W.detach().numpy().astype(np.float64)
W64t = torch.tensor(W64, requires_grad=True)
(W64t ** 2).sum().backward()
check("numeric gradient of (W**2).sum()", numeric_gradient(loss_np, W64), W64t.grad, atol=1e-6,
      brief=True)

# %% [markdown]
# Backward gets all twelve entries in one pass; the numeric gradient needed
# $2 \times 12$ evaluations of the loss. For a matrix with a million entries the
# difference is the whole point of backpropagation.
#
# A less symmetric loss makes the same point: for $L = \sum_{ij} C_{ij} W_{ij}^3$ with a
# fixed matrix $C$, the entry $(i, j)$ of the gradient is $3 C_{ij} W_{ij}^2$, again one
# number per entry of $W$, in its place.

# %%
C = np.arange(12.0).reshape(3, 4) / 10
V = minigrad.tensor(W64, requires_grad=True)
(minigrad.tensor(C) * V ** 3).sum().backward()
Vt = torch.tensor(W64, requires_grad=True)
(torch.tensor(C) * Vt ** 3).sum().backward()
check_all({"V.grad": (V.grad, Vt.grad), "3 C V**2": (V.grad, 3 * C * W64 ** 2, "formula")})

# %% [markdown]
# **The record behind a tensor.** Back to section 1's `b = a * 3 + a ** 2`, with `a` of
# shape (2, 3). The graph behind `b`, drawn from each library's own nodes: `b.grad_fn` and, through
# `next_functions`, the nodes it leads to, down to `AccumulateGrad`, the node of the
# leaf `a` that adds into `a.grad`. Each box gives the node's name, the shape of the
# tensor it made (the shape of the gradient it will receive), and what it saved for
# backward. The arrows go the way the backward pass does. The two graphs have the same
# nodes and shapes; one difference shows: torch turns the Python number `3` into a
# 0-d tensor and saves it (8 bytes), minigrad keeps the number itself. `PowBackward0`
# saves `a` in both (48 bytes: six float64), memory the leaf holds anyway.

# %%
draw_side_by_side(b, bt)

# %%
ours, theirs = graph_nodes(b), graph_nodes(bt)
for n, t in zip(ours, theirs, strict=True):
    print(f"{n.name:<15} minigrad {tuple(n.shape)}   torch {t.name} {tuple(t.shape)}")
check_all({f"{n.name}: zeros of its output's shape": (np.zeros(n.shape), np.zeros(t.shape))
           for n, t in zip(ours, theirs, strict=True)}, brief=True)

# %% [markdown]
# ## 4. Broadcasting, and its reverse
#
# Adding a bias vector $b$ of shape `(4,)` to a batch $X$ of shape `(3, 4)` works
# because of *broadcasting*: $b$ is used as if it were copied into each of the three
# rows. The forward result has the big shape:

# %%
X = np.arange(12.0).reshape(3, 4)
bias = minigrad.tensor([0.1, 0.2, 0.3, 0.4], dtype=minigrad.float64, requires_grad=True)
biast = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64, requires_grad=True)
Z = minigrad.tensor(X) + bias
Zt = torch.tensor(X) + biast
print(bias.shape, "->", Z.shape)
check("X + bias", Z, Zt, brief=True)

# %% [markdown]
# Now the backward pass. Let the loss weight each entry of $Z$ differently,
# $L = \sum_{ij} G_{ij} Z_{ij}$, so that $\frac{\partial L}{\partial Z} = G$. Each
# $b_j$ appears in *every* row of $Z$ (three copies), and each copy passes back its
# own gradient $G_{ij}$. A value used several times gets the sum of its gradients
# (chapter 04's fan-out), so
#
# $$\frac{\partial L}{\partial b_j} = \sum_i G_{ij},$$
#
# the upstream gradient summed over the dimension that broadcasting stretched, and
# back in the shape `(4,)` of $b$.

# %%
G = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5], [-1.0, 0.0, 1.0, 2.0]])
bias = minigrad.tensor([0.1, 0.2, 0.3, 0.4], dtype=minigrad.float64, requires_grad=True)
biast = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64, requires_grad=True)
Z = minigrad.tensor(X) + bias
Zt = torch.tensor(X) + biast
(Z * minigrad.tensor(G)).sum().backward()
(Zt * torch.tensor(G)).sum().backward()
print(bias.grad.shape)
check_all({"bias.grad": (bias.grad, biast.grad), "G.sum(0)": (bias.grad, G.sum(0), "formula")})

# %% [markdown]
# In a picture: the $3 \times 4$ upstream gradient on the left, collapsed column by
# column onto the four entries of the bias on the right.

# %%
fig, axes = plt.subplots(1, 2, figsize=(8, 2.4), gridspec_kw={"width_ratios": [1, 1]})
for ax, (title, data) in zip(axes, [("upstream gradient G (3, 4)", G),
                                    ("bias.grad (4,) = G.sum(0)", G.sum(0, keepdims=True))],
                             strict=True):
    ax.imshow(data, cmap="RdBu_r", vmin=-6, vmax=6)
    ax.set_title(title)
    ax.set_xticks(range(4))
    ax.set_yticks(range(data.shape[0]))
    for (i, j), v in np.ndenumerate(data):
        ax.text(j, i, f"{v:g}", ha="center", va="center")
fig.tight_layout()
plt.show()

# %% [markdown]
# The same rule holds for any broadcast. A column $c$ of shape `(3, 1)` is stretched
# along the second dimension, so its gradient is summed along it (`keepdims`, to keep
# the shape `(3, 1)`). A tensor of shape `(3, 1)` meeting one of shape `(2, 3, 4)`
# gains a leading dimension *and* is stretched along the last: both are summed.

# %%
c = minigrad.tensor([[1.0], [2.0], [3.0]], dtype=minigrad.float64, requires_grad=True)
ct = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64, requires_grad=True)
(minigrad.tensor(X) * c * minigrad.tensor(G)).sum().backward()
(torch.tensor(X) * ct * torch.tensor(G)).sum().backward()
print(c.grad.shape)
check_all({"c.grad": (c.grad, ct.grad),
           "(X * G).sum(1, keepdims)": (c.grad, (X * G).sum(1, keepdims=True), "formula")})

# %%
rng = np.random.default_rng(0)
G3 = rng.integers(-5, 6, size=(2, 3, 4)).astype(np.float64)  # whole numbers: exact sums
c = minigrad.tensor([[1.0], [2.0], [3.0]], dtype=minigrad.float64, requires_grad=True)
ct = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64, requires_grad=True)
(c * minigrad.tensor(G3)).sum().backward()
(ct * torch.tensor(G3)).sum().backward()
check_all({"c.grad": (c.grad, ct.grad),
           "G3.sum((0, 2))": (c.grad, G3.sum((0, 2))[:, None], "formula")})

# %% [markdown]
# **The running neuron, on a batch.** The neuron of chapters 02 to 04,
# $o = \tanh(w \cdot x + b)$, now with its weights in a tensor `w` of shape `(2,)` and
# four inputs at once, one per row of a batch `xs` of shape `(4, 2)`; the first row is
# the old $x = (2, 0)$, and $w = (-3, 1)$, $b = 6.8813735870195432$ as before (the other
# rows are picked so that $w \cdot x + b$ stays between $-1.5$ and $1.5$, where $\tanh$
# is not flat). `xs @ w`
# has shape `(4,)`, and the scalar `b` is broadcast to it: four outputs, one per
# example. The loss is their sum.

# %%
xs = np.array([[2.0, 0.0], [2.5, 1.0], [1.5, -1.0], [3.0, 2.0]])
w = minigrad.tensor([-3.0, 1.0], dtype=minigrad.float64, requires_grad=True)
b = minigrad.tensor(6.8813735870195432, dtype=minigrad.float64, requires_grad=True)
o = (minigrad.tensor(xs) @ w + b).tanh()
o.sum().backward()
wt = torch.tensor([-3.0, 1.0], dtype=torch.float64, requires_grad=True)
bt = torch.tensor(6.8813735870195432, dtype=torch.float64, requires_grad=True)
ot = (torch.tensor(xs) @ wt + bt).tanh()
ot.sum().backward()
print("o:", o.shape, " w.grad:", w.grad.shape, " b.grad:", b.grad.shape)
check_all({"o": (o, ot), "w.grad": (w.grad, wt.grad), "b.grad": (b.grad, bt.grad)})

# %% [markdown]
# `w.grad` has `w`'s shape and `b.grad` is a scalar like `b`. Each example contributes
# what chapter 02 computed for one input: $x_i (1 - o_i^2)$ to `w.grad` and
# $1 - o_i^2$ to `b.grad` (`b` is used once per example, so its four contributions
# add, as the bias's did above). The first row gives chapter 02's numbers again:

# %%
slope = 1 - o.detach().numpy() ** 2   # tanh's local gradient, one per example
per_example_w = xs * slope[:, None]    # row i: x_i (1 - o_i**2)
print("per example, to w.grad:\n", per_example_w.round(4), "\nto b.grad:", slope.round(4))
check_all({"first example: (do/dw1, do/dw2, do/db)": ([*per_example_w[0], slope[0]],
                                                      [1.0, 0.0, 0.5], "chapter 02"),
           "w.grad = sum of the rows": (w.grad, per_example_w.sum(0), "formula"),
           "b.grad = sum of the slopes": (b.grad, slope.sum(), "formula")})

# %% [markdown]
# Try other shapes. Pick the shape of `x` and the shape it is broadcast to: the
# readout shows which axes broadcasting adds or stretches, the copies of `x` the
# forward pass uses, an upstream gradient `G`, and `x.grad`, which is `G` summed over
# exactly those axes, compared with torch's backward of `x.expand(shape)`. A pair that
# does not broadcast shows torch's error. The widget makes its own tensors.

# %%
broadcast_widget((3, 1), (2, 3, 4))

# %% [markdown]
# ## 5. The one place that undoes broadcasting
#
# No op in minigrad reduces its gradient itself: `+`, `*` and the others return a
# gradient in the shape of their (broadcast) result, and the engine, just before it
# hands a gradient to an input, sums it down to that input's shape. That is one
# function, `sum_to_shape`:

# %%
show_source(minigrad.autograd.engine.sum_to_shape)

# %% [markdown]
# It sums over the leading dimensions the input did not have, and over every dimension
# where the input had size 1 but the gradient does not. Torch does the same in one
# place too: its ops also return gradients of the broadcast shape, and the engine
# reduces them in `validate_outputs` before passing them on. Call the backward node of
# section 4's `c * G3` by hand and it returns `c`'s gradient in the shape `(2, 3, 4)`;
# `backward()` leaves `(3, 1)` in `c.grad`:

# %%
ct = torch.tensor([[1.0], [2.0], [3.0]], dtype=torch.float64, requires_grad=True)
product_t = ct * torch.tensor(G3)
grad_c, _ = product_t.grad_fn(torch.ones(2, 3, 4, dtype=torch.float64))  # the node alone
product_t.backward(torch.ones(2, 3, 4, dtype=torch.float64))  # the engine
print(type(product_t.grad_fn).__name__, "returns", tuple(grad_c.shape), "; c.grad:",
      tuple(ct.grad.shape))
check("c.grad = the node's gradient, summed to (3, 1)", ct.grad,
      grad_c.sum((0, 2)).reshape(3, 1), against="formula", brief=True)

# %% [markdown]
# Torch also has the reduction as a tensor method, `sum_to_size`; we compare it with
# `sum_to_shape` on the shapes above.

# %%
sum_to_shape = minigrad.autograd.engine.sum_to_shape
check_all({
    f"{shape}": (sum_to_shape(G3, shape), torch.tensor(G3).sum_to_size(shape))
    for shape in [(2, 3, 4), (3, 4), (4,), (3, 1), (1, 4), (2, 1, 1), ()]
}, brief=True)

# %% [markdown]
# Because it lives in one place, every op gets it right, including the ones you write
# yourself with `minigrad.autograd.Function` (chapter 11).
#
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 5.1: a tensor gradient by hand (2 points)
#
# For two arrays $P$ and $Q$ of the same shape (any shape), let
#
# $$L = \sum_{ij} P_{ij} Q_{ij} + \frac{1}{N} \sum_{ij} P_{ij}^3,$$
#
# where $N$ is the number of entries (the second term is `(P ** 3).mean()`). Write
# `grad_P(P, Q)` that returns $\frac{\partial L}{\partial P}$ as a numpy array of
# $P$'s shape, worked out on paper one entry at a time as in section 2: no
# `backward()`, no autograd (the check switches both off). `P` and `Q` are numpy
# arrays of float64; the check uses matrices, vectors and three-dimensional arrays.
#
# <details><summary>Hint</summary>
#
# Fix one entry $P_{ij}$: it appears in exactly one term of each sum, so the other
# terms have derivative zero. Differentiate those two terms with respect to it; mind
# the $\frac{1}{N}$, and which attribute of a numpy array counts all its entries
# whatever its number of dimensions.
# </details>

# %% solution=ex05-grad-by-hand
def grad_P(P, Q):
    """dL/dP for L = (P * Q).sum() + (P ** 3).mean(), without backward()."""
    ### BEGIN SOLUTION
    return Q + 3 * P ** 2 / P.size
    ### END SOLUTION

# %% test=ex05-grad-by-hand-test points=2
import numpy as np
import torch

from minigrad.course.grading import graded

with graded("Exercise 5.1", hint="each P_ij appears in one term of each sum; "
            "differentiate those two terms and divide the second by N, the number of "
            "entries of P") as g:
    def check_grad_P(P, Q):
        got = g.call(grad_P, P.copy(), Q.copy(), forbid="autograd")
        Pt = torch.tensor(P, requires_grad=True)
        ((Pt * torch.tensor(Q)).sum() + (Pt ** 3).mean()).backward()
        cube = 3 * P ** 2
        g.check(f"grad_P, P and Q of shape {P.shape}", got, Pt.grad, rtol=1e-12, atol=1e-12,
                mistakes={
                    "mean-not-divided": ("your gradient of the mean part is N times too big: "
                                         "how does a mean differ from a sum?", Q + cube),
                    "rows-as-N": ("your N counts the rows of P: how many numbers does the "
                                  "mean average?", lambda: Q + cube / len(P)),
                    "cube-as-square": ("your derivative of P**3 is that of P**2: check it "
                                       "against a numeric slope at one point",
                                       Q + 2 * P / P.size),
                    "sum-part-P": ("your gradient of sum(P * Q) depends on P: what does "
                                   "P_ij multiply?", P + cube / P.size),
                    "N-fixed-15": ("your N is the visible example's 15 entries: how many "
                                   "entries has this P?", Q + cube / 15),
                    "N-rows-times-columns": ("your N counts the entries of a matrix only: how "
                                             "many entries has an array of any shape?",
                                             lambda: Q + cube / (P.shape[0] * P.shape[1])),
                    "ignores-Q": ("your gradient does not change with Q: what does P_ij "
                                  "multiply in the first sum?",
                                  np.ones_like(P) + cube / P.size)})

    rng = np.random.default_rng(51)
    check_grad_P(rng.standard_normal((3, 5)), rng.standard_normal((3, 5)))
    ### BEGIN HIDDEN TESTS
    for shape in [(2, 2, 4), (7,), (4, 3), (1, 1), ()]:
        check_grad_P(np.asarray(rng.standard_normal(shape) * 2),
                     np.asarray(rng.standard_normal(shape)))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 5.2: undo broadcasting yourself (2 points)
#
# Write `unbroadcast(grad, shape)`: given the gradient `grad` (a numpy array) of a
# broadcast result, return the gradient of the input of shape `shape` (a tuple) that
# was broadcast to it, as a numpy array of that shape. Write it yourself with numpy:
# the check switches off `minigrad.autograd.engine.sum_to_shape` (under any name), minigrad's
# and torch's backward, and torch altogether (its `sum_to_size` is the reference).
# It must work for any pair of shapes that broadcasting allows: leading dimensions
# added, size-1 dimensions stretched, both, and a 0-d input `()`.
#
# <details><summary>Hint</summary>
#
# Two kinds of dimensions to sum over. The leading ones that `shape` does not have at
# all (how many is the difference of the numbers of dimensions), which the result
# must lose; and those where `shape` has a 1 and `grad` does not, which the result
# must keep, with size 1. Line `shape` up with the *last* dimensions of `grad`.
# </details>

# %% solution=ex05-unbroadcast
def unbroadcast(grad, shape):
    """Sum grad over the dimensions that broadcasting added or stretched."""
    ### BEGIN SOLUTION
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.reshape(shape)
    ### END SOLUTION

# %% test=ex05-unbroadcast-test points=2
import numpy as np
import torch

from minigrad.course.grading import Forbidden, graded

with graded("Exercise 5.2", hint="align shape with the last dimensions of grad; sum "
            "away the leading dimensions it lacks, and sum with keepdims=True where it "
            "has a 1 and grad does not") as g:
    class NoTorch(torch.overrides.TorchFunctionMode):
        """torch switched off during the call: its sum_to_size is the reference."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise Forbidden(f"torch ({getattr(func, '__name__', func)})")

    def leading(grad, shape):
        return grad.sum(axis=tuple(range(grad.ndim - len(shape))))

    def ones(grad, shape, offset=0):
        for axis, size in enumerate(shape):
            if size == 1 and grad.shape[axis + offset] != 1:
                grad = grad.sum(axis=axis + offset, keepdims=True)
        return grad

    def unbroadcast_mistakes(grad, shape):
        """What the common wrong reductions give (the test's own copies)."""
        return {
            "ones-not-summed": ("a size-1 axis of shape kept grad's full size: what did "
                                "broadcasting do along it?", lambda: leading(grad, shape)),
            "no-keepdims": ("the size-1 axes of shape are gone from your result: which sum "
                            "option keeps them?", lambda: leading(grad, shape).sum(
                                axis=tuple(i for i, n in enumerate(shape)
                                           if n == 1 and leading(grad, shape).shape[i] != 1))),
            "aligned-first": ("your shape is lined up with grad's first axes: which end "
                              "does broadcasting line shapes up at?",
                              lambda: ones(grad.sum(axis=tuple(range(len(shape), grad.ndim))),
                                           shape)),
            "ones-before-leading": ("your size-1 axes are counted from grad's front before "
                                    "the extra axes are gone: which axes of grad does "
                                    "shape's axis i match?",
                                    lambda: leading(ones(grad, shape), shape)),
            "one-leading-at-most": ("your result keeps an extra leading axis when grad has "
                                    "two more: how many may there be?",
                                    lambda: ones(grad.sum(axis=0)
                                                 if grad.ndim > len(shape) else grad, shape)),
        }

    def check_unbroadcast(grad, shape):
        with NoTorch():
            got = g.call(unbroadcast, grad.copy(), shape,
                         forbid=["minigrad.sum_to_shape", "autograd"])
        g.check(f"{grad.shape} to {shape}", got, torch.tensor(grad).sum_to_size(shape),
                rtol=1e-12, atol=1e-12, mistakes=unbroadcast_mistakes(grad, shape))

    rng = np.random.default_rng(52)
    grad = rng.standard_normal((2, 3, 4))
    for shape in [(3, 4), (3, 1), (1, 4), ()]:
        check_unbroadcast(grad, shape)
    ### BEGIN HIDDEN TESTS
    pairs = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (2, 1, 4)), ((2, 3, 4), (4,)),
             ((2, 3, 4), (1,)), ((2, 3, 4), (2, 1, 1)), ((2, 3, 4), (1, 1, 1)),
             ((5,), (5,)), ((5,), (1,)), ((5,), ()), ((1, 3), (3,)), ((1, 3), (1, 1)),
             ((3, 1, 4), (1, 4)), ((3, 1, 4), (3, 1, 1)), ((4, 2), (4, 1)),
             ((2, 3, 4, 5), (3, 1, 5)), ((2, 3, 4, 5), (1, 4, 1)),
             ((2, 3, 4, 5), (2, 1, 4, 1)), ((2, 3, 4, 5), (5,)), ((2, 3, 4, 5), ()),
             ((1,), ()), ((), ())]
    for grad_shape, shape in pairs:
        check_unbroadcast(np.asarray(rng.standard_normal(grad_shape)), shape)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 5.3: a scale per row, by hand (1 point)
#
# A matrix $M$ of shape `(r, c)` is scaled row by row: row $i$ is multiplied by its own
# factor $s_i$, and the factors are held in a column $s$ of shape `(r, 1)`, so that
# `M * s` broadcasts $s$ along each row. Let
#
# $$L = \sum_{ij} (M_{ij}\, s_i)^2,$$
#
# in code `((M * s) ** 2).sum()`.
# Write `row_scale_grad(M, s)` that returns $\frac{\partial L}{\partial s}$ as a numpy
# array, worked out on paper: numpy only, no autograd (torch is switched off, and so is
# minigrad's backward). `M` and `s` are float64 numpy arrays; the check uses other
# shapes and values than the example below. Before you write it: which shape must the
# result have, and which dimension of the upstream gradient
# $\frac{\partial L}{\partial (M s)}$ is summed away, and why?
#
# For example, $M$ holding $1, \dots, 12$ in three rows of four, and
# $s = (0.5, -1, 2)$ as a column.
#
# <details><summary>Hint</summary>
#
# Fix one factor $s_i$: which entries of `M * s` does it touch? Differentiate the sum
# of their squares with respect to it. Then line the $r$ results up in the shape of
# $s$, as section 4 did for the column `c`.
# </details>

# %% solution=ex05-row-scale-by-hand
def row_scale_grad(M, s):
    """dL/ds for L = ((M * s) ** 2).sum(), M of shape (r, c), s of shape (r, 1)."""
    ### BEGIN SOLUTION
    return 2 * s * (M ** 2).sum(axis=1, keepdims=True)
    ### END SOLUTION

# %% test=ex05-row-scale-by-hand-test points=1
import numpy as np
import torch

import minigrad.course.grading
from minigrad.course.grading import graded
from minigrad.course.mistakes import matches
from minigrad.course.raised import raised

with graded("Exercise 5.3", hint="s_i scales the c entries of row i only; sum what they "
            "send back along that row, and keep the shape (r, 1) of s") as g:
    class NoTorch(torch.overrides.TorchFunctionMode):
        """torch switched off during the call."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise minigrad.course.grading.Forbidden(f"torch ({getattr(func, '__name__', func)})")

    def check_row_scale(M, s):
        r, c = M.shape
        with NoTorch():
            got = g.call(row_scale_grad, M.copy(), s.copy(), forbid="autograd", mistakes={
                "summed-over-rows": ("your column of sums does not line up with s: how "
                                     "many sums should there be, one per row of M or one "
                                     "per column?", raised(ValueError, f"({r},1) ({c},1)",
                                                           f"({c},1) ({r},1)"))})
        squares = (M ** 2).sum(1, keepdims=True)
        g.require(f"M {M.shape}: dL/ds has the shape of s, {s.shape}",
                  np.shape(got) == s.shape,
                  f"got the shape {np.shape(got)}: one partial derivative per factor, in "
                  "the shape of s", mistakes={
                      "summed-over-rows": ("your sum runs down the columns: which entries of "
                                           "M does s_i scale?", lambda: matches(
                                               got, 2 * s * (M ** 2).sum(0, keepdims=True))),
                      "no-keepdims": ("your row sums lost their axis and broadcast against "
                                      "s: which sum option keeps the shape (r, 1)?",
                                      lambda: matches(got, 2 * s * (M ** 2).sum(1))),
                      "not-summed": ("your result has one entry per entry of M: what do the "
                                     "c entries of row i send back to s_i together?",
                                     lambda: matches(got, 2 * s * M ** 2))})
        st = torch.tensor(s, requires_grad=True)
        ((torch.tensor(M) * st) ** 2).sum().backward()
        g.check(f"M {M.shape}: dL/ds", got, st.grad, rtol=1e-12, atol=1e-12, mistakes={
            "two-forgotten": ("your gradient is half the size: what does squaring do to a "
                              "small change?", s * squares),
            "factor-s-missing": ("your gradient does not change with s: what does the "
                                 "square of s_i M_ij give when differentiated in s_i?",
                                 2 * squares),
            "square-of-sum": ("your gradient squares the row's sum: which is squared in the "
                              "loss, each entry or the row?",
                              2 * s * M.sum(1, keepdims=True) ** 2),
            "summed-over-rows": ("your sums run down the columns: which entries of M does "
                                 "s_i scale?",
                                 lambda: 2 * s * (M ** 2).sum(0)[:, None] if r == c else None)})

    check_row_scale(np.arange(1.0, 13.0).reshape(3, 4), np.array([[0.5], [-1.0], [2.0]]))
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(53)
    for rows, cols in [(2, 5), (4, 1), (1, 3), (4, 4), (6, 2)]:
        check_row_scale(rng.standard_normal((rows, cols)), rng.standard_normal((rows, 1)))
    # Large factors: the answer must be exact, not a finite-difference estimate.
    check_row_scale(rng.standard_normal((3, 2)), rng.standard_normal((3, 1)) * 1e8)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on tensor gradients. Guess first, then run the cell.
#
# **1.** $L$ = `W.sum()` for a $3 \times 4$ matrix $W$. What is `W.grad`: $W$, $2W$, or
# something that does not depend on $W$ at all?

# %%
minigrad.manual_seed(1)
W = minigrad.randn(3, 4, dtype=minigrad.float64, requires_grad=True)
W.sum().backward()
Wt = torch.tensor(W.detach().numpy(), requires_grad=True)
Wt.sum().backward()
print(W.grad)
check("W.grad of W.sum()", W.grad, Wt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# All ones: nudging any $W_{ij}$ by $h$ moves the sum by $h$, whatever the values.
# The gradient has $W$'s shape, not necessarily anything of $W$'s values.
# </details>
#
# **2.** $L$ = `W.max()`: which entries of $W$ get a nonzero gradient?

# %%
W = minigrad.tensor([[0.5, -1.0, 2.0, 0.0], [1.5, 3.0, -2.5, 1.0], [0.0, 2.5, 1.0, -0.5]],
                    dtype=minigrad.float64, requires_grad=True)
W.max().backward()
Wt = torch.tensor(W.detach().numpy(), requires_grad=True)
Wt.max().backward()
print(W.grad)
check("W.grad of W.max()", W.grad, Wt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Only the largest entry, the $3$ (row 1, column 1, counting from 0), gets $1$: a small
# nudge of any other entry does not change the maximum. (With ties, torch splits the
# $1$ evenly among the tied entries.)
# </details>
#
# **3.** For the neuron of chapter 02, $x_2 = 0$ made $\frac{\partial o}{\partial w_2} = 0$.
# For the batch of section 4, whose first row is that $x$: is `w.grad[1]` zero?

# %%
w = minigrad.tensor([-3.0, 1.0], dtype=minigrad.float64, requires_grad=True)
(minigrad.tensor(xs) @ w + 6.8813735870195432).tanh().sum().backward()
wt = torch.tensor([-3.0, 1.0], dtype=torch.float64, requires_grad=True)
(torch.tensor(xs) @ wt + 6.8813735870195432).tanh().sum().backward()
print("w.grad =", w.grad)
check("w.grad of the batch", w.grad, wt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No: the first example adds $0$ to it, but the other three have $x_2 \ne 0$ and add
# their shares. A batch's gradient sums every example's, so a weight learns as long as
# *some* example uses it.
# </details>
#
# ## Summary
#
# - `minigrad.Tensor` mirrors `torch.Tensor`: `requires_grad`, `grad_fn`, `is_leaf`,
#   `.grad`, `.shape` (a `minigrad.Size`).
# - The gradient of a scalar loss with respect to a tensor has the tensor's shape; its
#   entry $(i, j)$ is $\partial L / \partial W_{ij}$. For $L = \sum W^2$ it is $2W$.
# - Broadcasting uses a small tensor several times; in the backward pass those uses'
#   gradients add up, so the gradient is summed over the broadcast dimensions and
#   comes back in the input's shape. A bias's gradient is the upstream gradient summed
#   over the batch. The running neuron on a batch: `w.grad` and `b.grad` are the sums of
#   each example's gradient from chapter 02.
# - In minigrad this happens in exactly one place, `engine.sum_to_shape` (torch's
#   `sum_to_size`).
#
# Next: [06 Vector outputs](06_vector_outputs.ipynb), when the thing we differentiate
# is not a single number.
