"""Every layer's ``forward`` takes torch's parameter names (``input``, ``target``), so
``model(input=x)`` and ``functional_call(model, params, (), {"input": x})`` work as in
torch (chapter 10's modules; ``torch.func.functional_call``)."""

import inspect

import numpy as np
import pytest
import torch

import minigrad
from tests.edge_parity import compare

LAYERS = sorted(name for name in dir(minigrad.nn)
                if isinstance(getattr(minigrad.nn, name), type)
                and issubclass(getattr(minigrad.nn, name), minigrad.nn.Module)
                and name not in ("Module", "Parameter") and hasattr(torch.nn, name))


def test_the_layers_are_found():
    assert {"Linear", "ReLU", "Tanh", "Sigmoid", "Dropout", "Sequential", "LayerNorm",
            "BatchNorm1d", "Embedding", "MSELoss", "CrossEntropyLoss"} <= set(LAYERS)


@pytest.mark.parametrize("name", LAYERS)
def test_forward_parameter_names_are_torchs(name):
    ours = inspect.signature(getattr(minigrad.nn, name).forward).parameters
    theirs = inspect.signature(getattr(torch.nn, name).forward).parameters
    assert list(ours)[:len(theirs)] == list(theirs)


def _build(lib, name):
    lib.manual_seed(0)
    nn = lib.nn
    return {"Linear": lambda: nn.Linear(3, 2, dtype=lib.float64),
            "ReLU": lambda: nn.ReLU(), "Tanh": lambda: nn.Tanh(),
            "Sigmoid": lambda: nn.Sigmoid(),
            "Dropout": lambda: nn.Dropout(0.5).eval(),
            "Sequential": lambda: nn.Sequential(nn.Linear(3, 4, dtype=lib.float64),
                                                nn.Tanh(), nn.Linear(4, 2, dtype=lib.float64)),
            "LayerNorm": lambda: nn.LayerNorm(3, dtype=lib.float64),
            "BatchNorm1d": lambda: nn.BatchNorm1d(3, dtype=lib.float64),
            }[name]()


def _params(lib, model, rng):
    return {k: lib.tensor(rng.standard_normal(tuple(v.shape)), dtype=lib.float64,
                          requires_grad=True) for k, v in model.named_parameters()}


@pytest.mark.parametrize("name", ["Linear", "ReLU", "Tanh", "Sigmoid", "Dropout",
                                  "Sequential", "LayerNorm", "BatchNorm1d"])
def test_functional_call_with_input_as_a_keyword(name):
    results = {}
    for lib in (minigrad, torch):
        rng = np.random.default_rng(1)
        model = _build(lib, name)
        params = _params(lib, model, rng)
        x = lib.tensor(rng.standard_normal((5, 3)), dtype=lib.float64)
        out = lib.func.functional_call(model, params, (), {"input": x})
        assert (model(input=x) - model(x)).abs().max().item() == 0
        grads = lib.autograd.grad(out.sin().sum(), list(params.values())) if params else ()
        results[lib.__name__] = (out, tuple(grads))
    compare(results["minigrad"], results["torch"], name)


def test_loss_modules_take_input_and_target_as_keywords():
    outs = []
    for lib in (minigrad, torch):
        a = lib.tensor([[0.5, -1.0], [2.0, 0.1]], dtype=lib.float64)
        b = lib.tensor([[0.0, 1.0], [1.5, 0.3]], dtype=lib.float64)
        outs.append(lib.nn.MSELoss()(input=a, target=b))
    compare(outs[0], outs[1])


def test_embedding_takes_input_as_a_keyword():
    outs = []
    for lib in (minigrad, torch):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(4, 2, dtype=lib.float64)
        weight = lib.tensor(np.arange(8.0).reshape(4, 2), dtype=lib.float64)
        outs.append(lib.func.functional_call(emb, {"weight": weight}, (),
                                             {"input": lib.tensor([3, 0, 1])}))
    compare(outs[0], outs[1])
