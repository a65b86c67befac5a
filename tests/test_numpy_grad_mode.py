"""``t.numpy()`` / ``np.asarray(t)`` / ``np.array(t)`` on a tensor that requires grad,
by grad mode, against torch (chapter 05). Torch refuses only while grad mode is on
(``GradMode::is_enabled() && requires_grad``): under ``no_grad()``, ``set_grad_enabled(False)``
and ``inference_mode()`` it returns the shared array (``np.array`` a copy); a nested
``enable_grad()`` inside ``inference_mode()`` turns the refusal back on.
"""

import contextlib

import numpy as np
import pytest
import torch

import minigrad

MODES = {
    "grad": lambda lib: contextlib.nullcontext(),
    "no_grad": lambda lib: lib.no_grad(),
    "set_grad_enabled(False)": lambda lib: lib.set_grad_enabled(False),
    "inference_mode": lambda lib: lib.inference_mode(),
    "enable_grad in no_grad": lambda lib: _nested(lib.no_grad(), lib.enable_grad()),
    "enable_grad in inference_mode": lambda lib: _nested(lib.inference_mode(), lib.enable_grad()),
}
READS = {"numpy": lambda t: t.numpy(), "asarray": np.asarray, "array": np.array}


@contextlib.contextmanager
def _nested(outer, inner):
    with outer, inner:
        yield


def _outcome(lib, mode, read):
    t = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
    with MODES[mode](lib):
        try:
            a = READS[read](t)
        except Exception as e:  # noqa: BLE001 - the type is compared with torch's
            return type(e), str(e)
    return a.tolist(), bool(np.shares_memory(a, t.detach().numpy()))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("read", list(READS))
@pytest.mark.parametrize("mode", list(MODES))
def test_numpy_of_requires_grad_tensor_by_grad_mode_matches_torch(mode, read):
    ours, theirs = _outcome(minigrad, mode, read), _outcome(torch, mode, read)
    if isinstance(theirs[0], type):
        assert ours[0] is theirs[0], (ours, theirs)
        assert "Can't call numpy() on Tensor that requires grad" in ours[1]
        assert " Fix: " in ours[1]
    else:
        assert ours == theirs
