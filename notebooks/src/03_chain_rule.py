# %% [markdown]
# # 03 The chain rule
#
# A network is a long composition of small functions, and its loss is the last of them.
# The chain rule says how a derivative passes through a composition: multiply the
# derivatives of the pieces. This chapter records a computation as a *graph*, draws it
# with every node's value and gradient, puts the nodes in *topological order* so that
# each is visited once, and arrives at `minigrad.Value.backward`, the package's
# implementation of the chain rule, checked against PyTorch all the way.
#
# **Learning goals.** After this chapter you can
#
# 1. apply the chain rule to a composition of functions, by hand;
# 2. draw a computation as a graph of values and operations;
# 3. explain why `backward` visits the nodes in reverse topological order;
# 4. write a topological sort that works on graphs of any depth;
# 5. read the package's `Value.backward` and predict its results.

# %%
import math
import sys
import time
import traceback

import torch

import minigrad
from minigrad import backward_order, check, check_all, draw_graph, show_source
from minigrad.course.grad_fn_view import draw_side_by_side, grad_fn_lines
from minigrad.course.widgets.topo_view import topo_sort_widget

torch.set_num_threads(1)  # tiny tensors: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. A composition
#
# The example of the course's reference tutorial (see [Sources](../book/sources.md)):
# $z = (x + 1)^2$. Name the inner piece, $y = x + 1$, so that $z = y^2$. Each piece has
# an easy derivative: $\frac{dy}{dx} = 1$ and $\frac{dz}{dy} = 2y$. The *chain rule*
# multiplies them:
#
# $$\frac{dz}{dx} = \frac{dz}{dy} \cdot \frac{dy}{dx} = 2y \cdot 1 = 2(x + 1).$$
#
# At $x = 3$: $y = 4$ and $\frac{dz}{dx} = 8$. PyTorch agrees:

# %%
x = torch.tensor(3.0, requires_grad=True)
y = x + 1
z = y ** 2
z.backward()
print(x.grad)  # tensor(8.)

# %% [markdown]
# Why multiply? Move $x$ by a little $\Delta x$: $y$ moves by about
# $\frac{dy}{dx}\Delta x$, and that change of $y$ moves $z$ by about
# $\frac{dz}{dy}$ times as much. Rates of change compose by multiplication. A numeric
# check, with the formula for the pieces:

# %%
def by_chain_rule(x):
    y = x + 1
    dz_dy, dy_dx = 2 * y, 1.0
    return dz_dy * dy_dx


h = 1e-6
numeric = (((3.0 + h) + 1) ** 2 - (3.0 + 1) ** 2) / h
check_all({"chain rule": (by_chain_rule(3.0), x.grad), "numeric": (numeric, x.grad)},
          atol=1e-5, brief=True)

# %% [markdown]
# ## 2. The computational graph
#
# `minigrad.Value` records the same computation as a graph: each value remembers the
# values it was made from (its *parents*) and the operation that made it. The drawing
# shows each value as a box *name | data | grad* (the inputs light blue, the output
# green) and each operation as a circle. The name is the value's label, which is only
# for reading; a value without one is named `v0`, `v1`, ... in each drawing, counted
# from the inputs. Here `v0` is the constant `1`: `+` turns the number into a `Value`
# of its own. The exponent of `** 2` is part of the operation, not a box. Before
# `backward()` every `grad` is zero.

# %%
xm = minigrad.Value(3.0, label="x")
ym = xm + 1
ym.label = "y"
zm = ym ** 2
zm.label = "z"
draw_graph(zm)

# %% [markdown]
# How `+` records this, in the package: `_lift` wraps the number `1` in a `Value` (the
# box `v0`), then `+` makes its output with the parents `(self, other)`, the op's name
# for the drawing, and the function that gives its local gradients. Every operation of
# `Value` has this shape.

# %%
show_source(minigrad.Value.__add__)

# %% [markdown]
# The graph is what the chain rule runs on. `backward()` fills in the gradients,
# $\frac{dz}{d\,\text{node}}$ for every node: $1$ for $z$ itself, $2y = 8$ for $y$, and
# $8 \cdot 1 = 8$ for $x$ (and $8$ for the constant `v0` too, which nothing reads).

# %%
xm = minigrad.Value(3.0, label="x")
ym = xm + 1
ym.label = "y"
zm = ym ** 2
zm.label = "z"
zm.backward()
draw_graph(zm, title="after z.backward()")

# %%
check_all({"x.grad": (xm.grad, x.grad), "z": (zm.data, z)}, brief=True)

# %% [markdown]
# **The running neuron, as a graph.** Chapter 02's neuron,
# $o = \tanh(w_1 x_1 + w_2 x_2 + b)$ at $x = (2, 0)$, $w = (-3, 1)$,
# $b = 6.8813735870195432$, is a composition too: two products, two sums, a $\tanh$.
# Drawn after `o.backward()`:

# %%
x1, x2 = minigrad.Value(2.0, label="x1"), minigrad.Value(0.0, label="x2")
w1, w2 = minigrad.Value(-3.0, label="w1"), minigrad.Value(1.0, label="w2")
b = minigrad.Value(6.8813735870195432, label="b")
x1w1 = x1 * w1
x1w1.label = "x1*w1"
x2w2 = x2 * w2
x2w2.label = "x2*w2"
s12 = x1w1 + x2w2
s12.label = "x1w1+x2w2"
n = s12 + b
n.label = "n"
o = n.tanh()
o.label = "o"
o.backward()
draw_graph(o, title="the neuron after o.backward()")

# %% [markdown]
# Read it from the right, one node at a time, as `backward` does: each node's gradient
# is the gradient arriving from its output times its own local derivative.
#
# 1. $\frac{do}{do} = 1$.
# 2. $o = \tanh(n)$: $\frac{do}{dn} = 1 - \tanh^2(n) = 1 - o^2 = 1 - \frac12 = 0.5$.
# 3. $n = s + b$, where $s$ is the node `x1w1+x2w2`, a sum: its local derivatives are
#    $1$, so $s$ and $b$ both get $0.5$.
# 4. $s = x_1 w_1 + x_2 w_2$, a sum again: both products get $0.5$.
# 5. $x_1 w_1$, a product: the local derivative for $w_1$ is $x_1$, so
#    $\frac{do}{dw_1} = 0.5 \cdot 2 = 1$; for $x_1$ it is $w_1$: $0.5 \cdot (-3) = -1.5$.
#    Likewise $\frac{do}{dw_2} = 0.5 \cdot x_2 = 0$ and $\frac{do}{dx_2} = 0.5 \cdot w_2 = 0.5$.
#
# The same steps in plain arithmetic, against torch (which keeps $n$'s gradient when
# asked with `retain_grad()`, chapter 04):

# %%
do_dn = 1 - math.tanh(0.8813735870195432) ** 2  # tanh's local derivative, 1 - o**2
do_ds = do_db = do_dn * 1.0                      # n = s + b
do_dx1w1 = do_dx2w2 = do_ds * 1.0                # s = x1 w1 + x2 w2
by_hand = {"do/dn": do_dn, "do/db": do_db,
           "do/dw1": do_dx1w1 * 2.0, "do/dx1": do_dx1w1 * -3.0,   # x1 w1
           "do/dw2": do_dx2w2 * 0.0, "do/dx2": do_dx2w2 * 1.0}    # x2 w2

inputs = {name: torch.tensor(v, dtype=torch.float64, requires_grad=True)
          for name, v in [("x1", 2.0), ("x2", 0.0), ("w1", -3.0), ("w2", 1.0),
                          ("b", 6.8813735870195432)]}
nt = inputs["x1"] * inputs["w1"] + inputs["x2"] * inputs["w2"] + inputs["b"]
nt.retain_grad()
torch.tanh(nt).backward()
ours = {"do/dn": n.grad, "do/db": b.grad, "do/dw1": w1.grad, "do/dx1": x1.grad,
        "do/dw2": w2.grad, "do/dx2": x2.grad}
theirs = {"do/dn": nt.grad, **{f"do/d{k}": t.grad for k, t in inputs.items()}}
check_all({f"{name} (by hand | minigrad)": ([by_hand[name], ours[name]],
                                            [theirs[name]] * 2) for name in by_hand})

# %% [markdown]
# **Torch's record.** The reference tutorial says: "PyTorch records the intermediate
# operation `y = x + 1`, then applies the chain rule automatically during the backward
# pass." Torch's record of $z = (x + 1)^2$ from section 1 can be read too. A tensor
# made by an operation has a `grad_fn`, the function that will send its gradient back,
# when torch records the operation: when some input requires a gradient (and recording
# is on, chapter 09). `torch.tensor(3.0) + 1` records nothing, and its `grad_fn` is
# `None`. `grad_fn.next_functions` lists where that function's gradients go, one slot
# per input, down to an `AccumulateGrad` for each *leaf* (a tensor no recorded operation
# made, here `x`; chapter 04 says more), the function that adds into `x.grad`. The
# constant `1` needs no gradient, so its slot is `None`:

# %%
pow_fn = z.grad_fn
add_fn = pow_fn.next_functions[0][0]
accumulate = add_fn.next_functions[0][0]
print(type(pow_fn).__name__, "->", type(add_fn).__name__, "->", type(accumulate).__name__)
print("y.grad_fn is the AddBackward0 above:", y.grad_fn is add_fn)
print("slots of AddBackward0:", [type(f).__name__ if f else None
                                 for f, _ in add_fn.next_functions])
print("AccumulateGrad adds into x.grad:", accumulate.variable is x)
print("no input requires grad, (torch.tensor(3.0) + 1).grad_fn:",
      (torch.tensor(3.0) + 1).grad_fn)

# %% [markdown]
# Torch's record beside minigrad's graph. The two hold the
# same information in two shapes: minigrad keeps the *values* and the op that made
# each; torch keeps, for each op, a *backward function* and where its gradients go
# (its arrows point the way the gradient flows, from the output to the leaf). torch
# records no node for the constant `1`.

# %%
print("\n".join(grad_fn_lines(z, {"x": x})))
draw_side_by_side(zm, z, {"x": x})

# %% [markdown]
# The graph is a *trace* of what ran, not of the code: it is built as the operations
# execute, so a Python `if` or `while` that looks at the values decides which
# operations are recorded. Different inputs give different graphs, and `backward()`
# differentiates the one that ran (the example is from the book *Dive into Deep
# Learning*, d2l.ai, section 2.5). Here $a = 1.5$ doubles ten times and keeps its sign;
# $a = -0.3$ doubles twelve times and is then multiplied by 100. (`backward_order(out)`
# lists the nodes of `out`'s graph; section 3 explains its order.)

# %%
def number(v):
    """The plain number in a Value, or in a one-number tensor (its .item())."""
    return v.data if isinstance(v, minigrad.Value) else v.item()


def f(a):
    b = a * 2
    while abs(number(b)) < 1000:
        b = b * 2
    return b if number(b) > 0 else 100 * b


traced = {}
for a0 in [1.5, -0.3]:
    am, at = minigrad.Value(a0), torch.tensor(a0, dtype=torch.float64, requires_grad=True)
    out_m, out_t = f(am), f(at)
    out_m.backward()
    out_t.backward()
    print(f"a = {a0}: {len(backward_order(out_m))} nodes in minigrad's graph")
    traced[f"df/da at a = {a0}"] = (am.grad, at.grad)
check_all(traced)

# %% [markdown]
# Each node also knows its *local* gradients, the derivative of the node with respect
# to each parent, computed from the numbers stored in the graph. For $z = y^2$ it is
# $2y = 8$; for $y = x + 1$ it is $1$ for both parents. Chapter 04 is about these.
# Torch gives the same local gradients for each operation on its own.
# `torch.autograd.grad(output, inputs)` is `backward()` that returns the gradients of
# `output` with respect to `inputs` instead of adding them into their `.grad`:

# %%
print("z.local_grads():", zm.local_grads(), " y.local_grads():", ym.local_grads())
y_alone = torch.tensor(4.0, dtype=torch.float64, requires_grad=True)
x_alone = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
one = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
check_all({"z.local_grads()": (zm.local_grads(), torch.autograd.grad(y_alone ** 2, y_alone)),
           "y.local_grads()": (ym.local_grads(),
                               torch.autograd.grad(x_alone + one, (x_alone, one)))})

# %% [markdown]
# ## 3. Topological order
#
# In a longer graph, a node may feed several others. Its gradient is complete only when
# *every* node that uses it has passed its share back. So `backward` must visit the
# nodes in an order where each comes after all the nodes that use it: a reverse
# *topological order*. Here is a graph where $a$ feeds two nodes:

# %%
p = minigrad.Value(2.0, label="p")
q = minigrad.Value(-1.0, label="q")
a = p * q
a.label = "a"
b = a.tanh()
b.label = "b"
ab = a * b
ab.label = "a*b"
out = ab + p
out.label = "out"
[node.label for node in backward_order(out)]

# %% [markdown]
# `a*b` comes before `b` and `a`, which it uses; `b` comes before `a`, because `b` uses
# `a`; `a` comes before `p` and `q`. The standard way to find such an order is a
# depth-first walk that appends a node after all its parents, then reverses the list.
# micrograd writes it recursively:

# %%
def topo_v1(root):
    """Nodes with every node after its parents, by recursion (micrograd's build_topo)."""
    order, visited = [], set()

    def build(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent in node._prev:
                build(parent)
            order.append(node)

    build(root)
    return order


[node.label for node in reversed(topo_v1(out))]

# %% [markdown]
# Each node is visited once, so the work grows with the size of the graph, unlike the
# path-by-path `Value_v1` of chapter 01. But the recursion goes as deep as the graph,
# and Python stops when a thousand calls are nested (`sys.getrecursionlimit()`); the
# calls that run this cell count too, so `build` gets a little less deep than that:

# %%
deep = start = minigrad.Value(1.0)
for _ in range(5000):
    deep = deep * 1.0
try:
    topo_v1(deep)
except RecursionError as error:  # its traceback is one frame of build, repeated
    frames = traceback.extract_tb(error.__traceback__)
    nested = sum(frame.name == "build" for frame in frames)
    print(f"RecursionError: {error}")
    print(f"{nested} nested calls of build, the limit is {sys.getrecursionlimit()}")

# %% [markdown]
# The package's `backward_order` is the same walk with an explicit stack instead of the
# call stack: a node is pushed once to visit its parents, and once more to be appended
# after them; at the end the list is reversed, so the output comes first, as `backward`
# visits the nodes. It has no depth limit:

# %%
show_source(backward_order)

# %%
order = backward_order(deep)
len(order), order[0] is deep  # 5000 products, their 5000 constants 1.0, and start

# %% [markdown]
# Step through that walk on the graph of $a \cdot \tanh(a) + p$ above. Each **Step**
# pops one entry of the stack. The first time a node comes off, it is marked visited
# (light yellow) and pushed back, marked ✓, under its parents; the second time, all
# its parents are placed, so it is placed too (green, with its place in the order).
# A node pushed twice is skipped the second time it comes off unmarked. The readout
# shows the stack, the visited set and the order so far. (It needs a live kernel.)

# %% tags=nbval-ignore-output
topo_sort_widget(out)

# %% [markdown]
# ## 4. `Value.backward`
#
# With the order in hand, backward is a loop. Seed the output's gradient with $1$
# ($\frac{dz}{dz} = 1$), then for every node, in order, multiply its gradient by each
# local gradient and *add* the product into the parent's gradient. That is the chain
# rule applied once per edge of the graph.

# %%
show_source(minigrad.Value.backward)

# %% [markdown]
# This is *reverse-mode* automatic differentiation: one forward pass records the
# graph, one backward pass from the output gives the derivative of that one output
# with respect to *every* node at once. (Forward mode, the other way, carries
# derivatives along with the values, one input at a time, chapter 14; chapter 06 shows
# why reverse mode is the one for training, where one loss depends on many parameters.)
#
# Two details. Intermediate gradients are reset to zero first, so calling `backward()`
# twice does not pass stale numbers on; the leaves' gradients are not reset but added
# to (chapter 08). And the `+=` matters whenever a node is used more than once, as `a`
# is above (chapter 04). The graph with `a` used twice, against torch:

# %%
p, q = minigrad.Value(2.0, label="p"), minigrad.Value(-1.0, label="q")
a = p * q
a.label = "a"
t = a.tanh()
t.label = "tanh(a)"
a_t = a * t
a_t.label = "a*tanh(a)"
out = a_t + p
out.label = "out"
out.backward()
pt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
qt = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
at = pt * qt
(at * at.tanh() + pt).backward()
check_all({"p.grad": (p.grad, pt.grad), "q.grad": (q.grad, qt.grad)}, brief=True)

# %%
draw_graph(out, title="out = a * tanh(a) + p, after backward()")

# %% [markdown]
# A second `backward()` through the same minigrad graph works and adds into the leaves
# again, because a `Value` keeps everything its local gradients need. Torch does not:
# by default it frees what the graph saved for the backward pass as soon as the pass
# is done, and a second pass raises (the error is on purpose):

# %% tags=raises-exception
xt = torch.tensor(3.0, requires_grad=True)
zt = (xt + 1) ** 2
zt.backward()
zt.backward()

# %% [markdown]
# With `retain_graph=True` torch keeps what the graph saved, and the second pass adds
# into the leaf as minigrad's does: $8 + 8 = 16$. What torch frees is the saved
# tensors, not the graph: `x + 1` saves nothing (its local gradient is $1$ whatever
# $x$ is), so `(x + 1).backward()` runs twice without `retain_graph`, and `x.grad`
# becomes $1 + 1 = 2$; `(x + 1) ** 2` saves $x + 1$ for its local gradient $2(x + 1)$,
# and that is what the second pass above missed.

# %%
xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
zt = (xt + 1) ** 2
zt.backward(retain_graph=True)
zt.backward()
xm = minigrad.Value(3.0)
zm = (xm + 1) ** 2
zm.backward()
zm.backward()
check("x.grad after two backward passes", xm.grad, xt.grad, brief=True)

# %%
xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
yt = xt + 1
yt.backward()
yt.backward()  # no retain_graph: AddBackward0 saved nothing, so nothing was freed
xm = minigrad.Value(3.0)
ym = xm + 1
ym.backward()
ym.backward()
check("x.grad after two passes through x + 1", xm.grad, xt.grad, brief=True)

# %% [markdown]
# What does one backward pass cost? Per edge of the graph, one local gradient, one
# multiplication and one addition; per node of the forward pass, one operation. So the
# backward pass costs a small constant times the forward pass, however many leaves there
# are. This is the "cheap gradient" principle (Baur and Strassen; Griewank): in a model
# that counts arithmetic operations, the forward and the backward pass *together* cost
# at most about 4 to 5 times the forward pass alone. Measured on a chain of 2,000 tanh
# steps, best of three runs (timings vary from machine to machine). With single numbers
# most of the time goes to bookkeeping, not to arithmetic (minigrad makes a Python object
# for every operation of the forward pass; torch pays a fixed overhead for every
# operation in each pass), so the two libraries' ratios differ, but each is a small
# constant:

# %% tags=nbval-ignore-output
def tanh_chain(x, w, steps=2_000):
    v = x
    for _ in range(steps):
        v = (v * w + x).tanh()
    return v


def best_of(n, fn):
    times = []
    for _ in range(n):
        start_time = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start_time)
    return min(times)


graph = {}
forward_s = best_of(3, lambda: graph.update(out=tanh_chain(minigrad.Value(0.5),
                                                           minigrad.Value(0.3))))
backward_s = best_of(3, lambda: graph["out"].backward())
print(f"minigrad: forward {1e3 * forward_s:.0f} ms, backward {1e3 * backward_s:.0f} ms, "
      f"ratio {backward_s / forward_s:.2f}")
xt, wt = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (0.5, 0.3))
forward_t = best_of(3, lambda: graph.update(out_t=tanh_chain(xt, wt)))
backward_t = best_of(3, lambda: graph["out_t"].backward(retain_graph=True))
print(f"torch:    forward {1e3 * forward_t:.0f} ms, backward {1e3 * backward_t:.0f} ms, "
      f"ratio {backward_t / forward_t:.2f}")

# %% [markdown]
# The price of reverse mode is memory, not time. The backward pass runs after the
# forward pass is over and needs the values along the way (each `tanh` needs its
# output for $1 - t^2$), so every intermediate value is kept until backward is done:
# memory grows with the length of the forward pass. In the chain, each step adds three
# nodes (`*`, `+`, `tanh`) that stay alive as long as the output does:

# %%
for steps in [10, 100, 1000]:
    kept = len(backward_order(tanh_chain(minigrad.Value(0.5), minigrad.Value(0.3), steps)))
    print(f"{steps:5d} steps: {kept:5d} values kept for backward")
check("values kept, 1000 steps", len(backward_order(
    tanh_chain(minigrad.Value(0.5), minigrad.Value(0.3), 1000))), 3 * 1000 + 2,
      against="formula")

# %% [markdown]
# Chapter 09 measures what torch saves, and chapter 16 trades memory back for time
# with gradient checkpointing.

# %% [markdown]
# ## 5. A longer chain
#
# The same machinery handles any composition. Here
# $s = \sigma\big(\log(x^2 + 1) \cdot e^{-x}\big)$, seven operations (`**`, `+`, `log`,
# the `-` of $-x$, `exp`, `*`, `sigmoid`), five deep from $x$ to $s$, at $x = 0.7$;
# $\sigma(t) = 1 / (1 + e^{-t})$ is the sigmoid:

# %%
def s(x):
    return ((x ** 2 + 1).log() * (-x).exp()).sigmoid()


xm = minigrad.Value(0.7)
s(xm).backward()
xt = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
s(xt).backward()
check("ds/dx", xm.grad, xt.grad, brief=True)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 3.1: the chain rule by hand (2 points)
#
# Let $w = \tanh(x^2)$. With $u = x^2$, the pieces are $\frac{dw}{du} = 1 - \tanh(u)^2$
# and $\frac{du}{dx} = 2x$. Write `dw_dx(x)`, a function of a float that returns
# $\frac{dw}{dx}$ from these two pieces, with `math.tanh` and plain arithmetic. No
# `Value` and no autograd: the check switches both off, and compares with torch to the
# last few digits, which a numeric slope does not reach.
#
# <details><summary>Hint</summary>
#
# Compute the inner value $u$ first, then each of the two pieces at the right argument:
# the outer derivative is taken at $u$, not at $x$. The chain rule multiplies them.
# </details>

# %% solution=ex03-by-hand
def dw_dx(x):
    """d tanh(x**2) / dx by the chain rule."""
    ### BEGIN SOLUTION
    u = x ** 2
    return (1 - math.tanh(u) ** 2) * 2 * x
    ### END SOLUTION

# %% test=ex03-by-hand-test points=2
import math  # noqa: F811 - a test cell imports what it uses

import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 3.1", hint="multiply the derivative of tanh, taken at u = x**2, "
            "by the derivative of x**2") as g:
    def torch_dw_dx(point):
        xt = torch.tensor(point, dtype=torch.float64, requires_grad=True)
        (xt ** 2).tanh().backward()
        return xt.grad.item()

    def mistakes(x):
        """What the common mistakes give at x."""
        return {
            "inner-forgotten": ("your slope misses a factor that grows with x: what does "
                                "u = x**2 do to a small change of x on its way to w?",
                                1 - math.tanh(x ** 2) ** 2),
            "outer-at-x": ("your tanh' is taken at the wrong point: what does tanh see as "
                           "its input?", (1 - math.tanh(x) ** 2) * 2 * x),
            "tanh-not-squared": ("your derivative of tanh is off: check it against a "
                                 "numeric slope of tanh at one point",
                                 (1 - math.tanh(x ** 2)) * 2 * x),
            "ignores-x": ("your answer is the one at x = 0.5 wherever x is: does it "
                          "use x?", torch_dw_dx(0.5)),
        }

    by_hand = ["autograd", minigrad.Value.__init__]
    for point in [0.5, -1.2, 2.0]:
        got = g.call(dw_dx, point, forbid=by_hand)
        g.check(f"dw_dx({point})", got, torch_dw_dx(point), rtol=1e-12, atol=1e-14,
                mistakes=mistakes(point))
    ### BEGIN HIDDEN TESTS
    for x0 in [0.0, -0.3, 0.9, 1.7, -2.5, 3.0]:
        slope = g.call(dw_dx, x0, forbid=by_hand)
        g.check(f"dw_dx({x0})", slope, torch_dw_dx(x0), rtol=1e-12, atol=1e-14,
                mistakes=mistakes(x0))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3.2: an iterative topological sort (2 points)
#
# Write `topo_sort(root)` that returns a list of every node of `root`'s graph exactly
# once, with each node *after* all of its parents (`node._prev`), so that the output
# comes last. It must not recurse, so that it works on a chain far deeper than Python's
# recursion limit; the check runs it on a chain 5000 steps deep and watches how deep
# your calls go, with the package's own orderings switched off. It then runs a
# backward pass by hand in your order and compares the result with torch.
#
# <details><summary>Hint</summary>
#
# Replace the call stack of `topo_v1` with a list of work still to do, in a `while`
# loop. A node needs two visits: on the first, note it as seen and schedule its parents
# (and a second visit of itself before them, so it comes back after them); on the
# second, all its parents are in the result, so it can follow. A node already seen is
# not expanded again.
# </details>

# %% solution=ex03-topo-sort
def topo_sort(root):
    """Every node of root's graph once, each after its parents, without recursion."""
    ### BEGIN SOLUTION
    result, seen, todo = [], set(), [(root, False)]
    while todo:
        v, parents_done = todo.pop()
        if parents_done:
            result.append(v)
        elif id(v) not in seen:
            seen.add(id(v))
            todo.append((v, True))
            todo.extend((p, False) for p in v._prev)
    return result
    ### END SOLUTION

# %% test=ex03-topo-sort-test points=2
import sys

import torch

import minigrad
import minigrad.autograd.engine
import minigrad.course.graph
import minigrad.course.widgets.stepper
import minigrad.course.widgets.topo_view
from minigrad.course.grading import graded

with graded("Exercise 3.2", hint="keep the nodes still to visit in a list used as a "
            "stack; append a node only on its second visit, after all its parents") as g:
    Value = minigrad.Value
    orderings = ["minigrad.backward_order", minigrad.autograd.engine.topological_order,
                 minigrad.course.widgets.stepper.BackwardStepper._plan,
                 minigrad.course.graph._first_seen,
                 minigrad.course.widgets.topo_view.TopoSortStepper.step]

    def walks(root):
        """The orders two common wrong walks give: ids, for naming a mistake."""
        preorder, seen, todo = [], set(), [root]
        while todo:  # each node when first met, the list then reversed
            v = todo.pop()
            if id(v) not in seen:
                seen.add(id(v))
                preorder.append(id(v))
                todo.extend(v._prev)
        breadth, seen, level = [], {id(root)}, [root]
        while level:  # breadth-first from the output, then reversed
            breadth += [id(v) for v in level]
            level = [p for v in level for p in v._prev
                     if id(p) not in seen and not seen.add(id(p))]
        return preorder[::-1], breadth[::-1]

    def first_parents(root):
        chain = [root]
        while chain[-1]._prev:
            chain.append(chain[-1]._prev[0])
        return [id(v) for v in reversed(chain)]

    recursive = ("your topo_sort goes one call deeper for each node of a long chain: where "
                 "can the nodes still to visit wait instead of in Python's call stack?")

    def checked_order(name, root):
        """topo_sort(root), with the package's orderings off and its call depth watched."""
        depth = [0, 0]  # now, deepest

        def watch(frame, event, arg):
            if event == "call":
                depth[0] += 1
                depth[1] = max(depth)
            elif event == "return":
                depth[0] -= 1

        previous = sys.getprofile()
        sys.setprofile(watch)
        try:
            order = g.call(topo_sort, root, forbid=orderings,
                           mistakes={"recursive": (recursive, RecursionError)})
        finally:
            sys.setprofile(previous)
        g.require(f"{name}: no recursion", depth[1] < 200,
                  f"topo_sort went {depth[1]} calls deep: use a list as a stack in a "
                  "while loop instead of recursion", mistakes={"recursive": (recursive, True)})
        graph = minigrad.backward_order(root)  # the reference, after the call
        g.require(f"{name}: a list of Values", type(order) is list
                  and all(type(node) is Value for node in order),
                  "return a list of the graph's nodes themselves")
        ids = [id(node) for node in order]
        g.require(f"{name}: each node once", len(set(ids)) == len(ids),
                  "a node appears twice: remember which nodes you have seen", mistakes={
                      "no-seen-set": ("a node reached along two paths comes twice: how does "
                                      "your walk know it has been there?", True)})
        g.require(f"{name}: every node of the graph",
                  set(ids) == {id(node) for node in graph}, "walk every parent of every node",
                  mistakes={"first-parent-only": ("your order follows one parent of each "
                                                  "node: what about a node's other "
                                                  "parents?", ids == first_parents(root))})
        g.check(f"{name}: number of nodes", len(order), len(graph), against="the graph")
        position = {key: i for i, key in enumerate(ids)}
        g.require(f"{name}: each node after its parents",
                  all(position[id(p)] < position[id(node)] for node in order
                      for p in node._prev),
                  "a node comes before one of its parents", mistakes={
                      "first-met-reversed": ("your order puts a node when you first meet "
                                             "it: have all its parents been placed by then?",
                                             lambda: ids == walks(root)[0]),
                      "breadth-first-reversed": ("your order goes level by level from the "
                                                 "output: can a parent sit on a nearer "
                                                 "level than one of its users?",
                                                 lambda: ids == walks(root)[1])})
        return order

    def backward_by_hand(root, order):
        """The chain rule in topo_sort's order: each node after every node that uses it."""
        root.grad = 1.0
        for node in reversed(order):
            for parent, local in zip(node._prev, node.local_grads(), strict=True):
                parent.grad += local * node.grad

    # A node used twice, and a leaf used twice.
    p, q = Value(2.0), Value(-1.0)
    a = p * q
    out = a * a.tanh() + p
    backward_by_hand(out, checked_order("a * tanh(a) + p", out))
    pt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    qt = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    at = pt * qt
    (at * at.tanh() + pt).backward()
    g.check("p.grad in your order", p.grad, pt.grad)
    g.check("q.grad in your order", q.grad, qt.grad)
    # A chain of 5000 steps, deeper than the recursion limit; w feeds every step.
    leaf, w = Value(0.5), Value(0.01)
    chain = leaf
    for _ in range(5000):
        chain = (chain + w) * 0.9999
    backward_by_hand(chain, checked_order("a chain of 5000 steps", chain))
    leaf_t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    w_t = torch.tensor(0.01, dtype=torch.float64, requires_grad=True)
    chain_t = leaf_t
    for _ in range(5000):
        chain_t = (chain_t + w_t) * 0.9999
    chain_t.backward()
    g.check("d chain / d leaf in your order", leaf.grad, leaf_t.grad)
    g.check("d chain / d w in your order", w.grad, w_t.grad)
    ### BEGIN HIDDEN TESTS
    # One leaf alone; a sum of a node with itself.
    single = Value(3.0)
    checked_order("a single leaf", single)
    twice = single + single
    checked_order("a + a", twice)
    # The first parent also feeds the second: only a true topological order works.
    y = Value(1.5)
    x = y * 2.0
    c = y + x
    checked_order("y + 2y", c)
    # Sharing at several levels, several roots of the walk.
    s, t = Value(0.3), Value(-0.8)
    m1 = s * t
    m2 = m1.exp() + s
    m3 = (m2 * m1 + t).sigmoid()
    top = m3 * m2 + m1 * s
    backward_by_hand(top, checked_order("shared at several levels", top))
    st = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
    tt = torch.tensor(-0.8, dtype=torch.float64, requires_grad=True)
    m1t = st * tt
    m2t = m1t.exp() + st
    m3t = (m2t * m1t + tt).sigmoid()
    (m3t * m2t + m1t * st).backward()
    g.check("s.grad in your order", s.grad, st.grad)
    g.check("t.grad in your order", t.grad, tt.grad)
    # 5,000 steps (far past the recursion limit), two leaves feeding every step.
    u, v = Value(0.2), Value(1.0001)
    deep = u
    for _ in range(5_000):
        deep = deep * v + u * 1e-4
    backward_by_hand(deep, checked_order("a chain of 5,000 steps", deep))
    ut = torch.tensor(0.2, dtype=torch.float64, requires_grad=True)
    vt = torch.tensor(1.0001, dtype=torch.float64, requires_grad=True)
    deep_t = ut
    for _ in range(5_000):
        deep_t = deep_t * vt + ut * 1e-4
    deep_t.backward()
    g.check("d deep / d u in your order", u.grad, ut.grad)
    g.check("d deep / d v in your order", v.grad, vt.grad)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 3.3: two paths into one node, by hand (1 point)
#
# Let $r = (x \cdot y + x)^2$. Write `r_grads(x, y)` that returns the pair
# $\left(\frac{\partial r}{\partial x}, \frac{\partial r}{\partial y}\right)$ as plain
# floats, worked out *by hand* with the chain rule: let $m = xy + x$; then
# $\frac{\partial r}{\partial m} = 2m$, and $x$ reaches $m$ by two paths. No `Value` and
# no autograd inside `r_grads` (the check switches both off). Then, ungraded, in a
# cell of your own: draw the graph of $r$ at $(x, y) = (1.5, -2)$ with `draw_graph`
# after `backward()`, find the two paths from $x$, and compare the grads with yours.
#
# <details><summary>Hint</summary>
#
# First the local gradients of $m$: one for $y$, and for $x$ the sum over both paths
# ($x$ appears in the product and on its own). Then multiply each by the upstream
# $\frac{\partial r}{\partial m}$. At $(1.5, -2)$, $m = -1.5$.
# </details>

# %% solution=ex03-read-graph
def r_grads(x, y):
    """(dr/dx, dr/dy) for r = (x*y + x)**2, by the chain rule."""
    ### BEGIN SOLUTION
    m = x * y + x
    return 2 * m * (y + 1), 2 * m * x
    ### END SOLUTION

# %% test=ex03-read-graph-test points=1
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 3.3", hint="multiply dr/dm = 2m by the local gradient of m for each "
            "input, counting both paths from x to m") as g:
    def torch_r_grads(x, y):
        xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
        ((xt * yt + xt) ** 2).backward()
        return [xt.grad.item(), yt.grad.item()]

    def mistakes(x, y):
        """What the common mistakes give at (x, y)."""
        m = x * y + x
        return {
            "outer-forgotten": ("your gradient is missing r's own slope in m: what does "
                                "squaring do to a small change of m?", [y + 1, x]),
            "one-path-from-x": ("your dr/dx counts one path from x to m: how many edges "
                                "leave x?", [2 * m * y, 2 * m * x]),
            "partials-swapped": ("your two partials are in each other's place: which "
                                 "comes first?", [2 * m * x, 2 * m * (y + 1)]),
            "visible-answer": ("your gradient is the visible example's at another point: "
                               "does it use x and y?", [3.0, -4.5]),
            "ignores-y": ("your gradient is the one at y = -2 whatever y is: does it use "
                          "y?", torch_r_grads(x, -2.0)),
        }

    by_hand = ["autograd", minigrad.Value.__init__]
    got = g.call(r_grads, 1.5, -2.0, forbid=by_hand)
    g.check("r_grads(1.5, -2)", got, torch_r_grads(1.5, -2.0), rtol=1e-12, atol=1e-14,
            mistakes=mistakes(1.5, -2.0))
    ### BEGIN HIDDEN TESTS
    for x, y in [(0.7, 0.3), (-2.2, 1.4), (3.7, 2.9), (1.0, -1.0), (-0.5, -3.25)]:
        got = g.call(r_grads, x, y, forbid=by_hand)
        g.check(f"r_grads({x}, {y})", got, torch_r_grads(x, y), rtol=1e-12, atol=1e-14,
                mistakes=mistakes(x, y))
    ### END HIDDEN TESTS

# %% [markdown]
# ## Predict before you run
#
# Three questions on the chain rule. Guess first, then run the cell.
#
# **1.** $z = (x + 1)^2$ has $\frac{dz}{dx} = 8$ at $x = 3$. What is $\frac{dz}{dx}$ for
# $z = (2x + 1)^2$ at $x = 3$?

# %%
xm = minigrad.Value(3.0)
((2 * xm + 1) ** 2).backward()
xt = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
((2 * xt + 1) ** 2).backward()
print(xm.grad)
check("d(2x + 1)**2/dx at 3", xm.grad, xt.grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $28$, not $14$: $\frac{dz}{dy} = 2y = 14$ at $y = 7$, times the inner piece's
# derivative $\frac{dy}{dx} = 2$. The inner derivative was $1$ in section 1, which hid it.
# </details>
#
# **2.** $e^{x^2}$ and $(e^x)^2$ use the same two pieces, $\exp$ and squaring. Do they
# have the same derivative at $x = 1$?

# %%
results = {}
compositions = [("exp(x**2)", lambda v: (v ** 2).exp()), ("exp(x)**2", lambda v: v.exp() ** 2)]
for name, fn in compositions:
    xm = minigrad.Value(1.0)
    fn(xm).backward()
    xt = torch.tensor(1.0, dtype=torch.float64, requires_grad=True)
    fn(xt).backward()
    print(f"d/dx {name} at 1 = {xm.grad:.4f}")
    results[name] = (xm.grad, xt.grad)
check_all(results, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No: $2x\,e^{x^2} = 2e = 5.44$ against $2e^x \cdot e^x = 2e^2 = 14.78$. The chain rule
# multiplies the same kinds of pieces, but each is evaluated where the composition
# puts it, so the order of composition matters.
# </details>
#
# **3.** Nobody trains the neuron's input $x_1$. Does `o.backward()` still compute
# $\frac{do}{dx_1}$, and is it larger or smaller in size than $\frac{do}{dw_1} = 1$?

# %%
print(f"x1.grad = {x1.grad:.4f}   w1.grad = {w1.grad:.4f}")
check("do/dx1", x1.grad, inputs["x1"].grad, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Yes, $-1.5 = 0.5 \cdot w_1$: a product sends each factor the *other* factor, so the
# input gets the weight and the weight gets the input. `backward` fills every leaf of
# the graph; torch skips only the leaves that do not require a gradient.
# </details>
#
# ## Summary
#
# - The chain rule: the derivative of a composition is the product of the derivatives
#   of its pieces. For $z = (x + 1)^2$ at $x = 3$ it gives $2 \cdot 4 \cdot 1 = 8$.
# - `minigrad.Value` records a computation as a graph of values and operations;
#   `draw_graph` shows it with every node's data and grad. The neuron's graph, read from
#   the output back, gives $\frac{do}{dw} = (1, 0)$ and $\frac{do}{db} = 0.5$ step by step.
# - `backward` visits the nodes in reverse topological order, so each node's gradient
#   is complete before it is passed on, and each node is visited once.
# - A recursive topological sort fails past Python's recursion limit (1000 nested
#   calls); an explicit stack does not.
# - This is reverse-mode automatic differentiation: one backward pass, at a small
#   constant times the cost of the forward pass, gives the gradient with respect to
#   every leaf. Torch records the same computation as a chain of `grad_fn`s ending in
#   one `AccumulateGrad` per leaf, and after `backward()` frees the tensors the graph
#   saved for the backward pass (not the graph itself) unless `retain_graph=True`; a
#   `Value` graph can be backpropagated again and adds to the leaves again.
# - Reverse mode pays in memory: every intermediate value is kept until the backward
#   pass, so memory grows with the length of the forward pass.
# - The graph is a trace of what ran: Python's `if` and `while` choose which operations
#   are recorded.
#
# Next: [04 Local and upstream gradients](04_local_and_upstream.ipynb): what happens at
# a single node, and why `backward` adds.
