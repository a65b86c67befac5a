"""Hostile answers to the exercises of chapters 08, 09, 10, 12 and 13 whose verdict is
decided outside the kernel (issue 19; :mod:`minigrad.course.verdicts_models`).

The kinds of :mod:`tests.wrong_answers.hostile`, for answers whose effect is a model's
parameters, their ``.grad`` or a tensor's ``.grad`` (not only the result):

- ``caller-frame``, ``silenced-grader``, ``lying-result``: the honest answer wrapped; the
  grader muted (or the reference copied in when the check starts), and the answer made
  wrong: the result, the parameters and the ``.grad`` of every module, tensor and dict
  of tensors it was given;
- ``copy-at-import``, ``gc-restored``: 13.5 and 13.6 forbid minigrad's autograd; these
  answers put the engine back during the call and use it (:data:`AUTOGRAD`).

:func:`hostile` gives the answers of one kind for an exercise (``grade_id`` of its
solution cell); ``tests/test_verdicts_models.py`` samples kinds across the exercises.
"""

from tests.wrong_answers.hostile import (
    _COPY,
    _FRAME,
    _GC,
    _IMPORTS,
    _LIE,
    _SILENCE,
    Hostile,
    _defined,
    _route,
)

# Spoils what the answer leaves in the objects it was given (the mode's _SPOIL makes a
# tensor's numbers wrong, or zeros that the lying hook fills in when the check starts).
_WRAP = """
def _grader():
    frame = sys._getframe(1)
    while frame is not None:
        for value in frame.f_locals.values():
            if type(value).__name__ == "Grader":
                return value
        frame = frame.f_back

def _worse(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_worse(v) for v in x)
    if isinstance(x, dict):
        return {k: _worse(v) for k, v in x.items()}
    if isinstance(x, minigrad.Tensor):
        return x * 2 + 1
    if isinstance(x, (float, int, np.ndarray, np.number)) and not isinstance(x, bool):
        return np.asarray(x, dtype=np.float64) * 2 + 1
    return x

def _given(x):
    if isinstance(x, minigrad.nn.Module):
        for p in x.parameters():
            _SPOIL(p)
            if p.grad is not None:
                p.grad = _WORSE(p.grad.detach())
    elif isinstance(x, minigrad.Tensor):
        for key in ("grad", "g"):
            if isinstance(getattr(x, key, None), minigrad.Tensor):
                setattr(x, key, _WORSE(getattr(x, key).detach()))
    elif isinstance(x, (list, tuple)):
        for v in x:
            _given(v)
    elif isinstance(x, dict):
        for k in list(x):
            _given(x[k])

def _wrap(fn):
    def wrapped(*args, **kwargs):
        _MUTE(_grader())
        result = fn(*args, **kwargs)
        for a in list(args) + list(kwargs.values()):
            _given(a)
        return _WORSE(result)
    wrapped.__name__ = fn.__name__
    return wrapped
"""
_MODES = {"caller-frame": _FRAME, "silenced-grader": _SILENCE, "lying-result": _LIE}
# 13.5 and 13.6 through minigrad's reverse mode, which both switch off.
AUTOGRAD = {
    "ex13-backward": """
def forward_and_backward(x, labels, p):
    for t in p.values():
        t.requires_grad_(True)
    v = forward(x, p)
    for name in ("l1", "a1", "logits", "logp"):
        v[name].retain_grad()
    loss = nll(v["logp"], labels)
    loss.backward()
    for t in [v[n] for n in ("l1", "a1", "logits", "logp")] + list(p.values()):
        t.g = t.grad.detach()
    return loss, v
""",
    "ex13-train-epoch": """
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]
        leaves = {k: v.detach().requires_grad_(True) for k, v in p.items()}
        loss = nll(forward(x[rows], leaves)["logp"], labels[rows])
        loss.backward()
        for k in p:
            p[k] = (leaves[k] - lr * leaves[k].grad).detach()
        losses.append(loss.item())
    return losses
""",
}


def hostile(exercise, honest, kind):
    """The hostile answer of ``kind`` to ``exercise`` (a solution cell's grade_id);
    ``honest``: its reference solution's source."""
    if kind in _MODES:
        rebind = "".join(f"{n} = _wrap({n})\n" for n in _defined(honest))
        return Hostile(exercise, kind, _IMPORTS + honest + _WRAP + _MODES[kind] + rebind)
    restore = {"copy-at-import": _COPY, "gc-restored": _GC}[kind]
    return Hostile(exercise, kind, _route(AUTOGRAD[exercise], restore))
