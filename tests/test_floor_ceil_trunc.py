"""``floor``, ``ceil``, ``trunc``, ``frac`` and the in-place ``floor_``, ``ceil_``,
``trunc_``, ``round_``, ``frac_`` against torch: values, dtypes, torch's refusals for bools
(and ints for ``frac``), the nodes' names, zero gradients (``frac``'s is one), in double
backward, in forward mode and under ``vmap``."""

import numpy as np
import pytest
import torch

import minigrad
from tests.tensor_parity import assert_close

LIBS = {"minigrad": minigrad, "torch": torch}
VALUES = [-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.7, -3.2, 1e300, float("inf"), float("nan")]
STEPS = ["floor", "ceil", "trunc"]
ALL = [*STEPS, "frac", "round"]


def _x(lib, requires_grad=False):
    return lib.tensor(VALUES, dtype=lib.float64, requires_grad=requires_grad)


def _outcome(f):
    try:
        return f()
    except Exception as error:  # noqa: BLE001 - compared by the caller
        return (type(error).__name__, str(error))


@pytest.mark.parametrize("op", ALL)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_values_dtypes_and_refusals(op, dtype):
    out = {}
    for name, lib in LIBS.items():
        data = np.array(VALUES[:8]) if dtype.startswith("float") else np.array([-3, 0, 2, 7])
        x = lib.tensor(data.astype(dtype))
        out[name] = _outcome(lambda x=x, lib=lib: getattr(lib, op)(x))
    if isinstance(out["torch"], tuple):
        assert isinstance(out["minigrad"], tuple), out["minigrad"]
        assert out["minigrad"][0] == out["torch"][0]
        assert out["torch"][1].split(" not implemented")[0] in out["minigrad"][1]
    else:
        assert_close(out["minigrad"], out["torch"], rtol=0, atol=0)


@pytest.mark.parametrize("op", ALL)
def test_method_equals_function_on_special_values(op):
    for lib in LIBS.values():
        x = _x(lib)
        a, b = getattr(x, op)(), getattr(lib, op)(x)
        assert np.array_equal(np.asarray(a.tolist()), np.asarray(b.tolist()), equal_nan=True)
    assert_close(getattr(_x(minigrad), op)(), getattr(_x(torch), op)(), rtol=0, atol=0)


@pytest.mark.parametrize("op", ALL)
def test_gradient_and_node_name_as_torchs(op):
    grads, names = {}, {}
    for name, lib in LIBS.items():
        x = _x(lib, requires_grad=True)
        y = getattr(x * 1.0, op)()
        names[name] = y.grad_fn.name()
        (y * lib.arange(len(VALUES), dtype=lib.float64)).sum().backward()
        grads[name] = x.grad
    assert names["minigrad"] == names["torch"]
    assert_close(grads["minigrad"], grads["torch"], rtol=0, atol=0)


@pytest.mark.parametrize("op", ALL)
def test_double_backward_and_forward_mode_as_torchs(op):
    found = {}
    for name, lib in LIBS.items():
        x = lib.tensor([0.3, -1.7, 2.2], dtype=lib.float64, requires_grad=True)
        y = (getattr(x * x, op)() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        jac = lib.func.jacfwd(getattr(lib, op))(x.detach())
        found[name] = (g, h, jac)
    for a, b in zip(found["minigrad"], found["torch"], strict=True):
        assert_close(a, b, rtol=1e-12, atol=0)


@pytest.mark.parametrize("op", ALL)
def test_under_vmap_as_torch(op):
    out = {}
    for name, lib in LIBS.items():
        xs = lib.tensor(np.linspace(-2.3, 2.3, 12).reshape(4, 3), dtype=lib.float64)
        out[name] = lib.func.vmap(lambda v, lib=lib: getattr(lib, op)(v) * v)(xs)
    assert_close(out["minigrad"], out["torch"], rtol=0, atol=0)


@pytest.mark.parametrize("op", ALL)
def test_in_place_versions_as_torchs(op):
    found = {}
    for name, lib in LIBS.items():
        # without grad: the numbers change in place, the version counter moves, dtype kept
        t = lib.tensor([-1.5, 0.5, 2.7], dtype=lib.float32)
        alias = t.view(3)
        before = t._version
        same = getattr(t, op + "_")()
        # on a leaf that requires grad: refused; on a non-leaf: recorded as the op
        leaf = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        refused = _outcome(lambda leaf=leaf: getattr(leaf, op + "_")())
        z = leaf * 3.0
        getattr(z, op + "_")()
        z.sum().backward()
        found[name] = (same is t, t, alias, t._version - before, refused[0],
                       z.grad_fn.name(), z, leaf.grad)
    m, t = found["minigrad"], found["torch"]
    assert m[0] and t[0]
    for a, b in zip(m[1:3], t[1:3], strict=True):
        assert_close(a, b, rtol=0, atol=0)
    assert m[3:6] == t[3:6]
    assert_close(m[6], t[6], rtol=0, atol=0)
    assert_close(m[7], t[7], rtol=0, atol=0)


def test_in_place_on_ints_keeps_ints_and_frac_is_refused():
    for op in STEPS + ["round"]:
        a = {n: getattr(lib.tensor([3, -4]), op + "_")() for n, lib in LIBS.items()}
        assert_close(a["minigrad"], a["torch"], rtol=0, atol=0)
    errors = {n: _outcome(lambda lib=lib: lib.tensor([3, -4]).frac_())
              for n, lib in LIBS.items()}
    assert errors["minigrad"][0] == errors["torch"][0] == "NotImplementedError"
    assert "\"frac_cpu\" not implemented for 'Long'" in errors["minigrad"][1]
