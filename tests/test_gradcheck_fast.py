"""``gradcheck(..., fast_mode=True)`` against torch's (chapter 11): one random projection
:math:`v^\\top J u` per (output, input) pair, numerical against analytical. It must give
torch's verdict on right and wrong backwards of custom Functions (wrong sign, missing
factor, transposed), the same message phrases, and honour eps, atol, rtol, nondet_tol and
raise_exception as torch's does; gradgradcheck passes fast_mode on."""

import sys

import numpy as np
import pytest
import torch

import minigrad

TorchGradcheckError = sys.modules["torch.autograd.gradcheck"].GradcheckError
LIBS = {"minigrad": minigrad, "torch": torch}


def sin_fn(lib, wrong=None, offset=0.0):
    """sin(x); ``wrong``: "sign" (-cos), "factor" (cos / 2); ``offset`` added to the grad."""

    class Sin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            d = g * x.cos()
            if wrong == "sign":
                d = -d
            if wrong == "factor":
                d = d * 0.5
            return d + offset

    return Sin.apply


def square_fn(lib, wrong=None):
    """x * x; ``wrong``: "factor" (x, the 2 missing), "detach" (2x from a detached x: first
    derivatives right, second ones wrong)."""

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            if wrong == "factor":
                return g * x
            if wrong == "detach":
                return g * 2 * x.detach()
            return g * 2 * x

    return Square.apply


def matvec_fn(lib, wrong=None):
    """A @ x for a square A; ``wrong="transpose"``: A's gradient is x g^T, not g x^T."""

    class MatVec(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, x):
            ctx.save_for_backward(a, x)
            return a @ x

        @staticmethod
        def backward(ctx, g):
            a, x = ctx.saved_tensors
            grad_a = g.unsqueeze(1) * x.unsqueeze(0)
            if wrong == "transpose":
                grad_a = x.unsqueeze(1) * g.unsqueeze(0)
            return grad_a, (g.unsqueeze(1) * a).sum(0)

    return MatVec.apply


def _inputs(lib, shapes, requires=None, seed=0):
    rng = np.random.default_rng(seed)
    requires = requires or [True] * len(shapes)
    return tuple(lib.tensor(rng.uniform(-1.5, 1.5, s), requires_grad=r)
                 for s, r in zip(shapes, requires, strict=True))


def check_both(build, shapes, check="gradcheck", requires=None, **kwargs):
    """{name: True/False or the exception} of gradcheck in both libraries."""
    out = {}
    for name, lib in LIBS.items():
        func = build(lib)
        inputs = _inputs(lib, shapes, requires)
        try:
            out[name] = getattr(lib.autograd, check)(func, inputs, **kwargs)
        except Exception as error:  # noqa: BLE001 - compared below
            out[name] = error
    return out


CASES = {  # name: (build, shapes, right in both modes)
    "sin": (lambda lib: sin_fn(lib), [(4,)], True),
    "sin wrong sign": (lambda lib: sin_fn(lib, "sign"), [(4,)], False),
    "sin missing factor": (lambda lib: sin_fn(lib, "factor"), [(4,)], False),
    "square": (lambda lib: square_fn(lib), [(2, 3)], True),
    "square missing factor": (lambda lib: square_fn(lib, "factor"), [(2, 3)], False),
    "matvec": (lambda lib: matvec_fn(lib), [(3, 3), (3,)], True),
    "matvec transposed": (lambda lib: matvec_fn(lib, "transpose"), [(3, 3), (3,)], False),
}


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("case", list(CASES))
def test_verdict_is_torchs_in_both_modes(case, fast_mode):
    build, shapes, right = CASES[case]
    out = check_both(build, shapes, fast_mode=fast_mode, raise_exception=False)
    assert out["torch"] is right  # the case is what it says, by torch's own check
    assert out["minigrad"] is right


@pytest.mark.parametrize("case", [c for c in CASES if not CASES[c][2]])
def test_fast_failure_message_has_torchs_phrases(case):
    build, shapes, _ = CASES[case]
    out = check_both(build, shapes, fast_mode=True)
    for name in LIBS:
        error = out[name]
        assert type(error).__name__ == "GradcheckError", name
        text = str(error)
        assert text.startswith("Jacobian mismatch for output 0 with respect to input 0,\n"
                               "numerical:"), name
        assert "\nanalytical:" in text, name
        assert "are computed \nin fast mode." in text, name
        assert "Below, we recompute numerical and analytical jacobians in slow mode" in text
        assert "The max per-element difference (slow mode) is: " in text, name
    assert "\nFix: " in str(out["minigrad"])


def test_fast_mode_numbers_inputs_among_those_that_require_grad():
    def build(lib):
        mv = matvec_fn(lib, "transpose")
        return lambda c, a, x: mv(a, x) + c

    out = check_both(build, [(3,), (3, 3), (3,)], requires=[False, True, True], fast_mode=True)
    for name in LIBS:
        assert str(out[name]).startswith(
            "Jacobian mismatch for output 0 with respect to input 0,"), name


def test_fast_mode_numbers_outputs_among_those_that_require_grad():
    """(Only outputs that require grad here: torch's fast mode pairs its vectors v, drawn
    for those, with every float output's numerical projection, so an output that does not
    require grad shifts its pairs; minigrad pairs each with its own output.)"""

    def build(lib):
        wrong = sin_fn(lib, "sign")
        return lambda x: (x.cos(), wrong(x))

    out = check_both(build, [(3,)], fast_mode=True)
    for name in LIBS:
        assert str(out[name]).startswith(
            "Jacobian mismatch for output 1 with respect to input 0,"), name


@pytest.mark.parametrize("fast_mode", [True, False])
def test_a_backward_not_multiplied_by_grad_output_is_refused_like_torch(fast_mode):
    out = check_both(lambda lib: sin_fn(lib, offset=1e-9), [(5,)], fast_mode=fast_mode)
    for name in LIBS:
        assert type(out[name]).__name__ == "GradcheckError", name
        assert str(out[name]).startswith("backward not multiplied by grad_output"), name


def sin_off_fn(lib, delta):
    """sin(x) whose derivative is cos(x) + delta (still scaled by grad_output)."""

    class Sin(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * (x.cos() + delta)

    return Sin.apply


@pytest.mark.parametrize("delta, atol, fast_mode, right", [
    (1e-8, 1e-5, True, True), (1e-2, 1e-5, True, False), (1e-2, 1e-1, True, True),
    # 100 elements: atol scaled by sum(u) sum(v) (about 75) admits 10 atol in fast mode
    (1e-4, 1e-5, True, True), (1e-4, 1e-5, False, False)])
def test_atol_is_scaled_as_torchs(delta, atol, fast_mode, right):
    out = check_both(lambda lib: sin_off_fn(lib, delta), [(100,)], fast_mode=fast_mode,
                     atol=atol, rtol=0.0, raise_exception=False)
    assert out["torch"] is right and out["minigrad"] is right


@pytest.mark.parametrize("rtol, right", [(1e-3, False), (0.6, True)])
def test_rtol_as_torchs(rtol, right):
    """Half the derivative is off by 50%: rtol 0.6 admits it (sin's values kept > 0)."""

    def build(lib):
        half = sin_fn(lib, "factor")
        return lambda x: half(x.abs() * 0.5 + 0.2)

    out = check_both(build, [(4,)], fast_mode=True, rtol=rtol, atol=0.0,
                     raise_exception=False)
    assert out["torch"] is right and out["minigrad"] is right


@pytest.mark.parametrize("eps, right", [(1e-6, True), (0.3, False)])
def test_eps_as_torchs(eps, right):
    """x**3 by central differences errs by eps**2 (not within atol at eps=0.3)."""
    out = check_both(lambda lib: lambda x: x * x * x, [(4,)], fast_mode=True, eps=eps,
                     raise_exception=False)
    assert out["torch"] is right and out["minigrad"] is right


def _sumdot(lib):
    """(a @ v).sum() whose backward adds a's rows in a random order: not reentrant."""
    rng = np.random.default_rng(0)

    class SumDot(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, v):
            ctx.save_for_backward(a, v)
            return (a @ v).sum()

        @staticmethod
        def backward(ctx, g):
            a, v = ctx.saved_tensors
            rows = 0 * v
            for r in rng.permutation(a.shape[0]):
                rows = rows + a[r]
            return g * (0 * a + v), g * rows

    return SumDot.apply


def _spread_both(lib):
    rng = np.random.default_rng(5)
    return (lib.tensor(rng.standard_normal((8, 3)) * 1e3, requires_grad=True),
            lib.tensor(rng.standard_normal(3), requires_grad=True))


def test_fast_mode_checks_reentrancy_with_nondet_tol_like_torch():
    for name, lib in LIBS.items():
        inputs = _spread_both(lib)
        with pytest.raises(Exception) as e:  # noqa: PT011 - the type is checked below
            lib.autograd.gradcheck(_sumdot(lib), inputs, fast_mode=True)
        assert type(e.value).__name__ == "GradcheckError", name
        assert str(e.value).startswith(
            "Backward is not reentrant, i.e., running backward with same input and grad_output "
            "multiple times gives different values"), name
        assert "The tolerance for nondeterminism was 0.0." in str(e.value), name
        assert lib.autograd.gradcheck(_sumdot(lib), inputs, fast_mode=True, nondet_tol=1e-9)


def test_raise_exception_false_gives_false_in_fast_mode():
    x = _inputs(minigrad, [(3,)])
    assert minigrad.autograd.gradcheck(sin_fn(minigrad, "sign"), x, fast_mode=True,
                                       raise_exception=False) is False
    with pytest.raises(minigrad.autograd.GradcheckError):
        minigrad.autograd.gradcheck(sin_fn(minigrad, "sign"), x, fast_mode=True)


def test_fast_mode_leaves_inputs_and_their_grads_as_they_were():
    (x,) = _inputs(minigrad, [(4,)])
    before = x.detach().clone()
    x.grad = minigrad.ones(4, dtype=minigrad.float64)
    assert minigrad.autograd.gradcheck(sin_fn(minigrad), (x,), fast_mode=True)
    assert (x.detach() == before).all()
    assert (x.grad == minigrad.ones(4, dtype=minigrad.float64)).all()


def test_fast_mode_keeps_the_float32_warning():
    for lib in (minigrad, torch):
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        with pytest.warns(UserWarning, match="Input #0 requires gradient and is not a double"):
            lib.autograd.gradcheck(lambda t: t * t * t, (x,), fast_mode=True, eps=1e-2,
                                   atol=1e-3, raise_exception=False)


def test_fast_mode_without_an_input_that_requires_grad_is_refused():
    for lib in (minigrad, torch):
        with pytest.raises(ValueError, match="gradcheck expects at least one input tensor "
                                             "to require gradient"):
            lib.autograd.gradcheck(lambda t: t * 2, (lib.tensor([1.0], dtype=lib.float64),),
                                   fast_mode=True)


@pytest.mark.parametrize("fast_mode", [True, False])
@pytest.mark.parametrize("wrong, right", [(None, True), ("detach", False)])
def test_gradgradcheck_fast_mode_as_torchs(wrong, right, fast_mode):
    out = check_both(lambda lib: square_fn(lib, wrong), [(3,)], check="gradgradcheck",
                     fast_mode=fast_mode, raise_exception=False)
    assert out["torch"] is right and out["minigrad"] is right


def test_gradgradcheck_fast_failure_is_torchs_message():
    out = check_both(lambda lib: square_fn(lib, "detach"), [(3,)], check="gradgradcheck",
                     fast_mode=True)
    for name in LIBS:
        assert str(out[name]).startswith(
            "Jacobian mismatch for output 0 with respect to input 0,"), name
        assert "in fast mode" in str(out[name]), name


def test_fast_mode_is_keyword_only_with_default_false():
    import inspect

    for lib in (minigrad, torch):
        for check in ("gradcheck", "gradgradcheck"):
            p = inspect.signature(getattr(lib.autograd, check)).parameters["fast_mode"]
            assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is False



def test_the_slow_mode_recompute_says_when_slow_mode_passes():
    """torch's FAST_FAIL_SLOW_OK_MSG, when the pair's full Jacobians agree."""
    from minigrad.autograd.gradcheck_fast import _slow_mode_report

    (x,) = _inputs(minigrad, [(3,)])
    right, wrong = sin_fn(minigrad), sin_fn(minigrad, "sign")
    text, ok = _slow_mode_report(right, (x,), (right(x),), 0, 0, 1e-6, 1e-5, 1e-3)
    assert ok and "Fast gradcheck failed but element-wise differences are small" in text
    text, ok = _slow_mode_report(wrong, (x,), (wrong(x),), 0, 0, 1e-6, 1e-5, 1e-3)
    assert not ok and "element-wise differences are small" not in text
