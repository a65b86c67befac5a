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
# The figure below shows secants for shrinking $h$ turning into the tangent.
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
# digits. The reference, `torch_slope(f, 3.0)`, is torch's derivative of `f` at $3$ in
# float64, computed as section 4 shows (`requires_grad`, then `backward()`).

# %%
check("numeric slope at 3", numeric_slope(f, 3.0, 1e-6), torch_slope(f, 3.0), atol=1e-5,
      brief=True)

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
check("local derivative stored in y1 = x1**2", local, torch_slope(f, 3.0), brief=True)

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
check("Value_v1: d(x**2)/dx at 3", x1.grad, torch_slope(f, 3.0), brief=True)

# %% [markdown]
# It also handles sums and products, including an input used twice: each path from
# $y$ to $x$ contributes, and the contributions add up. For $y = x \cdot x + 2x$ at
# $x = 3$ the derivative is $2x + 2 = 8$.

# %%
def g(x):
    return x * x + 2 * x


x1 = Value_v1(3.0)
backward_v1(g(x1))
check("Value_v1: d(x*x + 2x)/dx at 3", x1.grad, torch_slope(g, 3.0), brief=True)

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
# never disagree with the code. `Value(data, label, _prev, _op, _local_grads)` takes the
# output's number, an optional label for drawings (`""`: none), the parents (what
# `Value_v1` called `parents` is `_prev` here, the name micrograd uses), the op's name,
# and the function `_mul_local` that computes the local derivatives. `_lift` wraps a
# plain number in a `Value`, as `Value_v1.__mul__`'s first line does.

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
check("(a * b).local_grads()", y.local_grads(), [at.grad, bt.grad], brief=True)

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
check("x.grad (y = x**2 at 3)", x.grad, xt.grad, brief=True)

# %% [markdown]
# And the same `g` as above, whose derivative at 3 is 8, now with the package:

# %%
x = minigrad.Value(3.0)
g(x).backward()
check("x.grad (y = x*x + 2x at 3)", x.grad, torch_slope(g, 3.0), brief=True)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 1.1: division for `Value_v1` (3 points)
#
# `Value_v1` knows `+`, `*` and `**`. Teach it division: write `div_v1(a, b)` that
# returns a *new* `Value_v1` for $a / b$, whose `parents` are `a` and `b` (in that
# order), each paired with the local derivative of $a / b$ with respect to it, worked
# out by you. Either argument may be a plain number: wrap it in a `Value_v1` first, as
# `__add__` does.
#
# The check builds expressions with your `div_v1` and the draft's own `+`, `*` and
# `**`, sends the derivative back through them as `backward_v1` does, and compares
# with torch, at points you do not see. Autograd (torch's and `minigrad`'s) and
# `minigrad.Value` are switched off while your code runs: the local derivatives must
# come from your own formulas.
#
# <details><summary>Hint</summary>
#
# One input at a time, the other held fixed. With $b$ fixed, $a / b$ is $a$ times a
# constant. With $a$ fixed, $a / b$ is a constant times a power of $b$, and section 5
# gives the local derivative of a power. Check your two numbers at $a = 3$, $b = -2$
# against a numeric slope before you run the check.
# </details>

# %% solution=ex01-value-div
def div_v1(a, b):
    """a / b as a Value_v1 that records both parents with their local derivatives."""
    ### BEGIN SOLUTION
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, -a.data / b.data ** 2)))
    ### END SOLUTION

# %% test=ex01-value-div-test points=3
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 1.1", hint="hold one input fixed at a time; the local derivative "
            "for b depends on both a and b") as g:
    off = ["autograd", minigrad.Value.__init__]

    def div_node(a, b):
        """div_v1(a, b): its data, whether its parents are a and b, their locals."""
        out = div_v1(a, b)
        parents = [parent for parent, _ in out.parents]
        same = len(parents) == 2 and parents[0] is a and parents[1] is b
        return [type(out).__name__, out.data, len(parents), same,
                [local for _, local in out.parents]]

    def torch_div(a, b):
        at = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        bt = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        out = at / bt
        return out.item(), [d.item() for d in torch.autograd.grad(out, (at, bt))]

    def local_mistakes(a0, b0, which, grads):
        """The locals the common mistakes give at (a0, b0): named when a check fails."""
        other = grads[1] if which == "a" else grads[0]
        mistakes = {
            "swapped-locals": ("your local derivative for a is the one that belongs to b: "
                               "which input is held fixed in each?", other),
            "product-locals": ("your local derivatives are those of a * b: with b fixed, "
                               "how much does a / b move when a moves by 1?",
                               b0 if which == "a" else a0)}
        if which == "b":
            mistakes |= {
                "sign-of-b-local": ("your local derivative for b has the right size and the "
                                    "wrong sign: when b grows (a, b > 0), does a / b grow?",
                                    -grads[1]),
                "b-local-without-a": ("your local derivative for b does not change with a: "
                                      "double a with b fixed; what happens to a / b's "
                                      "slope in b?", -1 / b0 ** 2),
                "b-local-ignores-a": ("your local derivative for b does not change with a, "
                                      "and its power of b is off: write a / b as a times a "
                                      "power of b first", -1 / b0)}
        return mistakes

    def check_node(a0, b0):
        name, data, count, same, locals_ = g.call(div_node, Value_v1(a0), Value_v1(b0),
                                                  forbid=off)
        g.require(f"div_v1({a0}, {b0}) is one new Value_v1 with parents a and b",
                  name == "Value_v1" and count == 2 and same,
                  "return Value_v1(..., ((a, ...), (b, ...))): one node, a and b as its "
                  "two parents, in that order", mistakes={
                      "one-parent": ("your node has one parent: does a change of b reach "
                                     "a / b?", name == "Value_v1" and count == 1)})
        value, grads = torch_div(a0, b0)
        g.check(f"div_v1({a0}, {b0}).data", data, value, rtol=1e-15)
        for name, local, grad in zip(("a", "b"), locals_, grads, strict=True):
            g.check(f"local derivative of {a0} / {b0} for {name}", local, grad, rtol=1e-12,
                    atol=1e-15, mistakes=local_mistakes(a0, b0, name, grads))

    def send_back(value, d=1.0):
        """backward_v1's walk, the test's own copy."""
        value.grad += d
        for parent, local in value.parents:
            send_back(parent, local * d)

    def grads_through(fn, *point):
        """fn built from Value_v1s at point, then the derivative sent back: the grads."""
        leaves = [Value_v1(p) for p in point]
        send_back(fn(*leaves))
        return [leaf.grad for leaf in leaves]

    div_node.__name__ = grads_through.__name__ = "div_v1"  # a failure names your function

    def torch_grads(fn, *point):
        leaves = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
        fn(*leaves).backward()
        return [leaf.grad.item() for leaf in leaves]

    def check_graph(name, with_div, with_torch, *point, number=False):
        got = g.call(grads_through, with_div, *point, forbid=off, mistakes={
            "number-not-wrapped": ("your div_v1 fails when one side is a plain number, "
                                   "which has no .data: what does __add__ do with one?",
                                   AttributeError)} if number else None)
        for leaf, p, grad, grad_t in zip("xy", point, got, torch_grads(with_torch, *point),
                                         strict=False):
            g.check(f"{name}: {leaf}.grad at {leaf} = {p}", grad, grad_t, rtol=1e-12,
                    atol=1e-15)

    check_node(3.0, -2.0)
    check_graph("(x*x + 1) / (x + 2)", lambda x: div_v1(x * x + 1, x + 2),
                lambda x: (x * x + 1) / (x + 2), 1.5)
    ### BEGIN HIDDEN TESTS
    for a0, b0 in [(-1.25, 0.5), (7.0, 3.0), (0.0, -4.0), (2.5, 1e-3), (-6.0, -0.75)]:
        check_node(a0, b0)
    check_graph("1 / x (a number on top)", lambda x: div_v1(1.0, x),
                lambda x: 1.0 / x, -0.8, number=True)
    check_graph("x / 4 (a number below)", lambda x: div_v1(x, 4), lambda x: x / 4, 2.2,
                number=True)
    check_graph("x / x", lambda x: div_v1(x, x), lambda x: x / x, 1.7)
    check_graph("(x / y) / (x + y)", lambda x, y: div_v1(div_v1(x, y), x + y),
                lambda x, y: (x / y) / (x + y), 0.6, -1.9)
    check_graph("x**3 / (y * x)", lambda x, y: div_v1(x ** 3, y * x),
                lambda x, y: x ** 3 / (y * x), -1.3, 2.4)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 1.2: how fast does the error shrink? (2 points)
#
# Section 2's slope leans to one side of $x$. The *central* slope looks both ways:

# %%
def central_slope(f, x, h):
    """The slope of the secant through (x - h, f(x - h)) and (x + h, f(x + h))."""
    return (f(x + h) - f(x - h)) / (2 * h)


print("x**2 at 3, h = 0.1:  one-sided", numeric_slope(f, 3.0, 0.1), " central",
      central_slope(f, 3.0, 0.1))
check("central slope of x**2 at 3, h = 0.1", central_slope(f, 3.0, 0.1), torch_slope(f, 3.0),
      rtol=1e-12, brief=True)

# %% [markdown]
# On the parabola the central slope is exact already at $h = 0.1$; on other functions
# it is not. Both approach the derivative as $h$ shrinks, but not equally fast. When
# the error of a slope behaves like $C h^p$ for small $h$, $p$ is its *order*: the
# larger $p$, the faster a smaller step pays off. Write `error_order(slope, f, df, x, h)` that
# *measures* $p$: `slope(f, x, h)` is a numeric slope such as `numeric_slope` or
# `central_slope`, and `df` is the exact derivative of `f` (a function). Compute the
# error of `slope` at the step `h` and at the step `h / 10`, and return the order $p$
# that this pair of errors gives, as a float. What does a ten times smaller step do to
# $C h^p$?
#
# The check measures slopes of its own on functions you do not see, where the error is
# not exactly a power of $h$, and compares with the order worked out from the exact
# errors; autograd is switched off (use `df`). Then, in a cell of your own, measure
# both slopes above on $x^3$ at $x = 1$ for $h = 0.1$, $10^{-3}$ and $10^{-6}$: which
# is better, by how much, and what happens at $10^{-6}$ (section 2's widget)?
#
# <details><summary>Hint</summary>
#
# Write the two errors as $C h^p$ and $C (h/10)^p$ and divide one by the other: $C$
# goes away, and one logarithm gets $p$ out of the exponent. Use the size of each error
# (its absolute value).
# </details>

# %% solution=ex01-error-order
def error_order(slope, f, df, x, h):
    """The order p of slope's error C h**p at x, measured at the steps h and h / 10."""
    ### BEGIN SOLUTION
    big = abs(slope(f, x, h) - df(x))
    small = abs(slope(f, x, h / 10) - df(x))
    return float(np.log10(big / small))
    ### END SOLUTION

# %% test=ex01-error-order-test points=2
import math
from fractions import Fraction

from minigrad.course.grading import graded

with graded("Exercise 1.2", hint="measure |slope - df(x)| at h and at h / 10; if each "
            "is C times a power p of its step, the ratio of the two is a power of 10") as g:
    off = "autograd"

    def forward(f, x, h):
        return (f(x + h) - f(x)) / h

    def central(f, x, h):
        return (f(x + h) - f(x - h)) / (2 * h)

    def check_order(name, slope, f, df, x0, h, exact_error=None):
        """The order from the errors in exact arithmetic (fractions), or from a formula."""
        got = g.call(error_order, slope, f, df, x0, h, forbid=off)
        if exact_error is None:
            def exact_error(step):
                return slope(f, Fraction(x0), Fraction(step)) - df(Fraction(x0))
        order = math.log10(abs(exact_error(h) / exact_error(h / 10)))
        ratio = abs(exact_error(h) / exact_error(h / 10))
        mistakes = {  # what the common mistakes give here, named when the check fails
            "ratio-not-exponent": ("your order is the ratio of the two errors itself: if "
                                   "the ratio is 10**p, what is p?", ratio),
            "natural-log": ("your order is off by a factor of about 2.3: which logarithm "
                            "undoes a power of 10?", math.log(ratio)),
            "ratio-upside-down": ("your order has the right size and the wrong sign: which "
                                  "error is the bigger one?", -order),
            "step-ratio-2": ("your order is measured with steps a factor 2 apart: which "
                             "two steps does the exercise ask for?",
                             lambda: math.log10(abs(exact_error(h) / exact_error(h / 2)))),
            "steps-10h-and-h": ("your order is measured at steps ten times too big: which "
                                "two steps does the exercise ask for?",
                                lambda: math.log10(abs(exact_error(10 * h) / exact_error(h)))),
            "slope-not-error": ("your order compares the two slopes, not their errors: how "
                                "far is each slope from df(x)?",
                                lambda: math.log10(abs(slope(f, x0, h) / slope(f, x0, h / 10)))),
            "textbook-order": ("your order is the textbook's whole number, but these errors "
                               "are not exact powers of h: measure them",
                               {"forward": 1.0, "backward": 1.0, "central": 2.0,
                                "five_point": 4.0}.get(slope.__name__))}
        g.check(f"error_order({name}, x = {x0}, h = {h})", got, order, rtol=1e-8, atol=1e-9,
                against="exact errors", mistakes=mistakes)

    check_order("one-sided slope of x**2", forward, lambda x: x ** 2, lambda x: 2 * x, 3.0, 0.1)
    check_order("central slope of x**3", central, lambda x: x ** 3, lambda x: 3 * x ** 2,
                2.0, 0.5)
    check_order("one-sided slope of x**3", forward, lambda x: x ** 3, lambda x: 3 * x ** 2,
                1.0, 0.5)
    ### BEGIN HIDDEN TESTS
    def backward(f, x, h):
        return (f(x) - f(x - h)) / h

    def five_point(f, x, h):
        return (f(x - 2 * h) - 8 * f(x - h) + 8 * f(x + h) - f(x + 2 * h)) / (12 * h)

    check_order("one-sided slope of x**3", forward, lambda x: x ** 3, lambda x: 3 * x ** 2,
                -0.5, 0.3, lambda h: -1.5 * h + h ** 2)
    check_order("central slope of sin", central, math.sin, math.cos, 0.7, 0.25,
                lambda h: math.cos(0.7) * (math.sin(h) / h - 1))
    check_order("backward slope of exp", backward, math.exp, math.exp, 0.4, 0.2,
                lambda h: math.exp(0.4) * (-math.expm1(-h) / h - 1))
    check_order("five-point slope of exp", five_point, math.exp, math.exp, -0.3, 1.0,
                lambda h: math.exp(-0.3) * ((8 * math.sinh(h) - math.sinh(2 * h)) / (6 * h)
                                            - 1))
    check_order("central slope of x**4", central, lambda x: x ** 4, lambda x: 4 * x ** 3,
                1.5, 0.4, lambda h: 4 * 1.5 * h ** 2)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on the chapter's idea. Guess first, then run the cell.
#
# **1.** `y1 = x1 * x1` at $x_1 = 3$ is a product whose two parents are both `x1`, each
# with local derivative $3$. After `backward_v1(y1)`, is `x1.grad` $3$, $6$ or $9$?

# %%
x1 = Value_v1(3.0)
y1 = x1 * x1
backward_v1(y1)
print(x1.grad)
check("x1.grad for x1 * x1 at 3", x1.grad, torch_slope(lambda x: x * x, 3.0), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Two paths lead from `y1` to `x1`, one through each parent slot, and each brings
# $1 \cdot 3$; `x1` adds them: $3 + 3 = 6$, the derivative $2x$ of $x^2$.
# </details>
#
# **2.** Build the same `y1` afresh and call `backward_v1(y1)` twice. What is `x1.grad`
# after the second call?

# %%
x1 = Value_v1(3.0)
y1 = x1 * x1
backward_v1(y1)
backward_v1(y1)
print(x1.grad)
xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
yt = xt * xt
yt.backward(retain_graph=True)
yt.backward()
check("x1.grad after two backward passes", x1.grad, xt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $12$: each pass *adds* into `grad` (`value.grad += d`), and nothing resets it. Torch
# does the same with `.grad`: chapter 08 is about this accumulation and `zero_grad()`.
# </details>
#
# **3.** $f(x) = x^3 - 3x$ is $0$ at $x = 0$ and $-2$ at $x = 1$. Where is its slope
# $0$: at $x = 0$, at $x = 1$, or nowhere?

# %%
def cubic(x):
    return x ** 3 - 3 * x


slopes = {}
for x0 in [0.0, 1.0]:
    x = minigrad.Value(x0)
    cubic(x).backward()
    print(f"x = {x0}: f(x) = {cubic(x0):g}, slope = {x.grad:g}")
    slopes[f"slope at {x0}"] = (x.grad, torch_slope(cubic, x0))
check_all(slopes, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# At $x = 1$: the slope $3x^2 - 3$ is $0$ there, at the bottom of a dip, while at
# $x = 0$ the curve crosses zero going down with slope $-3$. The derivative says how
# the value *changes*, not how big it is.
# </details>
#
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
