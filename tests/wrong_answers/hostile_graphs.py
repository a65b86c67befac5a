"""Hostile answers to the graph exercises of chapters 01-04 and 06 (issue 19).

The kinds of :mod:`tests.wrong_answers.hostile`, for exercises whose answer is a node, an
order of nodes or grads left in a graph (which its wrappers do not spoil):

- ``caller-frame``, ``silenced-grader``, ``lying-result``: the reference solution,
  muted grader as there, its answer made wrong: a ``Value_v1``'s local derivatives, an
  order reversed, the grads of the graphs it was given (a lying tensor for the liar);
- ``copy-at-import``, ``gc-restored``: the routes the exercise switches off (Value's
  engine, ``backward_order``, torch's autograd, ``analytical_jacobian``) put back
  during the call, from a copy made when the cell ran or found with ``gc``;
- ``forward-mode``: ``minigrad.func.jacfwd`` where the exercise asks for reverse mode,
  with the ``backward()`` or ``grad`` calls the check counts made on the side.

``tests/test_verdicts_graphs.py`` shows they pass the in-kernel check (most) and fail
the verdict decided outside it.
"""

from tests.wrong_answers import hostile as generic
from tests.wrong_answers.hostile import Hostile

_NUMBER = {"frame": "_NUMBER = lambda x: x * 2 + 1\n",
           "lie": "def _NUMBER(x):\n    t = minigrad.tensor(np.zeros(()))\n"
                  "    _LIARS.append(t)\n    return t\n"}
_GRAPH_WRAP = """
def _nodes(roots):
    out, seen, todo = [], set(), [r for r in roots if isinstance(r, minigrad.Value)]
    while todo:
        v = todo.pop()
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
            todo.extend(v._prev)
    return out

def _wrap(fn):
    def wrapped(*args, **kwargs):
        _MUTE(_grader())
        result = fn(*args, **kwargs)
        if hasattr(result, "parents"):  # a Value_v1: its local derivatives spoilt
            return type(result)(result.data, tuple((p, _NUMBER(d)) for p, d in result.parents))
        if type(result) is list and result and isinstance(result[0], minigrad.Value):
            return result[::-1]  # an order of nodes: reversed
        for v in _nodes(args):  # grads left in the graphs given: spoilt
            v.grad = _NUMBER(v.grad)
        return _WORSE(result)
    wrapped.__name__ = fn.__name__
    return wrapped
"""
_ROUTE_MODULES = """
import minigrad.autograd.engine as _engine
import minigrad.autograd.gradcheck
_gradcheck = sys.modules["minigrad.autograd.gradcheck"]  # minigrad.autograd.gradcheck: a function
import minigrad.value as _value
"""
_COPY = _ROUTE_MODULES + """
_SAVED = [(f, f.__code__) for f in (_engine.run_backward, _value.Value.backward,
                                    _value.Value.__init__, _value.backward_order,
                                    _gradcheck.analytical_jacobian)]
try:
    import torch.autograd.graph as _graph
    _SAVED.append((_graph._engine_run_backward, _graph._engine_run_backward.__code__))
except Exception:
    pass

def _routes_back():
    for f, code in _SAVED:
        f.__code__ = code
"""
_DIV = """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    x, y = minigrad.Value(a.data), minigrad.Value(b.data)
    (x / y).backward()
    return Value_v1(a.data / b.data, ((a, x.grad), (b, y.grad)))
"""
_TORCH_GRADIENT = """
def _gradient(fn, point):
    import torch
    t = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
    fn(*t).backward()
    minigrad.Value(0.0).backward()  # the one backward() the check counts
    return [x.grad.item() for x in t]
"""
_FORWARD_GRADIENT = """
def _gradient(fn, point):
    g = minigrad.func.jacfwd(lambda t: fn(*[t[i] for i in range(len(point))]))(
        minigrad.tensor(point, dtype=minigrad.float64))
    minigrad.Value(0.0).backward()  # the one backward() the check counts
    return [float(v) for v in g.numpy()]
"""
_SLOPE = """
def slope_along(fn, point, direction):
    g = _gradient(fn, point)
    length = sum(d * d for d in direction) ** 0.5
    return sum(gi * d for gi, d in zip(g, direction)) / length
"""
_DESCENT = """
def descent_direction(fn, point):
    g = _gradient(fn, point)
    length = sum(gi * gi for gi in g) ** 0.5
    return [0.0] * len(g) if length == 0 else [-gi / length for gi in g]
"""
_JACOBIAN_COPY = """
def jacobian(f, x0):
    inp = minigrad.tensor(x0, requires_grad=True)
    out = f(inp)
    for i in range(out.shape[0]):  # the grad calls the check counts, thrown away
        minigrad.autograd.grad(out.sum(), inp, retain_graph=True)
    return _gradcheck.analytical_jacobian(f, (inp,), 0).T
"""
_JACOBIAN_FORWARD = """
def jacobian(f, x0):
    inp = minigrad.tensor(x0, requires_grad=True)
    out = f(inp)
    for i in range(out.shape[0]):  # the grad calls the check counts, thrown away
        minigrad.autograd.grad(out.sum(), inp, retain_graph=True)
    return minigrad.func.jacfwd(f)(minigrad.tensor(x0)).numpy()
"""
# grade_id of the solution cell -> the answer through a route the exercise switches off.
ROUTE = {
    "ex01-value-div": _DIV,
    "ex02-slope-along": _TORCH_GRADIENT + _SLOPE,
    "ex02-descent": _TORCH_GRADIENT + _DESCENT,
    "ex03-topo-sort": "\ndef topo_sort(root):\n    return minigrad.backward_order(root)[::-1]\n",
    "ex04-softplus-local": """
def softplus_local(out):
    (a,) = out._prev
    x = minigrad.Value(a.data)
    (x.exp() + 1).log().backward()
    return (x.grad,)
""",
    "ex04-find-the-bug": "\ndef backward_fixed(root):\n    root.backward()\n",
    "ex06-jacobian": _JACOBIAN_COPY,
}
FORWARD = {"ex02-slope-along": _FORWARD_GRADIENT + _SLOPE,
           "ex02-descent": _FORWARD_GRADIENT + _DESCENT, "ex06-jacobian": _JACOBIAN_FORWARD}
# Exercises whose answer is a number, a list or an array: hostile.py's wrappers spoil it.
NUMBERS = {"ex02-slope-along", "ex02-descent", "ex04-softplus-local", "ex06-split-network",
           "ex06-jacobian"}


def _wrapped(honest, mode, number):
    names = generic._defined(honest)
    rebind = "".join(f"{n} = _wrap({n})\n" for n in names)
    return (generic._IMPORTS + "_IN_PLACE = False\n" + honest + generic._WRAP + mode
            + _NUMBER[number] + _GRAPH_WRAP + rebind)


def hostile(exercise, honest):
    """The hostile answers to ``exercise`` (a solution cell's grade_id) of chapters
    01-04 and 06; ``honest``: its reference solution's source."""
    if exercise in NUMBERS:
        answers = generic.hostile(exercise, honest)
    else:
        answers = [Hostile(exercise, "caller-frame", _wrapped(honest, generic._FRAME, "frame")),
                   Hostile(exercise, "silenced-grader",
                           _wrapped(honest, generic._SILENCE, "frame")),
                   Hostile(exercise, "lying-result", _wrapped(honest, generic._LIE, "lie"))]
    if exercise in ROUTE:
        answers += [Hostile(exercise, "copy-at-import", generic._route(ROUTE[exercise], _COPY)),
                    Hostile(exercise, "gc-restored", generic._route(
                        ROUTE[exercise], _ROUTE_MODULES + generic._GC))]
    if exercise in FORWARD:
        answers.append(Hostile(exercise, "forward-mode", generic._IMPORTS + FORWARD[exercise]))
    return answers
