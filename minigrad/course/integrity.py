"""Notice a notebook that patches what the exercise tests rely on (every chapter).

A test cell imports what it uses at its top, so rebinding ``check`` in a notebook does
nothing to it. What a test cell cannot re-import is the *modules* it uses: a cell that
runs ``np.isclose = lambda *a, **k: True`` or ``minigrad.course.compare.check = ...`` changes
them for every later cell. :func:`install` takes a fingerprint of those modules (the
identity of every function, class and constant in ``numpy``, ``math``, ``builtins``,
``torch`` and every ``minigrad`` module, and the methods of their classes) and, inside
IPython, looks again after every cell, remembering the first cell that changed one.
:func:`verify`, which every graded block calls, then fails with that cell's number.

Under ``nbgrader autograde`` the course's preprocessor runs :func:`install` in a cell of
its own before the first cell of the submission, so nothing a student writes runs first.
"""

import builtins
import sys
import types

__all__ = ["install", "verify", "TamperingDetected"]

# Module attributes that change in ordinary use: not a sign of tampering.
MUTABLE = {
    "minigrad.printing": {"PRECISION", "LINEWIDTH", "THRESHOLD", "EDGEITEMS"},
}
# Names IPython itself binds in the user namespace over builtins.
IPYTHON_NAMES = {"_", "__", "___", "exit", "quit", "get_ipython", "display", "help",
                 "copyright", "credits", "license", "open", "input", "raw_input", "getpass"}

_state = {"baseline": None, "first_change": None, "hooked": False, "names": None,
          "quick": None, "classes": (), "alive": ()}


class TamperingDetected(AssertionError):
    """A notebook changed a function, class or constant that the tests rely on."""


def _watched_modules():
    """``[(name, module)]``: the names found at the first call (every minigrad module
    imported then), each looked up in ``sys.modules`` again at every call."""
    if _state["names"] is None:
        import math

        import numpy
        import torch
        import torch.nn.functional

        _import_all_of_minigrad()
        names = ["numpy", "numpy.linalg", "numpy.random", "math", "builtins", "torch",
                 "torch.autograd", "torch.autograd.graph", "torch.nn.functional"]
        names += sorted(n for n in list(sys.modules)
                        if n == "minigrad" or n.startswith("minigrad."))
        del math, numpy, torch
        _state["names"] = names
    return [(n, sys.modules[n]) for n in _state["names"] if n in sys.modules]


def _import_all_of_minigrad():
    """Import every minigrad module a test could use, so all are in the fingerprint."""
    import importlib
    import pkgutil

    import minigrad

    for info in pkgutil.walk_packages(minigrad.__path__, "minigrad."):
        if info.name not in sys.modules and not info.name.endswith("nbgrader_plugins"):
            importlib.import_module(info.name)


def _unwrap_dynamo(value):
    """torch's own lazy ``_disable_dynamo`` wrapper around a function, unwrapped: the
    first use of ``torch._dynamo`` (an optimizer's ``zero_grad`` imports it) wraps
    ``torch.manual_seed`` so; importing it up front instead costs 1 s of CPU a kernel."""
    import torch

    code = getattr(value, "__code__", None)
    if code is not None and code is _dynamo_inner_code(torch):
        return getattr(value, "__wrapped__", value)
    return value


def _dynamo_inner_code(torch):
    if "dynamo_code" not in _state:
        _state["dynamo_code"] = torch._disable_dynamo(len).__code__
    return _state["dynamo_code"]


def _owned_classes(module_name, module):
    """Classes defined in a minigrad module (their methods are watched too)."""
    for value in vars(module).values():
        if isinstance(value, type) and getattr(value, "__module__", "") == module_name:
            yield value


def fingerprint():
    """``{(owner, name): id(value)}`` over every watched module and class."""
    import numpy
    import torch

    prints = {}
    for name, module in _watched_modules():
        skip = MUTABLE.get(name, IPYTHON_NAMES if name == "builtins" else set())
        for attr, value in list(vars(module).items()):
            if attr.startswith("__") or attr in skip or isinstance(value, types.ModuleType):
                continue
            prints[(name, attr)] = id(_unwrap_dynamo(value) if name == "torch" else value)
        if name.startswith("minigrad"):
            for cls in _owned_classes(name, module):
                for attr, value in list(vars(cls).items()):
                    if not attr.startswith("__") or callable(value):
                        prints[(f"{name}.{cls.__name__}", attr)] = id(value)
    for cls, owner in ((torch.Tensor, "torch.Tensor"), (torch.nn.Module, "torch.nn.Module"),
                       (numpy.ndarray, "numpy.ndarray")):
        for attr, value in list(vars(cls).items()):
            prints[(owner, attr)] = id(value)
    return prints


def _classes():
    """The classes whose methods :func:`fingerprint` watches."""
    import numpy
    import torch

    found = [torch.Tensor, torch.nn.Module, numpy.ndarray]
    for name, module in _watched_modules():
        if name.startswith("minigrad"):
            found += _owned_classes(name, module)
    return found


def _quick():
    """Every watched module's and class's names and the identities of their values, as
    tuples: equal to the last clean look's only if nothing at all was rebound (then
    :func:`fingerprint`'s slower, filtered comparison is not needed). The values of the
    first look are kept alive in ``_state["alive"]``, so no identity is reused."""
    modules = _watched_modules()
    found = [tuple(id(m) for _, m in modules)]
    # ipykernel binds a new builtins.input at every execute request: without it (as in
    # fingerprint()), or every cell took the slow look (83 ms a cell, most of a graded
    # kernel's time in the wrong-answer pass)
    spaces = [{k: v for k, v in vars(m).items() if k not in IPYTHON_NAMES}
              if name == "builtins" else vars(m) for name, m in modules]
    for space in spaces + [vars(c) for c in _state["classes"]]:
        found.append(tuple(space))
        found.append(tuple(map(id, space.values())))
    return found


def _remember_quick():
    _state["classes"] = _classes()
    _state["quick"] = _quick()
    _state["alive"] = [tuple(vars(m).values()) for _, m in _watched_modules()] + [
        tuple(vars(c).values()) for c in _state["classes"]]


def _changes(baseline):
    if _state["quick"] is not None and _quick() == _state["quick"]:
        return []
    now = fingerprint()
    changed = [key for key, ident in baseline.items() if now.get(key) != ident]
    # a class given a method it inherited (torch.Tensor.allclose = ...): new in its dict
    modules = dict(_watched_modules())  # once, not once a name (8,600 in a graded chapter)
    owners = {owner for owner, attr in baseline if "." in owner and owner[0].isalpha()
              and owner not in modules}
    changed += [key for key in now if key not in baseline and key[0] in owners
                and not key[1].startswith("__")]
    if not changed:  # a harmless rebinding (a warnings registry, torch's lazy wrapper)
        _remember_quick()
    return [f"{owner}.{attr}" for owner, attr in changed]


def _shadowed_builtins():
    """Names in the notebook's namespace that hide a builtin the tests use."""
    shell = _shell()
    if shell is None:
        return []
    ns = shell.user_ns
    return sorted(name for name in vars(builtins)
                  if not name.startswith("_") and name not in IPYTHON_NAMES
                  and name in ns and ns[name] is not getattr(builtins, name))


def _shell():
    ipython = sys.modules.get("IPython")
    return ipython.get_ipython() if ipython is not None else None


def _after_cell(result):
    if _state["first_change"] is not None or _state["baseline"] is None:
        return
    what = _changes(_state["baseline"]) + [f"the builtin {n}" for n in _shadowed_builtins()]
    if what:
        lines = (getattr(result.info, "raw_cell", "") or "").strip().splitlines()
        _state["first_change"] = (result.execution_count, lines[0] if lines else "", what)


def install():
    """Take the fingerprint now, and (in IPython) look again after every cell."""
    _state["baseline"] = fingerprint()
    _remember_quick()
    _state["first_change"] = None
    shell = _shell()
    if shell is not None and not _state["hooked"]:
        shell.events.register("post_run_cell", _after_cell)
        _state["hooked"] = True


def ensure_installed():
    if _state["baseline"] is None:
        install()


def verify():
    """Raise :class:`TamperingDetected` if anything the tests use was changed."""
    ensure_installed()
    first = _state["first_change"]
    if first is None:
        what = _changes(_state["baseline"]) + [f"the builtin {n}" for n in _shadowed_builtins()]
        if not what:
            return
        first = (None, "", what)
        _state["first_change"] = first
    count, line, what = first
    where = f"cell In [{count}] ({line[:60]!r})" if count is not None else "this notebook"
    shown = ", ".join(what[:3]) + (f" and {len(what) - 3} more" if len(what) > 3 else "")
    raise TamperingDetected(
        f"{where} replaced {shown}, which the tests rely on; every test after it scores "
        "0. Fix: remove that assignment (give your own function another name) and run "
        "the notebook again from the top.")
