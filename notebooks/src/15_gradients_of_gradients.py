# %% [markdown]
# # 15 Gradients of gradients
#
# A backward pass computes a gradient out of ordinary operations: multiplications,
# additions, a `1 - y**2` for `tanh`. If those operations are recorded as they run, the
# gradient is itself the output of a graph, and we can differentiate it again. That is
# all `create_graph=True` does, and it is enough for second derivatives, Hessians,
# Hessian-vector products, Newton's method, and losses that contain a gradient. This
# chapter computes each of them in minigrad and in PyTorch, and checks every number
# against torch in the cell that makes it.
#
# **Learning goals.** After this chapter you can
#
# 1. differentiate a derivative with `autograd.grad(..., create_graph=True)`, and say
#    what the flag records;
# 2. compute a Hessian by hand, by `func.hessian` and by `autograd.functional.hessian`;
# 3. compute a Hessian-vector product in two ways (double backward, forward over
#    reverse) and explain why it costs a few gradients while the Hessian costs $n$;
# 4. check second derivatives with `gradgradcheck`, and catch a backward that is right
#    to first order and wrong to second;
# 5. take Newton steps, $H d = -\nabla f$, and compare them with gradient descent.

# %%
import time
from functools import partial
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import display

import minigrad
from minigrad import check, check_all
from minigrad.course.widgets.newton_view import newton_widget
from minigrad.course.tensor_graph import draw_side_by_side

torch.set_num_threads(1)  # tiny tensors: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. The derivative of a derivative
#
# Chapter 01's function, $y = x^2$ at $x = 3$: the derivative is $2x = 6$ and the second
# derivative is $2$. `autograd.grad(y, x, create_graph=True)` returns the gradient as a
# tensor *with a graph*, so the same function can be applied to it again:

# %%
def second_derivative_of(lib, f, x0):
    """f'(x0) and f''(x0) in lib: the gradient, recorded, then its own gradient."""
    x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(f(x), x, create_graph=True)
    (h,) = lib.autograd.grad(g.sum(), x)  # .sum(): g itself for one x; many x: below
    return g, h


g, h = second_derivative_of(minigrad, lambda x: x ** 2, 3.0)
g_t, h_t = second_derivative_of(torch, lambda x: x ** 2, 3.0)
print(g, h)
check_all({"f'(3) of x**2": (g, g_t), "f''(3) of x**2": (h, h_t)})

# %% [markdown]
# The first gradient prints with a `grad_fn`: it was computed by recorded operations.
# Without `create_graph=True` the backward pass runs on plain numbers, the gradient has
# no `grad_fn`, and asking for its derivative fails, with the error of chapter 12 for a
# tensor that does not require grad. In torch:

# %% tags=raises-exception
x_t = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
(g_t,) = torch.autograd.grad(x_t ** 2, x_t)
print(g_t.requires_grad, g_t.grad_fn)
torch.autograd.grad(g_t, x_t)

# %% [markdown]
# and minigrad, with the same message:

# %% tags=raises-exception
x = minigrad.tensor(3.0, dtype=minigrad.float64, requires_grad=True)
(g,) = minigrad.autograd.grad(x ** 2, x)
print(g.requires_grad, g.grad_fn)
minigrad.autograd.grad(g, x)

# %% [markdown]
# A second derivative that is not a constant: $\tanh$. With $t = \tanh x$,
#
# $$\frac{d}{dx}\tanh x = 1 - t^2, \qquad \frac{d^2}{dx^2}\tanh x = -2t\,(1 - t^2).$$
#
# At $x = 0.5$, both libraries against the formulas, and against each other:

# %%
g, h = second_derivative_of(minigrad, lambda x: x.tanh(), 0.5)
g_t, h_t = second_derivative_of(torch, lambda x: x.tanh(), 0.5)
t = np.tanh(0.5)
check_all({"tanh' (0.5)": (g, 1 - t ** 2), "tanh'' (0.5)": (h, -2 * t * (1 - t ** 2))},
          against="formula")
check_all({"tanh' (0.5)": (g, g_t), "tanh'' (0.5)": (h, h_t)}, brief=True)

# %% [markdown]
# Over a range of $x$ at once: for $f(x) = \sum_i \tanh x_i$, element $i$ of the gradient is
# $\tanh'(x_i)$, and element $i$ of the gradient of its sum is $\tanh''(x_i)$ (each term
# depends on one $x_i$ only), so two calls give both derivatives at every point:

# %%
xs = np.linspace(-3, 3, 121)
g, h = second_derivative_of(minigrad, lambda x: x.tanh().sum(), xs)
g_t, h_t = second_derivative_of(torch, lambda x: x.tanh().sum(), xs)
check_all({"tanh' on [-3, 3]": (g, g_t), "tanh'' on [-3, 3]": (h, h_t)}, brief=True)
fig, ax = plt.subplots(figsize=(6, 2.8))
ax.plot(xs, np.tanh(xs), label="tanh x")
ax.plot(xs, g.detach().numpy(), label="first derivative (create_graph)")
ax.plot(xs, h.numpy(), label="second derivative (its gradient)")
ax.plot(xs, h_t.numpy(), "k:", label="torch")
ax.axhline(0, color="0.85", lw=0.8)
ax.set_xlabel("x")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## 2. What `create_graph` records
#
# The gradient's graph is the backward pass written as operations. For $\tanh$, the
# backward multiplies the upstream gradient by $1 - t^2$, where $t$ is the saved output
# of `TanhBackward0`: the graph of $g$ leads back through that node to $x$. Drawn, for
# minigrad (left) and torch (right):

# %%
x = minigrad.tensor(0.5, dtype=minigrad.float64, requires_grad=True)
x_t = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
(g,) = minigrad.autograd.grad(x.tanh(), x, create_graph=True)
(g_t,) = torch.autograd.grad(x_t.tanh(), x_t, create_graph=True)
display(check("g = tanh'(0.5), recorded", g, g_t))
draw_side_by_side(g, g_t, titles=("minigrad: the graph of g", "torch: the graph of g"))

# %% [markdown]
# Both graphs start at `TanhBackward0`, the node of the forward pass, whose saved output
# $t$ the gradient needs. From there torch uses one fused node,
# `TanhBackwardBackward0`, that knows the derivative of `tanh`'s backward. minigrad
# runs the op's own backward on tensors (written with its own ops), so its graph shows
# the rule spelled out: $t \cdot t$ (`MulBackward0`), $1 - t^2$
# (`RsubBackward1`), times the upstream gradient (`MulBackward0`). The numbers are the
# same, and so are their derivatives.
#
# `loss.backward(create_graph=True)` does the same into `.grad`: the gradient stored
# there has a graph and can be differentiated. Both libraries warn that this makes a
# reference cycle (the parameter holds its gradient, whose graph holds the parameter)
# and recommend `autograd.grad`, which returns the gradient instead of storing it.
#
# <details><summary>A difference in the graph (internals)</summary>
#
# torch copies the gradient into a leaf's `.grad` with a recorded copy,
# `CopyBackwards`; minigrad stores the gradient itself, so `.grad`'s node is that of
# the rule's last op. The numbers, and their derivatives, are the same.
# </details>

# %%
def grad_node_after_backward(lib):
    x = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch warns once per process unless told otherwise
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (x ** 3).backward(create_graph=True)
    torch.set_warn_always(always)
    (second,) = lib.autograd.grad(x.grad, x)
    node = repr(x.grad.grad_fn).split()[0].lstrip("<")  # the class name, both libraries
    return x.grad, node, second, str(caught[0].message)


grad, node, second, message = grad_node_after_backward(minigrad)
grad_t, node_t, second_t, message_t = grad_node_after_backward(torch)
print(f"minigrad: x.grad.grad_fn is {node};  torch: {node_t}")
print("torch's warning begins with minigrad's:", message_t.startswith(message))
print(message[:75] + "...")
check_all({"x.grad of x**3 at 3": (grad, grad_t), "its derivative, 6x": (second, second_t)})

# %% [markdown]
# ## 3. The Hessian
#
# For $f: \mathbb{R}^n \to \mathbb{R}$, the Hessian is the matrix of second partial
# derivatives, $H_{ij} = \partial^2 f / \partial x_i \partial x_j$: row $i$ is the
# gradient of $\partial f / \partial x_i$. Take three inputs:
#
# $$f(x) = x_0^2 x_1 + e^{x_1} x_2 + x_0 x_2^3 .$$
#
# By hand, $\nabla f = (2x_0x_1 + x_2^3,\; x_0^2 + e^{x_1}x_2,\; e^{x_1} + 3x_0x_2^2)$ and
#
# $$H = \begin{pmatrix} 2x_1 & 2x_0 & 3x_2^2 \\ 2x_0 & e^{x_1}x_2 & e^{x_1} \\
# 3x_2^2 & e^{x_1} & 6x_0x_2 \end{pmatrix},$$
#
# symmetric, as every Hessian of a smooth function. At $x = (1, 0.5, -1)$:

# %%
def f3(x):
    return x[0] ** 2 * x[1] + x[1].exp() * x[2] + x[0] * x[2] ** 3


point = [1.0, 0.5, -1.0]
a, b, c = point
H_by_hand = np.array([[2 * b, 2 * a, 3 * c ** 2],
                      [2 * a, np.exp(b) * c, np.exp(b)],
                      [3 * c ** 2, np.exp(b), 6 * a * c]])
H_t = torch.func.hessian(f3)(torch.tensor(point, dtype=torch.float64))
check("torch.func.hessian vs the formula", H_t, H_by_hand, against="by hand")

# %% [markdown]
# Row by row, with what section 1 did: the gradient, recorded, then one backward pass
# through it for each row (`retain_graph=True` keeps the gradient's graph for the next
# row). This is `jacrev(grad(f))`: $n$ backward passes.

# %%
x = minigrad.tensor(point, dtype=minigrad.float64, requires_grad=True)
(grad_f,) = minigrad.autograd.grad(f3(x), x, create_graph=True)
rows = [minigrad.autograd.grad(grad_f[i], x, retain_graph=True)[0] for i in range(3)]
H_rows = np.stack([r.numpy() for r in rows])
check("Hessian, row by row", H_rows, H_t, brief=True)

# %% [markdown]
# The ready-made ones: `minigrad.func.hessian` (as `torch.func.hessian`, it is
# `jacfwd(jacrev(f))`, forward mode over reverse mode: one forward pass with a tangent
# per column, each through a recorded backward pass) and
# `minigrad.autograd.functional.hessian` (as `torch.autograd.functional.hessian`),
# against torch's:

# %%
x = minigrad.tensor(point, dtype=minigrad.float64)
x_t = torch.tensor(point, dtype=torch.float64)
check_all({
    "minigrad.func.hessian": (minigrad.func.hessian(f3)(x), H_t),
    "minigrad.autograd.functional.hessian": (minigrad.autograd.functional.hessian(f3, x),
                                             torch.autograd.functional.hessian(f3, x_t)),
})

# %% [markdown]
# ## 4. Hessian-vector products
#
# Often we do not need $H$ itself but $Hv$ for some vector $v$ (Newton's method by
# conjugate gradients, curvature along a direction, the largest eigenvalue by power
# iteration). Two ways to get it without building $H$:
#
# - **double backward** (reverse over reverse): $\nabla_x\,(\nabla f(x) \cdot v)$.
#   The gradient, recorded; its dot product with a constant $v$, a scalar; one more
#   backward pass through that. Strictly, this gives $v^\top H$ (the vector
#   $H^\top v$): it is $Hv$ because $H$ is symmetric, which holds when $f$ has
#   continuous second derivatives, as every function in this chapter does;
# - **forward over reverse**: $Hv$ is the directional derivative of the gradient along
#   $v$, a Jacobian-vector product of $\nabla f$, so `func.jvp(func.grad(f), (x,), (v,))`
#   (chapter 14's forward mode, carried through a backward pass).
#
# torch has both products, and its names keep the two apart.
# `autograd.functional.vhp(f, x, v)` is the double backward, $v^\top H$ in two backward
# passes. `autograd.functional.hvp(f, x, v)` is $H v$ for any $H$, symmetric or not: it
# runs the gradient pass, then chapter 14's double-VJP trick on the gradient, three
# backward passes in all, and its documentation warns that it is "significantly slower
# than `vhp`". minigrad has the same two functions. We count torch's backward passes,
# on a function of $n = 64$ inputs with a full Hessian, $f(x) = \sum_i \tanh((Ax)_i)^2$:

# %%
rng = np.random.default_rng(15)
n = 64
A64 = rng.standard_normal((n, n)) / np.sqrt(n)
x0, v0 = rng.standard_normal(n), rng.standard_normal(n)


def tanh_net(lib, A):
    """f(x) = sum(tanh(A x)**2) in lib, with A fixed."""
    A = lib.tensor(A)
    return lambda x: ((A @ x).tanh() ** 2).sum()


def hvp_double_backward(f, x, v):
    """v^T H by double backward (two passes): H v, since H is symmetric."""
    return minigrad.autograd.functional.vhp(f, x, v)[1]


def hvp_forward_over_reverse(f, x, v):
    return minigrad.func.jvp(minigrad.func.grad(f), (x,), (v,))[1]


f, f_t = tanh_net(minigrad, A64), tanh_net(torch, A64)
x, v = minigrad.tensor(x0), minigrad.tensor(v0)
x_t, v_t = torch.tensor(x0), torch.tensor(v0)


def backward_passes(autograd_module, compute):
    """Run compute() and count its calls to autograd_module.grad (one per backward pass)."""
    real_grad = autograd_module.grad
    calls = []

    def counted_grad(*args, **kwargs):
        calls.append(1)
        return real_grad(*args, **kwargs)

    autograd_module.grad = counted_grad
    try:
        result = compute()
    finally:
        autograd_module.grad = real_grad
    return result, len(calls)


passes = {}
for name in ("hvp", "vhp"):
    hvp_or_vhp = getattr(torch.autograd.functional, name)
    _, passes[name] = backward_passes(torch.autograd, partial(hvp_or_vhp, f_t, x_t, v_t))
_, ours = backward_passes(minigrad.autograd, lambda: hvp_double_backward(f, x, v))
print("torch's backward passes:", passes, " minigrad's vhp:", ours)
check_all({"torch: hvp's backward passes": (passes["hvp"], 3, "formula"),
           "torch: vhp's backward passes": (passes["vhp"], 2, "formula"),
           "minigrad: vhp's backward passes": (ours, passes["vhp"])})

# %% [markdown]
# The double backward (minigrad's `vhp`, which you write yourself in Exercise 15.2) and
# forward over reverse, against torch's `hvp` and `vhp` and against $H v$ from the full
# Hessian; the Hessian is symmetric, so all of them agree:

# %%
Hv_t = torch.autograd.functional.hvp(f_t, x_t, v_t)[1]
check_all({"H symmetric: H = H^T": (minigrad.func.hessian(f)(x),
                                    minigrad.func.hessian(f)(x).T, "formula"),
           "torch: v^T H (vhp) = H v (hvp)": (torch.autograd.functional.vhp(f_t, x_t, v_t)[1],
                                              Hv_t, "torch hvp"),
           "Hv by double backward": (hvp_double_backward(f, x, v), Hv_t),
           "Hv by forward over reverse": (hvp_forward_over_reverse(f, x, v), Hv_t),
           "H @ v, the full Hessian": (minigrad.func.hessian(f)(x) @ v, Hv_t)})

# %% [markdown]
# What each costs. One HVP is a forward pass, a recorded backward pass and one more pass
# through that (or one forward pass carrying a tangent through a backward pass): a
# small constant times the cost of one gradient, whatever $n$ is. The Hessian is $n$
# HVPs, one per column $He_j$, so $n$ times that; and it must store $n^2$ numbers where
# an HVP returns $n$. The sizes first, exactly:

# %%
sizes = [8, 32, 128]
rows = []
for n in sizes:
    x = minigrad.tensor(np.linspace(-1, 1, n))
    f_n = tanh_net(minigrad, np.eye(n) + 0.1)
    hv_bytes = hvp_double_backward(f_n, x, x).numpy().nbytes
    h_bytes = minigrad.func.hessian(f_n)(x).numpy().nbytes
    rows.append((n, hv_bytes, h_bytes))
    print(f"n = {n:4d}: Hv {hv_bytes:7,d} bytes, H {h_bytes:10,d} bytes ({h_bytes // hv_bytes}x)")
check("bytes: H over Hv is n", [r[2] / r[1] for r in rows], sizes, against="formula")

# %% [markdown]
# And the times (your numbers will differ: this cell's output is not compared). Each is
# the best of a few runs after one that is not timed. The gradient, an HVP by double
# backward and by forward over reverse, and the full Hessian, in minigrad and in torch
# (`torch.autograd.functional.hessian`, which loops over rows as ours does). torch's
# `vhp` is the line to compare with our double backward (both two passes); its `hvp`
# takes the third pass.

# %% tags=nbval-ignore-output
def best_of(fn, *args, repeats=3):
    fn(*args)  # not timed: warms caches up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def minigrad_gradient(f, x):
    return minigrad.func.grad(f)(x)


def minigrad_hessian(f, x):
    return minigrad.func.hessian(f)(x)


rng = np.random.default_rng(16)
sizes = [4, 16, 64, 128]
timings = {k: [] for k in ["gradient", "Hv, double backward", "Hv, forward over reverse",
                           "Hessian", "torch: vhp (2 passes)", "torch: hvp (3 passes)",
                           "torch: Hessian"]}
for n in sizes:
    A = rng.standard_normal((n, n)) / np.sqrt(n)
    f, f_t = tanh_net(minigrad, A), tanh_net(torch, A)
    x0, v0 = rng.standard_normal(n), rng.standard_normal(n)
    x, v, x_t, v_t = minigrad.tensor(x0), minigrad.tensor(v0), torch.tensor(x0), torch.tensor(v0)
    check_all({f"Hv, n = {n}": (hvp_double_backward(f, x, v),
                                torch.autograd.functional.hvp(f_t, x_t, v_t)[1]),
               f"H, n = {n}": (minigrad_hessian(f, x),
                               torch.autograd.functional.hessian(f_t, x_t))})
    timings["gradient"].append(best_of(minigrad_gradient, f, x))
    timings["Hv, double backward"].append(best_of(hvp_double_backward, f, x, v))
    timings["Hv, forward over reverse"].append(best_of(hvp_forward_over_reverse, f, x, v))
    timings["Hessian"].append(best_of(minigrad_hessian, f, x, repeats=2))
    timings["torch: vhp (2 passes)"].append(
        best_of(torch.autograd.functional.vhp, f_t, x_t, v_t))
    timings["torch: hvp (3 passes)"].append(
        best_of(torch.autograd.functional.hvp, f_t, x_t, v_t))
    timings["torch: Hessian"].append(
        best_of(torch.autograd.functional.hessian, f_t, x_t, repeats=2))
fig, ax = plt.subplots(figsize=(6, 3.4))
for (name, ts), style in zip(timings.items(), ["o-", "s-", "^-", "D-", "s:", "v:", "D:"],
                             strict=True):
    ax.loglog(sizes, ts, style, label=name)
ax.set_xticks(sizes, [str(s) for s in sizes])
ax.minorticks_off()
ax.set_xlabel("number of inputs n")
ax.set_ylabel("seconds")
ax.legend(fontsize=7)
plt.show()
for name in ["Hv, double backward", "Hv, forward over reverse", "Hessian"]:
    ratios = ", ".join(f"{t / g:.1f}" for t, g in zip(timings[name], timings["gradient"],
                                                     strict=True))
    print(f"{name:25s} / gradient, n = {sizes}: {ratios}")

# %% [markdown]
# The HVP's line stays a small constant above the gradient's (about 2 to 4 times); the
# Hessian's grows with $n$, because it is $n$ HVPs. At these sizes each pass costs
# mostly its fixed per-op overhead, so the Hessian's time grows like $n$ (the number of
# passes). For large $n$ each pass also does $O(n^2)$ work here (the product $Ax$), in
# the gradient's pass as in each of the Hessian's, so both times grow by that factor
# and their ratio stays proportional to $n$ ($n$ HVPs of a few gradients each): the
# gap grows like $n$, no faster. For a network
# with a million parameters the Hessian would hold $10^{12}$ numbers; an HVP holds a
# million.
#
# ## 5. Checking second derivatives: `gradgradcheck`
#
# Chapter 11's `gradcheck` compares a backward pass with finite differences of the
# forward. `gradgradcheck(func, inputs, grad_outputs)` does the same one level up
# (with the tolerances of `gradcheck`): the function it checks is
# the backward pass itself, $(x, v) \mapsto v^\top \partial f / \partial x$, computed with
# `create_graph=True`, against finite differences of that. `v` (the `grad_outputs`) is
# random unless given; we give it, so both libraries check the same thing. On
# $\tanh(x^3)$:

# %%
x0 = np.array([0.5, -1.2, 2.0])
v0 = np.array([1.0, 2.0, -1.0])


def inputs(lib):
    return (lib.tensor(x0, requires_grad=True),), (lib.tensor(v0, requires_grad=True),)


ok = minigrad.autograd.gradgradcheck(lambda t: (t ** 3).tanh(), *inputs(minigrad))
ok_t = torch.autograd.gradgradcheck(lambda t: (t ** 3).tanh(), *inputs(torch))
check("gradgradcheck(tanh(x**3)) passes", ok, ok_t)

# %% [markdown]
# Now a custom `Function` with a backward that is right to first order and wrong to
# second. `Cube` computes $x^3$; its forward computes the slope $3x^2$ and keeps it on
# `ctx` for backward, to save recomputing it. That breaks a rule of torch's
# documentation (`FunctionCtx.save_for_backward`): every tensor that backward uses
# must go through `ctx.save_for_backward`, "as opposed to directly on `ctx`", to
# prevent incorrect gradients and memory leaks; an intermediary (neither input nor
# output of forward) should be recomputed from the inputs in backward, or returned as
# an output of the `Function`, or the backward marked `@once_differentiable` so that a
# second derivative raises instead of coming out wrong. Here is the wrong gradient it
# prevents. Forward runs untracked (its result is recorded as one node, `Cube`), so the
# kept slope is a constant: when the backward is recorded, the graph of the gradient
# does not reach $x$ through it, and the second derivative, $6x\,v$, comes out $0$.
# The same class in both libraries (their `Function`s share the interface):

# %%
def cube_functions(lib):
    """Cube with a constant slope (wrong second derivative) and with the saved x."""
    base = torch.autograd.Function if lib is torch else minigrad.autograd.Function

    class ConstantSlopeCube(base):
        @staticmethod
        def forward(ctx, x):
            ctx.slope = 3 * x ** 2  # the bug: an intermediary kept on ctx, a constant
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output * ctx.slope

    class Cube(base):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * 3 * x ** 2  # from x: recorded when create_graph is on

    return ConstantSlopeCube, Cube


WrongCube, Cube = cube_functions(minigrad)
WrongCube_t, Cube_t = cube_functions(torch)
check_all({"gradcheck, constant slope": (
               minigrad.autograd.gradcheck(WrongCube.apply, inputs(minigrad)[0]),
               torch.autograd.gradcheck(WrongCube_t.apply, inputs(torch)[0])),
           "gradgradcheck, saved x": (
               minigrad.autograd.gradgradcheck(Cube.apply, *inputs(minigrad)),
               torch.autograd.gradgradcheck(Cube_t.apply, *inputs(torch)))})

# %% [markdown]
# `gradcheck` passes the constant-slope version: its first derivative is right.
# `gradgradcheck` does not. In torch:

# %% tags=raises-exception
torch.autograd.gradgradcheck(WrongCube_t.apply, *inputs(torch))

# %% [markdown]
# and in minigrad, the same `GradcheckError` and message, and the same numbers:

# %% tags=raises-exception
minigrad.autograd.gradgradcheck(WrongCube.apply, *inputs(minigrad))

# %% [markdown]
# The numerical Jacobian of the gradient $v \cdot 3x^2$ with respect to $x$ is
# $\mathrm{diag}(6 x v) = \mathrm{diag}(3, -14.4, -12)$; the analytical one is zero,
# since nothing in the gradient's graph depends on $x$:

# %%
check("6 x v", 6 * x0 * v0, [3.0, -14.4, -12.0], against="by hand")
x, (v,) = minigrad.tensor(x0, requires_grad=True), inputs(minigrad)[1]
(g,) = minigrad.autograd.grad(WrongCube.apply(x), x, v, create_graph=True)
x_t, (v_t,) = torch.tensor(x0, requires_grad=True), inputs(torch)[1]
(g_t,) = torch.autograd.grad(WrongCube_t.apply(x_t), x_t, v_t, create_graph=True)
print("the gradient requires grad:", g.requires_grad, "(minigrad),", g_t.requires_grad, "(torch)")
check_all({"the gradient, right": (g, g_t),
           "its derivative along x, wrong (zero)": (
               minigrad.autograd.grad(g.sum(), x, allow_unused=True)[0] is None,
               torch.autograd.grad(g_t.sum(), x_t, allow_unused=True)[0] is None)})

# %% [markdown]
# The gradient still requires grad (it depends on $v$), but not on $x$: differentiating
# it with respect to $x$ finds no path, and both libraries return `None`
# (`allow_unused=True`). Rule: a backward that should be twice differentiable computes
# from tensors saved with `save_for_backward` (inputs or outputs), with operations the
# library records.
#
# ## 6. Newton's method
#
# Gradient descent moves against the gradient with one step size for every direction:
# chapter 10 showed that the step must stay below $2 / \lambda_{\max}$, the largest
# curvature, so directions of small curvature crawl. Newton's method uses the curvature:
# it minimizes the second-order model
# $f(x + d) \approx f(x) + \nabla f^\top d + \tfrac12 d^\top H d$, whose minimum solves
#
# $$H\, d = -\nabla f(x), \qquad x \leftarrow x + d .$$
#
# One function for both libraries: the gradient and Hessian from `func` (minigrad's and
# `torch.func`), the linear system solved by numpy for minigrad and by
# `torch.linalg.solve` for torch.

# %%
def newton(lib, f, start, steps, tol=1e-12):
    """Newton's iterates from start, until the step is shorter than tol."""
    p = lib.tensor(start, dtype=lib.float64)
    path = [p.numpy().copy()]
    for _ in range(steps):
        g, H = lib.func.grad(f)(p), lib.func.hessian(f)(p)
        if lib is torch:
            d = -torch.linalg.solve(H, g)
        else:
            d = minigrad.tensor(-np.linalg.solve(H.numpy(), g.numpy()))
        p = p + d
        path.append(p.numpy().copy())
        if np.linalg.norm(d.numpy()) < tol:
            break
    return np.array(path)


def descent(lib, f, start, lr, steps):
    """Gradient descent's iterates: lib.optim.SGD."""
    p = lib.tensor(start, dtype=lib.float64, requires_grad=True)
    optimizer = lib.optim.SGD([p], lr=lr)
    path = [p.detach().numpy().copy()]
    for _ in range(steps):
        optimizer.zero_grad()
        f(p).backward()
        optimizer.step()
        path.append(p.detach().numpy().copy())
    return np.array(path)


def steps_within(path, target, tol=1e-6):
    """The first iterate within tol of target."""
    return int(np.argmax(np.linalg.norm(path - target, axis=1) < tol))

# %% [markdown]
# First chapter 10's valley, $f(u, v) = \tfrac12 (u^2 + 20 v^2)$, from $(-4, 1)$. It is a
# quadratic: the model is exact, and Newton lands on the minimum in one step, whatever
# the curvatures. Gradient descent with $\eta = 0.09$ (just under $2/20$) shrinks $u$ by
# $1 - 0.09 = 0.91$ a step (and $v$ by $|1 - 0.09 \cdot 20| = 0.8$, faster): it needs
# $\lceil \ln(4 \cdot 10^6) / -\ln 0.91 \rceil = 162$ steps to come within $10^{-6}$.

# %%
def valley(p):
    return 0.5 * (p[0] ** 2 + 20 * p[1] ** 2)


newton_valley = newton(minigrad, valley, [-4.0, 1.0], steps=5)
descent_valley = descent(minigrad, valley, [-4.0, 1.0], lr=0.09, steps=200)
display(check_all({
    "Newton on the valley": (newton_valley, newton(torch, valley, [-4.0, 1.0], 5)),
    "gradient descent": (descent_valley, descent(torch, valley, [-4.0, 1.0], lr=0.09,
                                                 steps=200))}, atol=1e-12))
print("Newton's points:", newton_valley.tolist())
print("steps to within 1e-6: Newton", steps_within(newton_valley, [0, 0]),
      "gradient descent", steps_within(descent_valley, [0, 0]))
check_all({"Newton's steps": (steps_within(newton_valley, [0, 0]), 1),
           "gradient descent's steps": (steps_within(descent_valley, [0, 0]),
                                        int(np.ceil(np.log(4e6) / -np.log(0.91))))},
          against="formula")

# %% [markdown]
# A harder one: the Rosenbrock function, a long curved valley with its minimum $0$ at
# $(1, 1)$,
#
# $$f(a, b) = (1 - a)^2 + 100\,(b - a^2)^2 ,$$
#
# from the classic start $(-1.2, 1)$. Across the valley the curvature is above 1000, so
# gradient descent needs $\eta < 2/1000$ and then crawls along it; Newton's model is not
# exact here, but it rescales each direction by its curvature.

# %%
def rosenbrock(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


start = [-1.2, 1.0]
newton_rosen = newton(minigrad, rosenbrock, start, steps=20)
descent_rosen = descent(minigrad, rosenbrock, start, lr=0.001, steps=2000)
display(check_all({
    "Newton on Rosenbrock": (newton_rosen, newton(torch, rosenbrock, start, 20)),
    "gradient descent, its first 500 steps": (
        descent_rosen[:501], descent(torch, rosenbrock, start, lr=0.001, steps=500))},
    atol=1e-10))
print("Newton's points:\n", np.round(newton_rosen, 5))
print("Newton, steps to within 1e-6 of (1, 1):", steps_within(newton_rosen, [1, 1]))
end = descent_rosen[-1]
print(f"gradient descent after 2000 steps: ({end[0]:.4f}, {end[1]:.4f}), "
      f"f = {rosenbrock(end):.2e}")

# %%
aa, bb = np.meshgrid(np.linspace(-2, 2, 100), np.linspace(-3.5, 3, 120))
fig, ax = plt.subplots(figsize=(5.5, 4.4))
ax.contour(aa, bb, np.log10(rosenbrock((aa, bb)) + 1e-3), levels=14, colors="0.8")
ax.plot(descent_rosen[:, 0], descent_rosen[:, 1], ".-", ms=2, lw=0.8,
        label="gradient descent, lr 0.001 (2000 steps)")
ax.plot(newton_rosen[:, 0], newton_rosen[:, 1], "s-", ms=4, label="Newton")
ax.plot(1, 1, "k*", ms=12)
ax.set(xlabel="a", ylabel="b", title="Rosenbrock: paths from (-1.2, 1)")
ax.legend(loc="lower right", fontsize=8)
plt.show()

# %% [markdown]
# Newton's second step jumps far off the valley, to $(0.76, -3.18)$, where the quadratic
# model of the first point was poor; the third lands back on the valley's floor, and from
# there the distance to $(1, 1)$ roughly squares each step (quadratic convergence):
# $0.48$, $0.056$, $10^{-5}$, $2 \cdot 10^{-11}$. Gradient descent has not reached $(1, 1)$
# after 2000 steps. Each Newton step costs a Hessian ($n$ HVPs) and a linear solve
# ($O(n^3)$): for two inputs nothing, for a network's millions of parameters out of
# reach, which is why second-order methods for networks use HVPs (conjugate gradients)
# or approximations of $H$.
#
# The pure step can also go uphill. Here it does twice: the second step takes $f$ from
# $4.7$ to $1412$, the fourth from $0.056$ to $0.31$. At those points $H$ is positive
# definite, so $d$ points downhill ($\nabla f \cdot d < 0$); the step is only too long
# for the quadratic model. A line search fixes that: try $x + \alpha d$ with $\alpha =
# 1$, halve $\alpha$ until $f$ decreases enough (Armijo's condition, $f(x + \alpha d)
# \le f(x) + 10^{-4} \alpha\, \nabla f \cdot d$). It never goes uphill, and near the
# minimum it accepts $\alpha = 1$, so the last steps are pure Newton steps and keep
# the quadratic convergence (here it takes 21 steps where the pure method, whose
# uphill jumps happened to pay off, took 6); only a *fixed* $\alpha < 1$ loses it (the widget below,
# with $\alpha = 0.5$). Where $H$ is not positive definite no step size helps:
# $d = -H^{-1} \nabla f$ can then point uphill, so that every small $\alpha > 0$
# increases $f$, and Newton's method is repaired by changing the direction instead:
# $H + \lambda I$ in place of $H$ (Levenberg-Marquardt), a trust region, or a step
# along $-\nabla f$. The numbers, in both libraries:

# %%
def newton_line_search(lib, f, start, steps=40, tol=1e-6):
    """Newton with backtracking (Armijo): the iterates and each step's alpha."""
    p = lib.tensor(start, dtype=lib.float64)
    path, alphas = [p.numpy().copy()], []
    for _ in range(steps):
        g, H = lib.func.grad(f)(p), lib.func.hessian(f)(p)
        d = lib.tensor(-np.linalg.solve(H.numpy(), g.numpy()))
        slope, alpha = float((g * d).sum()), 1.0
        while float(f(p + alpha * d)) > float(f(p)) + 1e-4 * alpha * slope:
            alpha /= 2
        p = p + alpha * d
        path.append(p.numpy().copy())
        alphas.append(alpha)
        if np.linalg.norm(path[-1] - [1.0, 1.0]) < tol:
            break
    return np.array(path), alphas


values = np.array([rosenbrock(point) for point in newton_rosen])
uphill = [k for k in range(1, len(values)) if values[k] > values[k - 1]]
at = {k: (minigrad.func.grad(rosenbrock)(minigrad.tensor(newton_rosen[k - 1])),
          minigrad.func.hessian(rosenbrock)(minigrad.tensor(newton_rosen[k - 1])))
      for k in uphill}
eigenvalues = [np.linalg.eigvalsh(H.numpy()) for _, H in at.values()]
slopes = [float(-(g.numpy() @ np.linalg.solve(H.numpy(), g.numpy()))) for g, H in at.values()]
print("f along Newton's path:", np.array2string(values, precision=3))
print("uphill steps:", uphill, " H's eigenvalues before them:",
      [np.round(e, 2).tolist() for e in eigenvalues], " grad . d:", np.round(slopes, 2))
searched, alphas = newton_line_search(minigrad, rosenbrock, start)
searched_t, alphas_t = newton_line_search(torch, rosenbrock, start)
searched_values = [rosenbrock(point) for point in searched]
print(f"with the line search: {len(alphas)} steps, alphas {alphas}")
check_all({"uphill steps of pure Newton": (uphill, [2, 4], "by hand"),
           "H positive definite there": ([e.min() > 0 for e in eigenvalues], [True, True],
                                         "by hand"),
           "d points downhill there": ([s < 0 for s in slopes], [True, True], "by hand"),
           "line search: the path": (searched, searched_t),
           "line search: alphas": (alphas, alphas_t),
           "line search: f never increases": (np.diff(searched_values) <= 0,
                                              np.ones(len(alphas), bool), "by hand"),
           "line search: the last 7 steps are full (alpha = 1)": (alphas[-7:], np.ones(7),
                                                                  "by hand")},
          atol=1e-12)

# %% [markdown]
# ### Newton against gradient descent, from anywhere
#
# Move the start point, gradient descent's learning rate and Newton's step size
# $\alpha$ (damping). Both methods run in minigrad and in torch; the readout counts the
# steps to within $10^{-6}$ of $(1, 1)$ (gradient descent stops at 200, Newton at 30)
# and compares every point with torch's. Try a start on the other side, $a = 1.5,
# b = -0.5$; and $\alpha = 0.5$, where Newton only halves its error each step.

# %% tags=nbval-ignore-output
newton_box = newton_widget(start=(-1.2, 1.0), lr=0.001, damping=1.0)
display(check("the widget's Newton path", newton_box.race.newton, newton_box.race.newton_torch,
              rtol=1e-10, atol=1e-12))
newton_box

# %% [markdown]
# ## 7. Forward over reverse by default, and per-sample gradients
#
# Section 4 had three ways to an HVP. Which one to use when you need many of them (a
# conjugate-gradient Newton solve, a curvature estimate)? The JAX autodiff cookbook's
# advice is forward over reverse: `jvp(grad(f), (x,), (v,))`. It gives $Hv$ itself,
# symmetric $H$ or not, as `hvp` does; and it does it in one backward pass, the
# tangent $v$ riding along every op of the gradient's computation, where `vhp` needs
# two passes and `hvp` three. We count the passes with a plain counter around
# `autograd.grad` (each pass is one call), in both libraries, on a function of 5
# inputs:

# %%
rng = np.random.default_rng(157)
A_fr = rng.standard_normal((5, 5)) / 2
xr0, vr0 = rng.standard_normal(5), rng.standard_normal(5)
f_fr, f_fr_t = tanh_net(minigrad, A_fr), tanh_net(torch, A_fr)
xr, vr, xr_t, vr_t = (minigrad.tensor(xr0), minigrad.tensor(vr0), torch.tensor(xr0),
                      torch.tensor(vr0))


ways = {
    "forward over reverse": (
        lambda: minigrad.func.jvp(minigrad.func.grad(f_fr), (xr,), (vr,))[1],
        lambda: torch.func.jvp(torch.func.grad(f_fr_t), (xr_t,), (vr_t,))[1]),
    "vhp (double backward)": (
        lambda: minigrad.autograd.functional.vhp(f_fr, xr, vr)[1],
        lambda: torch.autograd.functional.vhp(f_fr_t, xr_t, vr_t)[1]),
    "hvp": (lambda: minigrad.autograd.functional.hvp(f_fr, xr, vr)[1],
            lambda: torch.autograd.functional.hvp(f_fr_t, xr_t, vr_t)[1]),
}
rows = {}
for name, (ours, theirs) in ways.items():
    Hv_ours, passes_ours = backward_passes(minigrad.autograd, ours)
    Hv_theirs, passes_theirs = backward_passes(torch.autograd, theirs)
    print(f"{name:22s} backward passes: minigrad {passes_ours}, torch {passes_theirs}")
    rows[f"{name}: Hv"] = (Hv_ours, Hv_theirs)
    rows[f"{name}: backward passes"] = (passes_ours, passes_theirs)
check_all(rows, brief=True)

# %% [markdown]
# One pass against two or three, for the same $Hv$. Memory goes with it: reverse over
# reverse records the whole gradient computation as a graph (`create_graph=True`) and
# keeps it until the next backward pass has walked it; forward over reverse finishes
# $Hv$ inside the one backward pass, so no recorded gradient waits for a later pass.
# That is why it is the default; `vhp` stays useful where forward mode is missing (an
# op without a tangent rule, a custom `Function` without `jvp`).
#
# **Per-sample gradients.** A training step's `backward` sums the gradients of the
# examples in a batch. Some methods need each example's own gradient: clipping each
# example's gradient to a norm bound before averaging, as DP-SGD (differentially
# private training) does, so that no single example moves the weights by more than the
# bound. `vmap` gives them all in one call: write the loss of *one* example as a
# function of the parameters (`functional_call` runs the model with parameters passed
# in), take its `grad`, and `vmap` it over the examples, with
# `in_dims=(None, 0, 0)`: the parameters are shared, the inputs and targets are
# batched along their first dimension. torch's per-sample-gradients tutorial, on a
# linear model with 3 inputs and a batch of 6:

# %%
minigrad.manual_seed(0)
ps_model = minigrad.nn.Linear(3, 1, dtype=minigrad.float64)
ps_model_t = torch.nn.Linear(3, 1, dtype=torch.float64)
ps_params = {name: p.detach() for name, p in ps_model.named_parameters()}
ps_params_t = {name: torch.tensor(p.numpy()) for name, p in ps_params.items()}
rng = np.random.default_rng(158)
X_ps, Y_ps = rng.standard_normal((6, 3)), rng.standard_normal((6, 1))


def one_example_loss(lib, model):
    """The squared error of one example (x, y) as a function of the parameters."""
    def loss(params, x, y):
        out = lib.func.functional_call(model, params, (x.unsqueeze(0),))
        return ((out - y.unsqueeze(0)) ** 2).mean()
    return loss


loss_ps, loss_ps_t = one_example_loss(minigrad, ps_model), one_example_loss(torch, ps_model_t)
per_sample = minigrad.func.vmap(minigrad.func.grad(loss_ps), in_dims=(None, 0, 0))(
    ps_params, minigrad.tensor(X_ps), minigrad.tensor(Y_ps))
per_sample_t = torch.func.vmap(torch.func.grad(loss_ps_t), in_dims=(None, 0, 0))(
    ps_params_t, torch.tensor(X_ps), torch.tensor(Y_ps))
print({name: tuple(g.shape) for name, g in per_sample.items()})
one_at_a_time = [minigrad.func.grad(loss_ps)(ps_params, minigrad.tensor(x), minigrad.tensor(y))
                 for x, y in zip(X_ps, Y_ps, strict=True)]
check_all({"per-sample gradient of weight": (per_sample["weight"], per_sample_t["weight"]),
           "per-sample gradient of bias": (per_sample["bias"], per_sample_t["bias"]),
           "= one example at a time (weight)": (per_sample["weight"],
                                                [g["weight"] for g in one_at_a_time],
                                                "one at a time")},
          brief=True)

# %% [markdown]
# Each example's gradient has the parameter's shape, with the batch in front. Clipping
# per example, DP-SGD's first step (without its noise): scale each example's whole
# gradient (weight and bias together) down to norm 5 where it is larger, then average:

# %%
def clipped_mean(per_sample, max_norm=5.0):
    norms = sum((g.reshape(g.shape[0], -1) ** 2).sum(1) for g in per_sample.values()).sqrt()
    scale = (max_norm / norms).clamp(max=1.0)
    return norms, {name: (g * scale.reshape((-1,) + (1,) * (g.ndim - 1))).mean(0)
                   for name, g in per_sample.items()}


norms, clipped = clipped_mean(per_sample)
norms_t, clipped_t = clipped_mean(per_sample_t)
print("per-example gradient norms:", np.round(norms.numpy(), 3))
check_all({"norms": (norms, norms_t),
           "clipped mean, weight": (clipped["weight"], clipped_t["weight"]),
           "clipped mean, bias": (clipped["bias"], clipped_t["bias"])}, brief=True)

# %% [markdown]
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 15.1: the n-th derivative (2 points)
#
# Section 1 went two levels deep. Write `nth_derivative(f, x, n)`: the `n`-th derivative
# $f^{(n)}(x)$ at a number `x` (`n = 0` gives $f(x)$), for a function `f` of one minigrad
# tensor (0-d) that returns a 0-d tensor, with minigrad's `autograd.grad`. Return a
# number (or a 0-d tensor). The check switches off `minigrad.func` and
# `autograd.functional` and torch, and compares with torch on functions, points and
# orders of its own, to 10 digits (a finite difference is not that close).
#
# <details><summary>Hint</summary>
#
# A loop: each pass differentiates the previous result, and a pass that another pass
# follows must record its graph (`create_graph=True`). $\tanh'''(x)$ takes three passes.
# </details>

# %% solution=ex15-nth-derivative
def nth_derivative(f, x, n):
    ### BEGIN SOLUTION
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    for _ in range(n):
        (y,) = minigrad.autograd.grad(y, x, create_graph=True)
    return y.item()
    ### END SOLUTION

# %% test=ex15-nth-derivative-test points=2
import math

import numpy as np
import torch

from minigrad.course.grading import graded

with graded("Exercise 15.1", hint="x as a leaf with requires_grad=True; n passes of "
            "autograd.grad, each on the previous result, each with create_graph=True") as g:
    def torch_nth(f, x0, order):
        """torch.func.grad applied order times."""
        while order:
            f, order = torch.func.grad(f), order - 1
        return f(torch.tensor(x0, dtype=torch.float64))

    def mistakes(f, x0, n):
        """What the common mistakes give for order n at x0, from torch's derivatives."""
        found = {"ignores-n": ("your value is the second derivative, whatever n is: does "
                               "n decide how many passes you make?",
                               lambda: torch_nth(f, x0, 2))}
        if n >= 1:
            found["one-pass-short"] = ("your value is the derivative one order lower: how "
                                       "many passes does the n-th derivative take?",
                                       lambda: torch_nth(f, x0, n - 1))
        if n >= 2:
            found["differentiates-f-again"] = (
                "your value is the first derivative: which tensor does each pass "
                "differentiate?", lambda: torch_nth(f, x0, 1))
            found["grads-piled-up"] = (
                "your value adds up derivatives of several orders: where does each pass "
                "put its result, and what was already there?",
                lambda: sum(math.comb(n - 1, k - 1) * torch_nth(f, x0, k)
                            for k in range(1, n + 1)))
        return found

    def check_nth(name, f, x0, n):
        got = g.call(nth_derivative, f, x0, n, mistakes={
            "graph-not-recorded": ("a later pass found no graph to go through: which "
                                   "passes must record the graph of what they compute?",
                                   RuntimeError)},
                     forbid=["minigrad.func", "torch.func", "torch.autograd"])
        g.check(f"order {n} at {x0} of {name}", got, torch_nth(f, x0, n), rtol=1e-10,
                atol=1e-12, mistakes=mistakes(f, x0, n))

    check_nth("x**3", lambda t: t ** 3, 2.0, 1)
    check_nth("tanh(x)", lambda t: t.tanh(), 0.5, 3)
    check_nth("tanh(x)", lambda t: t.tanh(), 0.5, 2)
    ### BEGIN HIDDEN TESTS
    check_nth("x**5", lambda t: t ** 5, 1.3, 5)
    check_nth("x exp(x)", lambda t: t * t.exp(), -0.3, 4)
    check_nth("sigmoid(x)", lambda t: t.sigmoid(), 1.2, 2)
    check_nth("x**4 - 2x", lambda t: t ** 4 - 2 * t, 1.5, 0)
    check_nth("tanh(x)", lambda t: t.tanh(), -1.7, 4)
    check_nth("log(x) / x", lambda t: t.log() / t, 2.5, 3)
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 15.2: a Hessian-vector product by double backward (3 points)
#
# Write `hvp(f, x, v)`: $H v$, for a function `f` of a 1-D minigrad tensor returning a
# 0-d tensor, a point `x` and a vector `v` (minigrad tensors that do not require grad),
# by double backward: exactly two backward passes (`autograd.grad` twice), never the
# full Hessian. (That gives $v^\top H$, torch's `vhp`; the check's functions have
# continuous second derivatives, so $H$ is symmetric and it is $H v$.) The check
# counts the backward passes, switches off `minigrad.func`, `autograd.functional` (its
# `hvp` and `vhp`) and torch, and compares with torch's `autograd.functional.hvp`, on
# functions and sizes of its own.
#
# <details><summary>Hint</summary>
#
# $H v = \nabla_x (\nabla f(x) \cdot v)$, with $v$ a constant. `x` does not require
# grad: make a leaf from it first (`x.detach().requires_grad_()`).
# </details>

# %% solution=ex15-hvp
def hvp(f, x, v):
    ### BEGIN SOLUTION
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    (hv,) = minigrad.autograd.grad((g * v).sum(), x)
    return hv
    ### END SOLUTION

# %% test=ex15-hvp-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.mistakes import matches

with graded("Exercise 15.2", hint="the gradient with create_graph=True, its dot product "
            "with v, then one more autograd.grad: two passes") as g:
    def mistakes(f, x0, v0):
        """What the common mistakes give at x0 along v0, from torch's derivatives."""
        x, v = torch.tensor(x0), torch.tensor(v0)
        grad = torch.func.grad(f)(x)
        return {
            "gradient-times-v": ("your result is the gradient times v, entry by entry: "
                                 "where is the second derivative?", grad * v),
            "gradient-added": ("your H v has the gradient added to it: where does your "
                               "second pass put its result, and what was already there?",
                               lambda: grad + torch.autograd.functional.hvp(f, x, v)[1]),
            "ignores-v": ("your result is H times a vector of ones: where does v enter "
                          "your second pass?",
                          lambda: torch.autograd.functional.hvp(f, x, torch.ones_like(v))[1]),
        }

    def check_hvp(name, f_of, x0, v0):
        passes = g.calls.get("minigrad.autograd", 0)
        got = g.call(hvp, f_of(minigrad), minigrad.tensor(x0), minigrad.tensor(v0),
                     forbid=["minigrad.func", "torch.func", "torch.autograd"],
                     count="minigrad.autograd")
        passes = g.calls["minigrad.autograd"] - passes
        found = mistakes(f_of(torch), x0, v0)
        g.require(f"{name}: two backward passes", passes == 2,
                  f"your hvp ran {passes} backward passes; H v takes two (a gradient "
                  "with its graph, then one pass through it), never the whole Hessian",
                  mistakes={"gradient-times-v": (found["gradient-times-v"][0], passes == 1
                                                 and matches(got, found["gradient-times-v"][1]))})
        ref = torch.autograd.functional.hvp(f_of(torch), torch.tensor(x0),
                                            torch.tensor(v0))[1]
        g.check(f"{name}: H v", got, ref, rtol=1e-10, atol=1e-12, mistakes=found)

    def cubic(lib):
        return lambda x: (x ** 2).sum() * x.sum() + x.exp().sum()

    check_hvp("sum(x**2) sum(x) + sum(exp(x)), n = 3", cubic,
              np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, -1.0]))
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(152)

    def net(A):
        return lambda lib: (lambda x: ((lib.tensor(A) @ x).tanh() ** 2).sum())

    A6 = rng.standard_normal((6, 6)) / 2
    check_hvp("sum(tanh(A x)**2), n = 6", net(A6), rng.standard_normal(6),
              rng.standard_normal(6))
    check_hvp("cubic, n = 5", cubic, rng.standard_normal(5), rng.standard_normal(5))
    Q = rng.standard_normal((4, 4))
    quad = lambda lib: (lambda x: 0.5 * (x * (lib.tensor(Q) @ x)).sum())  # noqa: E731
    x0, v0 = rng.standard_normal(4), rng.standard_normal(4)
    got = g.call(hvp, quad(minigrad), minigrad.tensor(x0), minigrad.tensor(v0),
                 forbid=["torch.autograd", "torch.func", "minigrad.func"])
    g.check("quadratic x^T Q x / 2: H v = (Q + Q^T) v / 2", got, (Q + Q.T) @ v0 / 2,
            rtol=1e-10, atol=1e-12, against="formula", mistakes=mistakes(quad(torch), x0, v0))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 15.3: a Newton step (2 points)
#
# Write `newton_step(f, x)`: the point $x + d$ where $H d = -\nabla f(x)$, for a
# function `f` of a 1-D minigrad tensor `x` (which does not require grad) returning a
# 0-d tensor. Build the gradient and the Hessian with `minigrad.autograd.grad` (the
# Hessian row by row as in section 3, or column by column with your `hvp` from
# Exercise 15.2); `minigrad.func` and `autograd.functional` are switched off, and so is
# torch. Solve the system with `np.linalg.solve`. The check compares with torch's Newton
# step on functions and points of its own, and with the formula on a quadratic, where
# one step lands on the minimum.
#
# <details><summary>Hint</summary>
#
# Solve, do not multiply: $d = -H^{-1} \nabla f$ is `np.linalg.solve(H, -g)` with
# numpy arrays (`.numpy()`, after `.detach()` for a tensor that requires grad). Return
# the new point as an array or a tensor.
# </details>

# %% solution=ex15-newton-step
def newton_step(f, x):
    ### BEGIN SOLUTION
    x = x.detach().requires_grad_()
    (grad,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    H = np.stack([minigrad.autograd.grad(grad[i], x, retain_graph=True)[0].numpy()
                  for i in range(x.numel())])
    return x.detach().numpy() + np.linalg.solve(H, -grad.detach().numpy())
    ### END SOLUTION

# %% test=ex15-newton-step-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 15.3", hint="g and H at x, then solve H d = -g with "
            "np.linalg.solve and return x + d") as g:
    def torch_newton_step(f, x0):
        x = torch.tensor(x0, dtype=torch.float64)
        grad, H = torch.func.grad(f)(x), torch.func.hessian(f)(x)
        return x - torch.linalg.solve(H, grad)

    def mistakes(f, x0):
        """What the common mistakes give at x0, from torch's gradient and Hessian."""
        x = torch.tensor(x0, dtype=torch.float64)
        grad, H = torch.func.grad(f)(x), torch.func.hessian(f)(x)
        return {
            "multiplied-by-H": ("your step is H times the gradient: does H d = -g give d "
                                "by multiplying by H?", x - H @ grad),
            "sign-flipped": ("your step goes the other way: which sign does d have in "
                             "H d = -g?", x + torch.linalg.solve(H, grad)),
            "diagonal-only": ("your step divides each partial by H's diagonal alone: what "
                              "do the off-diagonal entries of H do?", x - grad / H.diagonal()),
            "gradient-step": ("your step is x minus the gradient: where does the Hessian "
                              "come into it?", x - grad),
        }

    def check_step(name, f, x0, rtol=1e-10):
        got = g.call(newton_step, f, minigrad.tensor(np.array(x0, dtype=np.float64)),
                     forbid=["minigrad.func", "torch.func", "torch.autograd"])
        g.check(f"newton_step({name}) at {list(x0)}", got, torch_newton_step(f, x0),
                rtol=rtol, atol=1e-12, mistakes=mistakes(f, x0))
        return got

    def rosen(p):
        return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2

    check_step("Rosenbrock", rosen, [-1.2, 1.0])
    got = check_step("the valley (u**2 + 20 v**2) / 2",
                     lambda p: 0.5 * (p[0] ** 2 + 20 * p[1] ** 2), [-4.0, 1.0])
    g.check("the valley: one step to (0, 0)", got, [0.0, 0.0], atol=1e-12, against="formula")
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(153)
    check_step("Rosenbrock", rosen, [0.3, -0.4])
    check_step("x0**2 x1 + exp(x1) x2 + x0 x2**3",
               lambda x: x[0] ** 2 * x[1] + x[1].exp() * x[2] + x[0] * x[2] ** 3,
               [1.0, 0.5, -1.0])
    M = rng.standard_normal((3, 3))
    Q, b = M @ M.T + np.eye(3), rng.standard_normal(3)

    def quad(x):
        return 0.5 * (x * (minigrad.tensor(Q) @ x)).sum() - (minigrad.tensor(b) * x).sum()

    x0 = rng.standard_normal(3)
    got = g.call(newton_step, quad, minigrad.tensor(x0.copy()),
                 forbid=["torch.autograd", "torch.func", "minigrad.func"])
    g.check("x^T Q x / 2 - b^T x: one step to Q^-1 b", got, np.linalg.solve(Q, b),
            rtol=1e-9, atol=1e-12, against="formula", mistakes=mistakes(
                lambda x: 0.5 * (x * (torch.tensor(Q) @ x)).sum() - (torch.tensor(b) * x).sum(),
                x0))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 15.4: the largest curvature, from your HVP (3 points)
#
# Chapter 10 found that gradient descent is stable only for a learning rate $\eta <
# 2/\lambda_{\max}$, where $\lambda_{\max}$ is the largest eigenvalue of the Hessian:
# on its valley $(u^2 + 20 v^2)/2$ it read $\lambda_{\max} = 20$ off the formula. A
# network's loss has no formula to read, and its Hessian is too large to build; but
# your `hvp` multiplies by $H$ in two backward passes. **Power iteration** needs
# nothing else: multiply a vector by $H$ again and again, rescaling it to length 1 each
# time, and it turns towards the eigenvector of the eigenvalue of largest magnitude
# (for a loss near a minimum, $\lambda_{\max}$).
#
# Write `lambda_max(f, x, v0, steps)`, for `f`, `x` as in Exercise 15.2 and a start
# vector `v0` (a minigrad tensor, not necessarily of length 1): with $v_0 =
# \mathtt{v0}/\lVert \mathtt{v0} \rVert$ and, for $k = 1, \dots, \mathtt{steps}$,
# $\lambda_k = v_{k-1} \cdot H v_{k-1}$ and $v_k = H v_{k-1} / \lVert H v_{k-1}
# \rVert$, return $(\lambda_{\mathtt{steps}}, v_{\mathtt{steps}})$: a number and a
# vector. Use your `hvp`, one per step (the check counts the backward passes: two per
# step) and never the whole Hessian; `minigrad.func`, `autograd.functional` and torch
# are switched off. The check compares with the same iteration in torch, after a few
# steps and after many, and then $\lambda$ with the largest eigenvalue of the whole
# Hessian (torch's `eigvalsh`), on chapter 10's valley, quadratics with curvatures up
# to 1000 and networks of its own.
#
# <details><summary>Hint</summary>
#
# Write $v_0$ in the eigenvectors of $H$: what does one multiplication by $H$ do to
# each component, and after $k$ of them, which component is left? Then think of the
# numbers' range: what becomes of $H^k v_0$'s length when $\lambda_{\max}$ is 1000?
# </details>

# %% solution=ex15-power-iteration
def lambda_max(f, x, v0, steps):
    ### BEGIN SOLUTION
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
    ### END SOLUTION

# %% test=ex15-power-iteration-test points=3
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.course.mistakes import matches  # noqa: F811 - a test cell imports what it uses

with graded("Exercise 15.4", hint="if the first check after a few steps differs, compare "
            "your steps with the definition one by one (where does each v come from, what "
            "is its length?); if only the long runs fail, look at the size of the numbers "
            "you carry") as g:
    def your_power(fn, f, x, v0, steps):
        lam, v = fn(f, x, v0, steps)
        return float(lam), v

    def torch_power(f_t, x0, v0, steps):
        """The same numbers another way: torch's Hessian diagonalised, H = Q diag(e) Q^T,
        so H^k v0 = Q diag(e^k) Q^T v0 (e scaled by its largest size, which the
        normalisation removes)."""
        H = torch.autograd.functional.hessian(f_t, torch.tensor(x0))
        e, Q = torch.linalg.eigh(H)
        c, scaled = Q.T @ torch.tensor(v0), e / e.abs().max()

        def direction(k):
            u = Q @ (scaled ** k * c)
            return u / u.norm()

        v_before = direction(steps - 1)
        return float(v_before @ H @ v_before), direction(steps)

    def mistakes(f_t, x0, v0, steps, H):
        """What the common mistakes give for lambda and for v (H: torch's Hessian)."""
        H, start = H.numpy(), v0 / np.linalg.norm(v0)

        def never_normalised():
            v = start
            with np.errstate(all="ignore"):
                for _ in range(steps):
                    w = H @ v
                    lam, v = (v @ w) / (v @ v), w
            return lam

        def length_of_hv():
            v_before = torch_power(f_t, x0, v0, steps - 1)[1].numpy() if steps > 1 else start
            return np.linalg.norm(H @ v_before)

        not_updated = "your lambda is the one of the first step, whatever steps is: which v " \
                      "does each step multiply by H?"
        lam = {
            "never-normalised": ("your lambda is not a number after many steps: how large "
                                 "does H^k v0 grow when lambda_max is in the thousands?",
                                 never_normalised),
            "v-not-updated": (not_updated, lambda: torch_power(f_t, x0, v0, 1)[0]),
            "length-of-Hv": ("your lambda is the length of H v: is that lambda before v has "
                             "turned into the top eigenvector?", length_of_hv),
        }
        if steps == 1:
            lam["v0-not-normalised"] = ("your first lambda is |v0|**2 times too large: how "
                                        "long is v before the first step?",
                                        lambda: start @ H @ start * (v0 @ v0))
        v = {"v-not-updated": (not_updated, lambda: torch_power(f_t, x0, v0, 1)[1])}
        return lam, v

    def check_power(name, f_of, x0, v0, steps, top=True):
        passes = g.calls.get("minigrad.autograd", 0)
        lam, v = g.call(your_power, lambda_max, f_of(minigrad), minigrad.tensor(x0),
                        minigrad.tensor(v0), steps, count="minigrad.autograd",
                        forbid=["minigrad.func", "torch.func", "torch.autograd"])
        passes = g.calls["minigrad.autograd"] - passes
        name = f"{name}, {steps} step" + ("s" if steps > 1 else "")
        H = torch.autograd.functional.hessian(f_of(torch), torch.tensor(x0))
        g.require(f"{name}: two backward passes a step", passes == 2 * steps,
                  f"your lambda_max ran {passes} backward passes for {steps} steps: one "
                  "hvp (two passes) a step, never the whole Hessian", mistakes={
                      "largest-diagonal": ("your lambda is the largest entry of H's "
                                           "diagonal: is the steepest direction always "
                                           "along an axis?", lambda: passes == 2 * len(x0)
                                           and matches(lam, H.diagonal().max()))})
        lam_mistakes, v_mistakes = mistakes(f_of(torch), x0, v0, steps, H)
        ref_lam, ref_v = torch_power(f_of(torch), x0, v0, steps)
        g.check(f"{name}: lambda", lam, ref_lam, rtol=1e-9, atol=1e-12, mistakes=lam_mistakes)
        g.check(f"{name}: v", v, ref_v, rtol=1e-7, atol=1e-9, mistakes=v_mistakes)
        if top:
            g.check(f"{name}: lambda, the Hessian's largest eigenvalue", lam,
                    torch.linalg.eigvalsh(H).max(), rtol=1e-8)
        return lam

    def valley(lib):
        return lambda p: 0.5 * (p[0] ** 2 + 20 * p[1] ** 2)

    def quadratic(A):
        return lambda lib: (lambda x: 0.5 * (x * (lib.tensor(A) @ x)).sum())

    def rotated(eigenvalues, seed):
        Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((len(eigenvalues),) * 2))
        return Q @ np.diag(eigenvalues) @ Q.T

    check_power("chapter 10's valley", valley, np.array([-4.0, 1.0]), np.array([1.0, 1.0]), 1,
                top=False)
    lam = check_power("chapter 10's valley", valley, np.array([-4.0, 1.0]),
                      np.array([1.0, 1.0]), 40)
    g.check("chapter 10's valley: 2 / lambda, the largest stable learning rate", 2 / lam, 0.1,
            rtol=1e-8, against="formula")
    A4 = rotated([1000.0, 300.0, 10.0, 1.0], 154)
    check_power("curvatures 1000, 300, 10, 1", quadratic(A4), np.array([0.5, -1.0, 2.0, 0.3]),
                np.array([1.0, 2.0, -1.0, 0.5]), 3, top=False)
    check_power("curvatures 1000, 300, 10, 1", quadratic(A4), np.array([0.5, -1.0, 2.0, 0.3]),
                np.array([1.0, 2.0, -1.0, 0.5]), 150)
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(1540)
    A5 = rotated([5000.0, 2000.0, 50.0, 3.0, 0.1], 1541)
    check_power("curvatures up to 5000", quadratic(A5), rng.standard_normal(5),
                rng.standard_normal(5), 1, top=False)
    check_power("curvatures up to 5000", quadratic(A5), rng.standard_normal(5),
                rng.standard_normal(5), 200)
    # the top eigenvector (1, -1, 0) / sqrt(2) is orthogonal to the vector of ones
    A3 = np.array([[4.5, -0.5, 0.0], [-0.5, 4.5, 0.0], [0.0, 0.0, 1.0]])
    check_power("top direction orthogonal to (1, 1, 1)", quadratic(A3), np.zeros(3),
                np.array([2.0, -0.5, 1.0]), 150)
    X = rng.standard_normal((30, 4)) * np.array([3.0, 1.0, 0.5, 0.5])
    y = np.where(rng.random(30) < 0.5, -1.0, 1.0)

    def logistic(lib):
        def f(w):
            z = -lib.tensor(y) * (lib.tensor(X) @ w)
            return (1 + z.exp()).log().mean() + 0.05 * (w * w).sum()
        return f

    check_power("logistic regression, 4 weights", logistic, rng.standard_normal(4) * 0.3,
                rng.standard_normal(4), 4, top=False)
    check_power("logistic regression, 4 weights", logistic, rng.standard_normal(4) * 0.3,
                rng.standard_normal(4), 200)
    B = rng.standard_normal((6, 6)) / 2

    def net(lib):
        return lambda x: ((lib.tensor(B) @ x).tanh() ** 2).sum()

    check_power("sum(tanh(B x)**2), n = 6", net, rng.standard_normal(6),
                rng.standard_normal(6), 5, top=False)
    check_power("3 x**2, n = 1", lambda lib: (lambda x: 3 * (x * x).sum()), np.array([0.7]),
                np.array([-2.0]), 2)
    ### END HIDDEN TESTS

# %% [markdown]
# ## 8. A real use: a penalty on the gradient
#
# Second derivatives are not only for Newton's method. Some losses contain a gradient:
# "double backpropagation" (Drucker and LeCun, 1992) penalizes the gradient of the loss
# with respect to the *input*, to make a network less sensitive to small changes of it,
# and the WGAN-GP critic (Gulrajani et al., 2017) is trained with the penalty
#
# $$P = \operatorname{mean}_k \big(\lVert \nabla_{x_k} D(x_k) \rVert - 1\big)^2,$$
#
# which pushes the norm of the critic $D$'s input gradient towards $1$. Training on $P$
# needs $\partial P / \partial W$ for the critic's weights $W$, a derivative of a
# gradient: the input gradient must be computed with `create_graph=True`, then `P` is a
# loss like any other. A small critic $2 \to 8 \to 1$ on 6 points, torch's weights
# copied into minigrad's. Each score depends only on its own point, so the gradient of
# the scores' sum gives every point's input gradient at once, one row each:

# %%
torch.manual_seed(15)
critic_t = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(),
                               torch.nn.Linear(8, 1)).double()
critic = minigrad.nn.Sequential(minigrad.nn.Linear(2, 8, dtype=minigrad.float64),
                                minigrad.nn.Tanh(),
                                minigrad.nn.Linear(8, 1, dtype=minigrad.float64))
for p, p_t in zip(critic.parameters(), critic_t.parameters(), strict=True):
    p.data = minigrad.tensor(p_t.detach().numpy())  # the same weights
X_points = np.random.default_rng(15).standard_normal((6, 2))


def gradient_penalty(lib, model, create_graph=True):
    """The penalty, each point's input-gradient norm, and the weights' gradients."""
    for p in model.parameters():
        p.grad = None
    x = lib.tensor(X_points, requires_grad=True)
    (g,) = lib.autograd.grad(model(x).sum(), x, create_graph=create_graph)
    norms = (g * g).sum(dim=1) ** 0.5
    penalty = ((norms - 1) ** 2).mean()
    penalty.backward()  # through the recorded gradient, back to the weights
    return penalty, norms, [p.grad for p in model.parameters()]


penalty, norms, grads = gradient_penalty(minigrad, critic)
penalty_t, norms_t, grads_t = gradient_penalty(torch, critic_t)
print("input-gradient norms:", np.round(norms.detach().numpy(), 4))
print("penalty:", round(penalty.item(), 6))
print("weights with no gradient:", [name for (name, _), grad in zip(
    critic.named_parameters(), grads, strict=True) if grad is None])
check_all({"input-gradient norms": (norms, norms_t), "penalty": (penalty, penalty_t),
           **{f"dP/d{name}": (grad, grad_t) for (name, _), grad, grad_t in zip(
               critic.named_parameters(), grads, grads_t, strict=True) if grad is not None},
           "the last bias gets None": (grads[3] is None, grads_t[3] is None)}, brief=True)

# %% [markdown]
# The last layer's bias adds a constant to every score, so it does not change the input
# gradient, and the penalty does not depend on it: its `.grad` stays `None`, in both
# libraries.

# %% [markdown]
# Without `create_graph=True` the input gradient is a plain tensor, and so is the
# penalty built from it: there is nothing to run backward through, and both libraries
# say so.

# %% tags=raises-exception
gradient_penalty(torch, critic_t, create_graph=False)

# %% tags=raises-exception
gradient_penalty(minigrad, critic, create_graph=False)

# %% [markdown]
# ## 9. A Hessian per point, batched
#
# Section 7 batched first derivatives with `vmap(grad(...))`. The same works one level
# up: `hessian(f)` is a function of one point, and `vmap` runs it over a batch of
# points in one call, giving one Hessian per point. Section 4's $f(x) = \sum_i
# \tanh((Ax)_i)^2$ at 4 points of $\mathbb{R}^5$:

# %%
points = np.random.default_rng(159).standard_normal((4, 5))
H_batch = minigrad.func.vmap(minigrad.func.hessian(f_fr))(minigrad.tensor(points))
H_batch_t = torch.func.vmap(torch.func.hessian(f_fr_t))(torch.tensor(points))
H_one_by_one = [minigrad.func.hessian(f_fr)(minigrad.tensor(p)) for p in points]
print("shape:", tuple(H_batch.shape))
check_all({"vmap(hessian(f))": (H_batch, H_batch_t),
           "= one point at a time": (H_batch, H_one_by_one, "one at a time")}, brief=True)
curvatures = np.linalg.eigvalsh(H_batch.numpy())
print("eigenvalues of each point's Hessian, smallest to largest:")
print(np.round(curvatures, 3))
check("eigenvalues", curvatures, torch.linalg.eigvalsh(H_batch_t), brief=True)

# %% [markdown]
# The batch dimension comes first: 4 Hessians of shape (5, 5). Their eigenvalues say
# what section 6 needs to know before a Newton step: every point here has negative
# eigenvalues as well as positive ones, so $f$ curves down along some directions and up
# along others, and a plain Newton step there would head for a saddle, not a minimum.
# The largest curvature (the last column) changes from point to point, from about
# 1.3 to 2.3, and with it chapter 10's largest stable learning rate $2/\lambda_{\max}$.
# The eigenvalue near 0 at every point comes from $A$: its smallest singular value is
# 0.0064, so one direction of $x$ barely changes $Ax$, and $f$ is almost flat along it.

# %% [markdown]
# ## Predict before you run
#
# Three questions on this chapter's idea. Guess first, then run the cell.
#
# **1.** $x = 3$, $y = x^3$, `g, = autograd.grad(y, x)` without `create_graph`. `g` is
# $27$; does it require grad? And with `create_graph=True`?

# %%
def requires_grad_of_g(lib):
    answers = []
    for create_graph in (False, True):
        x = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(x ** 3, x, create_graph=create_graph)
        answers.append(g.requires_grad)
    return answers


print("g requires grad, without and with create_graph:", requires_grad_of_g(minigrad))
check("requires_grad without, with", requires_grad_of_g(minigrad), requires_grad_of_g(torch),
      brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Without the flag the backward pass runs unrecorded: `g` is a plain number, although it
# came from `x`. With it, `g` is the output of a recorded graph ($3x^2$) that goes back to
# `x`.
# </details>
#
# **2.** $f(x, y) = x y$. Its gradient is $(y, x)$, which changes from point to point.
# What is its Hessian at $(2, 5)$?

# %%
p0 = np.array([2.0, 5.0])
H = minigrad.autograd.functional.hessian(lambda p: p[0] * p[1], minigrad.tensor(p0))
print(H)
check("Hessian of x y at (2, 5)", H,
      torch.autograd.functional.hessian(lambda p: p[0] * p[1], torch.tensor(p0)), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $[[0, 1], [1, 0]]$, at every point: $\partial^2 f / \partial x^2 = \partial y /
# \partial x = 0$, but $\partial^2 f / \partial x \partial y = 1$. A function linear in
# each variable alone can still curve: along $(1, -1)$ it is a saddle ($\lambda = -1$).
# </details>
#
# **3.** Newton's method on $f(x) = x^4$, from $x = 1$: the minimum is $0$. How many
# steps $x \leftarrow x - f'(x) / f''(x)$ until $|x| < 10^{-3}$: about 3, about 10, or
# about 20?

# %%
def newton_steps_x4(lib):
    x, steps = 1.0, 0
    while abs(x) >= 1e-3:
        t = lib.tensor(x, dtype=lib.float64, requires_grad=True)
        g, = lib.autograd.grad(t ** 4, t, create_graph=True)
        h, = lib.autograd.grad(g, t)
        x, steps = x - g.item() / h.item(), steps + 1
    return steps, x


print("steps, final x:", newton_steps_x4(minigrad))
check("Newton on x**4: steps, final x", list(newton_steps_x4(minigrad)),
      list(newton_steps_x4(torch)), brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $18$: each step is $x - 4x^3 / 12x^2 = \tfrac{2}{3} x$, a fixed fraction. Newton's
# fast (quadratic) convergence needs $f'' > 0$ at the minimum; here $f''(0) = 0$.
# </details>

# %% [markdown]
# ## Summary
#
# - `autograd.grad(y, x, create_graph=True)` (or `backward(create_graph=True)`) runs
#   the backward pass as recorded operations: the gradient has a graph and can be
#   differentiated again. Without it, the gradient has no `grad_fn` and a second
#   `grad` raises "does not require grad". Chapter 01's $x^2$ at 3: $6$, then $2$;
#   $\tanh'' = -2t(1 - t^2)$.
# - The gradient's graph goes back through the forward graph's nodes to what they
#   saved. torch uses fused nodes (`TanhBackwardBackward0`) and copies a leaf's `.grad`
#   with `CopyBackwards`; minigrad spells each rule out with its own ops, and `.grad`'s
#   node is the rule's last op. Same numbers, same higher derivatives.
# - The Hessian's row $i$ is the gradient of $\partial f/\partial x_i$: $n$ passes
#   through the recorded gradient, or `func.hessian` = `jacfwd(jacrev(f))`, or
#   `autograd.functional.hessian`.
# - $\nabla (\nabla f \cdot v) = v^\top H$ by double backward (`vhp`, two passes),
#   which is $Hv$ when $H$ is symmetric ($f$ with continuous second derivatives);
#   `hvp` gives $Hv$ for any $H$ with a third pass; or
#   `func.jvp(func.grad(f), (x,), (v,))` forward over reverse: a small constant times
#   one gradient, $n$ numbers. The Hessian is $n$ HVPs and $n^2$ numbers.
# - Forward over reverse is the default HVP: $Hv$ in one backward pass (`vhp` two,
#   `hvp` three). `vmap(grad(loss), in_dims=(None, 0, 0))` with `functional_call` gives
#   per-sample gradients, for per-example clipping (DP-SGD).
# - `gradgradcheck` checks the backward pass itself against finite differences. A
#   backward that uses a value kept on `ctx` in forward (a constant to the graph)
#   instead of a tensor saved with `save_for_backward` passes `gradcheck` and fails
#   `gradgradcheck`.
# - Newton's method solves $H d = -\nabla f$: one step on a quadratic, a handful on
#   Rosenbrock where gradient descent needs thousands; each step costs a Hessian and a
#   solve. Far from the minimum the pure step can go uphill: a line search keeps every
#   step downhill and still takes full steps near the minimum; where $H$ is not
#   positive definite the direction itself must change ($H + \lambda I$, a trust
#   region).
# - Power iteration with HVPs gives $\lambda_{\max}$ of a Hessian too large to build,
#   two backward passes a step, and with it chapter 10's largest stable learning rate
#   $2/\lambda_{\max}$.
# - A loss may contain a gradient (double backpropagation, WGAN-GP's penalty
#   $(\lVert \nabla_x D \rVert - 1)^2$): compute that gradient with
#   `create_graph=True`, and the loss's `backward()` reaches the weights through it.
# - `vmap(hessian(f))` gives one Hessian per point of a batch, batch dimension first;
#   their eigenvalues show where $f$ curves up, down, or both.
#
# Next: [16 Extending autograd](16_extending_autograd.ipynb): custom `Function`s checked
# with `gradcheck` and `gradgradcheck`, hooks, and gradient checkpointing.
