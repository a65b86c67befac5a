"""Hostile answers to the exercises whose verdict is decided outside the kernel (issue 19).

Each answer reaches the right numbers through a way the in-kernel check cannot switch
off from inside the learner's process, or makes the check pass while the answer is wrong:

- ``copy-at-import``: the code objects of the engine saved when the cell runs, put back
  during the call, then minigrad's autograd;
- ``gc-restored``: the engine's original code found with ``gc`` (the grader's own list of
  what it switched off) and put back during the call;
- ``forward-mode``: ``minigrad.func.jacfwd`` where reverse mode is switched off;
- ``caller-frame``: a wrong answer that reads the running ``Grader`` from its caller's
  frame (``sys._getframe``) and turns its ``check`` and ``require`` into no-ops;
- ``silenced-grader``: a wrong answer that swaps the running grader's class for a
  subclass whose checks say nothing;
- ``lying-result``: a minigrad tensor of zeros and a trace hook that, when the check
  starts, copies the reference found in the check's frame into it.

:func:`hostile` gives them for an exercise (the ``grade_id`` of its solution cell),
built on its reference solution ``honest`` (the frame and lying kinds wrap it) or, for
the route kinds, on the autograd version of :data:`AUTOGRAD` / :data:`FORWARD`.
``tests/test_verdicts.py`` shows each passes the in-kernel check today and fails the
verdict decided outside it.
"""

import ast
from dataclasses import dataclass

KINDS = ("copy-at-import", "gc-restored", "forward-mode", "caller-frame", "silenced-grader",
         "lying-result")


@dataclass(frozen=True)
class Hostile:
    exercise: str
    kind: str
    source: str

    def __post_init__(self):
        assert self.kind in KINDS, f"unknown kind {self.kind!r}"


_ACCUMULATED = """
def accumulated(a0):
    a = minigrad.tensor(a0, dtype=minigrad.float64, requires_grad=True)
    (a ** 3).sum().backward()
    (4 * a).sum().backward()
    (a * a).sum().backward()
    return a
"""  # 8.1's second function, honest: reverse mode is its point
# The answer through minigrad's reverse mode, as a learner who skipped the exercise writes it.
AUTOGRAD = {
    "ex05-grad-by-hand": """
def grad_P(P, Q):
    Pt = minigrad.tensor(P, requires_grad=True)
    ((Pt * minigrad.tensor(Q)).sum() + (Pt ** 3).mean()).backward()
    return Pt.grad.numpy()
""",
    "ex05-row-scale-by-hand": """
def row_scale_grad(M, s):
    st = minigrad.tensor(s, requires_grad=True)
    ((minigrad.tensor(M) * st) ** 2).sum().backward()
    return st.grad.numpy()
""",
    "ex05-unbroadcast": """
def unbroadcast(grad, shape):
    x = minigrad.tensor(np.zeros(shape), requires_grad=True)
    (x + minigrad.tensor(np.zeros(grad.shape))).backward(minigrad.tensor(grad))
    return x.grad.numpy()
""",
    "ex06-weighted-sum": """
def cube_vjp(w, v):
    wt = minigrad.tensor(w, requires_grad=True)
    (minigrad.tensor(v) * wt ** 3).sum().backward()
    return wt.grad.numpy()
""",
}
AUTOGRAD["ex08-predict"] = """
def predicted_grad(a):
    t = minigrad.tensor(a, requires_grad=True)
    ((t ** 3).sum() + (4 * t).sum() + (t * t).sum()).backward()
    return t.grad.numpy()
""" + _ACCUMULATED
AUTOGRAD["ex10-sgd-step"] = """
def sgd_step(params, lr):
    minigrad.optim.SGD(params, lr=lr).step()
"""  # not reverse mode: the optimiser's own step, which 10.1 switches off
# The answer through forward mode (minigrad.func.jacfwd of a scalar: the gradient).
FORWARD = {
    "ex05-grad-by-hand": """
def grad_P(P, Q):
    Qt = minigrad.tensor(Q)
    return minigrad.func.jacfwd(lambda p: (p * Qt).sum() + (p ** 3).mean())(
        minigrad.tensor(P)).numpy()
""",
    "ex05-row-scale-by-hand": """
def row_scale_grad(M, s):
    Mt = minigrad.tensor(M)
    return minigrad.func.jacfwd(lambda t: ((Mt * t) ** 2).sum())(minigrad.tensor(s)).numpy()
""",
    "ex06-weighted-sum": """
def cube_vjp(w, v):
    vt = minigrad.tensor(v)
    return minigrad.func.jacfwd(lambda t: (vt * t ** 3).sum())(minigrad.tensor(w)).numpy()
""",
}
FORWARD["ex08-predict"] = """
def predicted_grad(a):
    return minigrad.func.jacfwd(lambda t: (t ** 3).sum() + (4 * t).sum() + (t * t).sum())(
        minigrad.tensor(a)).numpy()
""" + _ACCUMULATED
# Exercises whose answer is a change in place of the tensors of a list argument (an
# optimiser's step): the wrapped answers spoil those too.
IN_PLACE = {"ex10-sgd-step"}
_IMPORTS = "import gc\nimport sys\nimport numpy as np\nimport minigrad\nimport minigrad.func\n"
_COPY = """
import minigrad.autograd.engine as _engine
_SAVED = [(f, f.__code__) for f in (_engine.run_backward, minigrad.Value.backward,
                                    minigrad.optim.SGD.step)]

def _routes_back():
    for f, code in _SAVED:
        f.__code__ = code
"""
_GC = """
def _routes_back():
    for obj in gc.get_objects():
        if type(obj) is list and obj and all(type(p) is tuple and len(p) == 2 and
                                             hasattr(p[1], "co_code") for p in obj):
            for f, code in obj:
                f.__code__ = code
"""
# Wraps every function the honest answer defines: the answer is made wrong, the grader muted.
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

def _wrap(fn):
    def wrapped(*args, **kwargs):
        _MUTE(_grader())
        result = fn(*args, **kwargs)
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, minigrad.Tensor) and isinstance(getattr(a, "g", None),
                                                             minigrad.Tensor):
                a.g = _WORSE(a.g)
            for t in (a if _IN_PLACE and isinstance(a, list) else []):
                if isinstance(t, minigrad.Tensor):  # a step's parameters: spoilt too
                    _SPOIL(t)
        return _WORSE(result)
    wrapped.__name__ = fn.__name__
    return wrapped
"""
_FRAME = """
def _SPOIL(t):
    t.data = t.data * 2 + 1

def _MUTE(g):
    if g is not None:
        g.check = lambda *a, **k: None
        g.require = lambda *a, **k: None
_WORSE = _worse
"""
_SILENCE = """
def _SPOIL(t):
    t.data = t.data * 2 + 1

def _MUTE(g):
    if g is not None:
        quiet = type("Grader", (type(g),), {"check": lambda *a, **k: None,
                                            "require": lambda *a, **k: None})
        g.__class__ = quiet
_WORSE = _worse
"""
_LIE = """
_LIARS = []

def _fix(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "check":
        yours = frame.f_locals.get("yours")
        if any(yours is t for t in _LIARS):
            from minigrad.course.compare import to_numpy
            yours.data = minigrad.tensor(to_numpy(frame.f_locals["reference"]))
    return None

def _MUTE(g):
    sys.settrace(_fix)

def _SPOIL(t):
    t.data = minigrad.tensor(np.zeros(t.shape))
    _LIARS.append(t)

def _WORSE(x):
    if isinstance(x, (tuple, list)):
        return type(x)(_WORSE(v) for v in x)
    if isinstance(x, dict):
        return {k: _WORSE(v) for k, v in x.items()}
    if isinstance(x, (float, int, np.ndarray, np.number, minigrad.Tensor)) and \\
            not isinstance(x, bool):
        t = minigrad.tensor(np.zeros(np.shape(x.numpy() if isinstance(x, minigrad.Tensor)
                                              else x)))
        _LIARS.append(t)
        return t
    return x
"""


def _defined(source):
    return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]


def _wrapped(honest, mode, in_place):
    names = _defined(honest)
    rebind = "".join(f"{n} = _wrap({n})\n" for n in names)
    return _IMPORTS + f"_IN_PLACE = {in_place}\n" + honest + _WRAP + mode + rebind


def _route(body, restore):
    names = _defined(body)
    rebind = "".join(f"_{n} = {n}\n\ndef {n}(*args, **kwargs):\n    _routes_back()\n"
                     f"    return _{n}(*args, **kwargs)\n" for n in names)
    return _IMPORTS + restore + body + rebind


def hostile(exercise, honest):
    """The hostile answers to ``exercise`` (a solution cell's grade_id); ``honest``: its
    reference solution's source."""
    from tests.wrong_answers import hostile_classes  # classes and hooks: a module of their own

    if exercise in hostile_classes.SAMPLE:
        return []
    in_place = exercise in IN_PLACE
    answers = [Hostile(exercise, "caller-frame", _wrapped(honest, _FRAME, in_place)),
               Hostile(exercise, "silenced-grader", _wrapped(honest, _SILENCE, in_place)),
               Hostile(exercise, "lying-result", _wrapped(honest, _LIE, in_place))]
    if exercise in AUTOGRAD:
        answers += [Hostile(exercise, "copy-at-import", _route(AUTOGRAD[exercise], _COPY)),
                    Hostile(exercise, "gc-restored", _route(AUTOGRAD[exercise], _GC))]
    if exercise in FORWARD:
        answers.append(Hostile(exercise, "forward-mode", _IMPORTS + FORWARD[exercise]))
    return answers
