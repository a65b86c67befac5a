"""A user's ``autograd.Function``, saved-tensor hooks and anomaly detection, against torch.

Every Function here is written once, as a factory of the library (``lib`` is torch or
minigrad), and run in both on the same float64 inputs: values, gradients, node names,
hook calls and error messages must agree.
"""

import re
import warnings

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close, make_inputs

LIBS = {"torch": torch, "minigrad": minigrad}


def both(fn):
    """``fn(lib)`` in torch and in minigrad."""
    return fn(torch), fn(minigrad)


def _exp_mul(lib):
    class ExpMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.record = (type(x).__name__, lib.is_grad_enabled(), ctx.needs_input_grad)
            y = x.exp() * k  # torch ops inside forward: not recorded
            ctx.save_for_backward(x, y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, grad_output):
            x, y = ctx.saved_tensors
            ctx.seen = (type(grad_output).__name__, lib.is_grad_enabled())
            return grad_output * y, None

    return ExpMul


def test_forward_and_backward_see_tensors_and_run_without_recording():
    (tx,), (mx,) = make_inputs([(3,)])
    tf, mf = both(_exp_mul)
    ty, my = tf.apply(tx, 2.0), mf.apply(mx, 2.0)
    assert_close(my, ty)
    assert my.grad_fn.name() == ty.grad_fn.name() == "ExpMulBackward"
    assert my.grad_fn.record == ty.grad_fn.record == ("Tensor", False, (True, False))
    ty.sum().backward()
    my.sum().backward()
    assert_close(mx.grad, tx.grad, what="grad")


def test_backward_is_recorded_under_create_graph_and_gradgradcheck_passes():
    (tx,), (mx,) = make_inputs([(3,)])
    tf, mf = both(_exp_mul)
    tg, = torch.autograd.grad(tf.apply(tx, 2.0).sum(), tx, create_graph=True)
    mg, = minigrad.autograd.grad(mf.apply(mx, 2.0).sum(), mx, create_graph=True)
    assert_close(mg, tg)
    assert mg.requires_grad and tg.requires_grad
    th, = torch.autograd.grad((tg * tg).sum(), tx)
    mh, = minigrad.autograd.grad((mg * mg).sum(), mx)
    assert_close(mh, th, what="second derivative")
    assert minigrad.autograd.gradcheck(lambda x: mf.apply(x, 2.0), (mx,))
    assert minigrad.autograd.gradgradcheck(lambda x: mf.apply(x, 2.0), (mx,))


def _two_outputs(lib):
    class SinCos(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx, gs, gc):
            (x,) = ctx.saved_tensors
            ctx.grads = (gs is None, gc is None)
            return gs * x.cos() - gc * x.sin()

    return SinCos


@pytest.mark.parametrize("use", ["both", "first", "second", "crossed"])
def test_several_outputs_come_back_as_a_tuple_each_with_the_node(use):
    (tx,), (mx,) = make_inputs([(4,)])
    out = {}
    for name, lib, x in (("torch", torch, tx), ("minigrad", minigrad, mx)):
        s, c = _two_outputs(lib).apply(x)
        assert s.grad_fn is c.grad_fn
        loss = {"both": (s * s).sum() + (3 * c).sum(), "first": s.sum(),
                "second": c.sum(), "crossed": (s * c).sum()}[use]
        loss.backward()
        out[name] = (s, c, x.grad, s.grad_fn.grads)
    assert_close(out["minigrad"][0], out["torch"][0])
    assert_close(out["minigrad"][1], out["torch"][1])
    assert_close(out["minigrad"][2], out["torch"][2], what="grad")
    assert out["minigrad"][3] == out["torch"][3] == (False, False)  # zeros materialized


def test_set_materialize_grads_false_gives_none():
    def make(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, ga, gb):
                ctx.seen = (ga is None, gb is None)
                return ga * 2 if ga is not None else gb * 3

        return Two

    (tx,), (mx,) = make_inputs([(2,)])
    ta, _ = make(torch).apply(tx)
    ma, _ = make(minigrad).apply(mx)
    ta.sum().backward()
    ma.sum().backward()
    assert ma.grad_fn.seen == ta.grad_fn.seen == (False, True)
    assert_close(mx.grad, tx.grad)


def test_mark_non_differentiable_output():
    def make(lib):
        class SortIdx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = (x > 0).to(x.dtype)
                ctx.mark_non_differentiable(idx)
                return x * 2, idx

            @staticmethod
            def backward(ctx, g, gi):
                ctx.zero = bool((gi == 0).all())
                return g * 2

        return SortIdx

    (tx,), (mx,) = make_inputs([(3,)])
    ty, ti = make(torch).apply(tx)
    my, mi = make(minigrad).apply(mx)
    assert mi.requires_grad is ti.requires_grad is False
    assert mi.grad_fn is None and ti.grad_fn is None
    ty.sum().backward()
    my.sum().backward()
    assert my.grad_fn.zero and ty.grad_fn.zero
    assert_close(mx.grad, tx.grad)


def test_mark_dirty_inplace_forward():
    def make(lib):
        class Double_(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g * 2

        return Double_

    (tx,), (mx,) = make_inputs([(3,)])
    ta, ma = tx * 1, mx * 1
    tb, mb = make(torch).apply(ta), make(minigrad).apply(ma)
    assert tb is ta and mb is ma
    assert ma.grad_fn.name() == ta.grad_fn.name() == "Double_Backward"
    (tb * tb).sum().backward()
    (mb * mb).sum().backward()
    assert_close(mx.grad, tx.grad)


def test_setup_context_form():
    def make(lib):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x ** 3

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * g * x ** 2

        return Cube

    (tx,), (mx,) = make_inputs([(3,)])
    ty, my = make(torch).apply(tx), make(minigrad).apply(mx)
    assert_close(my, ty)
    ty.sum().backward()
    my.sum().backward()
    assert_close(mx.grad, tx.grad)


def test_saved_output_and_version_check():
    def make(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        return Exp

    (tx,), (mx,) = make_inputs([(3,)])
    ty, my = make(torch).apply(tx), make(minigrad).apply(mx)
    ty.sum().backward(retain_graph=True)
    my.sum().backward(retain_graph=True)
    assert_close(mx.grad, tx.grad)
    with torch.no_grad():
        ty.add_(1)
    with minigrad.no_grad():
        my.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as theirs:
        ty.sum().backward()
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as ours:
        my.sum().backward()
    assert "is at version 1; expected version 0" in str(theirs.value)
    assert "is at version 1; expected version 0" in str(ours.value)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the point is to compare what each raises
        return type(e), str(e)
    raise AssertionError("no error")


def _bad(lib, grads):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return grads(g)

    return Bad


@pytest.mark.parametrize("grads", [
    lambda g: g,  # too few
    lambda g: (g, None, g),  # too many, not None
    lambda g: (g, g),  # a gradient for the float argument
    lambda g: (3, None),  # not a tensor
    lambda g: (g[:1], None),  # wrong shape
], ids=["few", "many", "nontensor_input", "int", "shape"])
def test_wrong_gradients_raise_torchs_error(grads):
    (tx,), (mx,) = make_inputs([(2,)])
    theirs = _error(lambda: _bad(torch, grads).apply(tx, 2.0).sum().backward())
    ours = _error(lambda: _bad(minigrad, grads).apply(mx, 2.0).sum().backward())
    assert ours[0] is theirs[0]
    assert ours[1].startswith(theirs[1].split(" Fix:")[0]), (ours, theirs)


def test_calling_the_function_object_raises_the_legacy_error():
    (tx,), (mx,) = make_inputs([(2,)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _error(lambda: _exp_mul(torch)()(tx, 2.0))
    ours = _error(lambda: _exp_mul(minigrad)()(mx, 2.0))
    assert ours[0] is theirs[0] and ours[1].startswith(theirs[1])


def _once(lib, decorator):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @decorator
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.seen = lib.is_grad_enabled()
            return 2 * g * x

    return Square


def test_once_differentiable_runs_without_grad_and_refuses_a_second_derivative():
    from torch.autograd.function import once_differentiable as theirs

    from minigrad.autograd.function import once_differentiable as mine

    (tx,), (mx,) = make_inputs([(3,)])
    out = {}
    for name, lib, x, dec in (("torch", torch, tx, theirs), ("minigrad", minigrad, mx, mine)):
        y = _once(lib, dec).apply(x)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        assert y.grad_fn.seen is False
        out[name] = (g, _error(lambda g=g: g.sum().backward()))
    assert_close(out["minigrad"][0], out["torch"][0])
    assert out["minigrad"][1][0] is out["torch"][1][0] is RuntimeError
    assert out["minigrad"][1][1].startswith(out["torch"][1][1])


def test_jvp_with_save_for_forward_in_forward_mode():
    def make(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_forward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                raise AssertionError("not reached")

            @staticmethod
            def jvp(ctx, tx):
                (y,) = ctx.saved_tensors
                return tx * y

        return Exp

    rng = np.random.default_rng(1)
    x0, v = rng.standard_normal(3), rng.standard_normal(3)
    out = {}
    for name, lib in LIBS.items():
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(lib.tensor(x0), lib.tensor(v))
            primal, tangent = fw.unpack_dual(make(lib).apply(x) * 2)
            out[name] = (primal, tangent)
    assert_close(out["minigrad"][0], out["torch"][0])
    assert_close(out["minigrad"][1], out["torch"][1], what="tangent")


def test_saved_tensors_hooks_count_and_see_the_saved_tensors():
    calls = {}
    for name, lib in LIBS.items():
        log = []

        def pack(t, log=log):
            log.append(("pack", t.tolist(), t.requires_grad, t.grad_fn is not None))
            return t.detach()

        def unpack(t, log=log):
            log.append(("unpack", t.tolist()))
            return t

        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True) * 2
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (a * b).exp()
            z = _exp_mul(lib).apply(a, 3.0)
        (y.sum() + z.sum()).backward()
        calls[name] = (log, a.grad.tolist())
    assert calls["minigrad"] == calls["torch"]  # torch's mul saves b, then a
    assert [e[0] for e in calls["torch"][0]] == ["pack"] * 5 + ["unpack"] * 5


def test_saved_tensors_hooks_nest_and_save_on_cpu_is_a_no_op():
    counts = {}
    for name, lib in LIBS.items():
        seen = []
        graph = lib.autograd.graph
        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        def outer(t, seen=seen):
            seen.append("outer")
            return t

        def inner(t, seen=seen):
            seen.append("inner")
            return t

        with graph.saved_tensors_hooks(outer, lambda t: t):
            with graph.saved_tensors_hooks(inner, lambda t: t):
                y = x.sin()
            z = y.cos()
        with graph.save_on_cpu():
            w = z.tanh()
        w.sum().backward()
        counts[name] = (seen, x.grad.tolist())
    assert counts["minigrad"][0] == counts["torch"][0] == ["inner", "outer"]
    np.testing.assert_allclose(counts["minigrad"][1], counts["torch"][1], rtol=1e-12)


def _nan_backward(lib):
    x = lib.tensor([-1.0, 4.0], dtype=lib.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = (x ** 0.5).sum()
            try:
                y.backward()
            except RuntimeError as e:
                return str(e), [str(w.message) for w in caught]
    raise AssertionError("no error")


def test_detect_anomaly_names_the_node_and_the_forward_line():
    theirs, ours = _nan_backward(torch), _nan_backward(minigrad)
    assert ours[0].startswith(theirs[0]) and theirs[0].startswith(
        "Function 'PowBackward0' returned nan values in its 0th output.")
    assert ours[1][0] == theirs[1][0]  # "Anomaly Detection has been enabled..."
    head = "Error detected in PowBackward0. Traceback of forward call that caused the error:"
    assert theirs[1][-1].startswith(head) and ours[1][-1].startswith(head)
    where = r'test_custom_function.py", line \d+, in _nan_backward\n    y = \(x \*\* 0.5\)'
    assert re.search(where, ours[1][-1])


def test_set_detect_anomaly_and_no_nan_no_error():
    enabled = {torch: torch.is_anomaly_enabled,
               minigrad: minigrad.autograd.anomaly_mode.is_anomaly_enabled}
    for lib in LIBS.values():
        with lib.autograd.set_detect_anomaly(True):
            assert enabled[lib]()
            x = lib.tensor([0.0, 4.0], dtype=lib.float64, requires_grad=True)
            (x ** 0.5).sum().backward()  # inf is not nan: no error
            assert x.grad.tolist()[0] == float("inf")
        assert not enabled[lib]()


def _identity(lib, with_backward=True):
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x, 3

    if with_backward:
        def backward(ctx, g, g_int):
            ctx.seen = g_int
            return g * 2
        Identity.backward = staticmethod(backward)
    return Identity


def test_an_input_returned_as_is_is_a_new_tensor_and_a_number_output_gets_none():
    (tx,), (mx,) = make_inputs([(2,)])
    (ty, tk), (my, mk) = _identity(torch).apply(tx), _identity(minigrad).apply(mx)
    assert ty is not tx and my is not mx and mk == tk == 3
    assert my.grad_fn.name() == ty.grad_fn.name() == "IdentityBackward"
    ty.sum().backward()
    my.sum().backward()
    assert my.grad_fn.seen is None and ty.grad_fn.seen is None
    assert_close(mx.grad, tx.grad)
    theirs = _error(lambda: ty.grad_fn.saved_tensors)  # freed by the backward
    ours = _error(lambda: my.grad_fn.saved_tensors)
    assert ours[0] is theirs[0] is RuntimeError
    assert ours[1].startswith(theirs[1][:60]) and "a second time" in ours[1]


def test_no_backward_and_no_jvp_raise_torchs_errors():
    (tx,), (mx,) = make_inputs([(2,)])
    theirs = _error(lambda: _identity(torch, False).apply(tx)[0].sum().backward())
    ours = _error(lambda: _identity(minigrad, False).apply(mx)[0].sum().backward())
    assert ours[0] is theirs[0] is NotImplementedError and ours[1].startswith(theirs[1])
    out = {}
    for name, lib in LIBS.items():
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            d = fw.make_dual(lib.ones(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64))
            out[name] = _error(lambda d=d, lib=lib: _identity(lib).apply(d))
    assert out["minigrad"][0] is out["torch"][0] is NotImplementedError
    assert out["minigrad"][1].startswith(out["torch"][1])


def test_anomaly_names_a_custom_function_that_returns_nan():
    def make(lib):
        class Log(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.log()

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return g / x * 0 * float("nan")

        return Log

    messages = {}
    for name, lib in LIBS.items():
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.set_detect_anomaly(True):
                y = make(lib).apply(x)
                err = _error(lambda y=y: y.sum().backward())
        messages[name] = (err, str(caught[-1].message).splitlines()[0])
    assert messages["minigrad"][0][1].startswith(messages["torch"][0][1])
    assert messages["torch"][0][1].startswith("Function 'LogBackward' returned nan values")
    assert messages["minigrad"][1] == messages["torch"][1]


def test_hooks_on_each_output_of_a_function_with_several_outputs():
    seen = {}
    for name, lib in LIBS.items():
        log = []
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        s, c = _two_outputs(lib).apply(x * 1)
        c.register_hook(lambda g, log=log: log.append(("c", g.tolist())))
        s.register_hook(lambda g, log=log: log.append(("s", g.tolist())) or g * 2)
        (s.sum() + c.sum() * 10).backward()
        seen[name] = (sorted(log), x.grad.tolist())
    assert seen["minigrad"] == seen["torch"]


def test_a_gradient_passed_through_unchanged_is_not_shared_between_leaves():
    def make(lib):
        class Pass(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * 1, b * 1

            @staticmethod
            def backward(ctx, ga, gb):
                return ga, ga  # the same tensor for both inputs

        return Pass

    grads = {}
    for name, lib in LIBS.items():
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64, requires_grad=True)
        p, q = make(lib).apply(a, b)
        (p * 3).sum().backward()
        a.grad.mul_(10)  # b.grad must not change with it
        grads[name] = (a.grad.tolist(), b.grad.tolist())
    assert grads["minigrad"] == grads["torch"] == ([30.0, 30.0], [3.0, 3.0])


def _old_and_new_sin(lib):
    class OldSin(lib.autograd.Function):  # forward takes ctx: no setup_context
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

    class NewSin(lib.autograd.Function):
        @staticmethod
        def forward(x):
            return x.sin()

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])
            ctx.x = inputs[0]

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x.cos()

        @staticmethod
        def jvp(ctx, t):
            return t * ctx.x.cos()

        @staticmethod
        def vmap(info, in_dims, x):
            return NewSin.apply(x), in_dims[0]

    return OldSin, NewSin


TRANSFORMS = {
    "grad": lambda lib, f, x: lib.func.grad(lambda v: f(v).sum())(x),
    "vmap": lambda lib, f, x: lib.func.vmap(f)(x),
    "jacrev": lambda lib, f, x: lib.func.jacrev(f)(x),
    "jacfwd": lambda lib, f, x: lib.func.jacfwd(f)(x),
    "jvp": lambda lib, f, x: lib.func.jvp(f, (x,), (lib.ones_like(x),))[1],
    "vjp": lambda lib, f, x: lib.func.vjp(f, x)[1](lib.ones_like(x))[0],
}


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_old_style_function_refused_under_functorch_transforms_like_torch(transform):
    """Torch refuses a Function without ``setup_context`` inside any functorch transform;
    one with it runs, and the old style still runs outside the transforms."""
    results = []
    for lib in (torch, minigrad):
        old, new = _old_and_new_sin(lib)
        x = lib.tensor([0.5, 1.0, -2.0], dtype=lib.float64)
        with pytest.raises(RuntimeError, match="it must override the setup_context") as e:
            TRANSFORMS[transform](lib, old.apply, x)
        assert "In order to use an autograd.Function with functorch transforms" in str(e.value)
        if lib is minigrad:
            assert " Fix: " in str(e.value)
        results.append(TRANSFORMS[transform](lib, new.apply, x))
        y = x.clone().requires_grad_()
        old.apply(y).sum().backward()  # outside a transform: fine
        results.append(y.grad)
    for ours, theirs in zip(results[2:], results[:2], strict=True):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
