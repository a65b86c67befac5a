# %% [markdown]
# # 02 Gradients
#
# A loss depends on many parameters, not one. Chapter 01 asked how fast $y = x^2$
# changes when $x$ moves; this chapter asks the same question of a function of several
# numbers, one input at a time. The answers, the *partial derivatives*, line up into a
# vector, the *gradient*, which points uphill: the direction in which the function grows
# fastest. We compute it by hand, numerically, with `minigrad.Value` and with PyTorch,
# and then look at it as a field of arrows over the plane.
#
# **Learning goals.** After this chapter you can
#
# 1. compute a partial derivative by holding every other input fixed;
# 2. collect the partial derivatives into the gradient vector;
# 3. get the gradient of a function of several `Value`s with one `backward()` call;
# 4. read a gradient field plot: arrows point uphill, across the contour lines;
# 5. use the gradient to predict how much a small step changes the function.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all

# %% [markdown]
# ## 1. Partial derivatives: one input at a time
#
# Take the loss from the PyTorch tutorial,
#
# $$L(x, y) = x^2 + 3y .$$
#
# The *partial derivative* with respect to $x$, written $\frac{\partial L}{\partial x}$,
# is the ordinary derivative of $L$ when $y$ is held fixed: the term $3y$ is then a
# constant and drops out, so $\frac{\partial L}{\partial x} = 2x$. Likewise, holding $x$
# fixed, $\frac{\partial L}{\partial y} = 3$. At $(x, y) = (2, 4)$ that is $(4, 3)$.
#
# Numerically, nudge one input and leave the other alone:

# %%
def L(x, y):
    return x ** 2 + 3 * y


h = 1e-6
dL_dx = (L(2.0 + h, 4.0) - L(2.0, 4.0)) / h
dL_dy = (L(2.0, 4.0 + h) - L(2.0, 4.0)) / h
check_all({"dL/dx, numeric": (dL_dx, 4.0), "dL/dy, numeric": (dL_dy, 3.0)}, atol=1e-5)

# %% [markdown]
# ## 2. The gradient vector, from PyTorch and from `minigrad`
#
# The *gradient* collects all the partial derivatives into one vector,
#
# $$\nabla L(x, y) = \left(\frac{\partial L}{\partial x},\ \frac{\partial L}{\partial y}\right)
#   = (2x,\ 3).$$
#
# PyTorch computes all of it with one `backward()` call: every input marked with
# `requires_grad=True` receives its partial derivative in `.grad`. The tutorial's code:

# %%
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(4.0, requires_grad=True)
loss = x ** 2 + 3 * y
loss.backward()
print(x.grad)  # tensor(4.)
print(y.grad)  # tensor(3.)

# %% [markdown]
# The same code with `torch.tensor` replaced by `minigrad.Value` gives the same numbers.
# `backward()` starts at the loss and sends the derivative back to *every* input it was
# built from, so one call fills both `grad`s.

# %%
xm, ym = minigrad.Value(2.0), minigrad.Value(4.0)
loss_m = xm ** 2 + 3 * ym
loss_m.backward()
check_all({"x.grad": (xm.grad, x.grad), "y.grad": (ym.grad, y.grad)})

# %% [markdown]
# One backward pass for all inputs is the point: a network with a million parameters
# gets all million partial derivatives from one call, not from a million nudges.
#
# A function where the inputs interact shows that a partial derivative depends on where
# the *other* inputs are. For $f(x, y) = x y + y^3$ we have
# $\frac{\partial f}{\partial x} = y$ and $\frac{\partial f}{\partial y} = x + 3y^2$:

# %%
def f(x, y):
    return x * y + y ** 3


xm, ym = minigrad.Value(1.5), minigrad.Value(-2.0)
f(xm, ym).backward()
xt = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
yt = torch.tensor(-2.0, dtype=torch.float64, requires_grad=True)
f(xt, yt).backward()
check_all({"df/dx = y": (xm.grad, xt.grad), "df/dy = x + 3y**2": (ym.grad, yt.grad)})

# %% [markdown]
# ## 3. The gradient field
#
# The gradient is defined at every point, so we can draw it as an arrow at each point of
# a grid. A small helper computes it with `minigrad` at one point, here checked against
# torch at $(2, 4)$:

# %%
def gradient(fn, *point):
    """The gradient of fn at point, from one minigrad backward pass."""
    inputs = [minigrad.Value(p) for p in point]
    fn(*inputs).backward()
    return [v.grad for v in inputs]


xt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
yt = torch.tensor(4.0, dtype=torch.float64, requires_grad=True)
L(xt, yt).backward()
check("gradient(L, 2, 4)", gradient(L, 2.0, 4.0), [xt.grad, yt.grad])

# %% [markdown]
# Now over a grid, and against torch. Torch can do the whole grid at once: summing the
# loss over all grid points and calling `backward()` once gives each point its own
# gradient, because a point's loss does not depend on the other points.

# %%
grid = np.linspace(-2, 2, 9)
X, Y = np.meshgrid(grid, grid)
ours = np.array([[gradient(L, x, y) for x, y in zip(xrow, yrow, strict=True)]
                 for xrow, yrow in zip(X, Y, strict=True)])
Xt = torch.tensor(X, requires_grad=True)
Yt = torch.tensor(Y, requires_grad=True)
L(Xt, Yt).sum().backward()
check_all({"dL/dx on the grid": (ours[..., 0], Xt.grad),
           "dL/dy on the grid": (ours[..., 1], Yt.grad)})

# %% [markdown]
# The plot: contour lines of $L$ (where $L$ is constant) and the gradient arrows. Every
# arrow points uphill, towards larger $L$, and crosses the contour lines at a right angle.
# Along $x$ the arrows flip at $x = 0$, the bottom of the parabola; along $y$ they all
# have the same length $3$, because $L$ grows at the same rate in $y$ everywhere.

# %%
fine = np.linspace(-2.2, 2.2, 200)
FX, FY = np.meshgrid(fine, fine)
fig, ax = plt.subplots(figsize=(5.5, 5))
contours = ax.contour(FX, FY, L(FX, FY), levels=12, cmap="viridis")
ax.clabel(contours, fontsize=7)
ax.quiver(X, Y, ours[..., 0], ours[..., 1], color="crimson", angles="xy")
ax.set_xlim(-2.2, 2.2)
ax.set_ylim(-2.2, 2.2)
ax.set_aspect("equal")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.set_title("L = x² + 3y: contours and gradient arrows")
plt.show()

# %% [markdown]
# ## 4. What the gradient predicts
#
# For a small step $(\Delta x, \Delta y)$ the change of $L$ is about the dot product of
# the gradient with the step:
#
# $$L(x + \Delta x, y + \Delta y) - L(x, y) \approx \frac{\partial L}{\partial x}\Delta x
#   + \frac{\partial L}{\partial y}\Delta y .$$
#
# Of all steps of a given length, the one along the gradient increases $L$ the most, and
# the one against it decreases $L$ the most. That is why training steps *against* the
# gradient (chapter 10). Here is a step of length $0.01$ each way from $(2, 4)$:

# %%
g = np.array(gradient(L, 2.0, 4.0))
step = 0.01 * g / np.linalg.norm(g)
uphill = L(2.0 + step[0], 4.0 + step[1]) - L(2.0, 4.0)
downhill = L(2.0 - step[0], 4.0 - step[1]) - L(2.0, 4.0)
check_all({"uphill change": (uphill, g @ step), "downhill change": (downhill, -(g @ step))},
          atol=1e-4)

# %% [markdown]
# The prediction is off by about $0.0001$, the size of the squared step: the gradient
# describes the function to first order, just as the derivative did in chapter 01.
#
# ## Exercises
#
# ### Exercise 2.1: the numeric gradient
#
# Write `numeric_gradient(fn, point, h=1e-6)` that returns the list of central slopes
# $\big(fn(\dots, p_i + h, \dots) - fn(\dots, p_i - h, \dots)\big) / 2h$, one per
# coordinate of `point` (a list of floats), nudging one coordinate at a time.
#
# <details><summary>Hint</summary>
#
# Loop over the coordinates; copy `point` into two lists, add `h` to coordinate `i` of
# one and subtract it from the other, and call `fn(*plus)` and `fn(*minus)`.
# </details>

# %% solution=ex02-numeric-gradient
def numeric_gradient(fn, point, h=1e-6):
    """Central-difference estimates of every partial derivative of fn at point."""
    ### BEGIN SOLUTION
    slopes = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += h
        minus[i] -= h
        slopes.append((fn(*plus) - fn(*minus)) / (2 * h))
    return slopes
    ### END SOLUTION

# %% test=ex02-numeric-gradient-test points=2
# Exercise 2.1 checks: against torch's gradient.
def torch_gradient(fn, point):
    inputs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
    fn(*inputs).backward()
    return [t.grad.item() for t in inputs]


check("numeric_gradient(L, (2, 4))", numeric_gradient(L, [2.0, 4.0]),
      torch_gradient(L, [2.0, 4.0]), atol=1e-5)
### BEGIN HIDDEN TESTS
check("numeric_gradient(f, (1.5, -2))", numeric_gradient(f, [1.5, -2.0]),
      torch_gradient(f, [1.5, -2.0]), atol=1e-5)
check("three inputs", numeric_gradient(lambda a, b, c: a * b * c, [1.0, 2.0, 3.0]),
      torch_gradient(lambda a, b, c: a * b * c, [1.0, 2.0, 3.0]), atol=1e-5)
### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2.2: a gradient from one backward pass
#
# Let $q(a, b, c) = a b + b c + \tanh(c)$. Make three `minigrad.Value`s at
# $(a, b, c) = (0.5, -1.0, 2.0)$, build $q$ from them, call `backward()` once, and put
# the three partial derivatives into a list `grad_q` in the order $a, b, c$.
#
# <details><summary>Hint</summary>
#
# `a * b + b * c + c.tanh()`; then `grad_q = [a.grad, b.grad, c.grad]`. By hand:
# $\partial q / \partial b = a + c$.
# </details>

# %% solution=ex02-one-pass
### BEGIN SOLUTION
a, b, c = minigrad.Value(0.5), minigrad.Value(-1.0), minigrad.Value(2.0)
q = a * b + b * c + c.tanh()
q.backward()
grad_q = [a.grad, b.grad, c.grad]
### END SOLUTION

# %% test=ex02-one-pass-test points=2
# Exercise 2.2 checks: grad_q against torch.
at = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (0.5, -1.0, 2.0)]
(at[0] * at[1] + at[1] * at[2] + at[2].tanh()).backward()
check("grad_q", grad_q, [t.grad.item() for t in at])

# %% [markdown]
# ### Exercise 2.3: steepest descent
#
# Write `descent_direction(fn, point)` that returns the unit vector (a list of floats
# whose Euclidean length is 1) pointing *downhill* fastest from `point`: minus the
# gradient, divided by its length. Use `minigrad.Value` for the gradient (the `gradient`
# helper above is fine).
#
# <details><summary>Hint</summary>
#
# `g = gradient(fn, *point)`, then `norm = sum(gi * gi for gi in g) ** 0.5` and
# `[-gi / norm for gi in g]`.
# </details>

# %% solution=ex02-descent
def descent_direction(fn, point):
    """The unit vector along minus the gradient of fn at point."""
    ### BEGIN SOLUTION
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    return [-gi / length for gi in g]
    ### END SOLUTION

# %% test=ex02-descent-test points=1
# Exercise 2.3 checks: against torch's gradient, normalized.
xt = torch.tensor([2.0, 4.0], dtype=torch.float64, requires_grad=True)
L(xt[0], xt[1]).backward()
check("descent_direction(L, (2, 4))", descent_direction(L, [2.0, 4.0]),
      -xt.grad / xt.grad.norm())

# %% [markdown]
# ## Summary
#
# - A partial derivative is the derivative in one input with every other input held
#   fixed. For $L = x^2 + 3y$ at $(2, 4)$ the partials are $4$ and $3$.
# - The gradient is the vector of all partial derivatives. One `backward()` call fills
#   the `grad` of every input, in PyTorch and in `minigrad.Value` alike.
# - Drawn as a field, the gradient points uphill and crosses the contour lines at right
#   angles; its dot product with a small step predicts the change of the function.
# - Stepping against the gradient is the fastest way down: the idea behind training.
#
# Next: [03 The chain rule](03_chain_rule.ipynb): how `backward()` finds these numbers
# for a function built from many small steps.
