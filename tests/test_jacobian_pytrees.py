"""``jacfwd`` / ``jacrev`` of a function with several outputs (a tuple, a dict) and several
argnums, and so ``hessian(f, argnums=(0, 1))``, against ``torch.func`` (chapters 14, 15):
the output's structure outside, one Jacobian per argnum inside, as torch's."""

import numpy as np
import pytest
import torch

import minigrad
from tests.test_func_pytrees import _both

LIBS = {"minigrad": minigrad, "torch": torch}


def _xy(lib):
    rng = np.random.default_rng(11)
    return (lib.tensor(rng.uniform(-1, 1, 3), dtype=lib.float64),
            lib.tensor(rng.uniform(-1, 1, 2), dtype=lib.float64))


def two_outputs(x, y):
    return x.sin() * y.sum(), (x * x).sum() * y


def dict_output(x, y):
    return {"a": x.exp() * y[0], "b": (x.sum() * y, y.tanh())}


def scalar(x, y):
    return (x.sin() * y.sum()).sum() * (y * y).sum() + (x * x * x).sum()


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("func", [two_outputs, dict_output])
@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,)])
def test_jacobian_of_several_outputs(transform, func, argnums):
    _both(lambda lib: getattr(lib.func, transform)(func, argnums=argnums)(*_xy(lib)))


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0)])
def test_hessian_with_argnums(argnums):
    _both(lambda lib: lib.func.hessian(scalar, argnums=argnums)(*_xy(lib)))


@pytest.mark.parametrize("outer", ["jacfwd", "jacrev"])
def test_jacobian_of_a_jacobian_with_two_argnums(outer):
    def run(lib):
        inner = lib.func.jacrev(two_outputs, argnums=(0, 1))
        return getattr(lib.func, outer)(inner, argnums=(0, 1))(*_xy(lib))

    _both(run)


def test_jacfwd_of_jacfwd_with_a_tuple_output():
    _both(lambda lib: lib.func.jacfwd(lib.func.jacfwd(two_outputs))(*_xy(lib)))


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_has_aux_with_a_tuple_output(transform):
    def f(x, y):
        return two_outputs(x, y), {"norm": x.sum()}

    _both(lambda lib: getattr(lib.func, transform)(f, argnums=(0, 1), has_aux=True)(
        *_xy(lib)))


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
def test_an_output_that_does_not_depend_on_the_input_is_zeros(transform):
    _both(lambda lib: getattr(lib.func, transform)(lambda x, y: (x * 2, y * 3),
                                                   argnums=(0, 1))(*_xy(lib)))


def _params_loss(p, x, unused):
    return ((p["w"] @ x + p["b"]).tanh() ** 2).sum() * x.sum()


def _weights(lib):
    rng = np.random.default_rng(4)
    return ({"w": lib.tensor(rng.standard_normal((2, 3)), dtype=lib.float64),
             "b": lib.tensor(rng.standard_normal(2), dtype=lib.float64)},
            lib.tensor(rng.standard_normal(3), dtype=lib.float64),
            lib.tensor(rng.standard_normal(2), dtype=lib.float64))


@pytest.mark.parametrize("argnums", [0, (0, 1), (0, 1, 2), (2,)])
def test_grad_and_value_regroups_dicts_and_unused_inputs_as_torch(argnums):
    _both(lambda lib: lib.func.grad_and_value(_params_loss, argnums=argnums)(*_weights(lib)))


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_grad_and_value_inside_vmap_as_torch(argnums):
    def run(lib):
        p, _, unused = _weights(lib)
        xs = lib.tensor(np.random.default_rng(6).standard_normal((4, 3)), dtype=lib.float64)
        per_sample = lib.func.grad_and_value(_params_loss, argnums=argnums)
        return lib.func.vmap(per_sample, in_dims=(None, 0, None))(p, xs, unused)

    _both(run)


@pytest.mark.parametrize("transform", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("func", [two_outputs, dict_output])
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_per_sample_jacobians_of_several_outputs_as_torch(transform, func, argnums):
    """``vmap(jacfwd(f))`` with a tuple or dict output: each output's per-sample
    Jacobians in its place (minigrad's batched pass refused a tuple before)."""
    def run(lib):
        rng = np.random.default_rng(8)
        xs = lib.tensor(rng.uniform(-1, 1, (4, 3)), dtype=lib.float64)
        ys = lib.tensor(rng.uniform(-1, 1, (4, 2)), dtype=lib.float64)
        return lib.func.vmap(getattr(lib.func, transform)(func, argnums=argnums))(xs, ys)

    _both(run)
