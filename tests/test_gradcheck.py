"""``minigrad.gradcheck`` against ``torch.autograd.gradcheck`` (chapter 11): the same verdict,
the same exception or warning type and torch's key phrase, the same numbering of outputs and
inputs, the reentrancy check, and a message that names precision first on float32."""

import sys
import warnings

import numpy as np
import pytest
import torch

import minigrad

TorchGradcheckError = sys.modules["torch.autograd.gradcheck"].GradcheckError  # the module's

LIBS = {"minigrad": (minigrad, minigrad.autograd.Function),
        "torch": (torch, torch.autograd.Function)}


def make_mul(base, wrong=()):
    """a * b; ``wrong`` names the inputs ("a", "b") whose gradient is doubled."""

    class Mul(base):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, grad_output):
            a, b = ctx.saved_tensors
            return (grad_output * b * (2 if "a" in wrong else 1),
                    grad_output * a * (2 if "b" in wrong else 1))

    return Mul


def make_sumdot(base):
    """(a @ v).sum(), whose backward adds a's rows in a random order (seeded)."""
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
            for r in rng.permutation(a.shape[0]):
                rows = rows + a[r]
            return grad_output * (0 * a + v), grad_output * rows

    return SumDot


def _tensors(lib, arrays, requires):
    return [lib.tensor(a, requires_grad=r) for a, r in zip(arrays, requires, strict=True)]


def _arrays(*shapes, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 1.5, s).astype(dtype) for s in shapes]


def _spread(*shapes):
    """Normal numbers: sums of them in another order differ in the last bits."""
    rng = np.random.default_rng(5)
    return [rng.standard_normal(s) for s in shapes]


def run_both(build, arrays, requires, **kwargs):
    """gradcheck in both libraries: {name: (result or exception, warnings)}."""
    outcome = {}
    for name, (lib, base) in LIBS.items():
        func = build(lib, base)
        inputs = _tensors(lib, arrays, requires)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = lib.autograd.gradcheck(func, inputs, **kwargs)
            except Exception as error:  # noqa: BLE001 - compared below
                result = error
        outcome[name] = (result, list(caught))
    return outcome


def first_line(error):
    return str(error).splitlines()[0]


@pytest.mark.parametrize("wrong, expected", [
    (("b",), "Jacobian mismatch for output 0 with respect to input 1,"),
    (("a",), "Jacobian mismatch for output 0 with respect to input 0,"),
    (("a", "b"), "Jacobian mismatch for output 0 with respect to input 0,"),  # the first only
])
def test_inputs_are_numbered_among_those_that_require_grad(wrong, expected):
    def build(lib, base):
        mul = make_mul(base, wrong)
        return lambda c, a, b: mul.apply(a, b) + c  # c, input #0, needs no grad

    out = run_both(build, _arrays(3, 3, 3), [False, True, True])
    for name, (error, _) in out.items():
        assert type(error).__name__ == "GradcheckError", name
        assert first_line(error) == expected, name


def test_outputs_are_numbered_among_those_that_require_grad():
    def build(lib, base):
        mul = make_mul(base, ("a",))
        return lambda c, a, b: (c * 2, a * b, mul.apply(a, b))

    out = run_both(build, _arrays(2, 2, 2), [False, True, True])
    for name, (error, _) in out.items():
        assert first_line(error) == "Jacobian mismatch for output 1 with respect to input 0,", name


def test_a_backward_that_is_not_reentrant_is_refused_like_torch():
    out = run_both(lambda lib, base: make_sumdot(base).apply, _spread((8, 3), 3), [True, True])
    for name, (error, _) in out.items():
        assert type(error).__name__ == "GradcheckError", name
        assert str(error).startswith(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values"), name
        assert "The tolerance for nondeterminism was 0.0." in str(error), name


def test_nondet_tol_admits_a_nondeterministic_backward_like_torch():
    out = run_both(lambda lib, base: make_sumdot(base).apply, _spread((8, 3), 3), [True, True],
                   nondet_tol=1e-12)
    assert out["minigrad"][0] is True and out["torch"][0] is True


def test_not_reentrant_gives_false_without_raising():
    a, v = _tensors(minigrad, _spread((8, 3), 3), [True, True])
    assert minigrad.gradcheck(make_sumdot(minigrad.autograd.Function).apply, (a, v),
                              raise_exception=False) is False


def test_float32_warns_like_torch_and_is_not_converted():
    cube = lambda x: x * x * x  # noqa: E731
    arrays = _arrays(3, 3, dtype=np.float32)
    out = run_both(lambda lib, base: lambda c, x: cube(x) + c, arrays, [False, True])
    for name, (_, caught) in out.items():
        texts = [(type(w.message), str(w.message)) for w in caught]
        assert texts and texts[0][0] is UserWarning, name
        assert texts[0][1].startswith(  # numbered among all inputs: #1
            "Input #1 requires gradient and is not a double precision floating point or "
            "complex. This check will likely fail if all the inputs are not of double "
            "precision floating point or complex."), name
    for lib in (minigrad, torch):
        x = lib.tensor(arrays[1], requires_grad=True)
        with warnings.catch_warnings(action="ignore"):
            lib.autograd.gradcheck(cube, (x,), raise_exception=False)
        assert str(x.dtype).endswith("float32")  # checked as it is, not converted


def test_float32_failure_names_precision_first():
    x = minigrad.tensor([0.5, -1.2], requires_grad=True)
    xt = torch.tensor([0.5, -1.2], requires_grad=True)
    cube = lambda t: t * t * t  # noqa: E731
    with warnings.catch_warnings(action="ignore"):
        with pytest.raises(minigrad.autograd.GradcheckError) as ours:
            minigrad.autograd.gradcheck(cube, (x,))
        with pytest.raises(TorchGradcheckError) as theirs:
            torch.autograd.gradcheck(cube, (xt,))
    assert first_line(ours.value) == first_line(theirs.value)
    fix = str(ours.value).split("Fix: ")[1]
    assert fix.startswith("input 0 is float32, not float64") and "backward of" not in fix


def test_float32_passes_with_eps_and_tolerances_for_float32():
    cube = lambda t: t * t * t  # noqa: E731
    for lib in (minigrad, torch):
        x = lib.tensor([0.5, -1.2, 2.0], requires_grad=True)
        with warnings.catch_warnings(action="ignore"):
            assert lib.autograd.gradcheck(cube, (x,), eps=1e-2, atol=1e-3, rtol=1e-3)


def test_float64_failure_blames_the_backward():
    a, b = _tensors(minigrad, _arrays(3, 3), [True, True])
    with pytest.raises(minigrad.autograd.GradcheckError, match="backward of one of the ops"):
        minigrad.gradcheck(make_mul(minigrad.autograd.Function, ("a",)).apply, (a, b))


def test_correct_backwards_pass_in_both():
    def build(lib, base):
        mul = make_mul(base)
        return lambda c, a, b: (mul.apply(a, b).tanh() * c, (a * b).sum())

    out = run_both(build, _arrays(4, 4, 4), [False, True, True])
    assert out["minigrad"][0] is True and out["torch"][0] is True


def _once_differentiable_sin(lib):
    class Sin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

    return Sin


def test_gradgradcheck_of_once_differentiable_is_a_mismatch_like_torch():
    """Torch's ``@once_differentiable`` joins the first derivative to a DelayedError node
    that leads to no input: gradcheck's ``autograd.grad`` never runs it, so the second
    derivatives come out zero and gradgradcheck reports a Jacobian mismatch (not the
    DelayedError's "differentiate twice"); ``raise_exception=False`` gives False."""
    outcomes = []
    for lib in (torch, minigrad):
        sin = _once_differentiable_sin(lib)
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        assert lib.autograd.gradcheck(sin.apply, (x,))
        error = TorchGradcheckError if lib is torch else minigrad.autograd.GradcheckError
        with pytest.raises(error) as e:
            lib.autograd.gradgradcheck(sin.apply, (x,))
        outcomes.append(first_line(e.value))
        assert lib.autograd.gradgradcheck(sin.apply, (x,), raise_exception=False) is False
    assert outcomes[0] == outcomes[1] == (
        "Jacobian mismatch for output 0 with respect to input 0,")


def test_once_differentiable_still_refuses_a_second_backward_without_inputs():
    """``backward()`` without ``inputs=`` runs every node, the DelayedError too (torch)."""
    for lib in (torch, minigrad):
        sin = _once_differentiable_sin(lib)
        x = lib.tensor([0.5, 1.0], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(sin.apply(x), x, v, create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError, match="trying to differentiate twice a function"):
            g.sum().backward()
