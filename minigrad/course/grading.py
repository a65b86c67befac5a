r"""What an exercise's test cell runs: one graded block per exercise (every chapter).

A test cell reads::

    from minigrad.course.grading import graded
    from minigrad.course.widgets.explorers import torch_slope

    with graded("Exercise 1.1", hint="evaluate f on both sides of x") as g:
        got = g.call(central_slope, cube, 2.0, forbid="autograd")
        g.check("central_slope(x**3, 2)", got, torch_slope(cube, 2.0), rtol=1e-6)

- :meth:`Grader.call` runs the learner's code on inputs the test made, with the other
  routes to the answer switched off for the duration of the call (``forbid``), the
  learner's stderr shown as ordinary output, and the result frozen into plain numbers
  or arrays *inside* that window (a lazy object cannot compute the answer later).
  The reference is computed after the call, from values the learner never saw.
- :meth:`Grader.check` compares with a reference (torch, a formula, ...) and records a
  row; the block shows one table of every row when it ends, and a failure as one line
  that says what differs, with the exercise's hint, never a screen of traceback.

- A check may name the common mistakes it recognises (``mistakes=`` of :meth:`Grader.check`,
  :meth:`Grader.require` and :meth:`Grader.call`): when the learner's output matches a
  mistake's value on the check's inputs, the failure adds its nudge and ends with a
  ``[mistake: id]`` tag the instructor's export reads (:mod:`minigrad.course.mistakes`).

Switching a route off swaps the *code* of its function for one that raises, so an
alias, a default argument or a reference taken in an earlier cell is switched off too.
"""

import contextlib
import html
import os
import sys
import sysconfig
import traceback
import types

import numpy as np

from minigrad.course import integrity
from minigrad.course.compare import _diff_text, _max_abs_diff, _mismatch, to_numpy
from minigrad.course.mistakes import recognise, recognise_condition, tag
from minigrad.course.shown_values import is_boolean, value_html, value_text

__all__ = ["graded", "Grader", "ExerciseFailed", "Forbidden", "switched_off", "ROUTES"]

# The routes an exercise can switch off, by name: "module:qualified.name" of functions
# (tests/test_grading.py resolves every one, so a moved function fails there, not silently).
ROUTES = {
    "torch.autograd": ["torch.autograd.graph:_engine_run_backward"],
    # one backward loop serves every order (create_graph too): one route for the engine
    "minigrad.autograd": ["minigrad.autograd.engine:run_backward",
                          "minigrad.value:Value.backward"],
    "minigrad.Value.backward": ["minigrad.value:Value.backward"],
    "minigrad.backward_order": ["minigrad.value:backward_order"],
    "minigrad.sum_to_shape": ["minigrad.autograd.engine:sum_to_shape"],
    # forward mode (chapter 14): every tangent is made by make_dual and carried by
    # propagate; torch.func.jvp, torch.func.jacfwd and torch.autograd.functional.jacobian
    # (strategy="forward-mode") all go through torch's make_dual
    "minigrad.forward_ad": ["minigrad.autograd.forward_ad:make_dual",
                            "minigrad.autograd.forward_ad:propagate"],
    "torch.forward_ad": ["torch.autograd.forward_ad:make_dual"],
    # the ready-made Jacobians (chapter 14): a helper under another name than the one asked
    "minigrad.jacobian": ["minigrad.func:jacfwd", "minigrad.func:jacrev", "minigrad.func:hessian",
                          "minigrad.autograd.functional:jacobian",
                          "minigrad.autograd.functional:hessian"],
    "torch.jacobian": ["torch.func:jacfwd", "torch.func:jacrev", "torch.func:hessian",
                       "torch.autograd.functional:jacobian", "torch.autograd.functional:hessian"],
}
ROUTES["autograd"] = ROUTES["torch.autograd"] + ROUTES["minigrad.autograd"]
ROUTES["forward_ad"] = ROUTES["minigrad.forward_ad"] + ROUTES["torch.forward_ad"]
ROUTES["minigrad.func"] = ROUTES["minigrad.jacobian"] + [
    "minigrad.func:grad", "minigrad.func:grad_and_value", "minigrad.func:vjp", "minigrad.func:jvp",
    "minigrad.autograd.functional:vjp", "minigrad.autograd.functional:jvp",
    "minigrad.autograd.functional:hvp", "minigrad.autograd.functional:vhp"]
ROUTES["torch.func"] = ROUTES["torch.jacobian"] + [
    "torch.func:grad", "torch.func:grad_and_value", "torch.func:vjp", "torch.func:jvp",
    "torch.autograd.functional:vjp", "torch.autograd.functional:jvp",
    "torch.autograd.functional:hvp", "torch.autograd.functional:vhp"]


class ExerciseFailed(AssertionError):
    """An exercise's check failed; the message says what differs and gives a hint.

    IPython and Jupyter show it as that message alone, the type in red, with no
    traceback into the grading code (:meth:`_render_traceback_`); when the learner's own
    code raised, one more line says where. The error's name and value, which nbclient,
    nbval and nbgrader read, are Python's as usual: the cell still fails.

    ``mistake`` is the id of the named mistake the failing check recognised (see
    :mod:`minigrad.course.mistakes`), or None.
    """

    mistake = None

    def _render_traceback_(self):
        """The lines IPython shows instead of a traceback (a kernel sends them as the
        error output's ``traceback``)."""
        first, *rest = str(self).splitlines() or [""]
        where = _learner_line(self)
        return [f"\x1b[31m{type(self).__name__}\x1b[39m: {first}",
                *([where] if where else []), *rest]


class Forbidden(ExerciseFailed):
    """The learner's code used a route the exercise switched off."""

    def __init__(self, what):
        super().__init__(f"called {what}, which this exercise switches off")
        self.what = what


_LIBRARIES = tuple(os.path.join(os.path.realpath(p), "") for p in {
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))),  # the minigrad package
    *(sysconfig.get_paths()[key] for key in ("stdlib", "purelib", "platlib"))})


def _learner_line(exc):
    """Where the learner's code raised the first error of ``exc``'s chain, as one line
    (``  in f, line 3: return 1 / 0``); None when the grading code itself raised it."""
    while exc.__context__ is not None:
        exc = exc.__context__
    if exc.__traceback__ is None or (isinstance(exc, ExerciseFailed)
                                     and not isinstance(exc, Forbidden)):
        return None
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if f.filename != "<string>"
              and not os.path.realpath(f.filename).startswith(_LIBRARIES)]
    if not frames:
        return None
    frame = frames[-1]
    name = "your cell" if frame.name == "<module>" else frame.name
    code = (frame.line or "").strip()
    return f"  in {name}, line {frame.lineno}" + (f": {code}" if code else "")


def _resolve(spec):
    module_name, _, qualname = spec.partition(":")
    __import__(module_name)
    obj = sys.modules[module_name]
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _targets(forbid):
    if isinstance(forbid, str):
        forbid = [forbid]
    functions = []
    for item in forbid:
        if isinstance(item, str):
            if item not in ROUTES:
                raise KeyError(f"unknown route {item!r}; known: {sorted(ROUTES)}")
            functions += [(spec.replace(":", "."), _resolve(spec)) for spec in ROUTES[item]]
        else:
            functions.append((f"{item.__module__}.{item.__qualname__}", item))
    return functions


def _raiser_code(label):
    source = ("def forbidden(*args, **kwargs):\n"
              "    raise __import__('minigrad.course.grading', fromlist=['Forbidden'])"
              f".Forbidden({label!r})\n")
    namespace = {}
    exec(source, namespace)  # noqa: S102 - a fixed template, the label is repr()'d
    return namespace["forbidden"].__code__


def _counter_code(label):
    source = ("def counted(*args, **kwargs):\n"
              "    return __import__('minigrad.course.grading', fromlist=['_counted'])"
              f"._counted({label!r}, args, kwargs)\n")
    namespace = {}
    exec(source, namespace)  # noqa: S102 - a fixed template, the label is repr()'d
    return namespace["counted"].__code__


_COUNTING = {}  # label -> [calls, a copy of the original function]


def _counted(label, args, kwargs):
    entry = _COUNTING[label]
    entry[0] += 1
    return entry[1](*args, **kwargs)


def _plain(label, func):
    if not isinstance(func, types.FunctionType) or func.__code__.co_freevars:
        raise TypeError(f"cannot watch {label}: not a plain Python function")
    return func


@contextlib.contextmanager
def switched_off(forbid=(), count=(), calls=None):
    """Within the block, every function of ``forbid`` raises :class:`Forbidden`.

    ``forbid`` and ``count`` hold route names of :data:`ROUTES` or Python functions.
    Calls of the functions of ``count`` are counted into the dict ``calls`` (by route).
    """
    swapped = []
    try:
        for label, func in _targets(forbid):
            swapped.append((_plain(label, func), func.__code__))
            func.__code__ = _raiser_code(label)
        for route in ([count] if isinstance(count, str) else count):
            for label, func in _targets([route]):
                original = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                                              func.__defaults__, func.__closure__)
                original.__kwdefaults__ = func.__kwdefaults__
                _COUNTING[label] = [0, original]
                swapped.append((_plain(label, func), func.__code__))
                func.__code__ = _counter_code(label)
        yield
    finally:
        for func, code in reversed(swapped):
            func.__code__ = code
        for route in ([count] if isinstance(count, str) else count):
            total = sum(_COUNTING.pop(label, [0])[0] for label, _ in _targets([route]))
            if calls is not None:
                calls[route] = calls.get(route, 0) + total


def _freeze(x, what):
    """A plain copy of a result: numbers, arrays, tensors, or containers of them."""
    import torch

    from minigrad.tensors import Tensor
    from minigrad.value import Value

    if x is None or type(x) in (bool, str):
        return x
    if isinstance(x, bool | int | float | np.number):
        return float(x) if not isinstance(x, bool | int | np.integer) else int(x)
    if isinstance(x, np.ndarray):
        return np.array(x, copy=True)
    if type(x) in (Tensor, Value):
        return x
    if isinstance(x, torch.Tensor) and type(x) in (torch.Tensor, torch.nn.Parameter):
        return x.detach().clone()
    if type(x) in (tuple, list):
        return type(x)(_freeze(v, what) for v in x)
    if type(x) is dict:
        return {k: _freeze(v, what) for k, v in x.items()}
    if hasattr(x, "__array__") or hasattr(x, "__float__"):
        try:
            return np.array(np.asarray(x, dtype=np.float64), copy=True)
        except (TypeError, ValueError):
            pass
    raise ExerciseFailed(f"{what} returned a {type(x).__name__}; expected numbers, an "
                         "array or a tensor")


class Grader:
    """The checks of one exercise; use through :func:`graded`."""

    def __init__(self, title, hint=""):
        self.title = title
        self.hint = hint
        self.rows = []  # (name, yours, reference label, reference, max diff, ok)
        self.calls = {}  # route -> how often the learner's code called it (``count``)

    # --- running the learner's code -------------------------------------------------
    def call(self, fn, *args, forbid=(), count=(), mistakes=None, **kwargs):
        """Run ``fn(*args, **kwargs)`` with ``forbid`` switched off; the frozen result.

        Calls of the routes in ``count`` are added up in :attr:`calls`. ``mistakes``:
        {id: (nudge, an exception type)}, named when the learner's code raises that type.
        """
        name = getattr(fn, "__name__", "your code")
        if not callable(fn):
            raise ExerciseFailed(f"{name} should be a function; it is a {type(fn).__name__}")
        integrity.verify()
        try:
            with contextlib.redirect_stderr(sys.stdout), switched_off(forbid, count, self.calls):
                result = _freeze(fn(*args, **kwargs), name)
        except NotImplementedError:
            raise ExerciseFailed(f"{name} is not written yet: replace "
                                 "`raise NotImplementedError()` with your answer") from None
        except Forbidden as exc:
            raise ExerciseFailed(f"{name} {exc}: work it out the way the exercise "
                                 "asks") from None
        except RecursionError as exc:
            raise _failure(
                f"{name} recursed too deep (RecursionError: Python stops near 1000 nested "
                "calls). Fix: keep the nodes still to visit in a list used as a stack, "
                "in a while loop", _raised(exc, mistakes)) from None
        except ExerciseFailed:
            raise
        except Exception as exc:
            raise _failure(f"{name} raised {type(exc).__name__}: {exc}",
                           _raised(exc, mistakes)) from None
        integrity.verify()
        return result

    # --- comparing ------------------------------------------------------------------
    def check(self, name, yours, reference, *, rtol=1e-7, atol=1e-10, against="torch",
              mistakes=None):
        """Compare ``yours`` with ``reference`` (named ``against``); record a row.

        ``mistakes``: {id: (nudge, the value that mistake gives here)}, named when the
        check fails and ``yours`` matches one (:mod:`minigrad.course.mistakes`).
        """
        try:
            a, b = to_numpy(yours), to_numpy(reference)
        except TypeError as exc:
            self.rows.append((name, type(yours).__name__, against, "-", None, False))
            raise ExerciseFailed(f"{name}: {exc}") from None
        problem = _mismatch(name, a, b, rtol, atol, False, against)
        self.rows.append((name, value_text(a, is_boolean(yours)), against,
                          value_text(b, is_boolean(reference)), _max_abs_diff(a, b),
                          problem is None))
        if problem and a.shape == b.shape == ():
            problem = (f"{name} is {float(a)!r}, {against} gives {float(b)!r} "
                       f"(rtol={rtol:g}, atol={atol:g})")
        elif problem:
            problem = problem.replace(": minigrad ", ": yours ").replace(
                " minigrad ", " yours ").replace("in minigrad", "in yours")
        if problem:
            raise _failure(problem, recognise(a, b, mistakes, rtol, atol) if mistakes else None)

    def require(self, name, condition, message, *, mistakes=None):
        """A requirement that is not a number (a type, a count): a row, failing with message.

        ``mistakes``: {id: (nudge, a condition that holds when the answer made it)}.
        """
        self.rows.append((name, "yes" if condition else "no", "required", "yes", None,
                          bool(condition)))
        if not condition:
            raise _failure(f"{name}: {message}",
                           recognise_condition(mistakes) if mistakes else None)

    # --- showing ----------------------------------------------------------------------
    def _cells(self):
        for name, yours, against, ref, diff, ok in self.rows:
            yield name, yours, f"{against}: {ref}", _diff_text(diff), "pass" if ok else "FAIL"

    def __repr__(self):
        header = ("check", "yours", "reference", "max abs diff", "result")
        cells = [header, *self._cells()]
        widths = [max(len(row[i]) for row in cells) for i in range(5)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
                 for row in cells]
        return f"{self.title}\n" + "\n".join(lines)

    def _repr_html_(self):
        body = "".join(
            "<tr>" + "".join(f"<td>{value_html(c)}</td>" for c in cells[:4])
            + f"<td style='color:{'green' if cells[4] == 'pass' else 'red'}'>"
            + ("&#10003; pass" if cells[4] == "pass" else "&#10007; FAIL") + "</td></tr>"
            for cells in self._cells())
        return (f"<b>{html.escape(self.title)}</b><table><thead><tr><th>check</th>"
                "<th>yours</th><th>reference</th><th>max abs diff</th><th>result</th>"
                f"</tr></thead><tbody>{body}</tbody></table>")


def _raised(exc, mistakes):
    """The (id, nudge) of the mistake whose exception type ``exc`` is, or None."""
    return recognise_condition({k: (nudge, isinstance(exc, kind))
                                for k, (nudge, kind) in mistakes.items()}) if mistakes else None


def _failure(problem, found):
    """The ExerciseFailed of a failing check, naming the mistake ``found`` (id, nudge)."""
    if found is None:
        return ExerciseFailed(problem)
    exc = ExerciseFailed(f"{problem}\nLikely mistake: {found[1]}")
    exc.mistake = found[0]
    return exc


def _display(obj):
    try:
        from IPython.display import display

        display(obj)
    except ImportError:  # plain Python: the text table
        print(repr(obj))


class graded:  # noqa: N801 - used as a function: `with graded(...) as g:`
    """One exercise's checks: shows their table at the end; a failure is one short line."""

    def __init__(self, title, hint=""):
        self.grader = Grader(title, hint)

    def __enter__(self):
        integrity.verify()
        return self.grader

    def __exit__(self, kind, exc, tb):
        __tracebackhide__ = True  # noqa: F841 - IPython and pytest hide this frame
        grader = self.grader
        if grader.rows:
            _display(grader)
        if exc is None:
            return False
        if isinstance(exc, integrity.TamperingDetected):
            raise integrity.TamperingDetected(f"{grader.title}: {exc}") from None
        if isinstance(exc, RecursionError):
            exc = ExerciseFailed("a function recursed too deep (RecursionError). Fix: use "
                                 "an explicit stack in a while loop")
        elif not isinstance(exc, AssertionError):
            exc = ExerciseFailed(f"{type(exc).__name__}: {exc}")
        message = f"{grader.title}: {exc}" + (f"\nHint: {grader.hint}" if grader.hint else "")
        mistake = getattr(exc, "mistake", None)
        failed = ExerciseFailed(message + (f"\n{tag(mistake)}" if mistake else ""))
        failed.mistake = mistake
        raise failed from None
