# %% [markdown]
# # 02 Gradients
#
# A loss depends on many parameters, not one. Chapter 01 asked how fast $y = x^2$
# changes when $x$ moves; this chapter asks the same question of a function of several
# numbers, one input at a time. The answers, the *partial derivatives*, line up into a
# vector, the *gradient*, which points uphill: the direction in which the function grows
# fastest. We compute it by hand, numerically, with `minigrad.Value` and with PyTorch,
# for the reference tutorial's loss and for one neuron, the running example of chapters
# 02 to 05; then we look at it as a field of arrows over the plane, and walk down a bowl
# against the arrows to its bottom, which is what training does.
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
from minigrad.course.widgets.first_order import step_widget
from minigrad.course.widgets.slices import slices_widget

# %% [markdown]
# ## 1. Partial derivatives: one input at a time
#
# Take the loss from the course's reference tutorial (see [Sources](../book/sources.md)),
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
check_all({"dL/dx, numeric": (dL_dx, 2 * 2.0), "dL/dy, numeric": (dL_dy, 3.0)}, atol=1e-5,
          against="by hand")

# %% [markdown]
# The references here are the partials worked out by hand above, $2x = 4$ and $3$; the
# next section gets them from torch.

# %% [markdown]
# ## 2. The gradient vector, from PyTorch and from `minigrad`
#
# The *gradient* collects all the partial derivatives into one vector,
#
# $$\nabla L(x, y) = \left(\frac{\partial L}{\partial x},\ \frac{\partial L}{\partial y}\right)
#   = (2x,\ 3).$$
#
# PyTorch computes all of it with one `backward()` call: every *leaf* marked with
# `requires_grad=True` that the loss depends on receives its partial derivative in
# `.grad`. A leaf is a tensor you made, not one computed by a recorded operation; here
# `x` and `y`. The reference tutorial's code:

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
check_all({"x.grad": (xm.grad, x.grad), "y.grad": (ym.grad, y.grad)}, brief=True)

# %% [markdown]
# Two kinds of tensor get no `.grad` from this call: a leaf the loss does not use keeps
# `None`, and an intermediate result such as `x ** 2` is not a leaf, so torch does not
# keep its gradient (chapter 04 says why and how to keep it):

# %%
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(4.0, requires_grad=True)
unused = torch.tensor(1.0, requires_grad=True)  # marked, but the loss never uses it
x_squared = x ** 2
(x_squared + 3 * y).backward()
print("unused.grad:", unused.grad, " x_squared.is_leaf:", x_squared.is_leaf)
check_all({"x.grad": (x.grad, 4.0), "y.grad": (y.grad, 3.0)}, against="by hand", brief=True)

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
check_all({"df/dx = y": (xm.grad, xt.grad), "df/dy = x + 3y**2": (ym.grad, yt.grad)},
          brief=True)

# %% [markdown]
# **The partial derivative of $xy$ is $y$: a spreadsheet.** A learner in the fast.ai
# forum thread "Understanding gradient calculation" (see [Sources](../book/sources.md))
# checked this in a spreadsheet: for $g = x y$ with $y = -4$, increase $x$ a little row
# after row and record the change of $g$: "For every tiny increase in x, g decrements by
# y's value (-4)." We start at $x = 3$ and step by $0.001$:

# %%
def product(x, y):
    return x * y


y_fixed = -4.0
xs = 3.0 + 0.001 * np.arange(6)
gs = product(xs, y_fixed)
print("      x        g     g step   g step / x step")
for i in range(len(xs)):
    if i == 0:
        print(f"{xs[i]:7.3f} {gs[i]:8.3f}")
    else:
        g_step, x_step = gs[i] - gs[i - 1], xs[i] - xs[i - 1]
        print(f"{xs[i]:7.3f} {gs[i]:8.3f} {g_step:9.4f} {g_step / x_step:10.4f}")

# %% [markdown]
# Each step of $0.001$ in $x$ lowers $g$ by $0.004$: the ratio is $-4 = y$, which is
# $\frac{\partial (xy)}{\partial x}$. Torch gives the same at every row, and so does
# `minigrad.Value`:

# %%
ratios = np.diff(gs) / np.diff(xs)
torch_slopes = []
for x_row in xs[1:]:
    xt = torch.tensor(x_row, dtype=torch.float64, requires_grad=True)
    product(xt, y_fixed).backward()
    torch_slopes.append(xt.grad)
xm = minigrad.Value(3.0)
product(xm, y_fixed).backward()
check_all({"spreadsheet ratios (g step / x step)": (ratios, torch_slopes),
           "minigrad d(xy)/dx at x = 3": (xm.grad, y_fixed, "by hand")}, rtol=1e-9,
          brief=True)

# %% [markdown]
# (The learner's own sheet showed 0 in its change column, probably because it showed
# two decimals: $-0.004$ printed as `-0.00`.)
#
# **A running example: one neuron.** A network is made of *neurons*. One neuron takes
# inputs $x_1, x_2$, weighs them with its parameters $w_1, w_2$, adds a bias $b$ and
# squashes the sum with $\tanh$:
#
# $$o = \tanh(w_1 x_1 + w_2 x_2 + b).$$
#
# Training asks how $o$ (and, later, a loss built from it) changes with each
# *parameter*: the gradient with respect to $(w_1, w_2, b)$, with the inputs held
# fixed. We take the numbers of Andrej Karpathy's micrograd lecture (see
# [Sources](../book/sources.md)): $x = (2, 0)$,
# $w = (-3, 1)$, and $b = 6.8813735870195432$, chosen so that
# $w_1 x_1 + w_2 x_2 + b = 0.8813\ldots = \operatorname{asinh}(1)$ and
# $o = \tanh(\operatorname{asinh} 1) = 1/\sqrt{2} = 0.7071$. Chapters 03 to 05 come
# back to this neuron. One `backward()` gives all three partial derivatives:

# %%
x1, x2 = 2.0, 0.0  # the inputs: data, held fixed
w1, w2, b = minigrad.Value(-3.0), minigrad.Value(1.0), minigrad.Value(6.8813735870195432)
o = (w1 * x1 + w2 * x2 + b).tanh()
o.backward()
print(f"o = {o.data:.4f}   do/dw1 = {w1.grad:.4f}   do/dw2 = {w2.grad:.4f}   "
      f"do/db = {b.grad:.4f}")

w1t = torch.tensor(-3.0, dtype=torch.float64, requires_grad=True)
w2t = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
bt = torch.tensor(6.8813735870195432, dtype=torch.float64, requires_grad=True)
ot = torch.tanh(w1t * x1 + w2t * x2 + bt)
ot.backward()
check_all({"o": (o.data, ot), "do/dw1": (w1.grad, w1t.grad), "do/dw2": (w2.grad, w2t.grad),
           "do/db": (b.grad, bt.grad)})

# %% [markdown]
# The same numbers by nudging each parameter in turn, as in section 1, with only the
# forward pass:

# %%
def neuron(w1, w2, b):
    """The neuron's output for plain numbers: its forward pass only."""
    return (minigrad.Value(w1) * x1 + minigrad.Value(w2) * x2 + minigrad.Value(b)).tanh().data


h = 1e-6
b0 = 6.8813735870195432
o0 = neuron(-3.0, 1.0, b0)
nudged = [(neuron(-3.0 + h, 1.0, b0) - o0) / h,
          (neuron(-3.0, 1.0 + h, b0) - o0) / h,
          (neuron(-3.0, 1.0, b0 + h) - o0) / h]
check("numeric (do/dw1, do/dw2, do/db)", nudged, [w1t.grad, w2t.grad, bt.grad], atol=1e-5,
      brief=True)

# %% [markdown]
# Read the three numbers. $\frac{\partial o}{\partial w_2} = 0$: $w_2$ multiplies
# $x_2 = 0$, so moving it changes nothing. $\frac{\partial o}{\partial b} = 0.5$: that is
# the slope of $\tanh$ where the sum lands, $1 - \tanh^2 = 1 - \frac12$. And
# $\frac{\partial o}{\partial w_1} = 1 = x_1 \cdot 0.5$: a change of $w_1$ is multiplied by
# $x_1 = 2$ before it reaches $\tanh$. Why the pieces multiply is chapter 03's chain rule.

# %% [markdown]
# ## 3. The gradient field
#
# The gradient is defined at every point, so we can draw it as an arrow at each point of
# a grid. Two small helpers compute it at one point, each with one backward pass as in
# section 2: `gradient` with `minigrad.Value`, and `gradient_from_torch` with torch's
# float64 scalar tensors, the reference. At $(2, 4)$ both give $(4, 3)$:

# %%
def gradient(fn, *point):
    """The gradient of fn at point (one number per input), from one minigrad backward pass."""
    inputs = [minigrad.Value(p) for p in point]
    fn(*inputs).backward()
    return [v.grad for v in inputs]


def gradient_from_torch(fn, *point):
    """The same from one torch backward pass; .item() turns a 1-number tensor into a float."""
    inputs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
    fn(*inputs).backward()
    return [t.grad.item() for t in inputs]


print("gradient(L, 2, 4) =", gradient(L, 2.0, 4.0))
check("gradient(L, 2, 4)", gradient(L, 2.0, 4.0), gradient_from_torch(L, 2.0, 4.0), brief=True)

# %% [markdown]
# Now the same at each of the $9 \times 9 = 81$ points of a grid from $-2$ to $2$, one
# point at a time. Row $i$ of the table is $y$ = `grid[i]` and column $j$ is
# $x$ = `grid[j]`, so `ours[i, j]` is the pair
# $\left(\frac{\partial L}{\partial x}, \frac{\partial L}{\partial y}\right)$ at that
# point, and `ours[:, :, 0]` holds the 81 values of $\frac{\partial L}{\partial x}$:

# %%
grid = np.linspace(-2, 2, 9)
ours = np.array([[gradient(L, x, y) for x in grid] for y in grid])
theirs = np.array([[gradient_from_torch(L, x, y) for x in grid] for y in grid])
print("x = grid[8] =", grid[8], " y = grid[0] =", grid[0], " gradient:", ours[0, 8])
check_all({"dL/dx on the grid": (ours[:, :, 0], theirs[:, :, 0]),
           "dL/dy on the grid": (ours[:, :, 1], theirs[:, :, 1])}, brief=True)

# %% [markdown]
# The plot: contour lines of $L$ (where $L$ is constant) and the gradient arrows. Every
# arrow points uphill, towards larger $L$, and crosses the contour lines at a right angle.
# An arrow at $(x, y)$ is $(2x, 3)$: its $x$-component changes sign at $x = 0$, the
# bottom of the parabola $L(\cdot, y)$ that we get by holding $y$ fixed (not drawn here;
# the contours are arches whose *top* is at $x = 0$), and its vertical component is $3$
# everywhere, because $L$
# grows at the same rate in $y$ everywhere. Its length, $\sqrt{4x^2 + 9}$, grows with
# $|x|$ and is smallest, $3$, at $x = 0$. (The plot scales every arrow by the same
# factor to fit. The contour lines need $L$ on a finer grid, laid out the same way.)

# %%
fine = np.linspace(-2.2, 2.2, 200)
heights = np.array([[L(x, y) for x in fine] for y in fine])
fig, ax = plt.subplots(figsize=(5.5, 5))
contours = ax.contour(fine, fine, heights, levels=12, cmap="viridis")
ax.clabel(contours, fontsize=7)
ax.quiver(grid, grid, ours[:, :, 0], ours[:, :, 1], color="crimson", angles="xy")
ax.set_xlim(-2.2, 2.2)
ax.set_ylim(-2.2, 2.2)
ax.set_aspect("equal")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.set_title("L = x² + 3y: contours and gradient arrows")
plt.show()

# %% [markdown]
# **A bowl, and the walk to its bottom.** Follow $L$'s arrows backwards and you never
# stop: every arrow has vertical component $3$, so $L$ keeps falling as $y$ decreases and
# has no lowest point. A loss that training can minimise has a bottom. Take the bowl
#
# $$B(x, y) = x^2 + 2y^2, \qquad \nabla B = (2x,\ 4y),$$
#
# lowest, $0$, at $(0, 0)$. Its arrows point *away* from the minimum, across the oval
# contours, and vanish at the bottom. Walk against them: from a point $p$, step to
# $p - 0.1\,\nabla B(p)$, and repeat. Here $x \leftarrow x - 0.1 \cdot 2x = 0.8x$ and
# $y \leftarrow 0.6y$ at every step, so after $k$ steps from $(x_0, y_0)$ the walk is at
# $(0.8^k x_0,\ 0.6^k y_0)$: it reaches the bottom, $y$ faster than $x$. The function
# `walk` takes the 20 steps with either helper: with `gradient` it is minigrad's walk,
# with `gradient_from_torch` torch's.

# %%
def bowl(x, y):
    return x ** 2 + 2 * y ** 2


def walk(gradient_fn, x, y, steps=20):
    """The points of a walk against the gradient of bowl, from (x, y)."""
    path = [(x, y)]
    for _ in range(steps):
        dx, dy = gradient_fn(bowl, x, y)
        x, y = x - 0.1 * dx, y - 0.1 * dy
        path.append((x, y))
    return np.array(path)


bowl_grads = np.array([[gradient(bowl, x, y) for x in grid] for y in grid])
bowl_grads_torch = np.array([[gradient_from_torch(bowl, x, y) for x in grid] for y in grid])
path = walk(gradient, -1.8, 1.6)
for k in range(0, 21, 5):
    print(f"step {k:2d}: ({path[k, 0]:+.4f}, {path[k, 1]:+.6f})")
check_all({"gradient of B on the grid": (bowl_grads, bowl_grads_torch),
           "the walk, 21 points": (path, walk(gradient_from_torch, -1.8, 1.6)),
           "the walk after 20 steps": (path[-1], [0.8 ** 20 * -1.8, 0.6 ** 20 * 1.6],
                                       "formula")})

# %%
bowl_heights = np.array([[bowl(x, y) for x in fine] for y in fine])
fig, ax = plt.subplots(figsize=(5.5, 5))
contours = ax.contour(fine, fine, bowl_heights, levels=12, cmap="viridis")
ax.clabel(contours, fontsize=7)
ax.quiver(grid, grid, bowl_grads[:, :, 0], bowl_grads[:, :, 1], color="crimson", angles="xy")
ax.plot(path[:, 0], path[:, 1], "o-", color="black", markersize=3, label="walk against ∇B")
ax.plot(0, 0, "*", color="gold", markersize=14, markeredgecolor="black", label="minimum")
ax.set_xlim(-2.2, 2.2)
ax.set_ylim(-2.2, 2.2)
ax.set_aspect("equal")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend(loc="lower right")
ax.set_title("B = x² + 2y²: arrows point away from the bottom")
plt.show()

# %% [markdown]
# The walk does not head straight for the minimum: it first mostly drops in $y$, where
# the bowl is steeper, then crawls along $x$. Each step goes the steepest way down *at
# that point* (section 4 shows why minus the gradient is that way), and the arrows cross
# the contours at right angles, not towards the centre.
# Chapter 10 turns this walk into training.

# %% [markdown]
# **Partial derivatives are slopes of slices.** Hold $y$ fixed and $L$ becomes a function
# of $x$ alone, $L(\cdot, y)$: the slice of the surface along the horizontal line
# through the point. $\frac{\partial L}{\partial x}$ is the slope of that slice's
# tangent; likewise $\frac{\partial L}{\partial y}$ is the slope of $L(x, \cdot)$, the
# slice along the vertical line. Move the sliders: the middle plot is a parabola whose
# tangent tilts with $x$, the right one a line of slope $3$ wherever you are. The readout
# compares minigrad's gradient with torch's. (The widget needs a live kernel.)

# %% tags=nbval-ignore-output
slices_widget(L, x=2.0, y=4.0)

# %% [markdown]
# ## 4. What the gradient predicts
#
# For a small step $(\Delta x, \Delta y)$ the change of $L$ is about the dot product of
# the gradient with the step:
#
# $$L(x + \Delta x, y + \Delta y) - L(x, y) \approx \frac{\partial L}{\partial x}\Delta x
#   + \frac{\partial L}{\partial y}\Delta y .$$
#
# So, to first order (for *small* steps, where this approximation holds), of all steps
# of a given length the one along the gradient increases $L$ the most, and the one
# against it decreases $L$ the most. That is why training takes small steps *against*
# the gradient (chapter 10). Here is a step of length $0.01$ each way from $(2, 4)$. In
# numpy, `np.linalg.norm(g)` is the length of the vector `g`, here
# $\sqrt{4^2 + 3^2} = 5$, and `g @ step` is the dot product of `g` and `step`:

# %%
g = np.array(gradient(L, 2.0, 4.0))
step = 0.01 * g / np.linalg.norm(g)
uphill = L(2.0 + step[0], 4.0 + step[1]) - L(2.0, 4.0)
downhill = L(2.0 - step[0], 4.0 - step[1]) - L(2.0, 4.0)
check_all({"uphill change vs g . s": (uphill, g @ step),
           "downhill change vs -g . s": (downhill, -(g @ step))}, atol=1e-4,
          against="formula")

# %% [markdown]
# The reference is the prediction $g \cdot s$, a formula. It misses by $6.4 \times
# 10^{-5}$ each way, and that number is exact: the step is $s = 0.01 \cdot (4, 3) / 5
# = (0.008, 0.006)$, and $L$'s one term that is not linear, $x^2$, changes by
# $(x + \Delta x)^2 - x^2 = 2x\,\Delta x + (\Delta x)^2$. The gradient captures the
# first part; the gap is $(\Delta x)^2 = 0.008^2$:

# %%
check_all({"uphill change - g . s": (uphill - g @ step, step[0] ** 2),
           "downhill change + g . s": (downhill + g @ step, step[0] ** 2)}, rtol=1e-6,
          against="formula")

# %% [markdown]
# The gradient describes the function to first order, as the derivative did in chapter
# 01: the gap shrinks like the square of the step. That is also why "along the gradient
# increases $L$ the most" is a statement about *small* steps. The dot product of two
# vectors is the product of their lengths times the cosine of the angle between them, so
# the first-order change of a step of length $r$ at angle $\theta$ from the gradient is
# $|g|\,r\cos\theta$, largest at $\theta = 0$; for a larger step the second-order part
# can favour another direction.
#
# The widget takes a step of length $r$ (slider on a log scale) at angle $\theta$ from
# the gradient, from $(2, 4)$. The readout compares the actual change with $g \cdot s$,
# shows the gap and gap$/r^2$, which stays the same as $r$ changes (for this $L$ it is
# exactly $\cos^2$ of the step's angle from the $x$-axis), and finds the whole-degree
# direction whose step of this length increases $L$ the most: $\theta = 0$ for small $r$,
# not for $r = 1$. The right-hand plot shows the gap against $r$ on log axes beside a
# line of slope 2, $r^2$. (The widget needs a live kernel.)

# %% tags=nbval-ignore-output
step_widget(L, point=(2.0, 4.0))

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 2.1: the numeric gradient (2 points)
#
# Write `numeric_gradient(fn, point, h=1e-6)`. `point` is a list of floats, one per
# input of `fn`; return the list of *central* slopes, one per coordinate:
#
# $$\frac{fn(\dots, p_i + h, \dots) - fn(\dots, p_i - h, \dots)}{2h},$$
#
# nudging coordinate $i$ only and leaving the others (and the list `point` itself)
# alone. No autograd: the check switches it off. For a function that is quadratic in
# each input the central slope is exact for any `h`, which a one-sided slope is not.
#
# <details><summary>Hint</summary>
#
# Work out one coordinate at a time: two points that differ from `point` only in that
# coordinate, one on each side, then the slope of the line through the two values of
# `fn`. Make new lists for the two points rather than changing `point`.
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
import math

import torch

from minigrad.course.grading import graded

with graded("Exercise 2.1", hint="for each coordinate i, evaluate fn with only p_i moved "
            "to p_i + h and to p_i - h, and divide the difference by 2h") as g:
    def torch_gradient(fn, point):
        inputs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
        fn(*inputs).backward()
        return [t.grad.item() for t in inputs]

    def mistakes(fn, point, h=1e-6):
        """What the common mistakes give here (computed as they compute it)."""
        def nudged(i, step):
            moved = list(point)
            moved[i] += step
            return moved

        def in_place():
            moved, slopes = list(point), []
            for i in range(len(point)):
                moved[i] += h
                up = fn(*moved)
                moved[i] -= 2 * h
                slopes.append((up - fn(*moved)) / (2 * h))
            return slopes

        every = (fn(*[p + h for p in point]) - fn(*[p - h for p in point])) / (2 * h)
        return {
            "one-sided": ("your slopes lean to one side of the point: where is the point "
                          "in the middle of your two evaluations?",
                          [(fn(*nudged(i, h)) - fn(*point)) / h for i in range(len(point))]),
            "divided-by-h": ("your slopes are twice too big: how far apart are the two "
                             "points you evaluate?",
                             [(fn(*nudged(i, h)) - fn(*nudged(i, -h))) / h
                              for i in range(len(point))]),
            "all-at-once": ("every partial you return is the same number: does your nudge "
                            "move one coordinate at a time?", [every] * len(point)),
            "moved-in-place": ("your later partials are taken at a moved point: is the "
                               "point back where it was after each coordinate?", in_place),
        }

    loss = lambda x, y: x ** 2 + 3 * y  # noqa: E731
    got = g.call(numeric_gradient, loss, [2.0, 4.0], forbid="autograd")
    g.check("numeric_gradient(x**2 + 3y, [2, 4])", got, torch_gradient(loss, [2.0, 4.0]),
            rtol=1e-8, mistakes=mistakes(loss, [2.0, 4.0]))
    # Quadratic in each input: the central slope is exact even with a large step.
    quad = lambda x, y: x * y + x ** 2 - 3 * y ** 2  # noqa: E731
    got = g.call(numeric_gradient, quad, [1.5, -2.0], h=0.5, forbid="autograd")
    g.check("numeric_gradient(xy + x**2 - 3y**2, [1.5, -2], h=0.5)", got,
            torch_gradient(quad, [1.5, -2.0]), rtol=1e-12,
            mistakes=mistakes(quad, [1.5, -2.0], 0.5))
    ### BEGIN HIDDEN TESTS
    # Three inputs, the step given: the central slope of a**3 is 3a^2 + h^2 exactly,
    # which is the derivative of a**3 + h^2 a.
    cubic = lambda a, b, c: a * b * c + a ** 3 + b ** 2 * c  # noqa: E731
    for point, h in [([1.0, 2.0, -0.5], 0.25), ([-0.7, 0.4, 1.3], 0.1)]:
        given = list(point)
        got = g.call(numeric_gradient, cubic, given, h=h, forbid="autograd")
        g.require("point left unchanged", given == point, "do not change the list point")
        shifted = lambda a, b, c, h=h: cubic(a, b, c) + h * h * a  # noqa: E731
        g.check(f"numeric_gradient(cubic, {point}, h={h})", got,
                torch_gradient(shifted, point), rtol=1e-12, against="torch + h^2 in a",
                mistakes=mistakes(cubic, point, h))
    # Five inputs, a large step.
    five = lambda a, b, c, d, e: a * b - c * d * e + e ** 2 + 2 * c  # noqa: E731
    point = [0.3, -1.2, 2.0, 0.7, -0.4]
    got = g.call(numeric_gradient, five, list(point), h=0.5, forbid="autograd")
    g.check("numeric_gradient(five inputs, h=0.5)", got, torch_gradient(five, point),
            rtol=1e-12, mistakes=mistakes(five, point, 0.5))
    # One input and the default step: the central slope of sin(kx) is
    # k cos(kx) sin(kh) / (kh), the derivative of sin(kh)/(kh) * sin(kx), for h = 1e-6.
    for k, x0 in [(1e4, 0.3), (2e3, -1.1)]:
        sine = lambda x, k=k: math.sin(k * x)  # noqa: E731
        got = g.call(numeric_gradient, sine, [x0], forbid="autograd")
        damp = math.sin(k * 1e-6) / (k * 1e-6)
        g.check(f"numeric_gradient(sin({k:g}x), [{x0}]) default h", got,
                torch_gradient(lambda x, k=k, damp=damp: damp * torch.sin(k * x), [x0]),
                rtol=1e-8, against="torch × sin(kh)/(kh)")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2.2: the slope in any direction (2 points)
#
# The partial derivatives are slopes along the axes. Walk from `point` in some other
# direction instead, a distance $t$ along the unit vector $u$ of `direction`: the
# function along that line is $t \mapsto fn(\text{point} + t\,u)$, and its slope at
# $t = 0$ is the rate at which `fn` changes per unit of distance in that direction.
# Write `slope_along(fn, point, direction)` that returns it, from the gradient alone:
# one `backward()` call (the `gradient` helper above makes one), no nudging of the
# inputs, torch switched off. `direction` is a list of floats of any nonzero length,
# one per input.
#
# The check compares with torch's derivative of $fn(\text{point} + t\,u)$ in $t$, at
# points, directions and numbers of inputs you do not see. Then, in a cell of your
# own: which direction gives the largest slope at $(2, 4)$ for $L$, and what is that
# slope? Which direction gives $0$, and what does the contour plot of section 3 show
# there?
#
# <details><summary>Hint</summary>
#
# A step of length $t$ along $u$ is the step $s = t\,u$. What does section 4 predict
# for the change of `fn` over a small step $s$? Per unit of $t$, that is the slope.
# `direction` need not have length 1.
# </details>

# %% solution=ex02-slope-along
def slope_along(fn, point, direction):
    """The rate of change of fn at point, per unit distance along direction."""
    ### BEGIN SOLUTION
    g = gradient(fn, *point)
    length = sum(d * d for d in direction) ** 0.5
    return sum(gi * d for gi, d in zip(g, direction, strict=True)) / length
    ### END SOLUTION

# %% test=ex02-slope-along-test points=2
import math

import torch

from minigrad.course.grading import graded

with graded("Exercise 2.2", hint="take the gradient with one backward() and its dot "
            "product with the unit vector of direction") as g:
    def torch_slope_along(fn, point, direction):
        u = torch.tensor(direction, dtype=torch.float64)
        t = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
        fn(*(torch.tensor(point, dtype=torch.float64) + t * u / torch.linalg.vector_norm(u))
           ).backward()
        return t.grad.item()

    def slope_mistakes(fn, point, d):
        """What the common mistakes give here, from torch's gradient."""
        t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        fn(*t).backward()
        gv, dv = t.grad.tolist(), [float(di) for di in d]
        dot = sum(gi * di for gi, di in zip(gv, dv, strict=True))
        glen, dlen = math.fsum(gi * gi for gi in gv) ** 0.5, math.fsum(di * di for di in dv) ** 0.5
        return {
            "direction-not-unit": ("your slope doubles when the direction vector doubles: "
                                   "should the slope along a line depend on how long the "
                                   "vector naming it is?", dot),
            "cosine": ("your slope stays between -1 and 1: what does the size of the "
                       "gradient do to the slope?", lambda: dot / (glen * dlen)),
            "steepest-slope": ("your slope is the steepest one, whatever the direction: "
                               "where does the direction enter?", glen),
            "sum-of-entries": ("your slope is divided by the wrong length of the direction: "
                               "how long is a vector?", lambda: dot / math.fsum(map(abs, dv))),
            "signs-only": ("your slope uses only the signs of the direction's entries: what "
                           "about their sizes?",
                           sum(gi if di > 0 else -gi for gi, di in zip(gv, dv, strict=True))),
            "first-two-only": ("your slope sees only two coordinates: what about the "
                               "others?", lambda: (gv[0] * dv[0] + gv[1] * dv[1])
                               / math.hypot(dv[0], dv[1])),
            "first-axis": ("your slope is the first partial whatever the direction: where "
                           "does the direction enter?", gv[0]),
        }

    def check_slope(fn, point, direction, name, mistakes=None):
        before = g.calls.get("minigrad.Value.backward", 0)
        got = g.call(slope_along, fn, list(point), list(direction), forbid="torch.autograd",
                     count="minigrad.Value.backward")
        g.require(f"one backward() for {name}",
                  g.calls["minigrad.Value.backward"] == before + 1,
                  "get the gradient from minigrad.Value with one backward() call")
        g.check(f"slope_along({name}, {point}, {direction})", got,
                torch_slope_along(fn, point, direction), rtol=1e-12, atol=1e-14,
                against="torch: d/dt fn(point + t u)",
                mistakes=slope_mistakes(fn, point, direction) | (mistakes or {}))

    check_slope(lambda x, y: x ** 2 + 3 * y, [2.0, 4.0], [3.0, 4.0], "x**2 + 3y")
    check_slope(lambda x, y, z: x * y + (z * y).tanh() - z ** 2, [0.5, -1.0, 1.5],
                [1.0, -2.0, 2.0], "3 inputs")
    ### BEGIN HIDDEN TESTS
    check_slope(lambda x, y: x ** 2 + 3 * y, [2.0, 4.0], [-3.0, 4.0], "x**2 + 3y",
                {"visible-slope": ("your slope is the visible example's, along another "
                                   "direction: where does the direction enter?", 4.8)})
    check_slope(lambda x, y: x ** 2 + 3 * y, [2.0, 4.0], [8.0, 6.0], "x**2 + 3y")
    check_slope(lambda x, y: x ** 2 + 3 * y, [-1.5, 0.5], [1e-3, -2e-3], "x**2 + 3y")
    check_slope(lambda a, b, c, d, e: a * b - c * d + e ** 3 + (a * e).exp(),
                [0.3, -1.2, 2.0, 0.7, -0.4], [1.0, 0.5, -2.0, 0.0, 3.0], "5 inputs")
    check_slope(lambda x: x.tanh() * -3, [0.4], [-2.5], "-3 tanh(x)")
    check_slope(lambda x, y, z: (x * x + y * y + z * z) ** 0.5, [3.0, -4.0, 12.0],
                [0.0, 1.0, 0.0], "|(x, y, z)|")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 2.3: steepest descent (1 point)
#
# Write `descent_direction(fn, point)` that returns the unit vector (a list of floats
# whose Euclidean length is 1) pointing *downhill* fastest from `point`: minus the
# gradient, divided by its length. `fn` may have any number of inputs, one per
# coordinate of `point`. Get the gradient from `minigrad.Value` with one `backward()`
# call (the `gradient` helper above does that); torch is switched off. Where the
# gradient is zero, at a *stationary point* (the bottom of a bowl, the top of a hill, a
# saddle), no direction goes downhill fastest to first order: return a list of zeros
# there, one per coordinate.
#
# <details><summary>Hint</summary>
#
# The Euclidean length of a vector is the square root of the sum of the squares of all
# its components, however many there are. Downhill is the opposite of the gradient.
# What is that length at a stationary point, and what would dividing by it do?
# </details>

# %% solution=ex02-descent
def descent_direction(fn, point):
    """The unit vector along minus the gradient of fn at point (zeros where it is 0)."""
    ### BEGIN SOLUTION
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    if length == 0:
        return [0.0] * len(g)
    return [-gi / length for gi in g]
    ### END SOLUTION

# %% test=ex02-descent-test points=1
import math

import numpy as np
import torch

from minigrad.course.grading import graded

with graded("Exercise 2.3", hint="take minus the gradient and divide each component by "
            "the Euclidean length of the whole gradient; where that length is 0, zeros") as g:
    def torch_descent(fn, point):
        """Another route: the gradient of the length |v| is v / |v| (torch gives 0 at
        v = 0), so minus it, taken at v = torch's gradient of fn, points downhill."""
        t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        (v,) = torch.autograd.grad(fn(*t), t)
        v.requires_grad_()
        (unit,) = torch.autograd.grad(torch.linalg.vector_norm(v), v)
        return (-unit).tolist()

    def descent_mistakes(fn, point):
        """What the common mistakes give here, from torch's gradient."""
        t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        fn(*t).backward()
        gv = t.grad.numpy()
        length = np.linalg.norm(gv)
        if not length:  # a stationary point
            return {"nan-at-stationary": ("you return NaN where the gradient is zero: what "
                                          "is the way down from a point where nothing "
                                          "changes?", np.full_like(gv, np.nan))}
        return {
            "uphill": ("your direction points uphill: which way does the gradient point?",
                       lambda: gv / length),
            "not-unit": ("your direction is not of length 1: what do you divide by?", -gv),
            "sum-of-abs": ("your direction is divided by the wrong length: how long is a "
                           "vector?", lambda: -gv / np.abs(gv).sum()),
            "first-two-length": ("your direction's length counts only two coordinates: what "
                                 "about the others?", lambda: -gv / math.hypot(gv[0], gv[1])),
            "zero-first-partial": ("you return no direction where the gradient is not zero: "
                                   "when is a point stationary?", np.zeros_like(gv)),
        }

    def check_direction(fn, point, name):
        before = g.calls.get("minigrad.Value.backward", 0)
        got = g.call(descent_direction, fn, list(point), forbid="torch.autograd",
                     count="minigrad.Value.backward", mistakes={
                         "zero-length": ("your code divides by zero at a point where the "
                                         "gradient is zero: what is the way down there?",
                                         ZeroDivisionError)})
        g.require(f"one backward() for {name}",
                  g.calls["minigrad.Value.backward"] == before + 1,
                  "get the gradient from minigrad.Value with one backward() call")
        g.require(f"descent_direction({name}) gives one number per coordinate",
                  type(got) in (list, tuple, np.ndarray) and np.shape(got) == (len(point),),
                  "return a list of floats, one per coordinate, at every point", mistakes={
                      "none-at-stationary": ("you return None where the gradient is zero: "
                                             "what is the way down from a point where "
                                             "nothing changes?", got is None),
                      "two-components": ("your direction has two components for more "
                                         "inputs: what about the others?",
                                         np.shape(got) == (2,) and len(point) > 2)})
        reference = torch_descent(fn, point)
        g.check(f"descent_direction({name}, {point})", got, reference,
                against="torch" if any(reference) else "zeros at a stationary point",
                mistakes=descent_mistakes(fn, point))
        if any(reference):
            g.check(f"length of descent_direction({name})", np.linalg.norm(got), 1.0,
                    rtol=1e-12, against="unit length")

    check_direction(lambda x, y: x ** 2 + 3 * y, [2.0, 4.0], "x**2 + 3y")
    check_direction(lambda x, y, z: x * y + (z * y).tanh() - z ** 2, [0.5, -1.0, 1.5],
                    "3 inputs")
    check_direction(lambda x, y: (x - 1) ** 2 + y ** 2, [1.0, 0.0], "(x - 1)**2 + y**2")
    ### BEGIN HIDDEN TESTS
    check_direction(lambda a, b, c, d, e: a * b - c * d + e ** 3 + (a * e).exp(),
                    [0.3, -1.2, 2.0, 0.7, -0.4], "5 inputs")
    check_direction(lambda x, y, z: (x * x + y * y + z * z) ** 0.5, [3.0, -4.0, 12.0],
                    "|(x, y, z)|")
    check_direction(lambda x: (x - 1) ** 2, [-2.0], "(x - 1)**2")
    check_direction(lambda x: x.tanh() * -3, [0.4], "-3 tanh(x)")
    check_direction(lambda x, y: y ** 2 - x * 5, [1.0, -0.25], "y**2 - 5x")
    # Stationary points: a saddle, a hilltop, one input, three inputs; and a point where
    # only the first partial is zero.
    check_direction(lambda x, y: x * y, [0.0, 0.0], "x * y")
    check_direction(lambda x, y: -(x * x) - y * y * 2, [0.0, 0.0], "-x**2 - 2y**2")
    check_direction(lambda x: x * x - 2 * x, [1.0], "x**2 - 2x")
    check_direction(lambda x, y, z: (x - y) ** 2 + (z + 1) ** 2, [0.5, 0.5, -1.0],
                    "(x - y)**2 + (z + 1)**2")
    check_direction(lambda x, y: x * x + y, [0.0, 2.0], "x**2 + y")
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on the chapter's idea. Guess first, then run the cell.
#
# **1.** On the bowl $B = x^2 + 2y^2$, stand at $(1, 1)$. Does the steepest way down,
# $-\nabla B$, point straight at the minimum $(0, 0)$?

# %%
g = np.array(gradient(bowl, 1.0, 1.0))
to_minimum = np.array([-1.0, -1.0])
angle = np.degrees(np.arccos(-g @ to_minimum / np.linalg.norm(g) / np.linalg.norm(to_minimum)))
print(f"-grad B = {-g}, towards the minimum: {to_minimum}, angle between: {angle:.1f} degrees")
check("gradient of B at (1, 1)", g, gradient_from_torch(bowl, 1.0, 1.0), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No: $-\nabla B = (-2, -4)$ leans towards $y$, where the bowl is twice as steep, and
# misses the direction to the bottom by $18.4°$. Steepest descent is *local*; that is why
# the walk of section 3 bends.
# </details>
#
# **2.** $f(x, y) = xy$ has gradient $(y, x)$, so $(0, 0)$ at the origin. Is the origin
# a minimum of $f$?

# %%
def saddle(x, y):
    return x * y


print(f"f(0.1, 0.1) = {saddle(0.1, 0.1):.2f}   f(0.1, -0.1) = {saddle(0.1, -0.1):.2f}")
check("gradient of xy at (0, 0)", gradient(saddle, 0.0, 0.0),
      gradient_from_torch(saddle, 0.0, 0.0), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No: $f$ goes up along $y = x$ and down along $y = -x$. A zero gradient only says that
# no direction changes $f$ *to first order*: the point can be a minimum, a maximum or,
# here, a saddle.
# </details>
#
# **3.** Give the neuron of section 2 a bias of $10$ instead of $6.88$. Its output moves
# from $0.71$ towards $1$. Does $\frac{\partial o}{\partial w_1}$ stay near $1$, grow, or
# shrink?

# %%
w1, w2, b = minigrad.Value(-3.0), minigrad.Value(1.0), minigrad.Value(10.0)
o = (w1 * x1 + w2 * x2 + b).tanh()
o.backward()
w1t = torch.tensor(-3.0, dtype=torch.float64, requires_grad=True)
w2t = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
bt = torch.tensor(10.0, dtype=torch.float64, requires_grad=True)
torch.tanh(w1t * x1 + w2t * x2 + bt).backward()
print(f"o = {o.data:.4f}   do/dw1 = {w1.grad:.5f}")
check("do/dw1 with b = 10", w1.grad, w1t.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# It shrinks to $0.0027$: the sum is now $4$, where $\tanh$ is nearly flat, and its
# slope $1 - \tanh^2(4) = 0.0013$ multiplies every change ($x_1 \cdot 0.0013$). A
# *saturated* neuron barely learns, whatever its inputs.
# </details>
#
# ## Summary
#
# - A partial derivative is the derivative in one input with every other input held
#   fixed. For $L = x^2 + 3y$ at $(2, 4)$ the partials are $4$ and $3$.
# - The gradient is the vector of all partial derivatives. One `backward()` call fills
#   the `grad` of every input, in PyTorch and in `minigrad.Value` alike.
# - A partial derivative is the slope of a slice: the function along one input with
#   the others held fixed. For $g = xy$ the slope in $x$ is $y$ (the spreadsheet's $-4$).
# - Drawn as a field, the gradient points uphill and crosses the contour lines at right
#   angles; its dot product with a small step predicts the change of the function, with
#   a gap that shrinks like the square of the step.
# - For small steps, stepping against the gradient is the fastest way down: the idea
#   behind training. On a bowl, repeated steps against the gradient walk to the bottom.
# - The running neuron $\tanh(w_1 x_1 + w_2 x_2 + b)$ has gradient $(1, 0, 0.5)$ with
#   respect to $(w_1, w_2, b)$ at the lecture's numbers; chapter 03 explains it.
#
# Next: [03 The chain rule](03_chain_rule.ipynb): how `backward()` finds these numbers
# for a function built from many small steps.
