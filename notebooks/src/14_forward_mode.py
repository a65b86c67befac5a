# %% [markdown]
# # 14 Forward mode
#
# Everything so far sent derivatives *backward*: run the function, record a graph, then
# walk it from the output to the inputs. There is a second way, older and simpler:
# carry the derivative *forward*, alongside the value, op by op, as the function runs.
# No graph, no backward pass. This chapter builds it for single numbers (dual numbers),
# then uses it on tensors (`forward_ad` and `func.jvp`, minigrad's and torch's side by
# side), and compares the two modes where they differ: forward mode gives one
# *column* of the Jacobian per pass, reverse mode one *row*. Which is cheaper depends on
# the Jacobian's shape, and we measure it. Then a trick that gets a forward-mode
# result out of two reverse passes, which is how `torch.autograd.functional.jvp`
# computes it. Last, after the exercises, the two modes seen as one linear map and its
# transpose, what each keeps in memory, `vmap`, and forward mode through a network's
# weights.
#
# **Learning goals.** After this chapter you can
#
# 1. compute a derivative with dual numbers, $f(x + \varepsilon) = f(x) + f'(x)\,
#    \varepsilon$ with $\varepsilon^2 = 0$, and write an op's tangent rule;
# 2. compute a Jacobian-vector product $J v$ in one forward pass with `forward_ad` and
#    `func.jvp`, in minigrad and in torch;
# 3. build a Jacobian column by column (forward mode, one pass per input) and row by row
#    (reverse mode, one pass per output), and say which wins for a tall and for a wide
#    Jacobian;
# 4. compute $J v$ with two backward passes (the double-VJP trick) and explain why it
#    works: the VJP is the transpose of the JVP;
# 5. say why forward mode keeps no activations, and build a Jacobian in one batched pass
#    with `vmap`.

# %%
import math
from contextlib import contextmanager

import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.autograd.forward_ad as fwAD

import minigrad
import minigrad.func
from minigrad import check, check_all, show_source
from minigrad.autograd import forward_ad
from minigrad.course.widgets.jacobian_modes import best_time, jacobian_modes_widget
from minigrad.dual import Dual, derivative

torch.set_num_threads(1)  # tiny tensors: threads only add overhead on a shared machine

# %% [markdown]
# ## 1. Dual numbers: the derivative rides along
#
# Chapter 01's first example: $y = x^2$ at $x = 3$ has derivative $6$. Now move $x$ by a
# tiny amount $\varepsilon$ and expand:
#
# $$(3 + \varepsilon)^2 = 9 + 6\,\varepsilon + \varepsilon^2.$$
#
# The coefficient of $\varepsilon$ is the derivative. Suppose $\varepsilon$ is so small
# that $\varepsilon^2 = 0$ (not a real number, but a consistent rule of arithmetic, as
# $i^2 = -1$ is for complex numbers): then $(3 + \varepsilon)^2 = 9 + 6\,\varepsilon$
# exactly. For any function built from the usual ops, Taylor's formula then stops
# after its first-order (linear) term, which leaves two terms,
#
# $$f(x + \dot{x}\,\varepsilon) = f(x) + f'(x)\,\dot{x}\,\varepsilon,$$
#
# so evaluating $f$ once on the *dual number* $x + 1\,\varepsilon$ gives the value and
# the derivative together. The two parts are called the **primal** ($x$) and the
# **tangent** ($\dot{x}$, the rate at which $x$ moves), the names torch uses.
# `minigrad.dual.Dual` holds the pair; each op computes its output's primal as usual
# and its tangent by a **tangent rule**. For a sum, the tangents add:

# %%
show_source(Dual.__add__)

# %% [markdown]
# For $e^a$: $e^{a + \dot{a}\varepsilon} = e^a e^{\dot{a}\varepsilon} = e^a (1 +
# \dot{a}\,\varepsilon)$, since every higher power of $\varepsilon$ is zero. So the
# tangent is $e^a \dot{a}$: the local derivative times the incoming tangent, the chain
# rule run forward.

# %%
show_source(Dual.exp)

# %% [markdown]
# Torch has forward mode too, in `torch.autograd.forward_ad`: `make_dual(primal,
# tangent)` makes a dual tensor inside a `dual_level()`, and `unpack_dual` reads both
# parts. A small helper runs a function of one number through it, so every result
# below has torch's number beside it:

# %%
def torch_forward(f, x, tangent=1.0):
    """f(x) and its tangent from torch's forward mode, for a float x."""
    with fwAD.dual_level():
        xt = fwAD.make_dual(torch.tensor(x, dtype=torch.float64),
                            torch.tensor(tangent, dtype=torch.float64))
        primal, tangent_out = fwAD.unpack_dual(f(xt))
    return primal, tangent_out


x = Dual(3.0, 1.0)  # 3 + 1 eps: x moves at rate 1
y = x ** 2
print(y)
primal_t, tangent_t = torch_forward(lambda t: t ** 2, 3.0)
check_all({"y.primal (x**2 at 3)": (y.primal, primal_t),
           "y.tangent (d x**2 / dx at 3)": (y.tangent, tangent_t)})

# %% [markdown]
# The same derivatives as chapters 01 and 03, each from one forward pass
# (`derivative(f, x)` is `f(Dual(x, 1.0)).tangent`), beside the reverse-mode answer of
# `Value.backward()` and torch's forward mode: $x^2$ and $x \cdot x + 2x$ (chapter 01)
# and $(x + 1)^2$ (chapter 03) at $x = 3$ give $6$, $8$, $8$.

# %%
examples = {"x**2": lambda x: x ** 2, "x*x + 2x": lambda x: x * x + 2 * x,
            "(x + 1)**2": lambda x: (x + 1) ** 2}
rows = {}
for name, fn in examples.items():
    v = minigrad.Value(3.0)
    fn(v).backward()
    _, tangent_t = torch_forward(fn, 3.0)
    rows[f"{name}: Dual, forward"] = (derivative(fn, 3.0), tangent_t)
    rows[f"{name}: Value.backward"] = (v.grad, tangent_t)
check_all(rows)

# %% [markdown]
# Every op the class knows works the same way, including the ones a network uses:

# %%
def h(x):
    return (x * x).tanh() * x.exp() / (1 + x.sigmoid())


y = h(Dual(0.7, 1.0))
primal_t, tangent_t = torch_forward(h, 0.7)
check_all({"h(0.7)": (y.primal, primal_t), "h'(0.7)": (y.tangent, tangent_t)}, brief=True)

# %% [markdown]
# **Two inputs.** Chapter 02's $L = x^2 + 3y$ at $(2, 4)$ has gradient $(4, 3)$. A
# dual number carries one tangent, so one pass follows one *direction* of motion:
# tangents $(\dot{x}, \dot{y}) = (1, 0)$ give $\partial L / \partial x = 4$, $(0, 1)$
# give $\partial L / \partial y = 3$, and $(1, 1)$, both moving at once, give $4 + 3 =
# 7$, the *directional derivative* $\nabla L \cdot (\dot{x}, \dot{y})$. The whole
# gradient takes one forward pass per input; `Value.backward()` gets it in one pass.

# %%
def L(x, y):
    return x ** 2 + 3 * y


def torch_forward_2(f, point, direction):
    with fwAD.dual_level():
        x, y = (fwAD.make_dual(torch.tensor(p, dtype=torch.float64),
                               torch.tensor(d, dtype=torch.float64))
                for p, d in zip(point, direction, strict=True))
        return fwAD.unpack_dual(f(x, y)).tangent


rows = {}
for direction in [(1.0, 0.0), (0.0, 1.0), (1.0, 1.0)]:
    out = L(Dual(2.0, direction[0]), Dual(4.0, direction[1]))
    rows[f"tangent along {direction}"] = (out.tangent, torch_forward_2(L, (2.0, 4.0), direction))
x, y = minigrad.Value(2.0), minigrad.Value(4.0)
L(x, y).backward()
rows["Value.backward: (x.grad, y.grad)"] = ((x.grad, y.grad), (4.0, 3.0), "formula")
check_all(rows)

# %% [markdown]
# That is the whole difference between the two modes, in small. Reverse mode: one pass
# per *output*, every input's derivative at once. Forward mode: one pass per input
# *direction*, every output's derivative at once. A loss (one output, many inputs)
# favours reverse mode; section 3 shows where forward mode wins.
#
# ## 2. Jacobian-vector products on tensors
#
# On tensors the tangent has the primal's shape, and what comes out is
# $\dot{y} = J \dot{x}$: the Jacobian times the input's tangent, a **Jacobian-vector
# product** (JVP). Chapter 06's backward pass computed the other product, the VJP
# $v^\top J$. We take chapter 06's function, $y = \tanh(A x)$ from $\mathbb{R}^3$ to
# $\mathbb{R}^4$, and the direction $v = (1, 0.5, -2)$. minigrad's
# `autograd.forward_ad` has torch's names: `dual_level`, `make_dual`, `unpack_dual`.

# %%
A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
x0 = np.array([0.5, -1.0, 2.0])
v = np.array([1.0, 0.5, -2.0])


def f_minigrad(x):
    return (minigrad.tensor(A) @ x).tanh()


def f_torch(x):
    return torch.tanh(torch.tensor(A) @ x)


with forward_ad.dual_level():
    x = forward_ad.make_dual(minigrad.tensor(x0), minigrad.tensor(v))
    y = f_minigrad(x)
    y_primal, jvp = forward_ad.unpack_dual(y)
    print("minigrad: y.grad_fn =", y.grad_fn)

with fwAD.dual_level():
    xt = fwAD.make_dual(torch.tensor(x0), torch.tensor(v))
    yt = f_torch(xt)
    yt_primal, jvp_t = fwAD.unpack_dual(yt)
    print("torch:    y.grad_fn =", yt.grad_fn)

J_torch = torch.autograd.functional.jacobian(f_torch, torch.tensor(x0))
check_all({"y": (y_primal, yt_primal), "J v, forward mode": (jvp, jvp_t),
           "J v, from torch's Jacobian": (jvp, J_torch @ torch.tensor(v))})

# %% [markdown]
# `grad_fn` is `None` in both: nothing was recorded, since no input requires grad. The
# tangent was computed op by op as the function ran, by one rule per op. The rule of a
# product is the product rule; of a matrix product, $\dot{X} Y + X \dot{Y}$ (compare
# chapter 06's backward, which needed transposes: a VJP multiplies from the other side):

# %%
show_source(minigrad.ops.arithmetic.Mul.jvp)

# %%
show_source(minigrad.ops.matmul.Matmul.jvp)

# %% [markdown]
# Tangents live only inside their `dual_level`: when the block ends they are dropped, in
# both libraries, and the tensor is a plain tensor again.

# %%
print("minigrad tangent after the level:", forward_ad.unpack_dual(y).tangent)
print("torch tangent after the level:   ", fwAD.unpack_dual(yt).tangent)
check("y after the level keeps its value", y, yt)

# %% [markdown]
# And outside a level there is no dual tensor to make: both raise the same error.

# %% tags=raises-exception
fwAD.make_dual(torch.tensor(x0), torch.tensor(v))

# %% tags=raises-exception
forward_ad.make_dual(minigrad.tensor(x0), minigrad.tensor(v))

# %% [markdown]
# `func.jvp(f, primals, tangents)` wraps the three steps: it returns $f(x)$ and $J v$.
# `torch.func.jvp` is the same function in torch.

# %%
value, jvp = minigrad.func.jvp(f_minigrad, (minigrad.tensor(x0),), (minigrad.tensor(v),))
value_t, jvp_t = torch.func.jvp(f_torch, (torch.tensor(x0),), (torch.tensor(v),))
check_all({"func.jvp: f(x)": (value, value_t), "func.jvp: J v": (jvp, jvp_t)}, brief=True)

# %% [markdown]
# The example of the course's reference tutorial (see [Sources](../book/sources.md)),
# $y = x^2$ at $x = (1, 2, 3)$ (chapter 06 ran
# its `y.backward(torch.tensor([1.0, 1.0, 1.0]))`), in forward mode: the Jacobian
# $\mathrm{diag}(2x)$ is diagonal, so $J v$ and $v^\top J$ are the same vector, and with
# $v$ all ones the tangent is the tutorial's $(2, 4, 6)$. For a $J$ that is not symmetric
# the two differ (chapter 06's $4 \times 3$ one above does not even give them the same
# length).

# %%
_, jvp_sq = minigrad.func.jvp(lambda t: t ** 2, (minigrad.tensor([1.0, 2.0, 3.0]),),
                              (minigrad.ones(3),))
xt = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(xt ** 2).backward(torch.tensor([1.0, 1.0, 1.0]))
_, jvp_sq_t = torch.func.jvp(lambda t: t ** 2, (torch.tensor([1.0, 2.0, 3.0]),),
                             (torch.ones(3),))
print(jvp_sq)  # tensor([2., 4., 6.])
check_all({"J v, x**2 at (1, 2, 3), v = ones": (jvp_sq, jvp_sq_t),
           "the same as the tutorial's x.grad": (jvp_sq, xt.grad)})

# %% [markdown]
# ## 3. A Jacobian by columns or by rows
#
# With $v = e_j$, the one-hot vector of input $j$, $J e_j$ is column $j$ of the
# Jacobian. So $n_{in}$ forward passes give the whole $n_{out} \times n_{in}$ matrix,
# column by column: that is `func.jacfwd`. Chapter 06 built it row by row, $e_i^\top J$
# from one backward pass per output: that is `func.jacrev`. Same matrix, and torch's
# namesakes agree:

# %%
J_fwd = minigrad.func.jacfwd(f_minigrad)(minigrad.tensor(x0))
J_rev = minigrad.func.jacrev(f_minigrad)(minigrad.tensor(x0))
check_all({"jacfwd (by columns)": (J_fwd, torch.func.jacfwd(f_torch)(torch.tensor(x0))),
           "jacrev (by rows)": (J_rev, torch.func.jacrev(f_torch)(torch.tensor(x0))),
           "torch.autograd.functional.jacobian": (J_fwd, J_torch)})

# %% [markdown]
# Count the passes. Each forward-mode pass runs $f$ once, carrying one tangent; reverse
# mode runs $f$ once, recording, then one backward pass per output. We count calls of
# $f$, and the backward passes with a small counter, `counting`, that wraps
# `minigrad.autograd.grad` for the length of a `with` block. Three shapes of $y =
# \tanh(W x)$: chapter 06's $4 \times 3$, a *tall* Jacobian (1 input, 8 outputs) and a
# *wide* one (8 inputs, 1 output, like a loss).

# %%
@contextmanager
def counting(module, name):
    """Within the block, module.name counts its calls in the list it yields."""
    real, calls = getattr(module, name), []

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    setattr(module, name, counted)
    try:
        yield calls
    finally:
        setattr(module, name, real)


def passes(n_in, n_out):
    """(f calls, backward passes) of jacfwd and of jacrev for tanh(W x), W n_out x n_in."""
    W = minigrad.tensor(np.random.default_rng(14).standard_normal((n_out, n_in)))
    calls = []

    def f(x):
        calls.append(1)
        return (W @ x).tanh()

    counts = {}
    x = minigrad.tensor(np.linspace(-1, 1, n_in))
    for name, transform in [("jacfwd", minigrad.func.jacfwd), ("jacrev", minigrad.func.jacrev)]:
        calls.clear()
        with counting(minigrad.autograd, "grad") as backward:
            transform(f)(x)
        counts[name] = (len(calls), len(backward))
    return counts


rows = {}
for n_in, n_out in [(3, 4), (1, 8), (8, 1)]:
    counts = passes(n_in, n_out)
    print(f"{n_in} in, {n_out} out: jacfwd {counts['jacfwd'][0]} forward, "
          f"{counts['jacfwd'][1]} backward; jacrev {counts['jacrev'][0]} forward, "
          f"{counts['jacrev'][1]} backward")
    rows[f"{n_in} -> {n_out}: jacfwd"] = (counts["jacfwd"], (n_in, 0), "formula")
    rows[f"{n_in} -> {n_out}: jacrev"] = (counts["jacrev"], (1, n_out), "formula")
check_all(rows)

# %% [markdown]
# So for a tall Jacobian ($n_{out} \gg n_{in}$) forward mode needs few passes, and for
# a wide one ($n_{in} \gg n_{out}$, a loss of a million parameters) reverse mode does:
# one backward pass instead of a million forward ones. That is why training uses
# reverse mode.
#
# Measured, on $y = \tanh(W_2 \tanh(W_1 x))$ with 16 hidden units, for $n_{in}$ and
# $n_{out}$ in $\{1, 4, 16, 64\}$: each time is the best of five runs after one untimed
# run (`best_time`), the weights seeded. Your times will differ; the pattern will not.

# %% tags=nbval-ignore-output
sizes = [1, 4, 16, 64]
t_fwd = np.zeros((len(sizes), len(sizes)))
t_rev = np.zeros_like(t_fwd)
rng = np.random.default_rng(14)
for i, n_in in enumerate(sizes):
    for j, n_out in enumerate(sizes):
        W1 = minigrad.tensor(rng.standard_normal((16, n_in)) / np.sqrt(n_in))
        W2 = minigrad.tensor(rng.standard_normal((n_out, 16)) / 4)
        x = minigrad.tensor(rng.standard_normal(n_in))

        def net(x, W1=W1, W2=W2):
            return (W2 @ (W1 @ x).tanh()).tanh()

        t_fwd[i, j] = best_time(lambda net=net, x=x: minigrad.func.jacfwd(net)(x))
        t_rev[i, j] = best_time(lambda net=net, x=x: minigrad.func.jacrev(net)(x))

ratio = t_fwd / t_rev
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
image = axes[0].imshow(np.log2(ratio), cmap="RdBu_r", vmin=-7, vmax=7, origin="lower")
for (i, j), r in np.ndenumerate(ratio):
    axes[0].text(j, i, f"{r:.2g}", ha="center", va="center", fontsize=8)
axes[0].set_xticks(range(len(sizes)), sizes)
axes[0].set_yticks(range(len(sizes)), sizes)
axes[0].set_xlabel("n_out")
axes[0].set_ylabel("n_in")
axes[0].set_title("time jacfwd / time jacrev (blue: forward wins)")
fig.colorbar(image, ax=axes[0], label="log2 of the ratio")
for j, n_out in enumerate(sizes):
    axes[1].loglog(sizes, t_fwd[:, j] * 1e3, "o-", color=f"C{j}",
                   label=f"jacfwd, n_out={n_out}")
    axes[1].loglog(sizes, t_rev[:, j] * 1e3, "s--", color=f"C{j}", alpha=0.6)
axes[1].set_xticks(sizes, [str(s) for s in sizes])
axes[1].minorticks_off()
axes[1].set_xlabel("n_in")
axes[1].set_ylabel("ms (solid: jacfwd, dashed: jacrev)")
axes[1].legend(fontsize=7)
fig.tight_layout()
plt.show()

# %% [markdown]
# Read the left panel along its diagonal: where $n_{in} = n_{out}$ the ratio is near
# 1, below it (tall) forward mode wins, above it (wide) reverse mode wins, by up to
# the factor $n_{in} / n_{out}$. The reason is in the counts: at these sizes every pass
# costs about the same fixed overhead per op, whatever the vector's length, so
#
# $$\frac{t_{\mathrm{fwd}}}{t_{\mathrm{rev}}} \approx \frac{n_{in}\, c_{\mathrm{jvp}}}
# {c_{f} + n_{out}\, c_{\mathrm{vjp}}},$$
#
# with $c_{\mathrm{jvp}}$ the cost of one pass carrying a tangent, $c_f$ the recorded
# forward pass and $c_{\mathrm{vjp}}$ one backward pass, all of the same order (each a
# small multiple of one plain forward pass). In the right panel the solid lines (jacfwd)
# grow with $n_{in}$ and do not care about $n_{out}$; the dashed ones (jacrev) do the
# opposite.
# Torch's `torch.func.jacfwd` and `jacrev` batch their passes with `vmap`, one
# vectorized pass for all the one-hot vectors, which changes the constants, not which
# mode does less work.
#
# Try it. The sliders set $n_{in}$ and $n_{out}$; "step" runs one more pass of each
# mode: forward mode fills a column (a JVP with $e_j$), reverse mode a row (a VJP with
# $e_i$). The mode with fewer passes to make finishes first. Every entry is compared with
# `torch.func.jacrev`; grey squares are not computed yet. "measure" times both on the
# whole Jacobian. The widget works on its own function and tensors.

# %% tags=nbval-ignore-output
jacobian_modes_widget(n_in=3, n_out=2)

# %% [markdown]
# ## 4. A JVP from two backward passes
#
# Before torch had forward mode, `torch.autograd.functional.jvp` computed $J v$ with
# reverse mode only, and it still does. The trick: a VJP, $g(u) = J^\top u$, is a
# *linear* function of the vector $u$ (with $J$ fixed at $x$). Its own Jacobian with
# respect to $u$ is therefore $J^\top$, and a VJP of $g$ with the vector $v$ is
#
# $$v^\top \frac{\partial g}{\partial u} = v^\top J^\top = (J v)^\top.$$
#
# So: (1) make $u$ a tensor of $y$'s shape that requires grad (its value does not
# matter, $g$ is linear: zeros will do); (2) run a backward pass from $y$ with $u$ as the
# `gradient`, recorded with `create_graph=True`, which gives $g = J^\top u$ as a
# function of $u$ (chapter 15 is about such recorded passes); (3) run a backward pass
# from $g$ with $v$ as the `gradient`: what lands on $u$ is $J v$. Two backward passes,
# no tangent anywhere. We check that claim about torch by experiment: counting calls
# while `torch.autograd.functional.jvp` runs, `make_dual` is never called (no tangent is
# made) and `autograd.grad` twice (two backward passes); minigrad's
# `autograd.functional.jvp` does the same.

# %%
with counting(torch.autograd, "grad") as passes_t, \
        counting(torch.autograd.forward_ad, "make_dual") as duals_t:
    _, jvp_t2 = torch.autograd.functional.jvp(f_torch, torch.tensor(x0), torch.tensor(v))
with counting(minigrad.autograd, "grad") as passes_m, \
        counting(minigrad.autograd.forward_ad, "make_dual") as duals_m:
    _, jvp_m2 = minigrad.autograd.functional.jvp(f_minigrad, minigrad.tensor(x0),
                                                 minigrad.tensor(v))
print(f"torch: {len(passes_t)} backward passes, {len(duals_t)} tangents made; "
      f"minigrad: {len(passes_m)} and {len(duals_m)}")
check_all({"torch: two backward passes": (len(passes_t), 2, "formula"),
           "torch: no tangent made": (len(duals_t), 0, "formula"),
           "minigrad: two backward passes": (len(passes_m), 2, "formula"),
           "minigrad: no tangent made": (len(duals_m), 0, "formula"),
           "J v by double VJP (torch) = forward mode": (jvp_t2, jvp_t),
           "J v by double VJP (minigrad) = forward mode": (jvp_m2, jvp_t)})

# %% [markdown]
# It works, and it costs more: a recorded forward pass of $f$ (to have a graph to run
# backward through) plus two backward passes, the first one recorded too (a graph of
# the backward pass is built and kept), against one forward pass carrying a tangent.
# Measured on the same function (your times will differ):

# %% tags=nbval-ignore-output
t_forward = best_time(lambda: minigrad.func.jvp(f_minigrad, (minigrad.tensor(x0),),
                                                (minigrad.tensor(v),)))
t_double = best_time(lambda: minigrad.autograd.functional.jvp(
    f_minigrad, minigrad.tensor(x0), minigrad.tensor(v)))
print(f"forward mode: {t_forward * 1e3:.3f} ms; double VJP: {t_double * 1e3:.3f} ms "
      f"({t_double / t_forward:.1f}x)")

# %% [markdown]
# You write the trick yourself in Exercise 14.3. It matters where only reverse mode
# exists: a custom `Function` with a backward but no tangent rule (chapter 16 shows how
# to give it one), or a
# library without forward mode.
# Section 5, after the exercises, views the two modes as one linear map and its
# transpose.
#
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 14.1: two tangent rules (2 points)
#
# `MyDual` below is a dual number with `+` written. Write its `__mul__` (the product of
# two dual numbers, or of a dual number and a plain number) and its `tanh`, so that
# $f(x + \dot{x}\,\varepsilon) = f(x) + f'(x)\,\dot{x}\,\varepsilon$ for any $f$ built
# from them. Expand $(a + \dot{a}\varepsilon)(b + \dot{b}\varepsilon)$ with
# $\varepsilon^2 = 0$ for the first; for the second, $\tanh'(a) = 1 - \tanh^2(a)$ and
# the chain rule. Work with floats and `math`: the check switches off autograd, forward
# mode (torch's and minigrad's) and the `__mul__` and `tanh` of `minigrad.dual.Dual`.
# It compares with torch's forward mode, on other functions and tangents too.
#
# <details><summary>Hint</summary>
#
# $(a + \dot{a}\varepsilon)(b + \dot{b}\varepsilon) = ab + (\dot{a} b + a \dot{b})
# \varepsilon + \dot{a}\dot{b}\,\varepsilon^2$, and the last term is zero. In `tanh`,
# the tangent of the output is the local derivative *times the incoming tangent*
# `self.tangent`, as `Dual.exp` does in section 1.
# </details>

# %% solution=ex14-dual-rules
class MyDual:
    """primal + tangent * eps, with eps ** 2 = 0."""

    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def __add__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)  # a number: tangent 0
        return MyDual(self.primal + other.primal, self.tangent + other.tangent)

    __radd__ = __add__

    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        ### BEGIN SOLUTION
        return MyDual(self.primal * other.primal,
                      self.tangent * other.primal + self.primal * other.tangent)
        ### END SOLUTION

    def __rmul__(self, other):
        return self * other

    def tanh(self):
        ### BEGIN SOLUTION
        t = math.tanh(self.primal)
        return MyDual(t, (1 - t * t) * self.tangent)
        ### END SOLUTION

# %% test=ex14-dual-rules-test points=2
import torch
import torch.autograd.forward_ad as fwAD

from minigrad.course.grading import graded
from minigrad.dual import Dual

with graded("Exercise 14.1", hint="the product's tangent is a' b + a b' (eps**2 = 0); "
            "tanh's is (1 - tanh(a)**2) times the incoming tangent") as g:
    def through_mydual(f, *pairs):
        out = f(*(MyDual(p, t) for p, t in pairs))
        return out.primal, out.tangent

    through_mydual.__name__ = "MyDual"

    class MistakenDual:
        """A dual number whose product or tanh has one common mistake (how)."""

        def __init__(self, how, primal, tangent=0.0):
            self.how, self.primal, self.tangent = how, float(primal), float(tangent)

        def _dual(self, other):
            return other if isinstance(other, MistakenDual) else MistakenDual(self.how, other)

        def __add__(self, other):
            other = self._dual(other)
            return MistakenDual(self.how, self.primal + other.primal,
                                self.tangent + other.tangent)

        __radd__ = __add__

        def __mul__(self, other):
            other = self._dual(other)
            a, da, b, db = self.primal, self.tangent, other.primal, other.tangent
            tangent = {"tangent-product": lambda: da * db, "tangent-sum": lambda: da + db,
                       "eps-squared-kept": lambda: da * b + a * db + da * db,
                       "other-tangent-ignored": lambda: da * b}.get(
                           self.how, lambda: da * b + a * db)()
            return MistakenDual(self.how, a * b, tangent)

        def __rmul__(self, other):
            return self * other

        def tanh(self):
            a, da, t = self.primal, self.tangent, math.tanh(self.primal)
            return MistakenDual(self.how, a if self.how == "primal-unchanged" else t, {
                "slope-at-input": lambda: (1 - a ** 2) * da,
                "tanh-of-tangent": lambda: math.tanh(da),
                "incoming-tangent-ignored": lambda: 1 - t * t}.get(
                    self.how, lambda: (1 - t * t) * da)())

    DUAL_MISTAKES = {  # tanh's first: at tanh(x * x + 1) two can give one value
        "slope-at-input": "your tanh's slope is 1 - a**2: is the square taken of the input "
                          "or of tanh(a)?",
        "tanh-of-tangent": "your tanh's tangent is tanh of the tangent: is a tangent "
                           "transformed by the function, or scaled by its slope?",
        "primal-unchanged": "your tanh's primal is its input: what is the value of tanh(a)?",
        "incoming-tangent-ignored": "your tanh's tangent is its slope alone: what does the "
                                    "chain rule multiply it by?",
        "tangent-product": "your product's tangent is a' b': expand (a + a' eps)(b + b' eps) "
                           "with eps**2 = 0: which terms are left?",
        "tangent-sum": "your product's tangent is a' + b': what does the product rule give?",
        "eps-squared-kept": "your product's tangent has one term too many: what is eps**2?",
        "other-tangent-ignored": "your product's tangent misses the other factor's tangent: "
                                 "what if both factors move?",
    }

    def check_dual(name, f, *pairs):
        got = g.call(through_mydual, f, *pairs,
                     forbid=["autograd", "forward_ad", Dual.__mul__, Dual.tanh])
        with fwAD.dual_level():
            duals = [fwAD.make_dual(torch.tensor(p, dtype=torch.float64),
                                    torch.tensor(t, dtype=torch.float64)) for p, t in pairs]
            primal, tangent = fwAD.unpack_dual(f(*duals))

        def mistakes(part):
            def value(how):
                out = f(*(MistakenDual(how, p, t) for p, t in pairs))
                return (out.primal, out.tangent)[part]
            return {how: (nudge, lambda how=how: value(how))
                    for how, nudge in DUAL_MISTAKES.items()}

        g.check(f"{name}: primal", got[0], primal, rtol=1e-12, mistakes=mistakes(0))
        g.check(f"{name}: tangent", got[1], tangent, rtol=1e-12, atol=1e-15,
                mistakes=mistakes(1))

    check_dual("x * x at 3, tangent 1", lambda x: x * x, (3.0, 1.0))
    check_dual("a * b at (2, 5), tangents (1, -0.5)", lambda a, b: a * b, (2.0, 1.0),
               (5.0, -0.5))
    check_dual("tanh(x * x + 1) at 0.5, tangent 2", lambda x: (x * x + 1).tanh(), (0.5, 2.0))
    ### BEGIN HIDDEN TESTS
    check_dual("x * 3 + 2 * x at -1.2, tangent 0.7", lambda x: x * 3 + 2 * x, (-1.2, 0.7))
    check_dual("a * b at (-0.4, 1.3), tangents (0.3, 2.5)", lambda a, b: a * b, (-0.4, 0.3),
               (1.3, 2.5))
    check_dual("tanh(tanh(x) * x) at 0.8, tangent -1.5", lambda x: (x.tanh() * x).tanh(),
               (0.8, -1.5))
    check_dual("tanh(a * b) * a at (0.6, -0.9)", lambda a, b: (a * b).tanh() * a, (0.6, 0.25),
               (-0.9, -1.75))
    check_dual("tanh(x) at 20 (saturated)", lambda x: x.tanh(), (20.0, 1.0))
    check_dual("x * x * x at 1.7, tangent 0", lambda x: x * x * x, (1.7, 0.0))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 14.2: a Jacobian by columns (2 points)
#
# Write `jacobian_by_columns(f, x0)`: the Jacobian of `f` at the numpy vector `x0`, as a
# numpy array of shape (outputs, inputs), one forward-mode pass per input. `f` takes and
# returns a one-dimensional minigrad tensor. Use `minigrad.func.jvp` (or `forward_ad`
# directly): the check switches off every backward pass and the ready-made Jacobians
# (`jacfwd`, `jacrev`, `autograd.functional.jacobian`, torch's too), and counts your
# calls of `forward_ad.make_dual`: one per input.
#
# <details><summary>Hint</summary>
#
# One forward pass with tangent $v$ gives $J v$ (section 3). Which $v$ makes $J v$
# exactly one column of $J$? Then mind the layout: a list of columns stacked the
# default way comes out as rows. (`minigrad.func.jvp` takes its primals and tangents as
# tuples.)
# </details>

# %% solution=ex14-jacobian-columns
def jacobian_by_columns(f, x0):
    """The Jacobian of f at x0, one JVP with e_j per column."""
    ### BEGIN SOLUTION
    columns = []
    for j in range(len(x0)):
        e_j = np.zeros(len(x0))
        e_j[j] = 1.0
        _, tangent = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(e_j),))
        columns.append(tangent.detach().numpy())
    return np.stack(columns, axis=1)
    ### END SOLUTION

# %% test=ex14-jacobian-columns-test points=2
import numpy as np
import torch

import minigrad
import minigrad.autograd.forward_ad
from minigrad.course.grading import graded

with graded("Exercise 14.2", hint="if the numbers are right but transposed, look at the "
            "shape you return, (outputs, inputs); otherwise, which tangent makes one "
            "forward pass give exactly column j?") as g:
    make_dual = minigrad.autograd.forward_ad.make_dual

    def check_columns(name, f, f_torch, x0):
        before = g.calls.get(make_dual, 0)
        got = g.call(jacobian_by_columns, f, x0.copy(), count=[make_dual],
                     forbid=["autograd", "torch.forward_ad", "minigrad.jacobian",
                             "torch.jacobian"])
        passes = g.calls[make_dual] - before
        g.require(f"{name}: one forward pass per input", passes == len(x0),
                  f"make {len(x0)} dual inputs (one minigrad.func.jvp per input), "
                  f"not {passes}", mistakes={
                      "one-pass": ("you made one dual input for all the columns: which "
                                   "tangent gives exactly column j, and how many are there?",
                                   passes == 1 < len(x0))})
        J = torch.func.jacfwd(f_torch)(torch.tensor(x0)).numpy()
        g.check(f"{name}: Jacobian", got, J, rtol=1e-12, atol=1e-15, mistakes={
            "transposed": ("your Jacobian is torch's transposed: is column j of yours the "
                           "pass with tangent e_j?", J.T),
            "values-stacked": ("your columns are f(x0): which of the two results of a "
                               "forward pass is J e_j?",
                               lambda: np.stack([f_torch(torch.tensor(x0)).numpy()] * len(x0),
                                                axis=1)),
            "tangent-scaled": ("your column j is x0[j] times torch's: what should tangent "
                               "j hold at position j?", J * x0),
            "ignores-x0": ("your Jacobian is the one at x = ones: at which point is it "
                           "asked?", lambda: torch.func.jacfwd(f_torch)(
                               torch.ones(len(x0), dtype=torch.float64)).numpy())})

    A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
    check_columns("tanh(A x), 3 -> 4", lambda t: (minigrad.tensor(A) @ t).tanh(),
                  lambda t: torch.tanh(torch.tensor(A) @ t), np.array([0.5, -1.0, 2.0]))
    check_columns("x * x.sum(), 3 -> 3", lambda t: t * t.sum(), lambda t: t * t.sum(),
                  np.array([0.3, -1.2, 2.0]))
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(142)
    B = rng.standard_normal((5, 2))
    check_columns("exp(B x) / 3, 2 -> 5", lambda t: (minigrad.tensor(B) @ t).exp() / 3,
                  lambda t: torch.exp(torch.tensor(B) @ t) / 3, rng.standard_normal(2))
    check_columns("sum of cubes, 5 -> 1", lambda t: (t ** 3).sum().reshape(1),
                  lambda t: (t ** 3).sum().reshape(1), rng.standard_normal(5))
    c = np.array([1.0, -2.0, 0.5])
    check_columns("x * c, 1 -> 3", lambda t: t * minigrad.tensor(c),
                  lambda t: t * torch.tensor(c), np.array([0.7]))
    C = rng.standard_normal((2, 4))
    check_columns("sigmoid(C x) * x.sum(), 4 -> 2",
                  lambda t: (minigrad.tensor(C) @ t).sigmoid() * t.sum(),
                  lambda t: torch.sigmoid(torch.tensor(C) @ t) * t.sum(),
                  rng.standard_normal(4))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 14.3: a JVP from two backward passes (2 points)
#
# Write `jvp_by_double_vjp(f, x0, v)`: $J v$, the Jacobian of `f` at the numpy vector
# `x0` times the numpy vector `v` (of `x0`'s length), as a numpy array of `f`'s output
# shape, with exactly two backward passes (section 4) and no forward mode. Use
# `minigrad.autograd.grad(outputs, inputs, grad_outputs, create_graph=...)`. The check
# switches off forward mode (minigrad's and torch's) and the ready-made transforms
# (`minigrad.func`, `autograd.functional`), counts your backward passes, and compares
# with torch's forward mode. Its first example is the reference tutorial's $y = x^2$ at
# $(1, 2, 3)$ (section 2) with $v$ all ones: what is $J v$?
#
# <details><summary>Hint</summary>
#
# Section 4 is the recipe: $u \mapsto J^\top u$ is linear in $u$, and the VJP of a
# linear map is its transpose applied. So the first backward pass must produce
# $J^\top u$ *as a function of* $u$: what must `u` be, and what must the pass record,
# for a second pass to differentiate its result with respect to `u`? (The value of
# `u` does not matter: why?)
# </details>

# %% solution=ex14-double-vjp
def jvp_by_double_vjp(f, x0, v):
    """J v at x0, from two backward passes: the VJP of u -> J^T u, with v."""
    ### BEGIN SOLUTION
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    u = minigrad.tensor(np.zeros(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    (jv,) = minigrad.autograd.grad(g, u, minigrad.tensor(v))
    return jv.detach().numpy()
    ### END SOLUTION

# %% test=ex14-double-vjp-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 14.3", hint="if the pass count is off, count your grad calls (the "
            "forward pass of f is not one); if J v is off, check what the second pass "
            "differentiates, with respect to what, and what it is given as "
            "grad_outputs") as g:
    def check_jvp(name, f, f_torch, x0, v):
        before = g.calls.get("minigrad.autograd", 0)
        got = g.call(jvp_by_double_vjp, f, x0.copy(), v.copy(), count="minigrad.autograd",
                     forbid=["forward_ad", "minigrad.func", "torch.autograd", "torch.func"])
        passes = g.calls["minigrad.autograd"] - before
        g.require(f"{name}: two backward passes", passes == 2,
                  f"run exactly two backward passes, not {passes}", mistakes={
                      "one-vjp": ("you ran one backward pass: which product does one pass "
                                  "with v give, J v or J^T v?", passes == 1)})
        _, reference = torch.func.jvp(f_torch, (torch.tensor(x0),), (torch.tensor(v),))
        g.check(f"{name}: J v", got, reference, rtol=1e-12, atol=1e-15, mistakes={
            "ones-for-v": ("your J v is J times a vector of ones: where does v enter your "
                           "second pass?", lambda: torch.func.jvp(
                               f_torch, (torch.tensor(x0),),
                               (torch.ones(len(x0), dtype=torch.float64),))[1])})

    check_jvp("the tutorial's x**2 at (1, 2, 3), v = ones", lambda t: t ** 2,
              lambda t: t ** 2, np.array([1.0, 2.0, 3.0]), np.ones(3))
    A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
    check_jvp("tanh(A x), 3 -> 4", lambda t: (minigrad.tensor(A) @ t).tanh(),
              lambda t: torch.tanh(torch.tensor(A) @ t), np.array([0.5, -1.0, 2.0]),
              np.array([1.0, 0.5, -2.0]))
    ### BEGIN HIDDEN TESTS
    rng = np.random.default_rng(143)
    B = rng.standard_normal((5, 2))
    check_jvp("exp(B x), 2 -> 5", lambda t: (minigrad.tensor(B) @ t).exp(),
              lambda t: torch.exp(torch.tensor(B) @ t), rng.standard_normal(2),
              rng.standard_normal(2))
    check_jvp("sum of cubes, 4 -> 1", lambda t: (t ** 3).sum().reshape(1),
              lambda t: (t ** 3).sum().reshape(1), rng.standard_normal(4),
              rng.standard_normal(4))
    check_jvp("x * x.sum(), 3 -> 3", lambda t: t * t.sum(), lambda t: t * t.sum(),
              rng.standard_normal(3), rng.standard_normal(3))
    C = rng.standard_normal((2, 3))
    check_jvp("sigmoid(C x) * 2, 3 -> 2", lambda t: (minigrad.tensor(C) @ t).sigmoid() * 2,
              lambda t: torch.sigmoid(torch.tensor(C) @ t) * 2, rng.standard_normal(3),
              rng.standard_normal(3))
    ### END HIDDEN TESTS

# %% [markdown]
# ## 5. Two views of one linear map
#
# This section comes after the exercises because it builds the Jacobian of Exercise 14.2
# and uses the double VJP of Exercise 14.3. Fix $x$. Forward mode computes the map
# $v \mapsto J v$ from $\mathbb{R}^3$ to $\mathbb{R}^4$, and reverse mode the map
# $u \mapsto J^\top u$ from $\mathbb{R}^4$ back to $\mathbb{R}^3$. Both are linear, and
# one is the **transpose** of the other, which means that for every $u$ and $v$
#
# $$\langle u, J v \rangle = \langle J^\top u, v \rangle.$$
#
# (JAX's `vjp` is built this way: `jax.linearize` gives the JVP as a linear function,
# and transposing that function gives the VJP.) Here is the identity on section 2's
# $\tanh(A x)$ and its $v$, with some $u$ of length 4: `func.jvp` gives one side,
# `func.vjp` the other.

# %%
u = np.array([0.3, -1.0, 2.0, 0.5])
_, Jv = minigrad.func.jvp(f_minigrad, (minigrad.tensor(x0),), (minigrad.tensor(v),))
_, vjp_fn = minigrad.func.vjp(f_minigrad, minigrad.tensor(x0))
(JTu,) = vjp_fn(minigrad.tensor(u))

_, Jv_t = torch.func.jvp(f_torch, (torch.tensor(x0),), (torch.tensor(v),))
_, vjp_fn_t = torch.func.vjp(f_torch, torch.tensor(x0))
(JTu_t,) = vjp_fn_t(torch.tensor(u))
u_Jv = (minigrad.tensor(u) * Jv).sum()
JTu_v = (JTu * minigrad.tensor(v)).sum()
check_all({"<u, J v>": (u_Jv, torch.dot(torch.tensor(u), Jv_t)),
           "<J^T u, v>": (JTu_v, torch.dot(JTu_t, torch.tensor(v))),
           "<u, J v> - <J^T u, v>": (u_Jv - JTu_v, 0.0, "formula")})

# %% [markdown]
# Both sides are the same number, and in both libraries. This is why the double-VJP trick
# of section 4 works. Call the VJP $g(u) = J^\top u$; it is linear in $u$. The matrix of
# a linear map has its value at $e_i$ as column $i$. Here $g(e_i) = J^\top e_i$ is row
# $i$ of $J$, so the matrix of $g$ is $J^\top$. A backward pass through $g$ computes
# the VJP of $g$, that is, its matrix transposed times a vector:
# $(J^\top)^\top v = J v$. The transpose of the transpose is the JVP. We build the matrix
# of $g$ from its values at $e_1, \dots, e_4$, and compare it with torch's Jacobian of
# its own VJP function (`torch.func.jacrev` of `vjp_fn`, a double VJP). Then its transpose
# times $v$ is forward mode's $J v$:

# %%
G = np.stack([vjp_fn(minigrad.tensor(e_i))[0].numpy() for e_i in np.eye(4)], axis=1)
G_t = torch.func.jacrev(lambda u: vjp_fn_t(u)[0])(torch.tensor(u))
check_all({"matrix of g: u -> J^T u": (G, G_t),
           "= J^T": (G, torch.func.jacfwd(f_torch)(torch.tensor(x0)).T),
           "(matrix of g)^T v = J v": (G.T @ v, Jv_t)})

# %% [markdown]
# **What each mode keeps.** To apply $J^\top$, reverse mode runs the ops backward, last
# op first. It must therefore keep what each op's local derivative needs until the
# backward pass gets there: the inputs or outputs each op saved, for the whole graph.
# Forward mode applies each op's local derivative as soon as the op runs, then drops it.
# It records no graph, and at any moment it holds only the current primal and tangent.
# We measure this on a deep chain, 50 `tanh` in a row on 1,000 float64 values.
# In torch, `torch.autograd.graph.saved_tensors_hooks(pack, unpack)` calls `pack` on
# every tensor an op saves for backward. In minigrad we walk the graph from `y.grad_fn`
# and add up each node's `saved_tensors`.

# %%
depth, n = 50, 1000


def chain(h):
    for _ in range(depth):
        h = h.tanh()
    return h


def saved_by_torch(run):
    """(count, bytes) of the tensors torch saves for backward while run() runs."""
    sizes = []

    def pack(t):
        sizes.append(t.nbytes)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        run()
    return len(sizes), sum(sizes)


def saved_by_minigrad(y):
    """(count, bytes) of the arrays saved on the graph behind y."""
    arrays, stack, seen = [], [y.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        arrays += getattr(node, "saved_tensors", ())
        stack.extend(node.next_functions)
    return len(arrays), sum(a.nbytes for a in arrays)


def forward_mode_minigrad():
    with forward_ad.dual_level():
        x = forward_ad.make_dual(minigrad.tensor(np.linspace(-2, 2, n)),
                                 minigrad.ones(n, dtype=minigrad.float64))
        return chain(x)


def forward_mode_torch():
    with fwAD.dual_level():
        chain(fwAD.make_dual(torch.linspace(-2, 2, n, dtype=torch.float64),
                             torch.ones(n, dtype=torch.float64)))


reverse_t = saved_by_torch(lambda: chain(torch.linspace(-2, 2, n, dtype=torch.float64,
                                                        requires_grad=True)))
reverse_m = saved_by_minigrad(chain(minigrad.tensor(np.linspace(-2, 2, n), requires_grad=True)))
y_fwd = forward_mode_minigrad()
print("reverse mode saves (tensors, bytes):", reverse_m, "; forward mode's y.grad_fn:",
      y_fwd.grad_fn)
check_all({"reverse mode: saved (tensors, bytes)": (reverse_m, reverse_t),
           "= one 8,000-byte output per tanh": (reverse_m, (depth, depth * n * 8), "formula"),
           "forward mode: saved (tensors, bytes)": (saved_by_minigrad(y_fwd),
                                                    saved_by_torch(forward_mode_torch))})

# %% [markdown]
# Reverse mode keeps 400,000 bytes, one output of 8,000 bytes per `tanh`, so the amount
# grows with the depth. Forward mode keeps none. This is the memory argument for forward
# mode; its price is the one of section 3, one pass per input direction.
#
# **`vmap`: all the columns in one pass.** Exercise 14.2 builds the Jacobian one `jvp`
# per basis vector $e_j$, so $f$ runs $n_{in}$ times. `func.vmap(fn)` turns a function
# of one vector into a function of a batch of them (here the rows of the identity
# matrix, the $e_j$): each op processes the whole batch at once. With
# `out_dims=1` the results are stacked as columns. We count the calls of $f$:

# %%
calls = []


def f_counted(x):
    calls.append(1)
    return f_minigrad(x)


x_m = minigrad.tensor(x0)
columns = [minigrad.func.jvp(f_counted, (x_m,), (minigrad.tensor(e_j),))[1] for e_j in np.eye(3)]
J_loop = minigrad.stack(columns, dim=1)
loop_calls = len(calls)

calls.clear()
J_vmap = minigrad.func.vmap(lambda e: minigrad.func.jvp(f_counted, (x_m,), (e,))[1],
                            out_dims=1)(minigrad.eye(3, dtype=minigrad.float64))
print(f"calls of f: {loop_calls} with the loop, {len(calls)} with vmap")
J_t = torch.func.jacfwd(f_torch)(torch.tensor(x0))
check_all({"J, one jvp per column": (J_loop, J_t), "J, vmap over the e_j": (J_vmap, J_t),
           "calls of f: loop, vmap": ((loop_calls, len(calls)), (3, 1), "formula")}, brief=True)

# %% [markdown]
# The same matrix, from one batched pass instead of three. This is how
# `torch.func.jacfwd` works: it applies `vmap` to `jvp` over the basis vectors (and
# `jacrev` applies `vmap` to `vjp`). The arithmetic is the same; what changes is that
# each op runs once on a batch of $n_{in}$ tangents instead of $n_{in}$ times on one.

# %% [markdown]
# **Forward mode through a module.** A network's weights live inside its modules, as
# attributes, not as arguments that `jvp` could give a tangent to.
# `func.functional_call(module, weights, args)` runs the module with the tensors of the
# dict `weights` (by parameter name) in place of its own, so the loss becomes a
# function of the weights. One forward pass then gives the loss's derivative along a
# direction $d$ in weight space, $\nabla L \cdot d$: the directional derivative of
# section 1, now for a network. A small $3 \to 4 \to 2$ network with torch's weights
# copied into minigrad's, a batch of 5, and a random direction:

# %%
torch.manual_seed(14)
net_t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(),
                            torch.nn.Linear(4, 2)).double()
net = minigrad.nn.Sequential(minigrad.nn.Linear(3, 4, dtype=minigrad.float64),
                             minigrad.nn.Tanh(),
                             minigrad.nn.Linear(4, 2, dtype=minigrad.float64))
for p, p_t in zip(net.parameters(), net_t.parameters(), strict=True):
    p.data = minigrad.tensor(p_t.detach().numpy())  # the same weights
X_batch = np.random.default_rng(14).standard_normal((5, 3))
names = [name for name, _ in net.named_parameters()]
direction = [np.random.default_rng(141 + i).standard_normal(tuple(p.shape))
             for i, p in enumerate(net.parameters())]


def loss_of_weights(lib, model):
    """The network's mean squared output as a function of its weights, in names' order."""
    def loss(*weights):
        out = lib.func.functional_call(model, dict(zip(names, weights, strict=True)),
                                       (lib.tensor(X_batch),))
        return (out ** 2).mean()
    return loss


weights = tuple(p.detach() for p in net.parameters())
loss, slope = minigrad.func.jvp(loss_of_weights(minigrad, net), weights,
                                tuple(minigrad.tensor(d) for d in direction))
weights_t = tuple(p.detach() for p in net_t.parameters())
loss_t, slope_t = torch.func.jvp(loss_of_weights(torch, net_t), weights_t,
                                 tuple(torch.tensor(d) for d in direction))
(net(minigrad.tensor(X_batch)) ** 2).mean().backward()  # reverse mode, as in training
grad_dot_d = sum(float((p.grad * minigrad.tensor(d)).sum())
                 for p, d in zip(net.parameters(), direction, strict=True))
print(f"loss {loss.item():.6f}; along d, forward mode: {slope.item():.6f}, "
      f"gradient . d: {grad_dot_d:.6f}")
check_all({"loss": (loss, loss_t), "dL along d, forward mode": (slope, slope_t),
           "= gradient . d, reverse mode": (slope, grad_dot_d, "reverse mode")}, brief=True)

# %% [markdown]
# The same number from one forward pass and from the gradient. For training, reverse
# mode still wins: one backward pass gives the slope along *every* direction at once.
# Forward mode pays off when you want the slope along a few directions only, or cannot
# keep the graph. (torch's `func.jvp` also takes the dict of weights itself; minigrad's
# takes tensors, so both are given the tuple here.)

# %% [markdown]
# ## Predict before you run
#
# Three questions on this chapter's idea. Guess first, then run the cell.
#
# **1.** `Dual(2.0, 1.0) ** 3` has tangent $12$, the derivative of $x^3$ at $2$. What
# is the tangent of `Dual(2.0, 0.5) ** 3`?

# %%
y = Dual(2.0, 0.5) ** 3
_, tangent_t = torch_forward(lambda t: t ** 3, 2.0, 0.5)
print(y)
check("tangent of (2 + 0.5 eps)**3", y.tangent, tangent_t, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# $6$: the tangent out is $f'(x)\,\dot x = 12 \cdot 0.5$. The input's tangent is the
# direction and speed of the move, and the output's is linear in it: a JVP with $v =
# 0.5$.
# </details>
#
# **2.** Forward mode on tensors: `x` does not require grad, and `y = (x * x).tanh()`
# is computed on `make_dual(x, v)`. Does `y` have a `grad_fn`?

# %%
def grad_fn_under_forward_mode(lib, fw):
    with fw.dual_level():
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64)
        y = (fw.make_dual(x, lib.ones(3, dtype=lib.float64)) ** 2).tanh()
        return y.grad_fn, y.requires_grad


mine, theirs = grad_fn_under_forward_mode(minigrad, forward_ad), grad_fn_under_forward_mode(
    torch, fwAD)
print("minigrad: grad_fn", mine[0], " requires_grad", mine[1])
print("torch:    grad_fn", theirs[0], " requires_grad", theirs[1])
check("grad_fn is None, requires_grad", [mine[0] is None, mine[1]],
      [theirs[0] is None, theirs[1]], brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No: forward mode records nothing. Each op computes its tangent at once, from values it
# has in hand, and drops them; there is no graph to walk back, and nothing is kept for a
# backward pass (section 5's memory measurement).
# </details>
#
# **3.** Is a dual number's tangent an approximation, like chapter 11's central
# difference? Compare both with the exact derivative of $e^{\tanh x}$ at $x = 1$,
# $(1 - \tanh^2 x)\, e^{\tanh x}$.

# %%
def e_tanh(x):
    return x.tanh().exp()


exact = (1 - math.tanh(1.0) ** 2) * math.exp(math.tanh(1.0))
eps = 1e-6
central = (math.exp(math.tanh(1 + eps)) - math.exp(math.tanh(1 - eps))) / (2 * eps)
tangent = e_tanh(Dual(1.0, 1.0)).tangent
print(f"dual: error {abs(tangent - exact):.1e};  central difference: error "
      f"{abs(central - exact):.1e}")
check_all({"dual tangent": (tangent, torch_forward(e_tanh, 1.0)[1]),
           "dual tangent vs the formula": (tangent, exact, "formula")}, rtol=1e-15, atol=0,
          brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The tangent is exact up to rounding: each op applies its exact derivative rule, there
# is no step size. The central difference carries an error near $10^{-10}$ from its
# step and from cancellation (chapter 11).
# </details>

# %% [markdown]
# ## Summary
#
# - A dual number $x + \dot{x}\,\varepsilon$ with $\varepsilon^2 = 0$ carries a
#   derivative forward: $f(x + \varepsilon) = f(x) + f'(x)\,\varepsilon$. Each op has a
#   tangent rule (product: $\dot{a} b + a \dot{b}$; $e^a$: $e^a \dot{a}$); one pass
#   gives the value and the derivative, with no graph. $x^2$ at 3: $9 + 6\varepsilon$.
# - On tensors, one forward pass gives a Jacobian-vector product $J v$:
#   `forward_ad.dual_level` / `make_dual` / `unpack_dual`, or `func.jvp`, with the
#   same names in minigrad and torch. Tangents are dropped when their level ends.
# - A Jacobian takes $n_{in}$ forward passes by columns (`jacfwd`) or $n_{out}$
#   backward passes by rows (`jacrev`). Forward mode wins for tall Jacobians (few
#   inputs), reverse mode for wide ones (few outputs, such as a loss), by about the
#   ratio $n_{in} / n_{out}$.
# - A VJP $u \mapsto J^\top u$ is linear in $u$, so its VJP with $v$ is $J v$: a JVP
#   from two backward passes, the first recorded, after a recorded forward pass of $f$.
#   That is how `torch.autograd.functional.jvp` computes it, without forward mode.
# - $v \mapsto J v$ and $u \mapsto J^\top u$ are a linear map and its transpose,
#   $\langle u, J v \rangle = \langle J^\top u, v \rangle$. Reverse mode keeps saved
#   tensors for the whole graph (50 `tanh`: 400,000 bytes), forward mode keeps none.
#   `vmap` over the $e_j$ gives all the columns in one pass, as `torch.func.jacfwd` does.
# - `func.functional_call(module, weights, args)` makes a network's loss a function of
#   its weights, so one forward pass gives its slope along a direction in weight space,
#   $\nabla L \cdot d$, the number reverse mode's gradient gives for every $d$ at once.
#
# Where this comes from: JAX's Autodiff Cookbook (jax.readthedocs.io, "JVPs and VJPs",
# "Jacobians and Hessians using jacfwd and jacrev") and PyTorch's tutorial "Forward-mode
# Automatic Differentiation" (pytorch.org/tutorials), whose `dual_level` / `make_dual` /
# `unpack_dual` this chapter uses.
#
# Next: [15 Gradients of gradients](15_gradients_of_gradients.ipynb): `create_graph`,
# Hessians and Newton's method.
