"""The one torch-parity helper of the tensor tests, shaped like tinygrad's
``helper_test_op``: shapes, a torch lambda and (only where the APIs differ) a minigrad
lambda. Inputs are float64; forward values and every input's gradient are compared
with tight tolerances after backpropagating a non-uniform random upstream gradient, so
a wrong reduction or a transposed gradient cannot hide behind a gradient of ones.
"""

import numpy as np
import torch

import minigrad

RTOL = 1e-10
ATOL = 1e-12


def make_inputs(shapes, low=-2.0, high=2.0, seed=0, requires_grad=True):
    """The same float64 values as torch tensors and as minigrad tensors."""
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(low, high, size=shape) for shape in shapes]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=requires_grad) for a in arrays]
    ours = [minigrad.tensor(a, dtype=minigrad.float64, requires_grad=requires_grad)
            for a in arrays]
    return theirs, ours


def assert_close(ours, theirs, rtol=RTOL, atol=ATOL, what="value"):
    """Same shape and values within tolerance (never ``==`` on floats)."""
    if ours is None or theirs is None:
        assert ours is None and theirs is None, f"{what}: minigrad {ours!r}, torch {theirs!r}"
        return
    a = ours.detach().numpy() if hasattr(ours, "detach") else np.asarray(ours)
    b = theirs.detach().numpy() if hasattr(theirs, "detach") else np.asarray(theirs)
    assert a.shape == b.shape, f"{what}: shape {a.shape} in minigrad, {b.shape} in torch"
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)


def helper_test_op(shapes, torch_fn, minigrad_fn=None, *, low=-2.0, high=2.0, seed=0,
                   rtol=RTOL, atol=ATOL, check_name=True, backward=True):
    """Run ``torch_fn`` on torch and ``minigrad_fn or torch_fn`` on minigrad; compare.

    Returns the two outputs for further checks.
    """
    theirs, ours = make_inputs(shapes, low, high, seed)
    out_t = torch_fn(*theirs)
    out_m = (minigrad_fn or torch_fn)(*ours)
    assert isinstance(out_m, minigrad.Tensor), f"minigrad returned {type(out_m).__name__}"
    assert out_m.dtype == minigrad.float64, f"dtype {out_m.dtype}"
    assert_close(out_m, out_t, rtol, atol, "forward")
    if check_name and out_t.grad_fn is not None:
        assert out_m.grad_fn is not None, "minigrad recorded no grad_fn"
        assert out_m.grad_fn.name() == out_t.grad_fn.name()
    if not backward:
        return out_m, out_t
    rng = np.random.default_rng(seed + 1)
    upstream = rng.standard_normal(tuple(out_t.shape)) + np.linspace(0.5, 1.5, out_t.numel()
                                                                     ).reshape(out_t.shape)
    out_t.backward(torch.tensor(upstream))
    out_m.backward(minigrad.tensor(upstream, dtype=minigrad.float64))
    for i, (m, t) in enumerate(zip(ours, theirs, strict=True)):
        assert_close(m.grad, t.grad, rtol, atol, f"gradient of input {i}")
    return out_m, out_t
