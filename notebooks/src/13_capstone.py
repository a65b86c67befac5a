# %% [markdown]
# # 13 Capstone: a network's backward pass by hand
#
# Everything so far comes together here. We take a small network, a 64-32-10
# multilayer perceptron that reads $8 \times 8$ images of handwritten digits, and write
# its backward pass ourselves, in the `.g` style of seed 001: every function takes the
# gradient of its output, stored in `out.g`, and stores the gradients of its inputs
# and parameters in their `.g`. No autograd: the graph is in our heads and in the
# order of the calls. Then we check *every* intermediate gradient against torch's
# autograd, and train the network with our backward for a few epochs, side by side
# with torch.
#
# **Learning goals.** After this chapter you can
#
# 1. write the forward pass of an MLP keeping every intermediate value;
# 2. write its backward pass by hand from three pieces: the loss gradient,
#    `relu_grad` and `lin_grad`, called in reverse order;
# 3. check each intermediate gradient against torch's (with `retain_grad()`);
# 4. train with a hand-written backward and get the same loss curve as torch.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch
from sklearn.datasets import load_digits

import minigrad
from minigrad import check, check_all

# %% [markdown]
# ## 1. The data and the network
#
# The digits data set from scikit-learn (shipped with it, no download): 1797 images of
# $8 \times 8$ pixels with values $0..16$, which we scale to $[0, 1]$, and their
# labels $0..9$. We shuffle with a fixed seed and keep 1500 images for training, 297
# for testing. As targets for the mean squared error we use one-hot rows.

# %%
digits = load_digits()
order = np.random.default_rng(0).permutation(len(digits.target))
images = digits.data[order] / 16.0
labels = digits.target[order]
x_train, x_test = minigrad.tensor(images[:1500]), minigrad.tensor(images[1500:])
y_train, y_test = labels[:1500], labels[1500:]
onehot_train = minigrad.tensor(np.eye(10)[y_train])
print(x_train.shape, x_test.shape, x_train.dtype)

fig, axes = plt.subplots(1, 8, figsize=(8, 1.3))
for ax, image, label in zip(axes, images, labels, strict=False):
    ax.imshow(image.reshape(8, 8), cmap="gray_r")
    ax.set_title(str(label))
    ax.axis("off")
plt.show()

# %% [markdown]
# The network: $l_1 = x W_1 + b_1$, $a_1 = \mathrm{relu}(l_1)$, $\text{out} = a_1 W_2
# + b_2$, and the loss $L = \frac{1}{N \cdot 10} \sum (\text{out} - y)^2$. As in seed
# 001, the weights have shape `(in, out)` so that a layer is `x @ w + b`. We draw them
# with torch's generator (scaled for ReLU, Kaiming style) and give minigrad the same
# numbers, all in float64 so that the checks can be tight.

# %%
torch.manual_seed(0)
shapes = {"w1": (64, 32), "b1": (32,), "w2": (32, 10), "b2": (10,)}
init = {name: torch.randn(*shape, dtype=torch.float64) * np.sqrt(2 / shape[0])
        if name.startswith("w") else torch.zeros(*shape, dtype=torch.float64)
        for name, shape in shapes.items()}
params = {name: minigrad.tensor(value.numpy()) for name, value in init.items()}
{name: tuple(p.shape) for name, p in params.items()}

# %% [markdown]
# ## 2. The forward pass, keeping every value
#
# The backward pass needs the intermediate values, so the forward pass returns them
# all. No tensor requires grad: minigrad records nothing, our backward does the work.

# %%
def lin(x, w, b):
    return x @ w + b


def forward(x, p):
    """All the values of the forward pass, by name."""
    l1 = lin(x, p["w1"], p["b1"])
    a1 = l1.relu()
    out = lin(a1, p["w2"], p["b2"])
    return {"x": x, "l1": l1, "a1": a1, "out": out}


def mse(out, target):
    return ((out - target) ** 2).mean()


values = forward(x_train[:5], params)
print(values["out"].grad_fn)  # None: nothing was recorded

# %% [markdown]
# Checked against torch on the same five images:

# %%
def forward_torch(x, p):
    l1 = x @ p["w1"] + p["b1"]
    a1 = l1.relu()
    return a1 @ p["w2"] + p["b2"]


x5_t = torch.tensor(images[:5])
check_all({"out": (values["out"], forward_torch(x5_t, init)),
           "loss": (mse(values["out"], onehot_train[:5]),
                    torch.nn.functional.mse_loss(forward_torch(x5_t, init),
                                                 torch.tensor(np.eye(10)[y_train[:5]])))})

# %% [markdown]
# ## 3. Three gradients, by hand
#
# Backward runs the forward pass in reverse, and each step takes its output's gradient
# and makes its inputs'. The loss comes first:
# $L = \frac{1}{N \cdot 10}\sum (o - y)^2$ over all $N \cdot 10$ entries of the
# output (`out.numel()` of them), so $\frac{\partial L}{\partial o} =
# \frac{2}{N \cdot 10}(o - y)$.

# %%
def mse_grad(out, target):
    out.g = 2 * (out - target) / out.numel()

# %% [markdown]
# ReLU passes the gradient through where its input was positive and stops it elsewhere
# (its derivative is $1$ or $0$):

# %%
def relu_grad(inp, out):
    inp.g = (inp > 0).double() * out.g

# %% [markdown]
# And the linear layer, seed 001's `lin_grad`, line for line. For $\text{out} = x W +
# b$: the input's gradient is $\text{out.g}\, W^\top$; the weight's is the sum over
# the batch of outer products $x_n^\top \text{out.g}_n$ (written here with
# `unsqueeze`, as in the seed; it equals $x^\top \text{out.g}$); the bias's is
# $\text{out.g}$ summed over the batch, because every example used the same $b$.

# %%
def lin_grad(inp, out, w, b):
    # grad of matmul with respect to input
    inp.g = out.g @ w.t()
    w.g = (inp.unsqueeze(-1) * out.g.unsqueeze(1)).sum(0)
    b.g = out.g.sum(0)

# %% [markdown]
# ## 4. The backward pass, and every gradient checked
#
# The backward pass calls them in the reverse order of the forward pass:

# %%
def forward_and_backward(x, target, p):
    """Run forward, then the hand-written backward; fill .g everywhere; return the loss."""
    v = forward(x, p)
    loss = mse(v["out"], target)
    mse_grad(v["out"], target)
    lin_grad(v["a1"], v["out"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return loss, v

# %% [markdown]
# torch computes the same gradients with autograd. To see its gradients of the
# intermediate values too, we ask it to keep them (`retain_grad()`, chapter 12), and
# to get the gradient of the input, we let `x` require grad.

# %%
def torch_gradients(x, target, init):
    p = {name: value.clone().requires_grad_() for name, value in init.items()}
    x = x.clone().requires_grad_()
    l1 = x @ p["w1"] + p["b1"]
    a1 = l1.relu()
    out = a1 @ p["w2"] + p["b2"]
    for t in (l1, a1, out):
        t.retain_grad()
    loss = ((out - target) ** 2).mean()
    loss.backward()
    grads = {"x": x.grad, "l1": l1.grad, "a1": a1.grad, "out": out.grad}
    return loss, grads | {name: value.grad for name, value in p.items()}

# %% [markdown]
# On a batch of 64 images: the loss, the gradient of every intermediate value, and the
# gradient of every parameter, all against torch.

# %%
xb, targetb = x_train[:64], onehot_train[:64]
loss, v = forward_and_backward(xb, targetb, params)
loss_t, grads_t = torch_gradients(torch.tensor(xb.data), torch.tensor(targetb.data), init)
ours = {name: v[name].g for name in ("out", "a1", "l1", "x")}
ours |= {name: params[name].g for name in ("w2", "b2", "w1", "b1")}
check_all({"loss": (loss, loss_t)}
          | {f"{name}.g": (ours[name], grads_t[name]) for name in ours}, rtol=1e-10)

# %% [markdown]
# Every one matches, to about $10^{-16}$. The backward pass is right, and we know it
# layer by layer: had one line been wrong, the table would point at the first
# gradient below it.
#
# ## 5. Training with the hand-written backward
#
# Now we use it, for 20 epochs. Stochastic gradient descent: for each mini-batch of
# 50, run `forward_and_backward`, then move each parameter against its `.g`. torch
# trains the same network from the same start, on the same batches in the same order,
# with its own autograd and `optim.SGD`.

# %%
def sgd_step(p, lr):
    for w in p.values():
        w.data -= lr * w.g.data



epochs, batch, lr = 20, 50, 0.5
rng = np.random.default_rng(1)
batches = np.concatenate([rng.permutation(30) for _ in range(epochs)])  # all 30, each epoch
p_ours = {name: minigrad.tensor(value.numpy()) for name, value in init.items()}
losses_ours = []
for k in batches:
    rows = slice(k * batch, (k + 1) * batch)
    loss, _ = forward_and_backward(x_train[rows], onehot_train[rows], p_ours)
    sgd_step(p_ours, lr)
    losses_ours.append(loss.item())
print(f"{len(batches)} steps; loss {losses_ours[0]:.4f} -> {losses_ours[-1]:.4f}")

# %% [markdown]
# The same training with torch's autograd:

# %%
p_torch = [value.clone().requires_grad_() for value in init.values()]
optimizer = torch.optim.SGD(p_torch, lr=lr)
x_train_t, onehot_t = torch.tensor(x_train.data), torch.tensor(onehot_train.data)
losses_torch = []
for k in batches:
    rows = slice(k * batch, (k + 1) * batch)
    out_t = forward_torch(x_train_t[rows], dict(zip(shapes, p_torch, strict=True)))
    loss_t = torch.nn.functional.mse_loss(out_t, onehot_t[rows])
    optimizer.zero_grad()
    loss_t.backward()
    optimizer.step()
    losses_torch.append(loss_t.item())
check_all({"losses": (losses_ours, losses_torch)}
          | {f"trained {name}": (p_ours[name], value)
             for name, value in zip(shapes, p_torch, strict=True)}, rtol=1e-8)

# %% [markdown]
# The curves, ours as dots over torch's line:

# %%
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(losses_torch, "-", linewidth=3, alpha=0.4, label="torch autograd")
ax.plot(losses_ours, "k.", markersize=3, label="hand-written backward (minigrad)")
ax.set_xlabel("step (mini-batch of 50)")
ax.set_ylabel("mean squared error")
ax.legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# And what the network learned, on the 297 test images it never saw:

# %%
test_out = forward(x_test, p_ours)["out"]
with torch.no_grad():
    test_out_t = forward_torch(torch.tensor(x_test.data), dict(zip(shapes, p_torch,
                                                                   strict=True)))
acc_ours = float((test_out.data.argmax(axis=1) == y_test).mean())
acc_torch = float((test_out_t.argmax(dim=1).numpy() == y_test).mean())
print(f"test accuracy: {acc_ours:.3f} (hand-written backward), {acc_torch:.3f} (torch)")
check("test accuracy", acc_ours, acc_torch)

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your code and a locked cell that checks it. Replace
# `raise NotImplementedError()` with your answer, run your cell, then run the check
# cell below it: it calls your code on inputs of its own, with autograd switched off
# (torch's and minigrad's: the gradients are yours to write, by hand), compares with
# torch's autograd, and shows a table, or one line saying what differs and a hint.
# When you hand the chapter in, the grader runs the same checks and a few more on
# inputs you have not seen (other batch sizes, numbers of classes, slopes and layer
# widths), so an answer that only fits the examples here loses its points. The points
# of each exercise are in its heading.
#
# ### Exercise 13.1: the softmax-cross-entropy gradient (2 points)
#
# For classification, cross-entropy is the usual loss: $L = \frac{1}{N}\sum_n -\log
# \mathrm{softmax}(z_n)_{y_n}$ for logits $z$ of shape $(N, C)$ and class indices $y$.
# Write `cross_entropy_grad(logits, labels)` that sets `logits.g` to $\partial L /
# \partial z$, a minigrad tensor of the logits' shape, in the `.g` style of
# `mse_grad`; `labels` is a numpy array of $N$ integers in $0 .. C-1$. It must work
# for any $N$ and $C$, and stay finite for logits as large as $\pm 1000$ (where
# $e^{z}$ overflows), and it must not change `logits`.
#
# <details><summary>Hint</summary>
#
# The gradient of the mean cross-entropy is the softmax of each row minus that row's
# one-hot label, divided by the number of rows. Softmax does not change if you
# subtract the same number from every entry of a row: pick one that keeps `exp` in
# range. `np.eye` makes one-hot rows.
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

with graded("Exercise 13.1", hint="softmax of each row (after subtracting the row's "
            "maximum) minus the one-hot labels, divided by the number of rows") as g:
    def your_grad(fn, logits, labels):
        fn(logits, labels)
        return getattr(logits, "g", None)

    def check_ce(z0, labels, label):
        z = minigrad.tensor(z0.copy())
        got = g.call(your_grad, cross_entropy_grad, z, labels.copy(),
                     forbid=["autograd", CrossEntropy.backward])
        g.require(f"{label}: logits.g is a minigrad.Tensor", type(got) is minigrad.Tensor,
                  "set logits.g to a minigrad tensor, as mse_grad does")
        g.require(f"{label}: logits unchanged", np.array_equal(z.data, z0),
                  "compute new tensors; do not change logits in place")
        z_t = torch.tensor(z0, requires_grad=True)
        loss_t = torch.nn.functional.cross_entropy(z_t, torch.tensor(labels))
        (ref,) = torch.autograd.grad(loss_t, z_t)
        g.check(f"{label}: logits.g", got, ref, rtol=1e-10, atol=1e-15)

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
# ### Exercise 13.2: the gradient of a leaky ReLU (2 points)
#
# A leaky ReLU lets a little through on the negative side: $f(x) = x$ for $x > 0$ and
# $\text{slope} \cdot x$ otherwise (torch's `leaky_relu(x, negative_slope)`, $0.01$
# by default). Write `leaky_relu_grad(inp, out, slope=0.01)`, which sets `inp.g` from
# `out.g`, in the style of `relu_grad`, for tensors of any shape. At exactly $0$ the
# derivative is `slope`, as in torch. The check uses several slopes.
#
# <details><summary>Hint</summary>
#
# The local derivative is one number where the input is positive and another
# elsewhere (which one, at 0?); build it as a tensor of `inp`'s shape, then apply the
# chain rule with `out.g`.
# </details>

# %% solution=ex13-leaky-relu-grad
def leaky_relu_grad(inp, out, slope=0.01):
    """Set inp.g for out = leaky_relu(inp, slope)."""
    ### BEGIN SOLUTION
    positive = (inp > 0).double()
    inp.g = (positive + slope * (1 - positive)) * out.g
    ### END SOLUTION

# %% test=ex13-leaky-relu-grad-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 13.2", hint="the local derivative is 1 where inp > 0 and slope "
            "elsewhere (0 included); multiply it by out.g, and use the slope you are "
            "given") as g:
    def your_grad(fn, inp, out, *args, **kwargs):
        fn(inp, out, *args, **kwargs)
        return getattr(inp, "g", None)

    def check_leaky(x0, up, *args, **kwargs):
        slope = (list(args) + list(kwargs.values()) + [0.01])[0]
        out0 = torch.nn.functional.leaky_relu(torch.tensor(x0), slope).numpy()
        inp, out = minigrad.tensor(x0.copy()), minigrad.tensor(out0)
        out.g = minigrad.tensor(up.copy())
        got = g.call(your_grad, leaky_relu_grad, inp, out, *args, forbid="autograd",
                     **kwargs)
        label = f"shape {x0.shape}, " + (f"slope={slope}" if args or kwargs else
                                         "default slope")
        g.require(f"{label}: inp.g is a minigrad.Tensor", type(got) is minigrad.Tensor,
                  "set inp.g to a minigrad tensor, as relu_grad does")
        t = torch.tensor(x0, requires_grad=True)
        (ref,) = torch.autograd.grad(torch.nn.functional.leaky_relu(t, slope), t,
                                     torch.tensor(up))
        g.check(f"{label}: inp.g", got, ref, rtol=1e-12, atol=1e-15)

    rng = np.random.default_rng(132)
    u0 = rng.standard_normal((5, 7))
    u0[0, :3] = 0.0  # exact zeros: the derivative there is the slope
    check_leaky(u0, rng.standard_normal((5, 7)))
    v0 = rng.standard_normal((3, 4))
    v0[1, 1] = 0.0
    check_leaky(v0, rng.standard_normal((3, 4)), slope=0.2)
    ### BEGIN HIDDEN TESTS
    for shape, slope in [((6,), 0.5), ((2, 3, 4), 0.0), ((4, 4), 1.0), ((2, 5), 0.3),
                         ((1, 8), 0.05)]:
        x0 = rng.standard_normal(shape)
        x0.flat[::3] = np.where(rng.random(x0.flat[::3].shape) < 0.5, 0.0, x0.flat[::3])
        check_leaky(x0, rng.standard_normal(shape), slope=slope)
    x0 = rng.standard_normal((3, 5))
    check_leaky(x0, rng.standard_normal((3, 5)), 0.25)  # slope given by position
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 13.3: a second hidden layer (3 points)
#
# Deepen the network by a hidden layer, to 64-32-16-10 for the digits: $l_1 = x W_1
# + b_1$, $a_1 = \mathrm{relu}(l_1)$, $l_2 = a_1 W_2 + b_2$, $a_2 =
# \mathrm{relu}(l_2)$, $\text{out} = a_2 W_3 + b_3$, with the mean squared error over
# every entry of the output. Write `forward_and_backward_deep(x, target, q)`, where
# `q` maps `"w1" ... "b3"` to tensors (of any widths that fit together): it runs the
# forward pass, fills `.g` of all six parameters by hand and returns the loss. Use
# `lin`, `mse`, `mse_grad`, `relu_grad` and `lin_grad` from above.
#
# <details><summary>Hint</summary>
#
# `forward_and_backward` of section 4 with one more layer: keep every value of the
# forward pass, then undo the steps in reverse order, each call getting the input
# and the output of the step it undoes.
# </details>

# %% solution=ex13-deep-backward
def forward_and_backward_deep(x, target, q):
    """Forward and hand-written backward of the three-layer MLP; returns the loss."""
    ### BEGIN SOLUTION
    h1 = lin(x, q["w1"], q["b1"])
    r1 = h1.relu()
    h2 = lin(r1, q["w2"], q["b2"])
    r2 = h2.relu()
    h3 = lin(r2, q["w3"], q["b3"])
    deep_loss = mse(h3, target)
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
    ### END SOLUTION

# %% test=ex13-deep-backward-test points=3
import numpy as np
import torch
from sklearn.datasets import load_digits

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 13.3", hint="forward: three lin, two relu, keeping every value; "
            "backward: mse_grad, then lin_grad and relu_grad in reverse order, each "
            "given the input and output of the step it undoes") as g:
    def your_backward(fn, x, target, q):
        loss = fn(x, target, q)
        return loss, {name: getattr(p, "g", None) for name, p in q.items()}

    def check_deep(x0, t0, widths, seed):
        rng = np.random.default_rng(seed)
        q0 = {}
        for i, (w_in, w_out) in enumerate(zip(widths[:-1], widths[1:], strict=True), 1):
            q0[f"w{i}"] = rng.standard_normal((w_in, w_out)) / np.sqrt(w_in)
            q0[f"b{i}"] = rng.standard_normal(w_out) * 0.1
        q = {name: minigrad.tensor(value.copy()) for name, value in q0.items()}
        loss, grads = g.call(your_backward, forward_and_backward_deep,
                             minigrad.tensor(x0.copy()), minigrad.tensor(t0.copy()), q,
                             forbid="autograd")
        p = {name: torch.tensor(value, requires_grad=True) for name, value in q0.items()}
        h = torch.tensor(x0)
        for i in (1, 2, 3):
            h = h @ p[f"w{i}"] + p[f"b{i}"]
            h = h.relu() if i < 3 else h
        loss_t = ((h - torch.tensor(t0)) ** 2).mean()
        refs = dict(zip(p, torch.autograd.grad(loss_t, list(p.values())), strict=True))
        label = "-".join(map(str, widths)) + f", N={len(x0)}"
        g.check(f"{label}: loss", loss, loss_t, rtol=1e-12, atol=1e-15)
        for name in q0:
            g.require(f"{label}: {name}.g is a minigrad.Tensor",
                      type(grads[name]) is minigrad.Tensor,
                      f"fill {name}.g with lin_grad (a minigrad tensor)")
            g.check(f"{label}: {name}.g", grads[name], refs[name], rtol=1e-10, atol=1e-14)

    digits = load_digits()
    # The worked example: 20 digits through the 64-32-16-10 network.
    check_deep(digits.data[:20] / 16, np.eye(10)[digits.target[:20]], (64, 32, 16, 10),
               seed=133)
    ### BEGIN HIDDEN TESTS
    check_deep(digits.data[100:133] / 16, np.eye(10)[digits.target[100:133]],
               (64, 32, 16, 10), seed=1331)
    rng = np.random.default_rng(1332)
    for n, widths in [(7, (5, 4, 3, 2)), (1, (3, 6, 2, 4)), (4, (2, 8, 8, 3))]:
        t0 = np.eye(widths[-1])[rng.integers(0, widths[-1], n)]
        check_deep(rng.standard_normal((n, widths[0])), t0, widths, seed=n)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# - A network's backward pass is the forward pass in reverse: the loss gradient first,
#   then, layer by layer, a function that turns `out.g` into the gradients of the
#   layer's input and parameters.
# - Three pieces suffice for an MLP: `mse_grad` ($\frac{2}{N \cdot 10}(o - y)$),
#   `relu_grad` (pass where the input was positive) and seed 001's `lin_grad`
#   (`out.g @ w.t()`, the batch sum of outer products, and `out.g.sum(0)` for the
#   bias).
# - Checking every intermediate gradient against torch (`retain_grad()` on its side)
#   localises a mistake to one line.
# - Trained with the hand-written backward, the network follows torch's loss curve
#   step for step and reaches the same test accuracy.
#
# This is what `loss.backward()` does for you, for every op, in every network: the
# course's chapters 05 to 12 showed how minigrad (and torch) organise it. Back to
# the start: [01 Derivatives](01_derivatives.ipynb).
