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

import torch

import minigrad
from minigrad import backward_order, check, check_all, draw_graph, show_source

# %% [markdown]
# ## 1. A composition
#
# The tutorial's example: $z = (x + 1)^2$. Name the inner piece, $y = x + 1$, so that
# $z = y^2$. Each piece has an easy derivative: $\frac{dy}{dx} = 1$ and
# $\frac{dz}{dy} = 2y$. The *chain rule* multiplies them:
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
          atol=1e-5)

# %% [markdown]
# ## 2. The computational graph
#
# `minigrad.Value` records the same computation as a graph: each value remembers the
# values it was made from (its *parents*) and the operation that made it. Labels are
# only for reading; the drawing shows each value as a box *name | data | grad* and each
# operation as a circle. Before `backward()` every `grad` is zero.

# %%
xm = minigrad.Value(3.0, label="x")
ym = xm + 1
ym.label = "y"
zm = ym ** 2
zm.label = "z"
draw_graph(zm)

# %% [markdown]
# (The box `v0` is the constant `1`, made into a `Value` by `+`.) The graph is what the
# chain rule runs on. `backward()` fills in the gradients, $\frac{dz}{d\,\text{node}}$
# for every node: $1$ for $z$ itself, $2y = 8$ for $y$, and $8 \cdot 1 = 8$ for $x$.

# %%
zm.backward()
draw_graph(zm, title="after z.backward()")

# %%
check_all({"x.grad": (xm.grad, x.grad), "z": (zm.data, z)})

# %% [markdown]
# Each node also knows its *local* gradients, the derivative of the node with respect
# to each parent, computed from the numbers stored in the graph. For $z = y^2$ it is
# $2y = 8$; for $y = x + 1$ it is $1$ for both parents. Chapter 04 is about these.
# Torch gives the same local gradients for each operation on its own:

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
out = a * b + p
out.label = "out"
[node.label for node in backward_order(out) if node.label]

# %% [markdown]
# `b` comes before `a`, because `b` uses `a`; `a` comes before `p` and `q`. The standard
# way to find such an order is a depth-first walk that appends a node after all its
# parents, then reverses the list. micrograd writes it recursively:

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


[node.label for node in reversed(topo_v1(out)) if node.label]

# %% [markdown]
# Each node is visited once, so the work grows with the size of the graph, unlike the
# path-by-path `Value_v1` of chapter 01. But the recursion goes as deep as the graph,
# and Python stops at about a thousand nested calls:

# %%
deep = start = minigrad.Value(1.0)
for _ in range(5000):
    deep = deep * 1.0
try:
    topo_v1(deep)
except RecursionError as error:  # the traceback would repeat one frame 3000 times
    print(f"RecursionError: {error}")

# %% [markdown]
# The package's `backward_order` is the same walk with an explicit stack instead of the
# call stack: a node is pushed once to visit its parents, and once more to be appended
# after them. It has no depth limit:

# %%
show_source(backward_order)

# %%
order = backward_order(deep)
len(order), order[0] is deep  # 5000 products, their 5000 constants 1.0, and start

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
# Two details. Intermediate gradients are reset to zero first, so calling `backward()`
# twice does not pass stale numbers on; the inputs' gradients are not reset but added
# to, as in PyTorch (chapter 08). And the `+=` matters whenever a node is used more than
# once, as `a` is above (chapter 04). The graph with `a` used twice, against torch:

# %%
out.backward()
pt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
qt = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
at = pt * qt
(at * at.tanh() + pt).backward()
check_all({"p.grad": (p.grad, pt.grad), "q.grad": (q.grad, qt.grad)})

# %%
draw_graph(out, title="out = a * tanh(a) + p, after backward()")

# %% [markdown]
# ## 5. A longer chain
#
# The same machinery handles any composition. Here
# $s = \sigma\big(\log(x^2 + 1) \cdot e^{-x}\big)$, seven operations deep, at $x = 0.7$:

# %%
def s(x):
    return ((x ** 2 + 1).log() * (-x).exp()).sigmoid()


xm = minigrad.Value(0.7)
s(xm).backward()
xt = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
s(xt).backward()
check("ds/dx", xm.grad, xt.grad)

# %% [markdown]
# ## Exercises
#
# ### Exercise 3.1: the chain rule by hand
#
# Let $w = \tanh(x^2)$. With $u = x^2$, the pieces are $\frac{dw}{du} = 1 - \tanh(u)^2$
# and $\frac{du}{dx} = 2x$. Write `dw_dx(x)`, a function of a float that returns
# $\frac{dw}{dx}$ from these two pieces (use `math.tanh`, no `Value`).
#
# <details><summary>Hint</summary>
#
# Compute `u = x ** 2`, then return `(1 - math.tanh(u) ** 2) * 2 * x`.
# </details>

# %% solution=ex03-by-hand
def dw_dx(x):
    """d tanh(x**2) / dx by the chain rule."""
    ### BEGIN SOLUTION
    u = x ** 2
    return (1 - math.tanh(u) ** 2) * 2 * x
    ### END SOLUTION

# %% test=ex03-by-hand-test points=2
# Exercise 3.1 checks: against torch at a few points.
for point in [0.5, -1.2, 2.0]:
    xt = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    (xt ** 2).tanh().backward()
    check(f"dw/dx at {point}", dw_dx(point), xt.grad)

# %% [markdown]
# ### Exercise 3.2: an iterative topological sort
#
# Write `topo_sort(root)` that returns every node of the graph exactly once, with each
# node *after* all of its parents (`node._prev`), without recursion, so that it works on
# a chain of 5000 nodes. Do not call `backward_order`.
#
# <details><summary>Hint</summary>
#
# Keep a stack of pairs `(node, parents_done)`. Pop a pair: if `parents_done`, append
# the node to the result; otherwise, if the node is new, push `(node, True)` and then
# `(parent, False)` for each parent.
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
# Exercise 3.2 checks: each node once, after its parents, with backward_order replaced by
# a function that raises; then a backward pass over a deep chain in topo_sort's order,
# whose gradient must match torch.
def forbidden_backward_order(root):
    raise AssertionError("topo_sort must not call backward_order")


def topological(root):
    """topo_sort(root), checked to hold each node once, after its parents."""
    size = len(backward_order(root))
    saved = minigrad.value.backward_order, minigrad.backward_order, backward_order
    minigrad.value.backward_order = minigrad.backward_order = forbidden_backward_order
    globals()["backward_order"] = forbidden_backward_order
    try:
        order = topo_sort(root)
    finally:
        minigrad.value.backward_order, minigrad.backward_order, restored = saved
        globals()["backward_order"] = restored
    position = {id(node): i for i, node in enumerate(order)}
    assert len(position) == len(order) == size, "each node once"
    for node in order:
        for parent in node._prev:
            assert position[id(parent)] < position[id(node)], "a node before its parent"
    return order


topological(out)
chain = leaf = minigrad.Value(0.5)
for _ in range(5000):
    chain = chain * 1.0001
### BEGIN HIDDEN TESTS
two = minigrad.Value(2.0)
shared = two * two
topological(shared + shared * two)
### END HIDDEN TESTS
chain.grad = 1.0  # backward by hand: every node after all the nodes that use it
for node in reversed(topological(chain)):
    for parent, local in zip(node._prev, node.local_grads(), strict=True):
        parent.grad += local * node.grad
chain_t = leaf_t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
for _ in range(5000):
    chain_t = chain_t * 1.0001
chain_t.backward()
check("d chain / d leaf", leaf.grad, leaf_t.grad)

# %% [markdown]
# ### Exercise 3.3: read the graph
#
# For $r = (x \cdot y + x)^2$ at $(x, y) = (1.5, -2)$, predict $\frac{\partial r}
# {\partial x}$ and $\frac{\partial r}{\partial y}$ *by hand* with the chain rule
# (let $m = xy + x$; then $\frac{\partial r}{\partial m} = 2m$) and store them in
# `dr_dx` and `dr_dy` as plain numbers. Then draw the graph with `draw_graph` to
# compare.
#
# <details><summary>Hint</summary>
#
# $\frac{\partial m}{\partial x} = y + 1$ and $\frac{\partial m}{\partial y} = x$.
# Here $m = -1.5$.
# </details>

# %% solution=ex03-read-graph
### BEGIN SOLUTION
m = 1.5 * -2.0 + 1.5
dr_dx = 2 * m * (-2.0 + 1)
dr_dy = 2 * m * 1.5
### END SOLUTION

# %% test=ex03-read-graph-test points=1
# Exercise 3.3 checks: against torch.
xt = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
yt = torch.tensor(-2.0, dtype=torch.float64, requires_grad=True)
((xt * yt + xt) ** 2).backward()
check_all({"dr/dx": (dr_dx, xt.grad), "dr/dy": (dr_dy, yt.grad)})

# %% [markdown]
# ## Summary
#
# - The chain rule: the derivative of a composition is the product of the derivatives
#   of its pieces. For $z = (x + 1)^2$ at $x = 3$ it gives $2 \cdot 4 \cdot 1 = 8$.
# - `minigrad.Value` records a computation as a graph of values and operations;
#   `draw_graph` shows it with every node's data and grad.
# - `backward` visits the nodes in reverse topological order, so each node's gradient
#   is complete before it is passed on, and each node is visited once.
# - A recursive topological sort fails past Python's recursion limit; an explicit stack
#   does not.
#
# Next: [04 Local and upstream gradients](04_local_and_upstream.ipynb): what happens at
# a single node, and why `backward` adds.
