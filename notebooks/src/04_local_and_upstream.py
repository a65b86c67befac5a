# %% [markdown]
# # 04 Local and upstream gradients
#
# Chapter 03 ran the chain rule over a whole graph. This chapter zooms in on one node.
# Every node does the same small job during the backward pass: it takes the gradient
# that arrives from above (the *upstream* gradient), multiplies it by its own *local*
# gradient for each input, and passes the products down. We step through a backward
# pass node by node, see why the products must be *added* into `grad` rather than
# stored, and run a graph far deeper than Python's recursion limit.
#
# **Learning goals.** After this chapter you can
#
# 1. name the local and the upstream gradient at any node, and multiply them;
# 2. give the local gradients of `+`, `*`, `**`, `exp`, `log`, `tanh`, `sigmoid`, `relu`;
# 3. follow a backward pass one node at a time, with the stepper;
# 4. explain why a node used twice needs `+=` in backward, and spot the bug without it;
# 5. backpropagate through a graph deeper than Python's recursion limit.

# %%
import sys
import warnings

import torch

import minigrad
from minigrad import (BackwardStepper, backward_order, check, check_all, draw_graph,
                      show_source, stepper_widget)
from minigrad.course.widgets.backward_quiz import backward_explorer
from minigrad.course.graph import node_names
from minigrad.course.widgets.stepper import step_text

# %% [markdown]
# ## 1. One node: local times upstream
#
# The example of the course's reference tutorial (see [Sources](../book/sources.md)):
# $z = (x + y)^2$ at $(x, y) = (2, 3)$. Call the
# sum $a = x + y$, so $z = a^2$ and $a = 5$.
#
# - The *local* gradient of $z = a^2$ with respect to its input $a$ is
#   $\frac{\partial z}{\partial a} = 2a = 10$.
# - The local gradients of $a = x + y$ are $\frac{\partial a}{\partial x} = 1$ and
#   $\frac{\partial a}{\partial y} = 1$.
# - The *upstream* gradient arriving at $a$ is $\frac{\partial z}{\partial a} = 10$:
#   how much the final output changes per unit change of $a$.
#
# The gradients passed to $x$ and $y$ are local times upstream: $1 \cdot 10 = 10$ each.
# PyTorch, from the reference tutorial:

# %%
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
a = x + y
z = a ** 2
z.backward()
print(x.grad)  # tensor(10.)
print(y.grad)  # tensor(10.)

# %% [markdown]
# Here the two numbers at $a$ are both $10$: the local gradient
# $\frac{\partial z}{\partial a}$ and the upstream gradient arriving at $a$ coincide,
# because $z$ is the output and the upstream gradient at $z$ is $1$. One more operation
# tells them apart: multiply by a third input, $L = z \cdot w$ with $w = 3$.
#
# - At $L$, the output, the upstream gradient is the seed $1$.
# - At $z$: local $\frac{\partial L}{\partial z} = w = 3$, times upstream $1$, so the
#   upstream gradient at $z$ is $3$. ($w$ gets local $z = 25$ times $1$.)
# - At $a$: local $\frac{\partial z}{\partial a} = 2a = 10$, times upstream $3$, so the
#   upstream gradient at $a$ is $30$.
# - At $x$ and $y$: local $1$, times upstream $30$: $30$ each.
#
# Each line reads from the node's side: what *arrives* at the node is the local
# gradient of the operation that used it, times the upstream gradient at that
# operation's output. (CS231n's notes file the same product under the operation: its
# upstream gradient times its local gradient, sent down to its input. Same numbers.)
#
# In `minigrad` every node can tell its local gradients, one per parent, from the
# numbers stored in the graph, before any backward pass. Torch gives the same for each
# operation on its own:

# %%
xm, ym, wm = (minigrad.Value(v, label=name) for v, name in [(2.0, "x"), (3.0, "y"), (3.0, "w")])
am = xm + ym
am.label = "a"
zm = am ** 2
zm.label = "z"
Lm = zm * wm
Lm.label = "L"
print("L.local_grads():", Lm.local_grads(), " z.local_grads():", zm.local_grads(),
      " a.local_grads():", am.local_grads())
a_alone, x_alone, y_alone, z_alone, w_alone = (
    torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (5.0, 2.0, 3.0, 25.0, 3.0))
check_all({"L.local_grads()": (Lm.local_grads(),
                               torch.autograd.grad(z_alone * w_alone, (z_alone, w_alone))),
           "z.local_grads()": (zm.local_grads(), torch.autograd.grad(a_alone ** 2, a_alone)),
           "a.local_grads()": (am.local_grads(),
                               torch.autograd.grad(x_alone + y_alone, (x_alone, y_alone)))},
          brief=True)

# %% [markdown]
# The same in torch. Torch keeps `.grad` only for *leaves* that require a gradient. A
# leaf is a tensor that no recorded operation produced: one you made yourself, such as
# `x`, `y` and `w`. Only the leaves with `requires_grad=True` get a `.grad`; a plain
# `torch.tensor(2.0)` is a leaf too, and never gets one. An intermediate gradient such
# as the one at $a$ is used during the pass and then dropped, which saves memory in a
# large network. Reading `a.grad` gives `None`, with a warning; `a.retain_grad()` before
# `backward()` asks torch to keep it.

# %%
xt, yt, wt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, 3.0, 3.0))
at = xt + yt
zt = at ** 2
Lt = zt * wt
at.retain_grad()  # a and z are not leaves: keep their grads too
zt.retain_grad()
Lt.backward()
x2, y2, w2 = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, 3.0, 3.0))
plain = x2 + y2  # the same a on leaves of its own, without retain_grad()
(plain ** 2 * w2).backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print("a.is_leaf:", plain.is_leaf, " a.grad without retain_grad():", plain.grad)
print("torch warns:", str(caught[0].message).split(" is being accessed")[0])
print("with retain_grad(): a.grad =", at.grad.item(), " z.grad =", zt.grad.item())
two = torch.tensor(2.0, dtype=torch.float64)  # made by us, requires_grad=False
(two * x2).backward()
print("torch.tensor(2.0): is_leaf", two.is_leaf, " requires_grad", two.requires_grad,
      " grad", two.grad)

# %% [markdown]
# So the whole backward pass here is four multiplications, which we can do by hand and
# compare with torch before calling `backward()` on the `minigrad` graph at all:

# %%
upstream_at_L = 1.0  # dL/dL, the seed
local_L_z, local_L_w = Lm.local_grads()
upstream_at_z = local_L_z * upstream_at_L
(local_z_a,) = zm.local_grads()
upstream_at_a = local_z_a * upstream_at_z
local_a_x, local_a_y = am.local_grads()
check_all({"z.grad by hand": (upstream_at_z, zt.grad),
           "a.grad by hand": (upstream_at_a, at.grad),
           "x.grad by hand": (local_a_x * upstream_at_a, xt.grad),
           "y.grad by hand": (local_a_y * upstream_at_a, yt.grad),
           "w.grad by hand": (local_L_w * upstream_at_L, wt.grad)})

# %% [markdown]
# And `backward()` on a fresh copy of the `minigrad` graph makes the same four
# multiplications:

# %%
xm, ym, wm = (minigrad.Value(v, label=name) for v, name in [(2.0, "x"), (3.0, "y"), (3.0, "w")])
am = xm + ym
am.label = "a"
zm = am ** 2
zm.label = "z"
Lm = zm * wm
Lm.label = "L"
Lm.backward()
check_all({"x.grad": (xm.grad, xt.grad), "y.grad": (ym.grad, yt.grad),
           "w.grad": (wm.grad, wt.grad), "a.grad (upstream at a)": (am.grad, at.grad),
           "z.grad (upstream at z)": (zm.grad, zt.grad)})

# %% [markdown]
# ## 2. The local gradients of every operation
#
# Each operation needs only its own inputs and output to know its local gradients:
#
# | op | output | local gradients |
# |---|---|---|
# | `a + b` | $a + b$ | $1,\ 1$ |
# | `a * b` | $ab$ | $b,\ a$ |
# | `a ** n` | $a^n$ | $n a^{n-1}$ |
# | `a ** b` | $a^b$ | $b a^{b-1},\ a^b \ln a$ |
# | `a.exp()` | $e^a$ | $e^a$ (the output itself) |
# | `a.log()` | $\ln a$ | $1/a$ |
# | `a.tanh()` | $t = \tanh a$ | $1 - t^2$ |
# | `a.sigmoid()` | $s = \sigma(a)$ | $s(1 - s)$ |
# | `a.relu()` | $\max(a, 0)$ | $1$ if $a > 0$ else $0$ |
#
# In the package each is a two-line function; `*` for example:

# %%
show_source(minigrad.value._mul_local)

# %% [markdown]
# `torch.autograd.grad` returns the derivative of one output with respect to chosen
# inputs, which for a single operation *is* its local gradient. Every row of the table
# against torch, at $a = 0.8$, $b = 1.7$:

# %%
ops = {
    "a + b": lambda a, b: a + b,
    "a * b": lambda a, b: a * b,
    "a ** 3": lambda a, b: a ** 3,
    "a ** b": lambda a, b: a ** b,
    "exp": lambda a, b: a.exp(),
    "log": lambda a, b: a.log(),
    "tanh": lambda a, b: a.tanh(),
    "sigmoid": lambda a, b: a.sigmoid(),
    "relu": lambda a, b: a.relu(),
}
results = {}
for name, op in ops.items():
    a_v, b_v = minigrad.Value(0.8), minigrad.Value(1.7)
    out = op(a_v, b_v)
    a_t = torch.tensor(0.8, dtype=torch.float64, requires_grad=True)
    b_t = torch.tensor(1.7, dtype=torch.float64, requires_grad=True)
    inputs = [a_t, b_t][:len(out._prev)]
    results[name] = (list(out.local_grads()), torch.autograd.grad(op(a_t, b_t), inputs))
check_all({name: (ours, torch.stack(theirs)) for name, (ours, theirs) in results.items()},
          brief=True)

# %% [markdown]
# ## 3. Step through a backward pass
#
# `BackwardStepper` runs `backward()` one node at a time. Each step takes the next node
# in `backward_order`, reads its `grad` (the upstream gradient, now complete) and, for
# each parent, adds local times upstream into the parent's `grad`. Its list of steps for
# $z = (x + y)^2$, as text:

# %%
xm, ym = minigrad.Value(2.0, label="x"), minigrad.Value(3.0, label="y")
am = xm + ym
am.label = "a"
zm = am ** 2
zm.label = "z"
stepper = BackwardStepper(zm)
for step in stepper.steps:
    print("\n".join(step_text(step, node_names(zm))))

# %% [markdown]
# The widget below does the same on the drawing: press **Step** to send the gradient
# one node further; the node being processed turns yellow, its parents light yellow,
# and the readout shows the multiplication. **Reset** starts over; the slider jumps to
# any step. (It needs a live kernel: run the notebook to use it.)

# %% tags=nbval-ignore-output
stepper_widget(zm)

# %% [markdown]
# After the last step the grads are exactly what `backward()` gives:

# %%
xm, ym = minigrad.Value(2.0, label="x"), minigrad.Value(3.0, label="y")
zm = (xm + ym) ** 2
stepper = BackwardStepper(zm)
while not stepper.done:
    stepper.step()
check_all({"x.grad after stepping": (xm.grad, x.grad), "y.grad after stepping": (ym.grad, y.grad)},
          brief=True)

# %% [markdown]
# **The running neuron, stepped.** Chapter 03 backpropagated the neuron
# $o = \tanh(w_1 x_1 + w_2 x_2 + b)$ (at $x = (2, 0)$, $w = (-3, 1)$,
# $b = 6.8813735870195432$) by hand. In this chapter's words: at $o$ the upstream
# gradient is the seed $1$ and the local gradient of $\tanh$ is $1 - o^2 = 0.5$ (the
# table's row, with $o = 1/\sqrt{2}$); at each $+$ the local gradients are $1$, so the
# upstream $0.5$ passes down unchanged; at each product the local gradient for one
# factor is the other factor. The stepper's list of steps, node by node:

# %%
x1, x2 = minigrad.Value(2.0, label="x1"), minigrad.Value(0.0, label="x2")
w1, w2 = minigrad.Value(-3.0, label="w1"), minigrad.Value(1.0, label="w2")
b = minigrad.Value(6.8813735870195432, label="b")
x1w1, x2w2 = x1 * w1, x2 * w2
x1w1.label, x2w2.label = "x1*w1", "x2*w2"
s12 = x1w1 + x2w2
s12.label = "x1w1+x2w2"
n = s12 + b
n.label = "n"
o = n.tanh()
o.label = "o"
for step in BackwardStepper(o).steps:
    print("\n".join(step_text(step, node_names(o))))
o.backward()
leaves = {"x1": (x1, 2.0), "x2": (x2, 0.0), "w1": (w1, -3.0), "w2": (w2, 1.0),
          "b": (b, 6.8813735870195432)}
ts = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, (_, v) in leaves.items()}
torch.tanh(ts["x1"] * ts["w1"] + ts["x2"] * ts["w2"] + ts["b"]).backward()
check_all({"local gradient of tanh at o": (o.local_grads()[0], 1 - o.data ** 2, "by hand"),
           **{f"{k}.grad": (leaf.grad, ts[k].grad) for k, (leaf, _) in leaves.items()}})

# %% [markdown]
# ## 4. Why backward adds: the `b = a + a` trap
#
# A node that is used twice gets a gradient from *each* use. With $b = a + a$ there are
# two edges from $a$ to $b$, each with local gradient $1$, so $\frac{db}{da} = 2$. A
# backward pass that *assigns* `parent.grad = local * upstream` keeps only the last
# contribution. Here is that bug, written with the package's order and local gradients:

# %%
def backward_assign(root):
    """A WRONG backward: it assigns the gradient instead of adding it."""
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0
    root.grad = 1.0
    for node in backward_order(root):
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad = local * node.grad  # the bug: = instead of +=


a_v = minigrad.Value(3.0, label="a")
b_v = a_v + a_v
backward_assign(b_v)
a_t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
(a_t + a_t).backward()
a_v.grad, a_t.grad

# %% [markdown]
# One instead of two. `check` catches it (the error is on purpose):

# %% tags=raises-exception
check("a.grad with = instead of +=", a_v.grad, a_t.grad)

# %% [markdown]
# The same bug breaks `x * x`: the two local gradients are both $x$, and the true
# derivative $2x$ is their sum. With `+=`, as in `Value.backward`, both contributions
# land; at $x = 3$ the stepper shows two local gradients $3$ and `x.grad` going
# $0 \to 3 \to 6$:

# %%
x_v = minigrad.Value(3.0, label="x")
b_v = x_v * x_v
b_v.label = "b"
(fan_out,) = BackwardStepper(b_v).steps
print("\n".join(step_text(fan_out, node_names(b_v))))
b_v.backward()
x_t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
(x_t * x_t).backward()
check("x.grad with +=", x_v.grad, x_t.grad, brief=True)

# %%
draw_graph(b_v, title="b = x * x: two arrows from x, and x.grad = 6")

# %% [markdown]
# Now predict. The widget below steps a backward pass on a graph of your choice:
# chapter 03's $z = (x + 1)^2$, $b = x \cdot x$ (watch the `+=` fire twice into
# `x.grad`), and section 1's $L = (x + y)^2 \cdot w$. Tick **predict the next grad**,
# type the value the next `parent.grad` will hold after local times upstream is added,
# and press **Check**: the widget says whether you were right, then makes that update.
# Untick it to step freely. Each graph is stepped on a copy of its own; the graphs of
# this notebook keep their grads. (It needs a live kernel.)

# %%
x3 = minigrad.Value(3.0, label="x")
y3 = x3 + 1
y3.label = "y"
z3 = y3 ** 2
z3.label = "z"

# %% tags=nbval-ignore-output
backward_explorer({"chapter 03: z = (x + 1) ** 2": z3, "b = x * x": b_v,
                   "section 1: L = (x + y) ** 2 * w": Lm, "the neuron of section 3": o})

# %% [markdown]
# After the widget, the graphs are as they were: `b_v`'s `x.grad` is still the $6$ of
# `b_v.backward()` above, section 1's `w.grad` still $25$, and torch agrees.

# %%
check_all({"x.grad of b = x * x, after the widget": (x_v.grad, x_t.grad),
           "w.grad of L, after the widget": (wm.grad, wt.grad)})

# %% [markdown]
# In `minigrad`'s `Value` the same `+=` is also why gradients *accumulate* across
# `backward()` calls: a leaf's `grad` is only ever added to. PyTorch gets the same
# numbers by two separate mechanisms. Within one pass, its engine sums what arrives at
# a node from every use in a buffer, and runs the node once with the total: no `+=`
# into any `.grad` along the way. Across calls, the leaf's `AccumulateGrad` has its own
# rule: the first pass *sets* `.grad`, later passes add to it. Chapter 08 makes use of
# accumulation (and shows when it bites). The reference tutorial's example, $x^2$ then
# $3x$ at $x = 2$: $4$, then $4 + 3 = 7$.

# %%
x_v = minigrad.Value(2.0)
x_t = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
(x_v ** 2).backward()
(x_t ** 2).backward()
print("after (x ** 2).backward():", x_v.grad)
after_first = (x_v.grad, x_t.grad.item())
(3 * x_v).backward()
(3 * x_t).backward()
print("after (3 * x).backward():", x_v.grad)
check_all({"x.grad after y.backward()": after_first,
           "x.grad after z.backward()": (x_v.grad, x_t.grad)})

# %% [markdown]
# Both uses in one graph, $x^2 + 3x$, show torch's summing within a pass. A *hook*
# (chapter 16) is a function torch calls with the gradient that arrives at a tensor;
# on the leaf it runs once, with the total $4 + 3$, not once per use:

# %%
x_h = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
arrivals = []
x_h.register_hook(lambda grad: arrivals.append(grad.item()))
(x_h ** 2 + 3 * x_h).backward()
print("gradients that reached x:", arrivals)
check_all({"arrivals at x in one pass": (len(arrivals), 1),
           "x.grad of x**2 + 3x": (x_h.grad, 7.0)}, against="by hand")

# %% [markdown]
# To start over, a `minigrad.Value` takes `x.grad = 0.0`: its `grad` is a float. A
# torch tensor's `.grad` is a tensor or `None`, and a float is refused (the error is on
# purpose):

# %% tags=raises-exception
x_t.grad = 0.0

# %% [markdown]
# Torch's two ways: `x.grad = None` (what `optimizer.zero_grad()` does by default; the
# next `backward()` starts a fresh tensor) or `x.grad.zero_()` (zeros in place). Either
# way the next pass gives $3$ alone:

# %%
x_v.grad = 0.0
(3 * x_v).backward()
x_t.grad = None
(3 * x_t).backward()
x_t2 = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
(x_t2 ** 2).backward()
x_t2.grad.zero_()
(3 * x_t2).backward()
check_all({"x.grad = 0.0, then 3x": (x_v.grad, x_t.grad),
           "x.grad.zero_(), then 3x": (x_v.grad, x_t2.grad)}, brief=True)

# %% [markdown]
# ## 5. Deeper than the recursion limit
#
# micrograd's `backward` sorts the graph with a recursive function, one Python call per
# level of depth. Python allows this many nested calls:

# %%
sys.getrecursionlimit()

# %% [markdown]
# A recursive backward, fine on small graphs, fails on a chain $v_{k+1} = v_k + x$ that
# is only a few thousand additions deep (the error is on purpose):

# %%
def backward_recursive(root):
    order, visited = [], set()

    def build(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent in node._prev:
                build(parent)
            order.append(node)

    build(root)
    root.grad = 1.0
    for node in reversed(order):
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad


def chain(x, depth):
    v = x
    for _ in range(depth):
        v = v + x
    return v

# %%
try:
    backward_recursive(chain(minigrad.Value(0.5), 5000))
except RecursionError as error:  # the limit is 1000 nested calls (chapter 03 counts them)
    print(f"RecursionError: {error}")

# %% [markdown]
# The package walks the graph with an explicit stack (chapter 03), so depth costs memory
# (a few hundred bytes per node) but never recursion. A chain of 50,000 nodes, against
# torch (whose autograd engine is iterative C++):

# %%
x_v = minigrad.Value(0.5)
chain(x_v, 50_000).backward()
x_t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
chain(x_t, 50_000).backward()
check("x.grad through 50,000 additions", x_v.grad, x_t.grad, brief=True)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 4.1: the local gradient of a new operation (2 points)
#
# $\operatorname{softplus}(a) = \ln(1 + e^a)$ is a smooth version of `relu`: close to
# $0$ far left, close to $a$ far right. It is not in the table of section 2. In the
# package each operation's local gradients come from a small function of the output
# node, such as `_mul_local(out)` above: it reads the parents `out._prev` and the
# output's value `out.data`, and returns a tuple with one local gradient per parent.
# Write `softplus_local(out)` for softplus: `out._prev` is `(a,)`, and `out.data` is
# $\operatorname{softplus}$ of `a.data`.
#
# The check wires your function into a softplus node, as the package wires its own,
# calls it at points you do not see, and runs `backward()` through graphs that use it;
# it compares with torch's `softplus`. Use `math` and plain arithmetic: autograd,
# `minigrad.Value` and torch are switched off while your function runs.
#
# <details><summary>Hint</summary>
#
# softplus is $\ln(u)$ of $u = 1 + e^a$: chapter 03's chain rule, with the table's
# rows for `log` and `exp`. Simplify what you get; you have met the result before.
# </details>

# %% solution=ex04-softplus-local
import math


def softplus_local(out):
    """(d softplus(a) / da,) for out = softplus(a)."""
    ### BEGIN SOLUTION
    (a,) = out._prev
    if a.data >= 0:
        return (1 / (1 + math.exp(-a.data)),)
    return (math.exp(a.data) / (1 + math.exp(a.data)),)
    ### END SOLUTION

# %% test=ex04-softplus-local-test points=2
import math  # noqa: F811 - a test cell imports what it uses

import torch

import minigrad
import minigrad.value
from minigrad.course.grading import Forbidden, graded

with graded("Exercise 4.1", hint="softplus is log of (1 + exp(a)): multiply the local "
            "gradients of the two steps, and return one number per parent") as g:
    class NoTorch(torch.overrides.TorchFunctionMode):
        """torch switched off during the call."""

        def __torch_function__(self, func, types, args=(), kwargs=None):
            raise Forbidden(f"torch ({getattr(func, '__name__', func)})")

    by_hand = ["autograd", minigrad.Value.__init__, minigrad.value._sigmoid_local]
    in_backward = ["torch.autograd", minigrad.Value.__init__, minigrad.value._sigmoid_local]
    softplus_t = torch.nn.functional.softplus

    def softplus(a):
        """softplus as a package op, with your softplus_local for its local gradients."""
        data = softplus_t(torch.tensor(a.data, dtype=torch.float64)).item()
        return minigrad.Value(data, "", (a,), "softplus", softplus_local)

    def mistakes(a0, s0):
        """What the common mistakes give at a = a0, where softplus(a0) = s0."""
        return {
            "output-for-input": ("your local gradient is computed from the node's output: "
                                 "which number went into softplus?", 1 / (1 + math.exp(-s0))),
            "output-itself": ("your local gradient is the output itself, as for exp: is "
                              "softplus exp?", s0),
            "inner-only": ("your local gradient is the inner step's alone: what does the "
                           "log after it do to a small change?", lambda: math.exp(a0)),
            "outer-only": ("your local gradient is the outer step's alone, at the wrong "
                           "point: what does exp(a) do to a small change of a?",
                           lambda: 1 / (1 + math.exp(a0))),
            "ignores-input": ("your local gradient is 0.5 wherever a is: does it use a?",
                              0.5),
        }

    def check_at(a0):
        out = softplus(minigrad.Value(a0))
        with NoTorch():
            got = g.call(softplus_local, out, forbid=by_hand)
        g.require(f"softplus_local at a = {a0}: one local gradient per parent",
                  type(got) in (tuple, list) and len(got) == 1,
                  "return a tuple with one number per parent, as _mul_local does", mistakes={
                      "bare-number": ("you return a number where backward() zips the locals "
                                      "with the parents: what does _mul_local return?",
                                      isinstance(got, float | int))})
        a_t = torch.tensor(a0, dtype=torch.float64, requires_grad=True)
        (local_t,) = torch.autograd.grad(softplus_t(a_t), a_t)
        g.check(f"softplus_local at a = {a0}", got[0], local_t, rtol=1e-12, atol=1e-15,
                mistakes=mistakes(a0, out.data))

    def run_backward(root, leaves):
        root.backward()
        return [leaf.grad for leaf in leaves]

    run_backward.__name__ = "softplus_local"  # only your function runs in there

    def check_graph(name, build, *point):
        leaves = [minigrad.Value(p) for p in point]
        root = build(softplus, *leaves)
        with NoTorch():
            got = g.call(run_backward, root, leaves, forbid=in_backward)
        leaves_t = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
        build(softplus_t, *leaves_t).backward()
        for leaf, p, grad, leaf_t in zip("xw", point, got, leaves_t, strict=False):
            g.check(f"{name}: {leaf}.grad at {leaf} = {p}", grad, leaf_t.grad, rtol=1e-12,
                    atol=1e-15)

    for point in [-2.0, 0.0, 0.5, 3.0]:
        check_at(point)
    check_graph("softplus(x * w) * 3 + softplus(x)",
                lambda sp, x, w: sp(x * w) * 3 + sp(x), 0.5, -1.2)
    ### BEGIN HIDDEN TESTS
    for a0 in [-30.0, -7.5, -0.3, 1e-8, 1.25, 15.0]:
        check_at(a0)
    check_graph("softplus(softplus(x) - w) * x", lambda sp, x, w: sp(sp(x) - w) * x, -1.7, 0.4)
    check_graph("softplus(x)**2 + softplus(-x)", lambda sp, x: sp(x) ** 2 + sp(-x), 2.3)
    check_graph("softplus(w * x + x * x)", lambda sp, x, w: sp(w * x + x * x), -3.1, 0.9)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 4.2: find the bugs (3 points)
#
# Here is a backward pass written to avoid sorting the graph: it starts at the output,
# then visits the output's parents, then theirs, each node once (a *breadth-first*
# walk). It gives the right grads for section 1's $L = (x + y)^2 \cdot w$, for
# $b = a + a$ and for $x \cdot x$, but it has two bugs, each showing on graphs of a
# different kind.

# %%
def backward_buggy(root):
    """Backpropagate from root, each node once, from the output down. It has two bugs."""
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0  # intermediate grads start afresh; leaves keep theirs
    root.grad = 1.0
    todo, seen = [root], {id(root)}
    for node in todo:  # todo grows as the walk goes: the output, its parents, theirs...
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
            if id(parent) not in seen:
                seen.add(id(parent))
                todo.append(parent)


xb, yb, wb = minigrad.Value(2.0), minigrad.Value(3.0), minigrad.Value(3.0)
backward_buggy((xb + yb) ** 2 * wb)
check_all({"x.grad": (xb.grad, 30.0), "y.grad": (yb.grad, 30.0), "w.grad": (wb.grad, 25.0)},
          against="by hand")

# %% [markdown]
# Find the two bugs: run `backward_buggy` and `Value.backward` (or torch) on graphs of
# your own, in cells of your own, until they disagree, and work out why. Then write
# `backward_fixed(root)`: the same function with both bugs fixed, doing what
# `backward_buggy` means to do (intermediate grads start afresh, leaves keep what they
# hold and add, every node sends local times upstream to its parents). The check runs
# it on graphs of several kinds, some you do not see, and compares with torch;
# `Value.backward` and the stepper are switched off while it runs.
#
# <details><summary>Hint</summary>
#
# For each node, ask what its `grad` holds when its turn comes: has every node that
# uses it already added its share? Try a node used by two nodes at different depths.
# For the other bug, compare with torch on the smallest graph there is, one that
# already holds a gradient.
# </details>

# %% solution=ex04-find-the-bug
def backward_fixed(root):
    """backward_buggy with its two bugs fixed."""
    ### BEGIN SOLUTION
    order = backward_order(root)
    for node in order:
        if node._prev:
            node.grad = 0.0
    root.grad += 1.0
    for node in order:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
    ### END SOLUTION

# %% test=ex04-find-the-bug-test points=3
import torch

import minigrad
import minigrad.course.widgets.stepper
from minigrad.course.grading import graded

with graded("Exercise 4.2", hint="a node may send its grad on only once every node that "
            "uses it has added its share; and backward() on a leaf adds to its grad, as "
            "in torch") as g:
    Value = minigrad.Value
    off = ["autograd", minigrad.course.widgets.stepper.BackwardStepper._plan,
           minigrad.course.widgets.stepper.BackwardStepper.step]

    def wrong_pass(how, build, *point):
        """The leaves' grads one of the common wrong backward passes gives (fresh graph)."""
        leaves = [Value(p) for p in point]
        root = build(*leaves)
        root.grad += 1.0
        if how in ("breadth-first", "once-per-path"):
            todo, seen = [root], {id(root)}
            for node in todo:
                for parent, local in zip(node._prev, node.local_grads(), strict=True):
                    parent.grad += local * node.grad
                    if how == "once-per-path" or id(parent) not in seen:
                        seen.add(id(parent))
                        todo.append(parent)
        else:
            order = minigrad.backward_order(root)
            for node in reversed(order) if how == "leaves-first" else order:
                for parent, local in zip(node._prev, node.local_grads(), strict=True):
                    parent.grad += (1.0 if how == "no-locals" else local) * node.grad
        return [leaf.grad for leaf in leaves]

    NUDGES = {
        "breadth-first": "a node passed its grad on before every node using it had added "
                         "its share: in which order must the nodes send?",
        "once-per-path": "a node reached along two paths sent its grad on twice: how often "
                         "should each node send?",
        "leaves-first": "no gradient reached the inputs: which node must send first, and "
                        "does each node send only after it has received?",
        "no-locals": "the grad went back unchanged through each node: what does a node's "
                     "local gradient do on the way?",
    }

    def pass_mistakes(build, point, i):
        return {how: (nudge, lambda how=how: wrong_pass(how, build, *point)[i])
                for how, nudge in NUDGES.items()}

    def leaf(x, grad=None):
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        if grad is not None:
            t.grad = torch.tensor(grad, dtype=torch.float64)
        return t

    x = Value(1.5)
    x.grad = 0.25
    g.call(backward_fixed, x, forbid=off)
    x_t = leaf(1.5, 0.25)
    x_t.backward()
    g.check("x.grad after backward on the leaf x", x.grad, x_t.grad, mistakes={
        "leaf-grad-replaced": ("backward() on a leaf with a grad of 0.25 left 1.0: what "
                               "does torch do with a grad that is already there?", 1.0)})
    p, q = Value(0.5), Value(-2.0)
    a = p * q
    g.call(backward_fixed, a + a.tanh(), forbid=off)
    p_t, q_t = leaf(0.5), leaf(-2.0)
    a_t = p_t * q_t
    (a_t + a_t.tanh()).backward()
    def shared(p, q):
        a = p * q
        return a + a.tanh()

    g.check("p.grad for a + tanh(a), a = p * q", p.grad, p_t.grad,
            mistakes=pass_mistakes(shared, (0.5, -2.0), 0))
    g.check("q.grad for a + tanh(a), a = p * q", q.grad, q_t.grad,
            mistakes=pass_mistakes(shared, (0.5, -2.0), 1))
    ### BEGIN HIDDEN TESTS
    # A leaf twice, from zero.
    z = Value(-0.7)
    g.call(backward_fixed, z, forbid=off)
    g.call(backward_fixed, z, forbid=off)
    g.check("z.grad after backward on the leaf z twice", z.grad, 2.0, against="by hand")
    # Residual steps: v feeds the next step directly and through tanh.
    u, w = Value(0.3), Value(-0.8)
    v = u
    for _ in range(4):
        v = v + (v * w).tanh()
    g.call(backward_fixed, v, forbid=off)
    u_t, w_t = leaf(0.3), leaf(-0.8)
    v_t = u_t
    for _ in range(4):
        v_t = v_t + (v_t * w_t).tanh()
    v_t.backward()
    def residual(v, w):
        for _ in range(4):
            v = v + (v * w).tanh()
        return v

    g.check("u.grad, four residual steps", u.grad, u_t.grad,
            mistakes=pass_mistakes(residual, (0.3, -0.8), 0))
    g.check("w.grad, four residual steps", w.grad, w_t.grad,
            mistakes=pass_mistakes(residual, (0.3, -0.8), 1))
    # Reuse at several levels; then a second pass through shared nodes: leaves add up,
    # the shared node and the output start afresh.
    m, n = Value(0.5), Value(2.0)
    k = m * n
    s = k * k.tanh() + k.exp() * n
    g.call(backward_fixed, s, forbid=off)
    g.call(backward_fixed, (k * m).sigmoid() + k, forbid=off)
    m_t, n_t = leaf(0.5), leaf(2.0)
    k_t = m_t * n_t
    k_t.retain_grad()
    (k_t * k_t.tanh() + k_t.exp() * n_t).backward(retain_graph=True)
    k_t.grad = None
    ((k_t * m_t).sigmoid() + k_t).backward()
    g.check("m.grad after two passes", m.grad, m_t.grad)
    g.check("n.grad after two passes", n.grad, n_t.grad)
    g.check("k.grad: the second pass only", k.grad, k_t.grad)
    g.check("s.grad: 1 from its own pass", s.grad, 1.0, against="by hand")
    # A leaf root after a pass that gave it a gradient.
    e = Value(0.9)
    g.call(backward_fixed, e * e.exp(), forbid=off)
    g.call(backward_fixed, e, forbid=off)
    e_t = leaf(0.9)
    (e_t * e_t.exp()).backward()
    e_t.backward()
    g.check("e.grad: a pass, then backward on e itself", e.grad, e_t.grad)
    # Deeper than the recursion limit, the leaf used at every step.
    c = Value(0.5)
    chain = c
    for _ in range(5000):
        chain = chain * 0.9999 + (c * chain).tanh() * 1e-3
    g.call(backward_fixed, chain, forbid=off)
    c_t = leaf(0.5)
    chain_t = c_t
    for _ in range(5000):
        chain_t = chain_t * 0.9999 + (c_t * chain_t).tanh() * 1e-3
    chain_t.backward()
    g.check("c.grad through 5000 steps", c.grad, c_t.grad, rtol=1e-9)
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on local and upstream gradients. Guess first, then run the cell.
#
# **1.** $z = (x y)^2$ at $(x, y) = (2, 3)$. Which gets the larger gradient, $x$ or $y$?

# %%
xm, ym = minigrad.Value(2.0), minigrad.Value(3.0)
((xm * ym) ** 2).backward()
xt, yt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, 3.0))
((xt * yt) ** 2).backward()
print("x.grad =", xm.grad, "  y.grad =", ym.grad)
check_all({"x.grad": (xm.grad, xt.grad), "y.grad": (ym.grad, yt.grad)}, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $x$, the smaller input: the upstream gradient at $xy$ is $2xy = 12$, and the product's
# local gradient for $x$ is the *other* factor, $y = 3$ ($36$), for $y$ it is $x = 2$
# ($24$).
# </details>
#
# **2.** `relu` has local gradient $1$ for $a > 0$ and $0$ for $a < 0$. What does torch
# send back at exactly $a = 0$?

# %%
am = minigrad.Value(0.0)
am.relu().backward()
at = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
at.relu().backward()
print("relu'(0):", am.grad)
check("local gradient of relu at 0", am.grad, at.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $0$: relu has no derivative at $0$ (its slopes from the left and the right differ), and
# torch picks $0$ there by convention; `minigrad` follows torch.
# </details>
#
# **3.** The local gradient of `sigmoid` is $s(1 - s)$, at most $0.25$ (at $a = 0$).
# Apply `sigmoid` ten times in a row to $x = 0$. Roughly how big is $\frac{d\,\text{out}}{dx}$?

# %%
def ten_sigmoids(v):
    for _ in range(10):
        v = v.sigmoid()
    return v


xm = minigrad.Value(0.0)
ten_sigmoids(xm).backward()
xt = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
ten_sigmoids(xt).backward()
print(f"d out / dx = {xm.grad:.3e}   0.25 ** 10 = {0.25 ** 10:.3e}")
check("d out / dx through ten sigmoids", xm.grad, xt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $3.9 \times 10^{-7}$, less than half of $0.25^{10} = 9.5 \times 10^{-7}$: the
# gradient at the input is the product of the ten local gradients, each at most $0.25$,
# and only the first sigmoid sees $a = 0$; the others see inputs of $0.5$ and more,
# where the slope is smaller.
# This is the *vanishing gradient* of deep sigmoid networks.
# </details>
#
# ## Summary
#
# - At every node, backward multiplies the *upstream* gradient (the node's own `grad`,
#   complete by the time the node's turn comes) by each *local* gradient and passes the
#   product to the parent. For $L = (x + y)^2 \cdot w$ at $(2, 3, 3)$: upstream $3$ at
#   $z$, local $10$, so upstream $30$ at $a$; local $1$, so $30$ for $x$ and for $y$.
# - Each operation's local gradients need only its inputs and output: $1, 1$ for `+`,
#   $b, a$ for `*`, $1 - t^2$ for `tanh`, $s(1 - s)$ for `sigmoid`.
# - A node used more than once receives one product per use; backward must *add* them.
#   An `=` instead of `+=` gives $\frac{d(a + a)}{da} = 1$, not $2$.
# - In `Value` the same `+=` makes leaf gradients accumulate across `backward()` calls
#   ($4$, then $7$); torch sums the uses within a pass in its engine and accumulates
#   across calls in `AccumulateGrad`. Reset with `x.grad = 0.0` in minigrad,
#   `x.grad = None` or `x.grad.zero_()` in torch (a float there is a TypeError).
# - Torch keeps `.grad` only for leaves (tensors no recorded operation made) with
#   `requires_grad=True`; `retain_grad()` keeps an intermediate one.
# - Sorting the graph with an explicit stack makes depth a matter of memory, not of
#   Python's recursion limit.
#
# Next: [05 Tensor gradients](05_tensor_gradients.ipynb), from single numbers to tensors.
