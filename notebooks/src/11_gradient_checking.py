# %% [markdown]
# # 11 Gradient checking
#
# A backward pass that is wrong rarely crashes: it returns numbers of the right shape
# that are slightly, or completely, off, and training simply goes worse. Gradient
# checking is how we catch that. We compare the gradient that backward computes with
# one measured from the function itself, by finite differences: nudge an input, see
# how the output moves. This chapter starts from an example of the course's reference
# tutorial (see [Sources](../book/sources.md)), explains why the central difference
# is the one to use and why its step `eps` can be neither too large nor too small, and
# where the rounding happens, then uses `gradcheck`, minigrad's and torch's side by
# side, to catch a custom `Function` whose backward is wrong.
#
# **Learning goals.** After this chapter you can
#
# 1. compare an autograd gradient with a finite-difference estimate;
# 2. explain why the central difference is more accurate than the one-sided one;
# 3. read the eps trade-off: truncation error against round-off error, in float32
#    and float64;
# 4. run `gradcheck` on a function, and say what it compares, with what tolerance, and
#    why it wants float64 inputs;
# 5. catch a wrong backward of a custom `autograd.Function` and fix it;
# 6. judge a hand comparison by its relative error, on a few random coordinates.

# %%
import inspect
import warnings
from decimal import Decimal  # the exact decimal value of a binary float

import matplotlib.pyplot as plt
import numpy as np
import torch
from IPython.display import display

import minigrad
from minigrad import check, check_all, show_source
from minigrad.autograd.gradcheck import numerical_jacobian
from minigrad.course.widgets.finite_differences import eps_explorer

# %% [markdown]
# ## 1. Autograd against a finite difference
#
# The reference tutorial's example: $f(x) = x^2$ at $x = 3$, where autograd
# gives $6$, and the central difference with $\epsilon = 10^{-4}$,
#
# $$f'(x) \approx \frac{f(x + \epsilon) - f(x - \epsilon)}{2\epsilon},$$
#
# should be close to it. First torch, verbatim (its default dtype is float32):

# %%
def f(x):
    return x ** 2


x = torch.tensor(3.0, requires_grad=True)
y = f(x)
y.backward()
autograd_grad = x.grad.item()

eps = 1e-4
finite_diff_grad = (f(torch.tensor(3.0 + eps)) - f(torch.tensor(3.0 - eps))) / (2 * eps)

print(autograd_grad)
print(finite_diff_grad.item())

# %% [markdown]
# The same lines with `torch` replaced by `minigrad` print the same two numbers, to
# the last digit:

# %%
xm = minigrad.tensor(3.0, requires_grad=True)
ym = f(xm)
ym.backward()
autograd_grad_m = xm.grad.item()
finite_diff_grad_m = (f(minigrad.tensor(3.0 + eps)) - f(minigrad.tensor(3.0 - eps))) / (2 * eps)

print(autograd_grad_m)
print(finite_diff_grad_m.item())
check_all({"autograd": (autograd_grad_m, autograd_grad),
           "finite difference": (finite_diff_grad_m, finite_diff_grad)}, rtol=0, atol=0, brief=True)

# %% [markdown]
# "Close to 6" is $5.9938$: wrong in the third digit. For a parabola the central
# difference is *exact* in exact arithmetic ($(3 + \epsilon)^2 - (3 - \epsilon)^2 =
# 12\epsilon$), so all of that error is rounding, and most of it happens before $f$
# runs. float32 cannot hold $3.0001$: `torch.tensor(3.0 + eps)` stores the nearest
# float32 number, $3.0000998974$, and $2.9999$ becomes $2.9999001026$. The step actually
# taken is their difference, $1.99795 \cdot 10^{-4}$, not $2 \cdot 10^{-4}$, but the
# formula still divides by $2\epsilon$. The two squares are rounded too, by the same
# amount, and those errors cancel in the difference. What is left is $6 \times
# 1.99795 / 2 = 6 \times 0.99897 = 5.99384$. Every number, computed:

# %%
plus_t, minus_t = torch.tensor(3.0 + eps), torch.tensor(3.0 - eps)  # float32, as above
plus_m, minus_m = minigrad.tensor(3.0 + eps), minigrad.tensor(3.0 - eps)
step_taken = plus_m.item() - minus_m.item()  # exact: two nearby float32 numbers
print(f"x + eps as stored: {Decimal(plus_m.item())}")
print(f"x - eps as stored: {Decimal(minus_m.item())}")
print(f"step taken {step_taken:.6e}, asked for 2 eps = {2 * eps:.6e}, "
      f"ratio {step_taken / (2 * eps):.5f}")
for name, t in [("(x + eps)**2", plus_m), ("(x - eps)**2", minus_m)]:
    rounding = Decimal(f(t).item()) - Decimal(t.item()) ** 2
    print(f"rounding error of {name}: {float(rounding):+.3e}")
display(check_all({"x + eps as stored": (plus_m, plus_t),
                   "x - eps as stored": (minus_m, minus_t)}, rtol=0, atol=0, brief=True))
check("estimate = 6 x step taken / (2 eps)", finite_diff_grad_m, 6 * step_taken / (2 * eps),
      rtol=1e-6, against="formula")

# %% [markdown]
# Divide the same difference by the step actually taken and the answer is $6$ exactly.
# So is the answer with $\epsilon = 2^{-13} \approx 1.2 \cdot 10^{-4}$, whose $3 \pm
# \epsilon$ are float32 numbers: nothing is rounded on the way in, the step is exactly
# $2\epsilon$, and the squares' rounding errors cancel again.

# %%
by_step_m = (f(plus_m) - f(minus_m)) / (plus_m - minus_m)
by_step_t = (f(plus_t) - f(minus_t)) / (plus_t - minus_t)
h = 2.0 ** -13
eps_pow2_m = (f(minigrad.tensor(3.0 + h)) - f(minigrad.tensor(3.0 - h))) / (2 * h)
eps_pow2_t = (f(torch.tensor(3.0 + h)) - f(torch.tensor(3.0 - h))) / (2 * h)
print(f"difference / step taken: {by_step_m.item()}   eps = 2**-13: {eps_pow2_m.item()}")
display(check_all({"difference / step taken": (by_step_m, by_step_t),
                   "eps = 2**-13": (eps_pow2_m, eps_pow2_t)}, rtol=0, atol=0, brief=True))
check_all({"difference / step taken": (by_step_m, 6.0),
           "eps = 2**-13": (eps_pow2_m, 6.0)}, rtol=0, atol=0, against="formula")

# %% [markdown]
# In float64 $3.0001$ is stored to about $10^{-16}$, a relative error of $10^{-12}$ in
# the step, and the same formula gives $6$ to ten digits:

# %%
x64 = minigrad.tensor(3.0, dtype=minigrad.float64)
fd64 = (f(x64 + eps) - f(x64 - eps)) / (2 * eps)
xt64 = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
f(xt64).backward()
print(f"float64 central difference: {fd64.item():.10f}")
check("central difference, float64", fd64, xt64.grad, rtol=1e-10, brief=True)

# %% [markdown]
# Sections 2 and 3 make this precise: which formula, and which $\epsilon$.
#
# ## 2. One-sided and central differences
#
# Taylor's expansion says how far each estimate is from $f'(x)$:
#
# $$f(x \pm \epsilon) = f(x) \pm \epsilon f'(x) + \tfrac{\epsilon^2}{2} f''(x)
#   \pm \tfrac{\epsilon^3}{6} f'''(x) + \dots$$
#
# so the one-sided difference $\frac{f(x + \epsilon) - f(x)}{\epsilon} = f'(x) +
# \frac{\epsilon}{2} f''(x) + \dots$ is off by a term proportional to $\epsilon$,
# while in the central difference the $\epsilon^2$ terms cancel and it is off by only
# $\frac{\epsilon^2}{6} f'''(x)$. This *truncation error* is the first half of the
# story. We see it on $g(x) = x^3$ at $x = 1.5$, where $g'(1.5) = 6.75$, $g'' = 9$ and
# $g''' = 6$: the one-sided error should be about $4.5\,\epsilon$, the central one
# exactly $\epsilon^2$.

# %%
def g(x):
    return x * x * x


def one_sided(fn, x, eps):
    return (fn(x + eps) - fn(x)) / eps


def central(fn, x, eps):
    return (fn(x + eps) - fn(x - eps)) / (2 * eps)


xg = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
g(xg).backward()
exact = xg.grad.item()  # 6.75, from torch's autograd

x15 = minigrad.tensor(1.5, dtype=minigrad.float64)
for step in [1e-1, 1e-2, 1e-3]:
    err1 = one_sided(g, x15, step).item() - exact
    err2 = central(g, x15, step).item() - exact
    print(f"eps = {step:g}:  one-sided error {err1:.2e}   central error {err2:.2e}")

# %% [markdown]
# Each tenfold smaller $\epsilon$ makes the one-sided error ten times smaller and the
# central error a hundred times smaller, as predicted. The check: at $\epsilon =
# 10^{-2}$ the one-sided estimate equals $6.75 + 4.5\epsilon + \epsilon^2$ and the
# central one $6.75 + \epsilon^2$ (the full Taylor series of a cubic).

# %%
check_all({"one-sided, eps=1e-2": (one_sided(g, x15, 1e-2), exact + 4.5e-2 + 1e-4),
           "central, eps=1e-2": (central(g, x15, 1e-2), exact + 1e-4)}, rtol=1e-12)

# %% [markdown]
# ## 3. The eps trade-off
#
# So why not take $\epsilon = 10^{-12}$? Because the computer rounds, at two places.
# First the step, as in section 1: $x + \epsilon$ is rounded to the nearest number of
# the dtype, an error of up to $u\,|x|$, where $u$ is the unit roundoff ($2^{-24}
# \approx 6 \cdot 10^{-8}$ in float32, $2^{-53} \approx 1.1 \cdot 10^{-16}$ in
# float64). The step taken is then off by up to $u\,|x|$, a relative error of
# $u\,|x| / \epsilon$, which moves the estimate by about $u\,|x\,g'(x)| / \epsilon$.
# Then the values: $g(x \pm \epsilon)$ each carry a rounding error of about
# $u\,|g(x)|$, and the formula divides their difference by $\epsilon$. Together, a
# *round-off error* of about
#
# $$\frac{u\,(|x\,g'(x)| + |g(x)|)}{\epsilon},$$
#
# which grows as $\epsilon$ shrinks. For $g = x^3$ at $1.5$ that is $u\,(10.125 +
# 3.375) / \epsilon$: the rounding of $x + \epsilon$ weighs three times as much as that
# of $g$. The total error is smallest where truncation and round-off meet: near
# $\epsilon \approx \sqrt{u}$ for the one-sided difference and $\epsilon \approx u^{1/3}$
# for the central one.
#
# We compute both differences for 45 values of $\epsilon$ at once (a tensor of steps),
# in both dtypes, with minigrad, and check every estimate against the same formula
# computed by torch.

# %%
steps = np.logspace(-1, -12, 45)
estimates, errors = {}, {}
for name, mg_dtype, torch_dtype in [("float32", minigrad.float32, torch.float32),
                                    ("float64", minigrad.float64, torch.float64)]:
    xs_m = minigrad.tensor(np.full(steps.shape, 1.5), dtype=mg_dtype)
    eps_m = minigrad.tensor(steps, dtype=mg_dtype)
    xs_t = torch.tensor(np.full(steps.shape, 1.5), dtype=torch_dtype)
    eps_t = torch.tensor(steps, dtype=torch_dtype)
    for kind, formula in [("one-sided", one_sided), ("central", central)]:
        ours = formula(g, xs_m, eps_m)
        estimates[f"{kind}, {name}"] = (ours, formula(g, xs_t, eps_t))
        errors[(kind, name)] = np.abs(ours.detach().numpy().astype(np.float64) - exact)
check_all(estimates, rtol=0, atol=0)

# %% [markdown]
# Every estimate agrees with torch's bit for bit (the same float operations in the
# same order). Now the picture: error against $\epsilon$, both axes logarithmic. An
# error of exactly zero (a lucky rounding) is drawn at $10^{-16}$.

# %%
fig, ax = plt.subplots(figsize=(7.5, 4.8))
styles = {"one-sided": "o-", "central": "s-"}
colors = {"float32": "tab:red", "float64": "tab:blue"}
for (kind, name), err in errors.items():
    ax.loglog(steps, np.maximum(err, 1e-16), styles[kind], color=colors[name],
              markersize=3, alpha=0.8, label=f"{kind}, {name}")
ax.loglog(steps, 4.5 * steps, "k:", linewidth=1, label=r"truncation $4.5\,\epsilon$")
ax.loglog(steps, steps ** 2, "k--", linewidth=1, label=r"truncation $\epsilon^2$")
for name, u in [("float32", 2.0 ** -24), ("float64", 2.0 ** -53)]:
    ax.loglog(steps, u * (1.5 * exact + 1.5 ** 3) / steps, "-.", color=colors[name],
              linewidth=1, label=f"round-off model, {name}")
ax.set_xlabel(r"$\epsilon$")
ax.set_ylabel(r"$|$estimate $-$ $g'(1.5)|$")
ax.set_ylim(1e-16, 1e3)
ax.set_title(r"finite differences of $g(x) = x^3$ at $x = 1.5$")
ax.legend(fontsize=8, loc="lower left", ncols=2)
fig.tight_layout()
plt.show()

# %% [markdown]
# Read it from the right. For large $\epsilon$ every curve follows its truncation
# line, the central one falling twice as steeply. Going left, each curve meets its
# round-off line and turns back up, jagged (rounding is not smooth) and below the
# line, which is an upper estimate. In float32 that comes early, and for the smallest
# steps the step is lost entirely: $1.5 + \epsilon$ rounds to $1.5$, the "estimate" is
# $0$ and its error $6.75$. Where exactly? float32 numbers between 1 and 2 are
# $2^{-23}$ apart, so a step below half of that, $2^{-24} \approx 5.96 \cdot 10^{-8}$,
# rounds away. Measured on the grid:

# %%
x32 = minigrad.tensor(np.full(steps.shape, 1.5), dtype=minigrad.float32)
moved = (x32 + minigrad.tensor(steps, dtype=minigrad.float32)).detach().numpy() != 1.5
moved_t = (torch.full(steps.shape, 1.5) + torch.tensor(steps, dtype=torch.float32)) != 1.5
print(f"smallest eps that moves 1.5: {steps[moved].min():.3g}; "
      f"largest that is lost: {steps[~moved].max():.3g}")
display(check("which steps move x", moved, moved_t, rtol=0, atol=0))
check_all({"half the float32 spacing at 1.5": (np.spacing(np.float32(1.5)) / 2, 2.0 ** -24),
           "every lost step is at most 2**-24": (steps[~moved].max() <= 2.0 ** -24, True)},
          rtol=0, atol=0, against="formula")

# %% [markdown]
# The best steps, read off the data:

# %%
for (kind, name), err in errors.items():
    best = steps[np.argmin(err)]
    print(f"{kind:9s} {name}: smallest error {err.min():.1e} at eps = {best:.0e}")

# %% [markdown]
# Central differences in float64 reach an error of about $10^{-10}$ at $\epsilon$
# around $10^{-5}$ to $10^{-6}$; that is why `gradcheck` expects float64 inputs and uses
# $\epsilon = 10^{-6}$. In float32 the error is erratic: about $10^{-4}$ to $10^{-3}$
# at the best steps, with an occasional lucky dip (the $10^{-6}$ above, at a single
# step). Enough to spot a gradient that is wildly wrong, not one that is subtly wrong.
#
# **The eps explorer.** One estimate at a time, every number as stored: move `eps` (a
# log scale, a quarter decade a notch) and switch the dtype and the formula. The
# readout shows $x + \epsilon$ and $x - \epsilon$ as the dtype stores them (every
# decimal digit of the binary number), the step actually taken, the estimate, the same
# difference divided by the step taken, and the error against torch's autograd; the
# plot shows the whole error curve of the current dtype and formula, the two models
# above, and the current $\epsilon$ in red. The explorer computes with minigrad;
# `tests/test_finite_differences.py` checks every number it shows against torch's, bit
# for bit. (`eps_explorer(f, 3.0, "x**2")` shows section 1's example.)

# %%
eps_explorer(g, 1.5, "g(x) = x**3")

# %% [markdown]
# ## 4. `gradcheck`: every element, minigrad and torch
#
# For a tensor function, checking means checking every partial derivative.
# `gradcheck(func, inputs)` builds the full Jacobian in two ways, for each input that
# requires grad, as a matrix with a row per input element and a column per output
# element (the transpose of $J$, whose rows are outputs):
#
# - **numerically**: nudge one input element at a time by $\pm\epsilon$ and take the
#   central difference of every output element (a row of the matrix per input
#   element);
# - **analytically**: call backward once per output element, with a one-hot
#   `gradient` (chapter 06: `y.backward(e_i)` gives $e_i^\top J$, row $i$ of $J$,
#   which is column $i$ of the matrix).
#
# It passes if the analytical matrix comes out the same when computed a second time
# (a *reentrant* backward, below) and $|a - n| \le \text{atol} + \text{rtol}\,|n|$
# everywhere. The defaults, read from both functions:

# %%
defaults = {}
for lib in (minigrad, torch):
    params = inspect.signature(lib.autograd.gradcheck).parameters
    defaults[lib.__name__] = {k: p.default for k, p in params.items()
                              if p.default is not inspect.Parameter.empty}
    print(f"{lib.__name__}: {defaults[lib.__name__]}")
check_all({k: (v, defaults["torch"][k]) for k, v in defaults["minigrad"].items()},
          rtol=0, atol=0, brief=True)

# %% [markdown]
# $\epsilon = 10^{-6}$, atol $= 10^{-5}$, rtol $= 10^{-3}$, no tolerance for a backward
# that is not reentrant. torch has more switches: `check_undefined_grad=True` also
# runs backward with undefined output gradients (what autograd passes for an output
# that is not used) and expects zero or no input gradients; minigrad has no undefined
# gradients and skips that check. The batched and forward-mode checks are off by
# default. Here is the numerical half, from the package:

# %%
show_source(numerical_jacobian)

# %% [markdown]
# For $g(x) = x^3$ elementwise, on three numbers, the numerical Jacobian is diagonal,
# with $3x^2$ on the diagonal; we compare it with torch's exact Jacobian
# (`torch.autograd.functional.jacobian`, whose rows are outputs, so we transpose).

# %%
torch.manual_seed(0)
a_t = torch.randn(3, dtype=torch.float64)
a_m = minigrad.tensor(a_t.numpy(), requires_grad=True)
jac_numeric = numerical_jacobian(g, (a_m,), 0, 1e-6)
jac_exact = torch.autograd.functional.jacobian(g, a_t).T
print(np.round(jac_numeric, 6))
check("numerical Jacobian of x**3", jac_numeric, jac_exact, rtol=1e-8, atol=1e-9)

# %% [markdown]
# Now `gradcheck` itself on a few functions, minigrad's and torch's on the same inputs
# and the same function (the code is the same for both libraries). `minigrad.gradcheck`
# and `minigrad.autograd.gradcheck` are the same function; torch keeps it in
# `torch.autograd`. Both return `True`.

# %%
torch.manual_seed(0)
A_t = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
B_t = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
A_m = minigrad.tensor(A_t.detach().numpy(), requires_grad=True)
B_m = minigrad.tensor(B_t.detach().numpy(), requires_grad=True)

functions = {
    "tanh(x) * x": (lambda a: a.tanh() * a, lambda a, b: (a,)),
    "mm(A, B)": (lambda a, b: a @ b, lambda a, b: (a, b)),
    "relu(A @ B).sum()": (lambda a, b: (a @ b).relu().sum(), lambda a, b: (a, b)),
    "exp(A).mean(dim=0)": (lambda a: a.exp().mean(dim=0), lambda a, b: (a,)),
}
results = {}
for name, (fn, pick) in functions.items():
    ours = minigrad.autograd.gradcheck(fn, pick(A_m, B_m))
    theirs = torch.autograd.gradcheck(fn, pick(A_t, B_t))
    results[f"gradcheck {name}"] = (ours, theirs)
check_all(results, brief=True)

# %% [markdown]
# (The first function got `A` as its input, a $4 \times 3$ tensor; its Jacobian is
# $12 \times 12$. `relu` has a kink at $0$, where a finite difference straddling it
# would be wrong; with random inputs no entry of `A @ B` is within $10^{-6}$ of $0$.)
#
# **float32.** `gradcheck` *expects* float64 inputs; it does not convert them. Given a
# float32 input both libraries warn, a `UserWarning` with the same text, and check the
# input as it is:

# %%
x32_m = minigrad.tensor([0.5, -1.2], requires_grad=True)
x32_t = torch.tensor([0.5, -1.2], requires_grad=True)
verdicts = {}
for name, lib, inp in [("minigrad", minigrad, x32_m), ("torch", torch, x32_t)]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        verdicts[name] = lib.autograd.gradcheck(g, (inp,), raise_exception=False)
    print(f"{name}: {caught[0].category.__name__}: {str(caught[0].message)[:70]}...")
    print(f"    the input is still {inp.dtype}; gradcheck returned {verdicts[name]}")
check("gradcheck(x**3), float32", verdicts["minigrad"], verdicts["torch"], brief=True)

# %% [markdown]
# Both refuse a correct backward, that of $x^3$: at $\epsilon = 10^{-6}$ the float32
# errors of section 3 are $10^{-2}$ to $10^{-1}$ (here $0.01$ and $0.15$), far above atol
# $= 10^{-5}$. Raising, minigrad's
# message says so before it suspects the backward; torch's shows the two Jacobians.
# (We silence the warning so that the error shows.)

# %% tags=raises-exception
with warnings.catch_warnings(action="ignore"):
    minigrad.autograd.gradcheck(g, (x32_m,))

# %% tags=raises-exception
with warnings.catch_warnings(action="ignore"):
    torch.autograd.gradcheck(g, (x32_t,))

# %% [markdown]
# That is a verdict on the defaults, not on float32. With a step and tolerances for
# float32, $\epsilon = 10^{-2}$ (truncation $\epsilon^2 = 10^{-4}$, round-off about
# $10^{-5}$) and atol $=$ rtol $= 10^{-3}$, both pass; such a check still catches a
# gradient that is off by a factor, not one that is off in the fourth digit.

# %%
with warnings.catch_warnings(action="ignore"):
    loose = {"gradcheck(x**3), float32, eps=1e-2, tol 1e-3": (
        minigrad.autograd.gradcheck(g, (x32_m,), eps=1e-2, atol=1e-3, rtol=1e-3),
        torch.autograd.gradcheck(g, (x32_t,), eps=1e-2, atol=1e-3, rtol=1e-3))}
check_all(loose, brief=True)

# %% [markdown]
# **Reentrancy.** Before comparing, `gradcheck` computes the analytical Jacobian twice
# and requires the two to be identical (up to `nondet_tol`, 0 by default). A backward
# whose result depends on anything but its inputs, state kept between calls or the
# order in which a parallel sum happens to add, is refused even when its numbers are
# right. `SumDot` computes $\sum_r (A v)_r$; its backward adds the rows of $A$ in a
# random order, as threads on a GPU may, so the sums differ in their last bits. (The
# random generator is seeded, so the cell gives the same result every time.)

# %%
def make_sumdot(base):
    """(a @ v).sum() on minigrad's or torch's Function; backward adds a's rows shuffled."""
    rng = np.random.default_rng(0)

    class SumDot(base):
        @staticmethod
        def forward(ctx, a, v):
            ctx.save_for_backward(a, v)
            return (a @ v).sum()

        @staticmethod
        def backward(ctx, grad_output):
            a, v = ctx.saved_tensors
            rows = 0 * v
            for r in rng.permutation(a.shape[0]):  # the order of a parallel sum
                rows = rows + a[r]
            return grad_output * (0 * a + v), grad_output * rows

    return SumDot


rng = np.random.default_rng(5)
S_t = torch.tensor(rng.standard_normal((8, 3)), requires_grad=True)
v_t = torch.tensor(rng.standard_normal(3), requires_grad=True)
S_m = minigrad.tensor(S_t.detach().numpy(), requires_grad=True)
v_m = minigrad.tensor(v_t.detach().numpy(), requires_grad=True)

# %% [markdown]
# Both libraries refuse it with the same phrase (torch's message goes on with advice
# for PyTorch's own developers):

# %% tags=raises-exception
minigrad.autograd.gradcheck(make_sumdot(minigrad.autograd.Function).apply, (S_m, v_m))

# %%
from torch.autograd.gradcheck import GradcheckError  # noqa: E402

try:  # torch's message goes on with advice for its own test suite: its first line here
    torch.autograd.gradcheck(make_sumdot(torch.autograd.Function).apply, (S_t, v_t))
except GradcheckError as error:
    print(f"{type(error).__name__}: {str(error).splitlines()[0]}")

# %% [markdown]
# Its numbers are right: with a tolerance for the last bits, both pass.

# %%
check_all({"gradcheck SumDot, nondet_tol=1e-12": (
    minigrad.autograd.gradcheck(make_sumdot(minigrad.autograd.Function).apply, (S_m, v_m),
                                nondet_tol=1e-12),
    torch.autograd.gradcheck(make_sumdot(torch.autograd.Function).apply, (S_t, v_t),
                             nondet_tol=1e-12))}, brief=True)

# %% [markdown]
# ## 5. Catching a wrong backward
#
# Where gradient checking earns its keep is a new op with a hand-written backward.
# Here is a custom `Function` for the product $a \cdot b$ (elementwise), with a classic
# bug: the two gradients are swapped. The derivative with respect to $a$ is $b$, not
# $a$. In both libraries `forward` and `backward` get tensors; code that only uses
# operators runs in both, so one definition serves both libraries.

# %%
def make_mul(base, swapped):
    """A Function class computing a * b, on minigrad's or torch's Function."""

    class Mul(base):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            if swapped:
                return grad_output * a, grad_output * b  # the bug
            return grad_output * b, grad_output * a

    return Mul


BadMul = make_mul(minigrad.autograd.Function, swapped=True)
BadMulTorch = make_mul(torch.autograd.Function, swapped=True)

# %% [markdown]
# Its forward is right, so nothing looks wrong when we use it:

# %%
torch.manual_seed(1)
p_t = torch.randn(3, dtype=torch.float64, requires_grad=True)
q_t = torch.randn(3, dtype=torch.float64, requires_grad=True)
p_m = minigrad.tensor(p_t.detach().numpy(), requires_grad=True)
q_m = minigrad.tensor(q_t.detach().numpy(), requires_grad=True)
check("BadMul forward", BadMul.apply(p_m, q_m), p_t * q_t, brief=True)

# %% [markdown]
# `gradcheck` compares its backward with finite differences and refuses, naming the
# input whose Jacobian is wrong: input 0, `a`. torch's `gradcheck` on torch's version
# of the same class raises the same `GradcheckError`.

# %% tags=raises-exception
minigrad.autograd.gradcheck(BadMul.apply, (p_m, q_m))

# %% tags=raises-exception
torch.autograd.gradcheck(BadMulTorch.apply, (p_t, q_t))

# %% [markdown]
# The numerical Jacobian has $b$ on its diagonal, the analytical one $a$: the
# message shows both, and that is the diagnosis. Both gradients are wrong (they are
# swapped), yet the message names only input 0: `gradcheck` stops at the first pair of
# output and input that disagree. Fix that one and run it again to see the next.
#
# The numbers in the message count only the inputs that require grad (and the outputs
# that do). Below, the first argument `c` is a constant; `b`, the second argument, is
# "input 0" in both libraries, and its gradient is the wrong one ($b$ where $c$ is due):

# %%
c_t = torch.tensor([0.5, 2.0, -1.0], dtype=torch.float64)  # no grad
c_m = minigrad.tensor(c_t.numpy())

# %% tags=raises-exception
minigrad.autograd.gradcheck(BadMul.apply, (c_m, q_m))

# %% tags=raises-exception
torch.autograd.gradcheck(BadMulTorch.apply, (c_t, q_t))

# %% [markdown]
# The fixed class passes, in both libraries, and its gradients equal those of torch's
# built-in `*`:

# %%
GoodMul = make_mul(minigrad.autograd.Function, swapped=False)
GoodMulTorch = make_mul(torch.autograd.Function, swapped=False)
check_all({"gradcheck GoodMul": (minigrad.autograd.gradcheck(GoodMul.apply, (p_m, q_m)),
                                 torch.autograd.gradcheck(GoodMulTorch.apply, (p_t, q_t)))},
          brief=True)

# %%
p_m.grad = q_m.grad = p_t.grad = q_t.grad = None  # start from no gradient
GoodMul.apply(p_m, q_m).sum().backward()
(p_t * q_t).sum().backward()
check_all({"a.grad": (p_m.grad, p_t.grad), "b.grad": (q_m.grad, q_t.grad)}, brief=True)

# %% [markdown]
# **`fast_mode`.** The full Jacobian costs two evaluations of the function per input
# element and one backward per output element. torch's `gradcheck(..., fast_mode=True)`
# (read from `_fast_gradcheck` in torch/autograd/gradcheck.py) builds no Jacobian. It
# draws a random unit vector $u$ for each input and $v$ for each output (entries
# uniform in $[0, 1)$, from its own generator) and compares one number per pair two
# ways: numerically, one central difference along $u$, $J u \approx (f(x + \epsilon u)
# - f(x - \epsilon u)) / 2\epsilon$ (chapter 14's JVP, by finite differences), then
# $v^\top (J u)$; analytically, one backward with `gradient=v`, giving $v^\top J$
# (chapter 06's VJP), then $(v^\top J)\, u$. The tolerance atol is scaled by $\sum u
# \sum v$ to match. Two evaluations per input instead of two per element: counting
# the calls of `mm(A, B)` from section 4,

# %%
def counted(fn):
    """fn, and a list whose one entry counts its calls."""
    calls = [0]

    def wrapper(*args):
        calls[0] += 1
        return fn(*args)

    return wrapper, calls


n_calls = {}
for fast in (False, True):
    fn, calls = counted(lambda a, b: a @ b)
    assert torch.autograd.gradcheck(fn, (A_t, B_t), fast_mode=fast)
    n_calls[fast] = calls[0]
print(f"mm(A, B), 18 input elements: {n_calls[False]} calls in full, "
      f"{n_calls[True]} with fast_mode=True")
check_all({f"{name}: minigrad full, torch fast": (
    minigrad.autograd.gradcheck(fn, pick(A_m, B_m)),
    torch.autograd.gradcheck(fn, pick(A_t, B_t), fast_mode=True))
    for name, (fn, pick) in functions.items()}, brief=True)

# %% [markdown]
# It catches the swapped backward too. Its message gives the two numbers $v^\top J u$,
# then, to help the diagnosis, reruns the full check and prints both Jacobians:

# %% tags=raises-exception
torch.autograd.gradcheck(BadMulTorch.apply, (p_t, q_t), fast_mode=True)

# %% [markdown]
# Those two numbers by hand, with $u$ and $v$ drawn as torch draws them (a fresh
# `torch.Generator()`, float32 draws made float64: $u$ for `a`, then for `b`, then $v$
# for the output). The
# Jacobian of $a \cdot b$ with respect to $a$ is $\mathrm{diag}(b)$; the bad backward
# gives $\mathrm{diag}(a)$:

# %%
generator = torch.Generator()
u_a, u_b, v = (torch.rand(3, generator=generator).to(torch.float64) for _ in range(3))
u_a, v = u_a / u_a.norm(), v / v.norm()
a0, b0, eps = p_t.detach(), q_t.detach(), 1e-6
Ju = (((a0 + eps * u_a) * b0) - ((a0 - eps * u_a) * b0)) / (2 * eps)
print(f"numerical v.(J u) = {(v @ Ju).item():+.6f}, analytical (v^T J) u: "
      f"right {((v * b0) @ u_a).item():+.6f}, swapped {((v * a0) @ u_a).item():+.6f}")
check("v.(J u) against the right (v^T J) u", v @ Ju, (v * b0) @ u_a, rtol=1e-8, atol=1e-10,
      against="by hand")

# %% [markdown]
# A wrong Jacobian slips through only if its error happens to be nearly orthogonal
# to the projection, $v^\top (J_{\text{wrong}} - J) u \approx 0$, which random $u$ and
# $v$ make unlikely (though not impossible); the price is a less complete check for a
# far cheaper one, on functions with many inputs. minigrad's `gradcheck` takes the same
# `fast_mode=True` (its $u$ and $v$ come from its own random draws, so its two numbers
# differ from torch's) and refuses the swapped backward with the same message:

# %% tags=raises-exception
minigrad.autograd.gradcheck(BadMul.apply, (p_m, q_m), fast_mode=True)

# %% [markdown]
# One warning about what gradcheck can miss: with $a = b$ the swapped gradients are
# equal and the bug is invisible. Check with random inputs, not with ones or with the
# same tensor twice.
#
# ## Exercises
#
# How the exercises work: see [Exercises](../book/exercises.md).
#
# ### Exercise 11.1: a numerical gradient (2 points)
#
# Exercise 2.1 took central differences of a function of a list of floats. Here the
# function takes a tensor: write `numerical_grad(fn, x, eps=1e-6)` for `fn` mapping a
# float64 `minigrad` tensor `x`, of any shape, to a scalar tensor, returning a numpy
# array of `x`'s shape whose element `j` is the central difference of `fn` in the
# direction of element `j`, with the step `eps` you are given. What is new: moving one
# element of a tensor of any shape (in flat order), and leaving `x` as it was (do not
# change it, or put every element back). The check switches autograd off (torch's and
# minigrad's, and the package's `numerical_jacobian`): this is the numerical half of
# `gradcheck`, written by you.
#
# <details><summary>Hint</summary>
#
# One element at a time, in flat order: a tensor of `x`'s shape that is zero except
# for `eps` at that element moves `x` in that one direction. `fn` on both sides of
# `x`, then section 2's central difference; `.item()` turns a scalar tensor into a
# float.
# </details>

# %% solution=ex11-numerical-grad
def numerical_grad(fn, x, eps=1e-6):
    """Central differences of the scalar fn at x, one per element of x."""
    ### BEGIN SOLUTION
    grad = np.zeros(x.numel())
    for j in range(x.numel()):
        bump = np.zeros(x.numel())
        bump[j] = eps
        bump = minigrad.tensor(bump.reshape(tuple(x.shape)))
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / (2 * eps)
    return grad.reshape(tuple(x.shape))
    ### END SOLUTION

# %% test=ex11-numerical-grad-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded
from minigrad.autograd.gradcheck import numerical_jacobian
from minigrad.course.mistakes import matches

with graded("Exercise 11.1", hint="work one element out by hand from section 2's "
            "formula and compare: the step, the divisor, the element moved, and x "
            "afterwards") as g:
    def torch_grad(fn, x0):
        t = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
        return torch.autograd.grad(fn(t), t)[0]

    def numerical_at(fn, x0, **kwargs):
        """Your numerical_grad at a fresh float64 tensor; also checks x is unchanged."""
        x = minigrad.tensor(np.array(x0, dtype=np.float64))
        got = g.call(numerical_grad, fn, x, forbid=["autograd", numerical_jacobian],
                     **kwargs)
        eps = kwargs.get("eps", 1e-6)
        g.require(f"x unchanged (shape {tuple(np.shape(x0))})",
                  type(x) is minigrad.Tensor and np.array_equal(x.detach().numpy(), x0),
                  "put every element of x back as it was (or do not change x at all)",
                  mistakes={"not-put-back": (
                      "every element of your x ends eps below where it started: where "
                      "is each element when you move on to the next?",
                      lambda: matches(x.detach().numpy(), np.asarray(x0) - eps))})
        return got

    def differences(fn, x0, eps=1e-6):
        """What the common mistakes give for fn at x0 (computed as they compute it)."""
        shape, flat = np.shape(x0), np.array(x0, dtype=np.float64).ravel()

        def at(z):
            return fn(minigrad.tensor(z.reshape(shape))).item()

        def each(slope):
            return lambda: np.array([slope(np.eye(flat.size)[j] * eps)
                                     for j in range(flat.size)]).reshape(shape)

        def rows():
            bumps = np.zeros((shape[0], *shape))
            for j in range(shape[0]):
                bumps[j][j] = eps
            return np.array([(at(flat + b.ravel()) - at(flat - b.ravel())) / (2 * eps)
                             for b in bumps])

        return {
            "one-sided": ("your slope leans to one side of x: is x in the middle of the "
                          "two points you evaluate?",
                          each(lambda e: (at(flat + e) - at(flat)) / eps)),
            "half-step": ("your slope is twice torch's: which distance separates the two "
                          "points you evaluate?",
                          each(lambda e: (at(flat + e) - at(flat - e)) / eps)),
            "rows-moved": ("your answer has one number per row of x: which element does "
                           "x[j] pick out when x has two dimensions?",
                           rows if len(shape) > 1 else None)}

    rng = np.random.default_rng(111)
    # The worked example: a 2 x 3 tensor, the default step.
    w0 = rng.standard_normal((2, 3))
    tanh_sq = lambda t: (t.tanh() * t ** 2).sum()  # noqa: E731
    got = numerical_at(tanh_sq, w0)
    g.check("numerical_grad(sum(tanh(w) w**2)), w 2x3", got, torch_grad(tanh_sq, w0),
            rtol=1e-6, atol=1e-8, mistakes=differences(tanh_sq, w0))
    # A quadratic: its central difference is exact for any step; a one-sided one is not.
    quad = lambda t: (1.5 * t * t - t).sum() + t.sum() ** 2  # noqa: E731
    v0 = rng.standard_normal((3, 2))
    got = numerical_at(quad, v0, eps=0.5)
    g.check("numerical_grad(quadratic, eps=0.5), x 3x2", got, torch_grad(quad, v0),
            rtol=1e-9, atol=1e-12, mistakes=differences(quad, v0, 0.5))
    ### BEGIN HIDDEN TESTS
    # The step must be the eps given: for c * x**3 the central difference is
    # c * (3 x^2 + eps^2) exactly.
    cube = lambda t: (t * t * t * 0.5).sum()  # noqa: E731
    for shape, eps in [((4,), 0.1), ((2, 1, 3), 0.25), ((3, 2), 1e-3)]:
        x0 = rng.standard_normal(shape)
        got = numerical_at(cube, x0, eps=eps)
        g.check(f"numerical_grad(sum(x**3 / 2), eps={eps}), shape {shape}", got,
                0.5 * (3 * x0 ** 2 + eps ** 2), rtol=1e-7, atol=1e-9,
                against="(3x^2 + eps^2) / 2", mistakes=differences(cube, x0, eps))
    # Other functions, shapes (1-D, 3-D, a single number) and the default step.
    means = lambda t: (t * t * t - t).mean() + (t.exp() * 0.1).sum()  # noqa: E731
    for shape in [(5,), (2, 3, 2), (1, 4), ()]:
        x0 = rng.standard_normal(shape)
        got = numerical_at(means, x0)
        g.check(f"numerical_grad(mean(x**3 - x) + sum(exp(x)) / 10), shape {shape}", got,
                torch_grad(means, x0), rtol=1e-6, atol=1e-8,
                mistakes=differences(means, x0))
    q0 = rng.standard_normal((4, 3))
    got = numerical_at(quad, q0, eps=2.0)
    ref = torch_grad(quad, q0)
    g.check("numerical_grad(quadratic, eps=2), x 4x3", got, ref, rtol=1e-9, atol=1e-12,
            mistakes=differences(quad, q0, 2.0))
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 11.2: find the wrong backwards (2 points)
#
# A colleague has written a batch of custom `Function`s; some of their backwards are
# wrong. Write `wrong_backwards(functions)`: `functions` maps a name to a pair
# `(cls, shapes)`, a `minigrad.autograd.Function` class and the shapes of its inputs,
# one shape per input, every input differentiable. Return the list of the names whose
# backward is wrong, sorted: those that `minigrad.autograd.gradcheck` refuses at inputs
# of your own making, and those whose backward raises an error. The check switches
# torch's autograd off while your code runs (finite differences are the judge), shows
# you one batch, and grades other batches, with other names and other bugs, when you
# hand in.
#
# <details><summary>Hint</summary>
#
# Section 5 ends with a warning: at some inputs a wrong backward gives the right
# numbers. Which inputs would show every bug, in every input's gradient? And what
# should a refusal (or any other error) do to your loop: stop it, or be counted?
# </details>

# %% solution=ex11-find-bugs
def wrong_backwards(functions):
    """The sorted names of the Functions whose backward gradcheck refuses, or that raise."""
    ### BEGIN SOLUTION
    rng11 = np.random.default_rng(0)
    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng11.standard_normal(shape), requires_grad=True)
                  for shape in shapes]
        try:
            passed = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:  # a backward that raises is wrong too
            passed = False
        if not passed:
            wrong.append(name)
    return sorted(wrong)
    ### END SOLUTION

# %% test=ex11-find-bugs-test points=2
import numpy as np

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 11.2", hint="run your own gradcheck by hand on one Function you "
            "misjudged: at which inputs does its backward give the wrong numbers?") as g:
    def function(name, forward, backward):
        """A Function class: forward(*inputs); backward(grad_output, *inputs)."""
        def fwd(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            return forward(*inputs)

        def bwd(ctx, grad_output):
            return backward(grad_output, *ctx.saved_tensors)

        return type(name, (minigrad.autograd.Function,),
                    {"forward": staticmethod(fwd), "backward": staticmethod(bwd)})

    def refused(functions, make_inputs):
        """The sorted names gradcheck refuses (or whose backward raises) at such inputs."""
        rng = np.random.default_rng(11)
        names = []
        for name, (cls, shapes) in functions.items():
            try:
                ok = minigrad.autograd.gradcheck(cls.apply, make_inputs(rng, shapes),
                                                 raise_exception=False)
            except Exception:  # noqa: BLE001 - a backward that raises is wrong
                ok = False
            if not ok:
                names.append(name)
        return sorted(names)

    def alike(rng, shapes):  # one random tensor per shape, shared by equal shapes
        same = {}
        return [same.setdefault(tuple(s), minigrad.tensor(rng.standard_normal(s),
                                                          requires_grad=True)) for s in shapes]

    def first_only(rng, shapes):  # only the first input requires grad
        return [minigrad.tensor(rng.standard_normal(s), requires_grad=i == 0)
                for i, s in enumerate(shapes)]

    # inputs the common mistakes make, and what gradcheck then says
    MAKERS = {
        "special-inputs": ("your search missed bugs that vanish at inputs of ones: where "
                           "does x**2 have the slope 2?",
                           lambda rng, shapes: [minigrad.ones(s, dtype=minigrad.float64,
                                                              requires_grad=True)
                                                for s in shapes]),
        "positive-inputs": ("your search missed a bug that hides at positive inputs: what "
                            "sign do your inputs have?",
                            lambda rng, shapes: [minigrad.tensor(rng.random(s),
                                                                 requires_grad=True)
                                                 for s in shapes]),
        "later-input-unchecked": ("the bug you missed is in a later input's gradient only: "
                                  "does gradcheck compare that gradient, at inputs that "
                                  "differ from each other?", (alike, first_only)),
        "float32-inputs": ("you called every Function wrong, the correct ones too: in "
                           "which dtype does gradcheck's docstring ask for the inputs?",
                           lambda rng, shapes: [minigrad.tensor(rng.standard_normal(s),
                                                                dtype=minigrad.float32,
                                                                requires_grad=True)
                                                for s in shapes]),
        "ignores-shapes": ("you called correct backwards wrong: do your inputs have the "
                           "shapes each Function is given with?",
                           lambda rng, shapes: [minigrad.tensor(rng.standard_normal(3),
                                                                requires_grad=True)
                                                for s in shapes]),
    }
    CAUGHT = {"check-raised": ("gradcheck refused one Function and your search stopped: "
                               "what does gradcheck do on a refusal unless told not to?",
                               minigrad.autograd.GradcheckError),
              "backward-raised": ("one Function's backward raised and your search stopped: "
                                  "what should such an error count as?", RuntimeError)}

    def check_batch(label, cases, truly_wrong):
        functions = {name: (function(name, f, b), shapes) for name, (f, b, shapes) in cases.items()}
        got = g.call(wrong_backwards, functions, forbid="torch.autograd", mistakes=CAUGHT)
        g.require(f"{label}: a list of names", type(got) is list
                  and all(type(name) is str for name in got),
                  f"return a list of the names (strings), not a {type(got).__name__}")
        missed = set(truly_wrong) - set(got)
        false_alarms = set(got) - set(truly_wrong)
        nudges = []
        if missed:
            nudges.append(f"{len(missed)} wrong backward(s) passed your search: a bug can "
                          "hide at special inputs, or in the gradient of an input you did "
                          "not check")
        if false_alarms:
            nudges.append(f"{len(false_alarms)} correct backward(s) were called wrong: "
                          "is gradcheck run as its docstring asks?")
        mistakes = {how: (nudge, lambda makes=makes: any(
                        got == refused(functions, make)
                        for make in (makes if isinstance(makes, tuple) else (makes,))))
                    for how, (nudge, makes) in MAKERS.items()}
        mistakes["inverted"] = ("you returned the Functions gradcheck accepts: which ones "
                                "does the exercise ask for?",
                                sorted(set(cases) - set(truly_wrong)) == got)
        mistakes["worked-answer"] = ("your list is the worked batch's answer: does it "
                                     "depend on the Functions you are given?",
                                     got == ["CubeAbs", "MatMulNoT", "Mul", "Square"])
        g.require(f"{label}: the wrong backwards", not nudges and got == sorted(truly_wrong),
                  "; ".join(nudges) or "return each name once, sorted", mistakes=mistakes)
        g.check(f"{label}: wrong (1) or not (0), for each Function",
                [int(name in got) for name in cases], [int(name in truly_wrong) for name in cases],
                against="the batch")

    check_batch("the worked batch", {
        "Cube": (lambda x: x ** 3, lambda g, x: g * 3 * x ** 2, [(3, 2)]),
        "Square": (lambda x: x * x, lambda g, x: g * 2, [(4,)]),
        "Mul": (lambda a, b: a * b, lambda g, a, b: (g * b, g * b), [(3,), (3,)]),
        "Ratio": (lambda a, b: a / b, lambda g, a, b: (g / b, -g * a / b ** 2),
                  [(2, 3), (2, 3)]),
        "MatMul": (lambda a, b: a @ b, lambda g, a, b: (g @ b.T, a.T @ g), [(2, 3), (3, 4)]),
        "CubeAbs": (lambda x: x * x * x, lambda g, x: g * 3 * x * (x * x) ** 0.5,
                    [(4, 5)]),
        "MatMulNoT": (lambda a, b: a @ b, lambda g, a, b: (g @ b, a.T @ g), [(2, 3), (3, 4)]),
    }, ["CubeAbs", "MatMulNoT", "Mul", "Square"])
    ### BEGIN HIDDEN TESTS
    check_batch("batch A", {
        "Rational": (lambda x: x / (1 + x * x), lambda g, x: g * (1 - x * x) / (1 + x * x),
                     [(3,)]),
        "MatMulT": (lambda a, b: a @ b, lambda g, a, b: (g @ b, a.T @ g), [(3, 3), (3, 3)]),
        "Quartic": (lambda x: x ** 4, lambda g, x: g * 4 * x ** 3, [(2, 2)]),
        "Dot": (lambda a, b: (a * b).sum(), lambda g, a, b: (g * b, g * a), [(4,), (4,)]),
        "Scaled": (lambda a, b: a * b * b, lambda g, a, b: (g * b * b, g * 2 * a * b),
                   [(3,), (3,)]),
    }, ["MatMulT", "Rational"])
    check_batch("batch B, all right", {
        "Rational": (lambda x: x / (1 + x * x),
                     lambda g, x: g * (1 - x * x) / (1 + x * x) ** 2, [(2, 3)]),
        "Product": (lambda a, b: a * b, lambda g, a, b: (g * b, g * a), [(2, 2), (2, 2)]),
        "Sub": (lambda a, b: a - b, lambda g, a, b: (g, -g), [(3,), (3,)]),
    }, [])
    check_batch("batch C", {
        "Diff": (lambda a, b: a - b, lambda g, a, b: (g, g), [(4,), (4,)]),
        "Quot": (lambda a, b: a / b, lambda g, a, b: (g / b, g * a / b ** 2), [(3,), (3,)]),
        "Cube": (lambda x: x ** 3, lambda g, x: g * 3 * x * x, [(2, 3)]),
    }, ["Diff", "Quot"])
    ### END HIDDEN TESTS

# %% [markdown]
# ### Exercise 11.3: fix a wrong backward (2 points)
#
# `BrokenNormalize` scales a tensor to unit length, $u = x / \lVert x \rVert$, with the
# norm $\lVert x \rVert = \sqrt{\sum_i x_i^2}$ over all its entries. Its forward is
# right; `gradcheck` refuses its backward:

# %%
class BrokenNormalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output / (x * x).sum() ** 0.5


x_broken = minigrad.tensor(np.random.default_rng(11).standard_normal(4), requires_grad=True)
print("gradcheck:", minigrad.autograd.gradcheck(BrokenNormalize.apply, (x_broken,),
                                                raise_exception=False))

# %% [markdown]
# Write the backward of `Normalize`, the same op, so that `gradcheck` accepts it, for
# `x` of any shape: from the `x` that forward saved and the upstream gradient
# `grad_output` (of `x`'s shape), return the gradient with respect to `x`, by hand,
# with operators only (the same body then runs on numpy arrays and on tensors), and
# without changing `grad_output` in place. The check calls your `backward` itself with
# autograd switched off, on shapes and upstream gradients of its own, then runs
# `gradcheck`.
#
# <details><summary>Hint</summary>
#
# What did the broken backward treat as a constant? (Exercise 9.2 made that choice on
# purpose.) Write $n = \lVert x \rVert$; then $\partial n / \partial x_j = x_j / n$,
# and each $u_i = x_i / n$ depends on $x_j$ directly (when $i = j$) and through $n$
# (always). Add both paths, weighted by the upstream gradient, and check your result
# with `gradcheck`.
# </details>

# %% solution=ex11-fix-backward
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        ### BEGIN SOLUTION
        norm11 = (x * x).sum() ** 0.5
        unit = x / norm11
        return (grad_output - unit * (grad_output * unit).sum()) / norm11
        ### END SOLUTION

# %% test=ex11-fix-backward-test points=2
import numpy as np
import torch

import minigrad
from minigrad.course.grading import graded

with graded("Exercise 11.3", hint="compare your gradient with gradcheck's numerical "
            "Jacobian on a small x: which paths from x to u does your backward leave "
            "out?") as g:
    def your_backward(x0, grad_output):
        """Normalize's forward, then its backward, on numpy arrays, with a ctx of our own."""
        ctx = Normalize()
        ctx.next_functions = (object(),)  # the input needs a grad
        Normalize.forward(ctx, x0)
        return Normalize.backward(ctx, grad_output)

    def through_minigrad(x0, grad_output):
        x = minigrad.tensor(x0.copy(), requires_grad=True)
        Normalize.apply(x).backward(minigrad.tensor(grad_output.copy()))
        return x.grad.numpy().copy()

    def check_normalize(x0, up, label):
        up_given = up.copy()
        got = g.call(your_backward, x0.copy(), up_given, forbid="autograd")
        norm = np.sqrt((x0 * x0).sum())
        unit = x0 / norm
        g.require(f"{label}: grad_output unchanged", np.array_equal(up_given, up),
                  "return a new array; do not change grad_output in place", mistakes={
                      "changed-in-place": ("your backward wrote its projection into "
                                           "grad_output: who else holds that array?",
                                           lambda: np.allclose(
                                               up_given, up - unit * (up * unit).sum(),
                                               rtol=1e-12, atol=1e-15))})
        x_t = torch.tensor(x0, requires_grad=True)
        (ref,) = torch.autograd.grad(x_t / x_t.norm(), x_t, torch.tensor(up))
        ones = np.ones_like(up)
        g.check(f"{label}: Normalize.backward", got, ref, rtol=1e-10, atol=1e-13, mistakes={
            "norm-constant": ("your gradient is grad_output / ||x||, the broken one's: "
                              "through which path does x also change ||x||?", up / norm),
            "sign-flipped": ("your correction has the wrong sign: does moving x along u "
                             "change u?", (up + unit * (up * unit).sum()) / norm),
            "no-sum": ("your correction for entry i uses grad_output[i] alone: does u_j "
                       "depend on x_i for j != i?", (up - unit * (up * unit)) / norm),
            "x-for-u": ("your correction is off by powers of ||x||: is the vector you "
                        "project on of length 1?", (up - x0 * (up * x0).sum()) / norm),
            "norm-left-out": ("your gradient is ||x|| times torch's: how does u scale "
                              "with ||x||?", up - unit * (up * unit).sum()),
            "ignores-grad-output": ("your gradient is the one for an upstream gradient "
                                    "of ones: what does backward do with grad_output?",
                                    (ones - unit * (ones * unit).sum()) / norm)})
        got = g.call(through_minigrad, x0, up, forbid="torch.autograd")
        g.check(f"{label}: x.grad through minigrad", got, ref, rtol=1e-10, atol=1e-13)

    rng = np.random.default_rng(113)
    check_normalize(rng.standard_normal(4), rng.standard_normal(4), "x of shape (4,)")
    x4 = minigrad.tensor(rng.standard_normal(4), requires_grad=True)
    passed = g.call(minigrad.autograd.gradcheck, Normalize.apply, (x4,), forbid="torch.autograd")
    g.require("gradcheck(Normalize.apply, x of shape (4,))", passed is True, "gradcheck refused")
    ### BEGIN HIDDEN TESTS
    for shape, scale in [((2, 3), 1.0), ((5,), 10.0), ((3, 1, 2), 0.1), ((1,), 2.0)]:
        check_normalize(rng.standard_normal(shape) * scale, rng.standard_normal(shape),
                        f"x of shape {shape}, scale {scale}")
    x23 = minigrad.tensor(rng.standard_normal((2, 3)) * 3, requires_grad=True)
    passed = g.call(minigrad.autograd.gradcheck, Normalize.apply, (x23,),
                    forbid="torch.autograd")
    g.require("gradcheck(Normalize.apply, x of shape (2, 3))", passed is True,
              "gradcheck refused")
    ### END HIDDEN TESTS

# %% [markdown]
# ## 6. How far apart is too far: the relative error, on a few coordinates
#
# `gradcheck` answers yes or no. When you check a gradient by hand, on a layer of a real
# network, two habits from Stanford's CS231n notes on gradient checks make the
# comparison meaningful and cheap.
#
# **Compare relative errors.** An absolute difference of $10^{-6}$ means nothing
# without the size of the gradient: it is tiny next to $10^{3}$ and huge next to
# $10^{-6}$. The notes compare $|a - n| / \max(|a|, |n|)$ (analytical $a$, numerical
# $n$) and read it, in float64, roughly as: above $10^{-2}$ the gradient is probably
# wrong; below $10^{-7}$ it is right; in between it is suspect, unless kinks (ReLU,
# `max`) are near. (`gradcheck`'s test $|a - n| \le \text{atol} + \text{rtol}\,|n|$ is
# the same idea, with an absolute floor for entries near $0$.)
#
# **Check a random subset of coordinates.** A full numerical gradient costs two forward
# passes per parameter: 4096 of them for one $64 \times 32$ weight. A handful of random
# entries catches a wrong formula just as surely, since such a bug spoils most entries.
# Below, a layer $L = \sum \tanh(X W)^2$ with $W$ of shape $(64, 32)$: the autograd
# gradient at 6 random entries, against central differences there, and against a
# backward with the classic slip of a missing factor $2$.

# %%
rng_c = np.random.default_rng(6)
X_c, W_c = rng_c.standard_normal((16, 64)), rng_c.standard_normal((64, 32)) * 0.1


def layer_loss(lib, w):
    return ((lib.tensor(X_c) @ w).tanh() ** 2).sum()


w_m = minigrad.tensor(W_c, requires_grad=True)
w_t = torch.tensor(W_c, requires_grad=True)
layer_loss(minigrad, w_m).backward()
layer_loss(torch, w_t).backward()
coords = [tuple(rng_c.integers(0, n) for n in W_c.shape) for _ in range(6)]


def relative_error(a, n):
    """CS231n's |a - n| / max(|a|, |n|)."""
    return abs(a - n) / max(abs(a), abs(n))


rows = []
for i, j in coords:
    plus, minus = W_c.copy(), W_c.copy()
    plus[i, j] += 1e-6
    minus[i, j] -= 1e-6
    with minigrad.no_grad():
        numerical = (layer_loss(minigrad, minigrad.tensor(plus)).item()
                     - layer_loss(minigrad, minigrad.tensor(minus)).item()) / 2e-6
    analytical = w_m.grad[i, j].item()
    rows.append((analytical, numerical, relative_error(analytical, numerical),
                 relative_error(analytical / 2, numerical)))
    print(f"W[{i:2d}, {j:2d}]: autograd {analytical:+.5f}, central difference "
          f"{numerical:+.5f}, relative error below 1e-7: {rows[-1][2] < 1e-7}; "
          f"with the factor 2 missing: {rows[-1][3]:.2f}")
rows = np.array(rows)
check_all({"autograd at the 6 entries": (rows[:, 0], [w_t.grad[c].item() for c in coords]),
           "relative errors below 1e-7": (rows[:, 2] < 1e-7, [True] * 6, "by hand"),
           "factor 2 missing: relative errors 0.5": (np.round(rows[:, 3], 6), [0.5] * 6,
                                                     "formula")},
          rtol=1e-6, brief=True)

# %% [markdown]
# The right gradient's relative errors are all below $10^{-7}$ (between $10^{-9}$ and
# $10^{-8}$: the round-off of section 3, on a loss that sums 512 terms); the slip gives
# $0.5$ at every entry, far above $10^{-2}$. Six entries of 2048 were enough. The same
# notes add: check in float64 (section 3 shows why); at random inputs, away from kinks;
# with what is random in a network (dropout, data augmentation) switched off; and on
# the data loss alone before a regularization term is added, since a large term could
# dominate the gradient and hide an error in the rest.

# %% [markdown]
# ## Predict before you run
#
# Guess each answer, then run the cell.
#
# **1.** The central difference of $x^3$ at $x = 1$ with $\epsilon = 10^{-3}$, in
# float64. The derivative is $3$. Is the estimate off by about $10^{-3}$, $10^{-6}$ or
# $10^{-12}$?

# %%
estimates = {}
for lib in (minigrad, torch):
    x1 = lib.tensor(1.0, dtype=lib.float64)
    estimates[lib.__name__] = ((x1 + 1e-3) ** 3 - (x1 - 1e-3) ** 3) / (2 * 1e-3)
print(f"estimate {estimates['minigrad'].item():.12f}, off by "
      f"{estimates['minigrad'].item() - 3:.3e}")
check_all({"central difference": (estimates["minigrad"], estimates["torch"]),
           "3 + eps**2": (estimates["minigrad"], 3 + 1e-6, "formula")},
          rtol=1e-12, atol=1e-15, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# The central difference's error is $\epsilon^2 f^{\prime\prime\prime}(x) / 6$: for
# $x^3$, exactly $\epsilon^2 = 10^{-6}$ (the $\epsilon^3$ terms cancel; the rounding,
# near $10^{-13}$, is far smaller). A one-sided difference would be off by about
# $3\epsilon = 3 \cdot 10^{-3}$.
# </details>
#
# **2.** The same difference for $x^3$ at $x = 1.5$ (derivative $6.75$) with
# $\epsilon = 10^{-12}$ instead of $10^{-6}$: a million times smaller a step. Is the
# estimate better or worse, and by how much?

# %%
errors = {}
for step in (1e-6, 1e-12):
    pair = []
    for lib in (minigrad, torch):
        x_mid = lib.tensor(1.5, dtype=lib.float64)
        pair.append(((x_mid + step) ** 3 - (x_mid - step) ** 3) / (2 * step))
    errors[step] = pair
    print(f"eps {step:.0e}: estimate {pair[0].item():.12f}, "
          f"error {abs(pair[0].item() - 6.75):.1e}")
check_all({f"central difference, eps {step:.0e}": pair for step, pair in errors.items()},
          rtol=1e-12, brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# Worse, by a factor of about a million: truncation ($\epsilon^2$) vanishes, but the
# round-off of section 3 grows as $u / \epsilon$: $2^{-53} \cdot 6.75 \cdot 1.5 /
# 10^{-12}$ is of order $10^{-3}$. Below the best $\epsilon$ a smaller step only adds
# noise.
# </details>
#
# **3.** `relu` is correct in both libraries. Does `gradcheck` accept it at the input
# $(0.5, -0.3, 0)$?

# %%
kink = {}
for lib in (minigrad, torch):
    x_kink = lib.tensor([0.5, -0.3, 0.0], dtype=lib.float64, requires_grad=True)
    kink[lib.__name__] = lib.autograd.gradcheck(lambda t: t.relu(), (x_kink,),
                                                raise_exception=False)
print("gradcheck(relu) at (0.5, -0.3, 0):", kink["minigrad"])
check("gradcheck(relu) at a kink", kink["minigrad"], kink["torch"], brief=True)

# %% [markdown]
# <details><summary>Why</summary>
#
# No. At $0$ the central difference straddles the kink: $(\mathrm{relu}(\epsilon) -
# \mathrm{relu}(-\epsilon)) / 2\epsilon = 1/2$, while backward uses the convention
# $\mathrm{relu}'(0) = 0$. Neither is wrong; the derivative does not exist there. A
# `gradcheck` failure at an input with exact zeros (or ties in a `max`) says nothing
# about the backward: check at random inputs.
# </details>

# %% [markdown]
# ## Summary
#
# - Gradient checking compares backward's gradient with a finite difference; the
#   reference tutorial's $x^2$ at $3$ gives $6$ and, in float32 with $\epsilon = 10^{-4}$,
#   $5.99384$: the inputs $3 \pm 10^{-4}$ are rounded, the step taken is $1.99795
#   \cdot 10^{-4}$, and the formula divides by $2 \cdot 10^{-4}$. Divided by the step
#   taken, or with $\epsilon = 2^{-13}$, it is $6$ exactly.
# - The one-sided difference has truncation error $O(\epsilon)$, the central one
#   $O(\epsilon^2)$. Round-off, from rounding $x + \epsilon$ and the values of $f$,
#   is about $u\,(|x f'(x)| + |f(x)|) / \epsilon$, so there is a best $\epsilon$; in
#   float64 the central difference is good to about $10^{-10}$; in float32 its error
#   is erratic, and below $\epsilon = 2^{-24}$ at $x = 1.5$ the step is lost.
# - `gradcheck` (minigrad's and `torch.autograd.gradcheck`) computes the analytical
#   Jacobian twice (it must be reentrant: identical, up to `nondet_tol`), then compares
#   it with the numerical one, $\epsilon = 10^{-6}$, atol $10^{-5}$, rtol $10^{-3}$. It
#   expects float64 inputs, warns on others and does not convert them; at these
#   defaults float32 fails a correct backward. Use random values, away from kinks.
# - A custom `Function` with a wrong backward passes every shape check; `gradcheck`
#   raises a `GradcheckError` at the first wrong pair, numbering the inputs among
#   those that require grad.
# - It is slow (two forward passes per input element), so it is for testing, never
#   for training.
# - By hand, compare the relative error $|a - n| / \max(|a|, |n|)$ (CS231n's
#   rules of thumb: above $10^{-2}$ wrong, below $10^{-7}$ right, in float64), on a few
#   random coordinates of a large parameter rather than all of them.
#
# Next: [12 Common problems](12_common_problems.ipynb), the errors autograd raises and
# how to fix them.
