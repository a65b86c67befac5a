# %% [markdown]
# # 01 Derivatives
#
# Training a network means nudging each parameter in the direction that lowers the
# loss, and the derivative is what tells us that direction. This chapter starts from
# one number: how fast does $y = x^2$ change at $x = 3$? We measure it by hand,
# watch the measurement approach the exact answer, see it as the slope of a tangent
# line, and then build the first version of `minigrad.Value`, a number that can
# compute its own derivative. Every result is checked against PyTorch in the cell
# that computes it.
#
# The examples come from the course's reference tutorial (see
# [Sources](../book/sources.md)), a short text on how PyTorch computes gradients;
# chapters 01 to 08 follow its examples, with the same numbers, chapter by chapter.
#
# **Learning goals.** After this chapter you can
#
# 1. say what a derivative measures, as a local rate of change;
# 2. estimate a derivative numerically and explain why the estimate improves as the
#    step shrinks;
# 3. read a derivative as the slope of the tangent line;
# 4. get a derivative from PyTorch with `requires_grad` and `backward()`;
# 5. build a `Value` that records `+`, `*` and `**` and computes derivatives itself.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

import minigrad
from minigrad import check, check_all, show_source
from minigrad.course.widgets.explorers import EXAMPLES, tangent_explorer, torch_slope
from minigrad.course.widgets.secant import secant_widget

# %% [markdown]
# ## 1. The derivative is a local rate of change
#
# For a function $f$ of one number, the derivative at $x$ is
#
# $$f'(x) = \lim_{h \to 0} \frac{f(x + h) - f(x)}{h}.$$
#
# It answers: if $x$ moves a little, by how many times that little does $f(x)$ move?
# For $y = x^2$ the rules of calculus give $\frac{dy}{dx} = 2x$, so at $x = 3$ the
# derivative is $6$: a small increase of $x$ increases $y$ by about six times as much.
# Let us see that with a step of $0.01$.

# %%
def f(x):
    return x ** 2


h = 0.01
change_in_y = f(3.0 + h) - f(3.0)
check("f(3.01) - f(3) vs 6h", change_in_y, 6 * h, atol=1e-3, against="formula")

# %% [markdown]
# The reference here is the formula $6h$, not torch: the derivative's prediction. The
# two differ by $0.0001 = h^2$, because $(3 + h)^2 - 3^2 = 6h + h^2$ exactly, and the
# straight line of slope $6$ does not capture the $h^2$ part:

# %%
check("f(3.01) - f(3) vs 6h + h**2", change_in_y, 6 * h + h ** 2, rtol=1e-12,
      against="formula")

# %% [markdown]
# *Local* matters: zoom in on the curve around $x = 3$ and it looks more and more like
# a straight line of slope $6$.

# %%
fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
for ax, width in zip(axes, [3.0, 0.5, 0.05], strict=True):
    xs = np.linspace(3 - width, 3 + width, 200)
    ax.plot(xs, f(xs), label="$y = x^2$")
    ax.plot(xs, 9 + 6 * (xs - 3), "--", label="slope 6 through (3, 9)")
    ax.set_title(f"x in [{3 - width:g}, {3 + width:g}]")
    ax.set_xlabel("x")
axes[0].legend()
fig.tight_layout()
plt.show()

# %% [markdown]
# ## 2. The numeric slope
#
# Take the definition literally and stop before the limit: pick a small $h$ and
# compute the slope of the secant line through $(x, f(x))$ and $(x + h, f(x + h))$.
# The figure below, made by `scripts/make_figures.py`, shows secants for shrinking
# $h$ turning into the tangent.
#
# ![secants approaching the tangent of y = x^2 at x = 3](../figures/secants_to_tangent.png)

# %%
def numeric_slope(f, x, h):
    """The slope of the secant through (x, f(x)) and (x + h, f(x + h))."""
    return (f(x + h) - f(x)) / h


for h in [1.0, 0.1, 0.01, 0.001, 1e-6]:
    print(f"h = {h:<6g}  slope = {numeric_slope(f, 3.0, h):.9f}")

# %% [markdown]
# For $x^2$ the secant slope is $\frac{(3 + h)^2 - 9}{h} = 6 + h$ in exact arithmetic,
# so the error shrinks in step with $h$. The computer's arithmetic is not exact: the
# trailing digits of `6.000001001` at $h = 10^{-6}$ are rounding (chapter 11 explains
# them). Still, at $h = 10^{-6}$ the estimate agrees with torch's derivative to about six
# digits.

# %%
check("numeric slope at 3", numeric_slope(f, 3.0, 1e-6), torch_slope(f, 3.0), atol=1e-5)

# %% [markdown]
# Move the slider to shrink $h$ one factor of ten at a time, from $1$ down to
# $10^{-12}$. The readout shows the secant slope, torch's derivative and the error; the
# right-hand plot shows the error for every $h$. Down to about $h = 10^{-7}$ the error
# is $h$, as the formula says. The smallest error is near $h = 10^{-8}$ (in the plot, at
# $3 \cdot 10^{-8}$); below that it grows again: $f(x + h) - f(x)$ subtracts two nearly
# equal numbers, and rounding eats its digits. Chapter 11 measures that trade-off; here,
# note only that smaller is not always better. (The widget needs a live kernel: run the
# notebook to use it.)

# %% tags=nbval-ignore-output
secant_widget(f, x=3.0, label="y = x**2")

# %% [markdown]
# The same in numbers: the error divided by $h$ is $1$ (the formula's $6 + h$) down to
# $h = 10^{-7}$, where rounding already takes a tenth of it; at $h = 10^{-8}$ the error
# is smaller still, but it is mostly rounding, no longer $h$; from $10^{-9}$ on it
# grows.

# %%
for h in [1e-5, 1e-6, 1e-7, 1e-8, 1e-9]:
    error = numeric_slope(f, 3.0, h) - torch_slope(f, 3.0)
    print(f"h = {h:.0e}  error = {error:9.2e}  error / h = {error / h:6.2f}")
check_all({f"error / h at h = {h:g}": ((numeric_slope(f, 3.0, h) - torch_slope(f, 3.0)) / h, 1.0)
           for h in [1e-6, 1e-7]}, atol=0.15, against="formula")

# %% [markdown]
# ## 3. The tangent line, explored
#
# The derivative is the slope of the tangent line: the line that touches the curve at
# $x$ and has the curve's direction there. Move the slider: the readout shows the
# slope that `minigrad` computes, the numeric slope, and torch's, side by side. The
# menu switches to two more functions. Where is the slope of $x^3 - 3x$ zero? Where is
# it negative? Where is $\tanh$ steepest, and what happens to its slope far from $0$?
# (The widget needs a live kernel: run the notebook to use it.)

# %% tags=nbval-ignore-output
tangent_explorer(f, x=3.0, label="y = x**2", others=EXAMPLES)

# %% [markdown]
# ## 4. Asking PyTorch
#
# PyTorch computes derivatives for us. Mark the input with `requires_grad=True`, build
# $y$ from it, and call `backward()`: the derivative lands in `x.grad`.

# %%
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()
print(x.grad)  # tensor(6.)

# %% [markdown]
# How can torch know the derivative? While computing `y = x ** 2` it *recorded* the
# operation, and every operation knows its own local derivative. That is all we need
# to build the same thing ourselves.
#
# ## 5. A number that knows its derivative: `Value_v1`
#
# A first draft, in three steps: record, then send back, then count the cost.
#
# **Record.** A `Value_v1` holds its `data` and a `grad`, and remembers which values it
# was made from (`parents`), each paired with the *local* derivative of the result with
# respect to that parent: for $a + b$ both are $1$, for $a \cdot b$ they are $b$ and
# $a$, for $a^k$ it is $k\,a^{k-1}$. This draft computes those numbers as it builds the
# result.

# %%
class Value_v1:
    def __init__(self, data, parents=()):
        self.data = data
        self.grad = 0.0
        self.parents = parents  # pairs (parent, local derivative)

    def __add__(self, other):
        other = other if isinstance(other, Value_v1) else Value_v1(other)
        return Value_v1(self.data + other.data, ((self, 1.0), (other, 1.0)))

    def __mul__(self, other):
        other = other if isinstance(other, Value_v1) else Value_v1(other)
        return Value_v1(self.data * other.data, ((self, other.data), (other, self.data)))

    def __pow__(self, k):
        return Value_v1(self.data ** k, ((self, k * self.data ** (k - 1)),))

    __radd__ = __add__
    __rmul__ = __mul__

    def __repr__(self):
        return f"Value_v1(data={self.data}, grad={self.grad})"


x1 = Value_v1(3.0)
y1 = x1 ** 2
parent, local = y1.parents[0]  # the only parent: x1
print(parent is x1, local)
check("local derivative stored in y1 = x1**2", local, torch_slope(f, 3.0))

# %% [markdown]
# `y1` knows it came from `x1`, and that $\frac{dy_1}{dx_1} = 6$ there.
#
# **Send back.** To get $\frac{dy}{dx}$ we start at $y$ with $\frac{dy}{dy} = 1$ and walk
# to the inputs. Each value passes on what it received, `d`, times the local derivative
# of each parent; a value used by several results receives something from each, and
# adds. This is the chain rule, the subject of chapter 03 (chapter 04 names `d` the
# *upstream* derivative). A first version is a function that calls itself on each parent;
# it returns how many calls it made, which we need below.

# %%
def backward_v1(value, d=1.0):
    """Add d into value.grad, then send d times each local derivative to that parent."""
    value.grad += d
    calls = 1
    for parent, local in value.parents:
        calls += backward_v1(parent, local * d)
    return calls


x1 = Value_v1(3.0)
y1 = x1 ** 2
backward_v1(y1)
check("Value_v1: d(x**2)/dx at 3", x1.grad, torch_slope(f, 3.0))

# %% [markdown]
# It also handles sums and products, including an input used twice: each path from
# $y$ to $x$ contributes, and the contributions add up. For $y = x \cdot x + 2x$ at
# $x = 3$ the derivative is $2x + 2 = 8$.

# %%
def g(x):
    return x * x + 2 * x


x1 = Value_v1(3.0)
backward_v1(g(x1))
check("Value_v1: d(x*x + 2x)/dx at 3", x1.grad, torch_slope(g, 3.0))

# %% [markdown]
# **Count the cost.** Sending the derivative down *every path* repeats work. Take
# $y = x$, then ten times $y \leftarrow y + y$: there are $2^{10}$ paths from the result
# back to $x$, and `backward_v1` walks each one.

# %%
x1 = Value_v1(1.0)
y1 = x1
for _ in range(10):
    y1 = y1 + y1
calls = backward_v1(y1)
check_all({"calls to backward_v1 vs 2**11 - 1": (calls, 2 ** 11 - 1, "formula"),
           "Value_v1: d(1024 x)/dx": (x1.grad, torch_slope(lambda x: 1024 * x, 1.0))})

# %% [markdown]
# The answer is right ($1024$) but it took 2047 calls for 11 values; 30 doublings
# would take two billion. The fix is to visit each value *once*, in an order where a
# value's gradient is complete before it is passed on: a topological order (chapter
# 03). The recursion has a second limit: Python refuses to recurse much deeper than a
# thousand calls (chapter 04).
#
# ## 6. The package's `Value`
#
# `minigrad.Value` is the finished version. Like `Value_v1` it records each operation's
# parents, but instead of the local derivatives themselves it stores a function that
# computes them when `backward()` asks (so building a result costs no derivative work
# that is never used); and `backward()` sorts the graph once and visits every value
# once, in reverse. Here is its `*`, shown from the package itself, so this page can
# never disagree with the code: the output, its parents, the op's name and the function
# `_mul_local`.

# %%
show_source(minigrad.Value.__mul__)

# %%
show_source(minigrad.value._mul_local)

# %% [markdown]
# `local_grads()` calls that function: for $y = a b$ at $a = 2$, $b = 5$ it gives
# $(b, a) = (5, 2)$, the same numbers torch sends to $a$ and $b$ when $y$ is the output.

# %%
a, b = minigrad.Value(2.0), minigrad.Value(5.0)
y = a * b
at = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
bt = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
(at * bt).backward()
check("(a * b).local_grads()", y.local_grads(), [at.grad, bt.grad])

# %% [markdown]
# The first example of the reference tutorial, with `torch` replaced by `minigrad`:

# %%
x = minigrad.Value(3.0)
y = x ** 2
y.backward()
print(x.grad)  # 6.0, as torch's tensor(6.)
xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
yt = xt ** 2
yt.backward()
check("x.grad (y = x**2 at 3)", x.grad, xt.grad)

# %% [markdown]
# And the same `g` as above, whose derivative at 3 is 8, now with the package:

# %%
x = minigrad.Value(3.0)
g(x).backward()
check("x.grad (y = x*x + 2x at 3)", x.grad, torch_slope(g, 3.0))

# %% [markdown]
# ## Exercises
#
# Each exercise has a cell for your code and a locked cell that checks it. Replace
# `raise NotImplementedError()` with your answer, run your cell, then run the check
# cell below it: it calls your code on inputs of its own, compares with torch, and
# shows a table, or one line saying what differs and a hint. When you hand the
# chapter in, the grader runs the same checks and a few more on inputs you have not
# seen, so an answer that only fits the examples here loses its points. The points of
# each exercise are in its heading.
#
# ### Exercise 1.1: the central slope (2 points)
#
# The secant slope leans to one side of $x$. The *central* slope looks both ways:
#
# $$\frac{f(x + h) - f(x - h)}{2h}.$$
#
# Write `central_slope(f, x, h=1e-4)` from values of `f` alone (no autograd: the check
# switches it off). For a parabola it is exact for any $h$, which the one-sided slope
# is not.
#
# <details><summary>Hint</summary>
#
# Two calls of `f`, one on each side of `x`, and the distance between the two points.
# </details>

# %% solution=ex01-central-slope
def central_slope(f, x, h=1e-4):
    """The slope of the secant through (x - h, f(x - h)) and (x + h, f(x + h))."""
    ### BEGIN SOLUTION
    return (f(x + h) - f(x - h)) / (2 * h)
    ### END SOLUTION

# %% test=ex01-central-slope-test points=2
from minigrad.course.grading import graded
from minigrad.course.widgets.explorers import torch_slope

with graded("Exercise 1.1", hint="divide f(x + h) - f(x - h) by the distance between "
            "the two points, and use the h you are given") as g:
    cube = lambda x: x ** 3  # noqa: E731
    got = g.call(central_slope, cube, 2.0, forbid="autograd")
    g.check("central_slope(x**3, 2)", got, torch_slope(cube, 2.0), rtol=1e-6)
    # A parabola: exact even with a large step (a one-sided slope is off by h).
    got = g.call(central_slope, lambda x: x ** 2, 3.0, h=0.5, forbid="autograd")
    g.check("central_slope(x**2, 3, h=0.5)", got, torch_slope(lambda x: x ** 2, 3.0),
            rtol=1e-12)
    ### BEGIN HIDDEN TESTS
    # The step must be the h given: for x**3 the central slope is 3x^2 + h^2 exactly.
    for x0, h in [(1.0, 0.1), (-0.5, 0.25)]:
        got = g.call(central_slope, cube, x0, h=h, forbid="autograd")
        g.check(f"central_slope(x**3, {x0}, h={h})", got, 3 * x0 ** 2 + h ** 2,
                rtol=1e-9, against="3x^2 + h^2")
    # The default step is 1e-4.
    got = g.call(central_slope, cube, 1.0, forbid="autograd")
    g.check("central_slope(x**3, 1) default h", got, 3 + 1e-8, rtol=1e-10, against="3 + h^2")
    inv = lambda x: 1 / x  # noqa: E731
    got = g.call(central_slope, inv, 0.5, forbid="autograd")
    g.check("central_slope(1/x, 0.5)", got, torch_slope(inv, 0.5), rtol=1e-6)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 1.2: a derivative from `minigrad.Value` (2 points)
#
# Let $p(x) = x^3 + 2x^2 + x$. Write `p_grad(x0)`: make `xp = minigrad.Value(x0)`,
# build $p$ from it with `+`, `*` and `**`, call `backward()` on the result, and return
# `xp`, whose `.grad` then holds $p'(x_0)$. The check calls it at several points,
# with torch switched off.
#
# <details><summary>Hint</summary>
#
# Build `p` from `xp` just as the section above built `g(x)` from a `Value`, then call
# `backward()` on `p`, not on `xp`.
# </details>

# %% solution=ex01-value-derivative
def p_grad(x0):
    """Return a minigrad.Value at x0 whose .grad is p'(x0), from one backward()."""
    ### BEGIN SOLUTION
    xp = minigrad.Value(x0)
    p = xp ** 3 + 2 * xp ** 2 + xp
    p.backward()
    return xp
    ### END SOLUTION

# %% test=ex01-value-derivative-test points=2
import minigrad
from minigrad.course.grading import graded
from minigrad.course.widgets.explorers import torch_slope

with graded("Exercise 1.2", hint="build p from the Value you return and call "
            "backward() on p once") as g:
    for x0 in [1.5, -1.0]:
        xp = g.call(p_grad, x0, forbid="torch.autograd", count="minigrad.Value.backward")
        g.require(f"p_grad({x0}) is a minigrad.Value at {x0}",
                  type(xp) is minigrad.Value and xp.data == x0,
                  f"return the Value you made, minigrad.Value({x0})")
        g.check(f"p_grad({x0}).grad", xp.grad,
                torch_slope(lambda x: x ** 3 + 2 * x ** 2 + x, x0))
    g.require("backward() called once per p_grad",
              g.calls["minigrad.Value.backward"] == 2, "call p.backward() once")
    ### BEGIN HIDDEN TESTS
    for point in [0.0, -2.25, 3.7]:
        xh = g.call(p_grad, point, count=["minigrad.Value.backward"],
                    forbid=["torch.autograd"])
        g.require(f"p_grad({point}) is a minigrad.Value",
                  type(xh) is minigrad.Value and xh.data == point, "return the Value you made")
        g.check(f"p_grad({point}).grad", xh.grad,
                torch_slope(lambda t: t ** 3 + 2 * t ** 2 + t, point))
    g.require("one backward() in each of the 5 calls",
              g.calls["minigrad.Value.backward"] == 5, "call p.backward() once")
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 1.3: the slope of a product (1 point)
#
# Let $q(x) = (x + 1)(x + 2)$. Write `q(x)` so that it works on a float, on a
# `minigrad.Value` and on a torch tensor, and `q_slope(x0)`, which returns $q'(x_0)$
# as a float computed with `minigrad.Value` and `backward()`. (Try $-1.5$: what does a
# slope of zero say about the curve there?)

# %% solution=ex01-product
def q(x):
    ### BEGIN SOLUTION
    return (x + 1) * (x + 2)
    ### END SOLUTION


def q_slope(x0):
    ### BEGIN SOLUTION
    xq = minigrad.Value(x0)
    q(xq).backward()
    return xq.grad
    ### END SOLUTION

# %% test=ex01-product-test points=1
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 1.3", hint="q multiplies (x + 1) by (x + 2); q_slope makes a "
            "minigrad.Value, calls backward() on q of it and returns its grad") as g:
    product = np.poly1d([-1.0, -2.0], r=True)  # the polynomial with roots -1 and -2
    got = g.call(q_slope, 0.5, forbid="torch.autograd", count="minigrad.Value.backward")
    g.check("q_slope(0.5)", got, product.deriv()(0.5), against="numpy poly1d")
    g.require("q_slope uses backward()", g.calls["minigrad.Value.backward"] == 1,
              "compute the slope with minigrad.Value and backward()")
    ### BEGIN HIDDEN TESTS
    for x0 in [-1.5, 2.25, -3.1]:
        got = g.call(q_slope, x0, forbid="torch.autograd")
        g.check(f"q_slope({x0})", got, product.deriv()(x0), against="numpy poly1d")
    for x0 in [-2.0, 0.0, 1.75]:
        g.check(f"q({x0})", g.call(q, x0), product(x0), against="numpy poly1d")
        got = g.call(q, torch.tensor(x0, dtype=torch.float64))
        g.check(f"q(tensor({x0}))", got, product(x0), against="numpy poly1d")
        got = g.call(lambda v: q(v).data, minigrad.Value(x0))
        g.check(f"q(Value({x0})).data", got, product(x0), against="numpy poly1d")
    ### END HIDDEN TESTS

# %% [markdown]
# ## Summary
#
# - The derivative $f'(x)$ is the local rate of change: how many times a small change
#   of $x$ shows up in $f(x)$. For $y = x^2$ at $x = 3$ it is $6$.
# - The numeric slope $(f(x + h) - f(x)) / h$ approaches it as $h$ shrinks; the
#   central slope gets there faster: its error shrinks like $h^2$ instead of $h$.
# - Geometrically, the derivative is the slope of the tangent line.
# - PyTorch records operations on tensors with `requires_grad=True` and fills
#   `x.grad` on `backward()`. `minigrad.Value` does the same for single numbers.
# - Each operation knows its local derivatives; `backward()` multiplies them along the
#   paths from the output and adds what arrives at each input.
# - Pushing derivatives down every path (our `backward_v1`) is right but repeats work;
#   chapter 03 visits each value once, in topological order.
#
# Next: [02 Gradients](02_gradients.ipynb), many inputs at once.
