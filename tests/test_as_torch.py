"""PyTorch's own code, run with ``import minigrad as torch``, prints torch's numbers.

The programs are the docstring examples of torch's autograd surface, read from the
installed torch (``scripts/as_torch.py --torch-docs``): each runs twice in this process,
with torch and with minigrad standing for it (same random numbers), and what it prints
is compared. ``SAME`` lists the programs that must give torch's output; every other
program torch runs here is listed in ``NOT_YET`` with what stops it, and is a strict
xfail, so a change that makes one pass must move it to ``SAME``.
"""

import pytest
import torch

from tests.notebook_tools import load_module

AS_TORCH = load_module("scripts/as_torch.py")

SAME = [
    "torch.autograd.functional.hvp", "torch.autograd.functional.vhp", "torch.func.grad",
    "torch.func.jvp", "torch.func.jacrev", "torch.func.jacfwd", "torch.func.hessian",
    "torch.func.vmap", "torch.autograd.graph.saved_tensors_hooks",
    "torch.autograd.function.FunctionCtx.mark_non_differentiable",
    "torch.autograd.function.FunctionCtx.set_materialize_grads",
    "torch.autograd.function.FunctionCtx.save_for_backward",
    "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.grad_mode.set_grad_enabled", "torch.Tensor.register_hook",
    "torch.nn.Linear", "torch.nn.BatchNorm1d", "torch.nn.MSELoss", "torch.nn.BCELoss",
    "torch.nn.BCEWithLogitsLoss", "torch.nn.Dropout", "torch.nn.ReLU", "torch.nn.Tanh",
    "torch.nn.Sigmoid", "torch.nn.functional.binary_cross_entropy", "torch.stack", "torch.cat",
    "torch.eye", "torch.linspace", "torch.full", "torch.allclose", "torch.isclose",
    "torch.where", "torch.clamp", "torch.abs", "torch.sin", "torch.movedim", "torch.dot",
    "torch.norm", "torch.zeros_like", "torch.ones_like", "torch.equal", "torch.mm",
    "torch.matmul", "torch.sum", "torch.mean", "torch.exp", "torch.tanh", "torch.transpose",
    "torch.reshape", "torch.unsqueeze", "torch.squeeze", "torch.max", "torch.arange",
    "torch.zeros", "torch.ones", "torch.randn",
]

NOT_YET = {
    "torch.autograd.functional.jacobian":
        "line 10: minigrad '[1.0925, 1.1411]]])', torch '[1.0925, 1.1",
    "torch.autograd.functional.hessian":
        "line 24: minigrad '[0.0000, 0.7922]]]])', torch '[0.0000, 0.",
    "torch.nn.LayerNorm": "line 220: minigrad 'grad_fn=<AddBackward0>)', torch 'grad_fn",
    "torch.nn.Embedding": "line 9: minigrad '[ 0.0525,  0.5229,  2.3022]]], grad_fn=<In",
    "torch.nn.CrossEntropyLoss": "RuntimeError: minigrad's cross_entropy takes (N, C) logits a",
}

SKIPPED_BY_TORCH = {  # torch itself cannot run these examples here (their own bugs, CUDA)
    "torch.autograd.functional.vjp", "torch.autograd.functional.jvp", "torch.func.vjp",
    "torch.func.functional_call", "torch.autograd.forward_ad.make_dual",
    "torch.autograd.forward_ad.dual_level", "torch.autograd.Function",
    "torch.autograd.graph.save_on_cpu", "torch.autograd.anomaly_mode.detect_anomaly",
    "torch.autograd.grad_mode.inference_mode", "torch.optim.SGD",
    "torch.optim.lr_scheduler.StepLR", "torch.optim.lr_scheduler.CosineAnnealingLR",
    "torch.optim.lr_scheduler.LambdaLR",
}


def _programs():
    return [q for q in AS_TORCH.TORCH_DOCS if AS_TORCH.docstring_program(q) is not None]


@pytest.mark.parametrize("qualname", _programs())
def test_torch_docstring_example(qualname):
    source = AS_TORCH.docstring_program(qualname)
    result, detail = AS_TORCH.verdict(source, qualname)
    if qualname in SKIPPED_BY_TORCH:
        assert result == "skipped", f"torch now runs {qualname}: list it in SAME or NOT_YET"
        return
    if qualname in NOT_YET:
        if result == "same":
            pytest.fail(f"{qualname} now gives torch's output: move it to SAME")
        pytest.xfail(NOT_YET[qualname])
    assert qualname in SAME, f"{qualname} is in no list: {result} {detail}"
    assert result == "same", f"{result}: {detail}"


def test_the_harness_catches_a_difference():
    """A program whose minigrad run prints other numbers is reported, not passed."""
    source = ">>> import torch\n>>> torch.tensor([1.0, 2.0]).exp()\n"
    assert AS_TORCH.verdict(source) == ("same", "")
    shifted = (">>> import torch\n"
               ">>> torch.tensor([1.0, 2.0]).exp() + (0 if torch.__name__ == 'torch' else 1e-3)\n")
    result, detail = AS_TORCH.verdict(shifted)
    assert result == "differs" and "line 1" in detail
    assert AS_TORCH.verdict(">>> import torch\n>>> torch.no_such_name\n")[0] == "skipped"


def test_same_random_numbers_in_both_runs():
    source = ("import torch\ntorch.manual_seed(3)\n"
              "print(torch.randn(2, 3), torch.nn.Linear(3, 2).weight)\n")
    ours, error = AS_TORCH.run(source, True)
    assert error is None
    theirs, _ = AS_TORCH.run(source, False)
    assert AS_TORCH.compare(ours, theirs) is None
    torch.manual_seed(3)
    assert f"{torch.randn(2, 3)[0, 0].item():.4f}" in theirs


def test_a_generator_and_python_random_draw_the_same_in_both_runs():
    """A torch.Generator's draws (randn, randint, multinomial) and Python's unseeded
    ``random`` give the same numbers in both runs; a real difference is still caught."""
    source = ("import random\nimport torch\n"
              "g = torch.Generator().manual_seed(2147483647)\n"
              "print(torch.randn((2, 3), generator=g), torch.rand(2, generator=g))\n"
              "print(torch.randint(0, 100, (5,), generator=g))\n"
              "p = torch.tensor([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])\n"
              "print(torch.multinomial(p, 4, replacement=True, generator=g))\n"
              "print(random.randint(0, 10**9))\n")
    assert AS_TORCH.verdict(source) == ("same", "")
    ours, _ = AS_TORCH.run(source, True)
    g = torch.Generator().manual_seed(2147483647)
    assert f"{torch.randn((2, 3), generator=g)[0, 0].item():.4f}" in ours
    drifting = source + "print(torch.tensor(1.0) + (0 if torch.__name__ == 'torch' else 1e-3))\n"
    result, detail = AS_TORCH.verdict(drifting)
    assert result == "differs" and "largest relative drift 1.0e-03" in detail
