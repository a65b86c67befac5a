r"""The test's functions, run in the learner's process (issue 19; chapters 11, 12, 14, 15).

Some checks hand the learner's code a function of the test's own that the learner must
differentiate through (14.2, 14.3 and every exercise of 15: the test's ``f``) or whose
backward it must judge (11.2: ``Function`` classes the test builds), or they run a
helper of their own on the learner's result, in its graph (12.2's backward through your
softmax, 12.4's ``y._version``, backward and ``x`` after the call). A reference to the
judge's object would not do: the learner's graph cannot run through a function that
lives in another process. So, for the exercises of :data:`SHIP`, such a function crosses
as its **source** (from the test cell's syntax tree, ``ast.unparse`` of its node) with the
values it reads (its globals and closure: numbers, arrays, minigrad and numpy as modules
by name, the learner's own names by name, other test functions and classes the same
way) and is re-created with minigrad in the learner's process (:func:`install`).

The helpers of :data:`RUN_THERE` run there whole: the judge's test calls them through
``__verdict_run__`` with plain arguments and gets their plain results, which its checks
compare with the references it computes itself. Only the judge writes ``ship`` messages:
the decoder that re-creates them is installed in the learner's process alone, so nothing
the learner sends back can make the judge run code.
"""

import ast
import builtins
import dis
import importlib
import types

from minigrad.course.verdicts_wire import DECODERS, ENCODERS, WireError, decode, encode

__all__ = ["SHIP", "RUN_THERE", "judge_side", "install", "MODULES"]

# test cells whose functions cross as source (the others keep the callback of verdicts_wire)
SHIP = {"ex11-find-bugs-test", "ex12-softmax-test", "ex12-inplace-safe-test",
        "ex14-jacobian-columns-test", "ex14-double-vjp-test", "ex15-nth-derivative-test",
        "ex15-hvp-test", "ex15-newton-step-test", "ex15-power-iteration-test"}
# test cell -> the names of its helpers that run in the learner's process (they build a
# graph through the learner's function and read what only that graph holds)
RUN_THERE = {"ex12-softmax-test": ("softmax_and_grad",),
             "ex12-inplace-safe-test": ("run_block",)}
MODULES = ("minigrad", "numpy", "math")  # modules a shipped function may read, by name
_TEST_FILE = "<string>"  # the judge compiles the test cell under this name
_STATE = {"nodes": []}  # the test cell's lambdas and defs (the judge's side)


# --- the judge's side ---------------------------------------------------------------------
def judge_side(exercise, namespace, channel):
    """The test cell to run (source, or its syntax tree with the helpers of
    :data:`RUN_THERE` rerouted); for an exercise of :data:`SHIP` the test's functions
    and classes cross as source while it runs."""
    ENCODERS[:] = [e for e in ENCODERS if e is not _ship]
    grade_id, source = exercise.get("grade_id"), exercise["source"]
    if grade_id not in SHIP:
        return source
    tree = ast.parse(source)
    _STATE["nodes"] = [n for n in ast.walk(tree)
                       if isinstance(n, ast.Lambda | ast.FunctionDef)]
    ENCODERS.append(_ship)
    names = RUN_THERE.get(grade_id, ())
    if not names:
        return source
    from minigrad.course.verdicts_judge import Proxy

    runner = Proxy(channel, "__verdict_run__")
    namespace["__verdict_there__"] = lambda fn: _There(runner, fn)
    return ast.fix_missing_locations(_Reroute(names).visit(tree))


class _Reroute(ast.NodeTransformer):
    """After ``def name(...)`` of a helper: ``name = __verdict_there__(name)``."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):  # noqa: N802 - ast's visitor name
        self.generic_visit(node)
        if node.name not in self.names:
            return node
        wrap = ast.parse(f"{node.name} = __verdict_there__({node.name})").body[0]
        return [node, ast.copy_location(wrap, node)]


class _There:
    """A helper of the test run in the learner's process, under its own name."""

    def __init__(self, runner, fn):
        self.runner, self.fn, self.__name__ = runner, fn, fn.__name__

    def __call__(self, *args, **kwargs):
        return self.runner(self.fn, *args, **kwargs)


def _node_of(code):
    """The test cell's lambda or def whose code ``code`` is (by line and columns)."""
    spots = [p for p in code.co_positions() if p[0] is not None and p[2:] != (0, 0)]
    found = []
    for node in _STATE["nodes"]:
        if isinstance(node, ast.FunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            if node.name == code.co_name and first == code.co_firstlineno:
                return node
        elif code.co_name == "<lambda>" and node.lineno == code.co_firstlineno and all(
                (node.lineno, node.col_offset) <= (a, c) and (b, d) <=
                (node.end_lineno, node.end_col_offset) for a, b, c, d in spots):
            found.append(node)
    if not found:
        raise WireError(f"the test's function {code.co_name} has no source to cross with")
    return min(found, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))


def _globals_read(code):
    names = set()
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "LOAD_NAME"):
            names.add(instruction.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _globals_read(const)
    return names


def _no_defaults(node):
    """The node without its default values (they cross as values, not as expressions)."""
    import copy

    node = copy.deepcopy(node)
    args = node.args
    args.defaults = [ast.Constant(None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else ast.Constant(None) for d in args.kw_defaults]
    if isinstance(node, ast.FunctionDef):
        node.decorator_list = []
    return node


_SHIPPING = []  # the functions being encoded (a function that reads itself is refused)


def _ship(x):
    """``x`` as a ``ship`` message part, or None when it is not the test's (or allowed)."""
    from minigrad.course.verdicts_judge import Proxy

    if isinstance(x, Proxy):  # one of the learner's names: it is the learner's over there
        return {"t": "ship", "kind": "learner", "name": x.__name__}
    if isinstance(x, types.ModuleType):
        if x.__name__.partition(".")[0] not in MODULES:
            raise WireError(f"the module {x.__name__} does not cross")
        return {"t": "ship", "kind": "module", "name": x.__name__}
    if isinstance(x, staticmethod):
        return {"t": "ship", "kind": "staticmethod", "fn": encode(x.__func__)}
    if isinstance(x, types.FunctionType | type) and \
            str(getattr(x, "__module__", "")).startswith("minigrad."):
        return {"t": "ship", "kind": "import", "module": x.__module__, "name": x.__qualname__}
    if type(x) is types.FunctionType and x.__code__.co_filename == _TEST_FILE:
        return _function(x)
    if type(x) is type and x.__module__ == "__main__":
        return {"t": "ship", "kind": "class", "name": x.__name__,
                "bases": [encode(b) for b in x.__bases__],
                "dict": [[k, encode(v)] for k, v in vars(x).items() if not k.startswith("_")]}
    return None


def _function(fn):
    if fn in _SHIPPING or len(_SHIPPING) > 20:
        raise WireError(f"the test's function {fn.__name__} reads itself")
    _SHIPPING.append(fn)
    try:
        code = fn.__code__
        node = _node_of(code)
        env = {k: fn.__globals__[k] for k in sorted(_globals_read(code))
               if k in fn.__globals__ and k != "__builtins__"}
        for name, cell in zip(code.co_freevars, fn.__closure__ or (), strict=True):
            try:
                env[name] = cell.cell_contents
            except ValueError:  # a cell not filled yet
                continue
        return {"t": "ship", "kind": "function", "name": fn.__name__,
                "source": ast.unparse(_no_defaults(node)), "lambda": code.co_name == "<lambda>",
                "env": [[k, encode(v)] for k, v in env.items()],
                "defaults": encode(list(fn.__defaults__ or ())),
                "kwdefaults": encode(dict(fn.__kwdefaults__ or {}))}
    finally:
        _SHIPPING.remove(fn)


# --- the learner's side -------------------------------------------------------------------
def install(server):
    """In the learner's process only: ``ship`` parts become functions and classes again
    (the learner's names from ``server``'s namespace), and ``__verdict_run__(fn, ...)``
    runs a helper of the test there."""
    DECODERS["ship"] = lambda d, fn: _rebuild(d, fn, server.namespace)
    server.namespace["__verdict_run__"] = _run


def _run(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def _rebuild(d, fn, namespace):
    kind = d.get("kind")
    if kind == "learner":
        if d.get("name") not in namespace:
            raise WireError(f"your cells do not define {d.get('name')!r}")
        return namespace[d["name"]]
    if kind == "module":
        if str(d["name"]).partition(".")[0] not in MODULES:
            raise WireError(f"the module {d['name']} does not cross")
        return importlib.import_module(d["name"])
    if kind == "import":
        if not str(d["module"]).startswith("minigrad."):
            raise WireError(f"{d['module']} does not cross")
        obj = importlib.import_module(d["module"])
        for part in str(d["name"]).split("."):
            obj = getattr(obj, part)
        return obj
    if kind == "staticmethod":
        return staticmethod(decode(d["fn"], fn))
    if kind == "class":
        return type(str(d["name"]), tuple(decode(b, fn) for b in d["bases"]),
                    {"__module__": "__main__",
                     **{str(k): decode(v, fn) for k, v in d["dict"]}})
    if kind == "function":
        scope = {"__builtins__": builtins, "__name__": "__main__"}
        scope.update({str(k): decode(v, fn) for k, v in d["env"]})
        source = f"__shipped__ = ({d['source']})" if d["lambda"] else d["source"]
        exec(compile(source, f"<test {d['name']}>", "exec"), scope)  # noqa: S102 - the test's
        made = scope["__shipped__" if d["lambda"] else d["name"]]
        made.__defaults__ = tuple(decode(d["defaults"], fn)) or None
        made.__kwdefaults__ = decode(d["kwdefaults"], fn) or None
        return made
    raise WireError(f"a {kind!r} does not cross")
