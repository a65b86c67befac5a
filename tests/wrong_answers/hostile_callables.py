"""Hostile answers to the exercises of chapters 11, 12, 14 and 15 decided outside the kernel.

The kinds of :mod:`tests.wrong_answers.hostile`: the wrapped ones (``caller-frame``,
``silenced-grader``, ``lying-result``) on every exercise; the route kinds on those whose
check switches a minigrad route off, each answer reaching the right numbers through it:

- ``copy-at-import``: the code of the routes saved when the cell runs, put back during the
  call (14.2: ``jacfwd``; 14.3: ``func.jvp``; 15: ``func.grad``, ``func.hessian``,
  ``autograd.functional.vhp``);
- ``gc-restored``: the same answer, the routes' code found with ``gc`` (the in-kernel
  check's own list of what it switched off);
- ``forward-mode`` (14.3): ``minigrad.func.jvp`` where forward mode is off, with two
  dummy backward passes for the count.

``tests/test_verdicts_callables.py`` runs a sample: every kind on some exercise.
"""

from tests.wrong_answers.hostile import _GC, _IMPORTS, _LIE, Hostile, _route, _wrapped

FUNC = ["minigrad.func:grad", "minigrad.func:grad_and_value", "minigrad.func:vjp",
        "minigrad.func:jvp", "minigrad.func:jacfwd", "minigrad.func:jacrev",
        "minigrad.func:hessian", "minigrad.autograd.functional:vjp",
        "minigrad.autograd.functional:jvp", "minigrad.autograd.functional:hvp",
        "minigrad.autograd.functional:vhp", "minigrad.autograd.functional:jacobian",
        "minigrad.autograd.functional:hessian"]
FORWARD_AD = ["minigrad.autograd.forward_ad:make_dual", "minigrad.autograd.forward_ad:propagate"]
_TWO_PASSES = """
def _two_passes():  # for the check's count of backward passes
    for _ in range(2):
        t = minigrad.tensor(1.0, requires_grad=True)
        (t * 1.0).backward()
"""
# exercise -> (the routes the answer puts back, the answer through them); 14.2 leaves
# make_dual alone: its own code put back would stop the kernel's count of it
ROUTED = {
    "ex14-jacobian-columns": (FUNC, """
def jacobian_by_columns(f, x0):
    return minigrad.func.jacfwd(f)(minigrad.tensor(x0)).detach().numpy()
"""),
    "ex14-double-vjp": (FUNC + FORWARD_AD, _TWO_PASSES + """
def jvp_by_double_vjp(f, x0, v):
    _, jv = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(v),))
    _two_passes()
    return jv.detach().numpy()
"""),
    "ex15-nth-derivative": (FUNC, """
def nth_derivative(f, x, n):
    for _ in range(n):
        f = minigrad.func.grad(f)
    return f(minigrad.tensor(float(x), dtype=minigrad.float64)).item()
"""),
    "ex15-hvp": (FUNC, """
def hvp(f, x, v):
    return minigrad.autograd.functional.vhp(f, x, v)[1]
"""),
    "ex15-newton-step": (FUNC, """
def newton_step(f, x):
    H = minigrad.func.hessian(f)(x).numpy()
    g = minigrad.func.grad(f)(x).numpy()
    return x.numpy() - np.linalg.solve(H, g)
"""),
    "ex15-power-iteration": (FUNC, """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = minigrad.autograd.functional.vhp(f, x, v)[1]
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
"""),
}


def _copy(specs):
    return f"""
import importlib
_SAVED = []
for _spec in {specs!r}:
    _module, _, _name = _spec.partition(":")
    _f = importlib.import_module(_module)
    for _part in _name.split("."):
        _f = getattr(_f, _part)
    _SAVED.append((_f, _f.__code__))

def _routes_back():
    for f, code in _SAVED:
        f.__code__ = code
"""


def hostile(exercise, honest):
    """The hostile answers to ``exercise`` (a solution cell's grade_id); ``honest``: its
    reference solution's source."""
    from tests.wrong_answers.hostile import _FRAME, _SILENCE

    if exercise == "ex11-find-bugs":  # names: the wrappers leave them as they are
        assert "return sorted(wrong)" in honest
        honest = honest.replace("return sorted(wrong)", "return sorted(wrong)[1:]")
    answers = [Hostile(exercise, "caller-frame", _wrapped(honest, _FRAME, False)),
               Hostile(exercise, "silenced-grader", _wrapped(honest, _SILENCE, False)),
               Hostile(exercise, "lying-result", _wrapped(honest, _LIE, False))]
    if exercise in ROUTED:
        specs, body = ROUTED[exercise]
        answers += [Hostile(exercise, "copy-at-import", _route(body, _copy(specs))),
                    Hostile(exercise, "gc-restored", _route(body, _GC))]
    if exercise == "ex14-double-vjp":
        answers.append(Hostile(exercise, "forward-mode", _IMPORTS + ROUTED[exercise][1]))
    return answers
