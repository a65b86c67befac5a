"""Run one snippet with ``torch`` bound to torch and then to minigrad, and compare what
it leaves in ``out`` (values, dtypes, shapes; NaN equals NaN) or what it raises
(exception type, torch's key phrase, minigrad's "Fix:"). Shared by the edge-case tests
and the differential fuzzer."""

import numpy as np
import torch

import minigrad

RTOL = 1e-6
ATOL = 1e-7


def run(module, snippet):
    """Execute ``snippet`` with ``torch`` bound to ``module``: ``(out, exception)``."""
    scope = {"torch": module, "np": np}
    try:
        exec(snippet, scope)
    except Exception as exc:  # noqa: BLE001 - whatever it raises is compared
        return None, exc
    return scope.get("out"), None


def _dtype_name(t):
    return str(t.dtype).split(".")[-1]


def compare(ours, theirs, what="out", rtol=RTOL, atol=ATOL):
    """The same structure, and every tensor the same values, dtype and shape."""
    if isinstance(theirs, list | tuple):
        assert isinstance(ours, list | tuple) and len(ours) == len(theirs), (what, ours)
        for i, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            compare(o, t, f"{what}[{i}]", rtol, atol)
        return
    if theirs is None or ours is None:
        assert ours is None and theirs is None, f"{what}: minigrad {ours!r}, torch {theirs!r}"
        return
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, minigrad.Tensor), f"{what}: minigrad gave {type(ours)}"
        assert _dtype_name(ours) == _dtype_name(theirs), (
            f"{what}: dtype {ours.dtype} in minigrad, {theirs.dtype} in torch")
        a, b = ours.detach().numpy(), theirs.detach().numpy()
        assert a.shape == b.shape, f"{what}: shape {a.shape} in minigrad, {b.shape} in torch"
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol,
                                   atol=atol, err_msg=what)
        return
    if isinstance(theirs, bool | str | torch.dtype):
        assert str(ours).split(".")[-1] == str(theirs).split(".")[-1], (what, ours, theirs)
        return
    np.testing.assert_allclose(float(ours), float(theirs), rtol=rtol, atol=atol,
                               err_msg=what)


def check_snippet(snippet, rtol=RTOL, atol=ATOL):
    """Both libraries give the same ``out``, or both raise the same exception type."""
    theirs, t_exc = run(torch, snippet)
    ours, m_exc = run(minigrad, snippet)
    if t_exc is not None:
        assert m_exc is not None, f"torch raised {t_exc!r}; minigrad gave {ours!r}"
        assert type(m_exc) is type(t_exc), (
            f"torch raised {type(t_exc).__name__}: {t_exc}; minigrad "
            f"{type(m_exc).__name__}: {m_exc}")
        return t_exc, m_exc
    assert m_exc is None, f"minigrad raised {type(m_exc).__name__}: {m_exc}; torch {theirs!r}"
    compare(ours, theirs, rtol=rtol, atol=atol)
    return None, None
