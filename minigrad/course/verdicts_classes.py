r"""Verdicts outside the kernel for the learner's classes and hooks (issue 19; chapters 10,
11, 14 and 16: an optimiser, custom autograd ``Function``\ s, dual-number rules, a hook).

There the test does not call a function of the learner's with plain data: it builds an
instance of the learner's class (``MomentumSGD(params, ...)``, ``Normalize()`` as a
``ctx``, ``MyDual(p, t)``), calls its methods, differentiates through its ``apply``, or
registers the learner's hook on a graph of its own. Those objects stay in the learner's
process; so do the few functions of the test cell that handle them (:data:`REMOTE`):

- the judge (:func:`prepare`) rewrites the test cell before it runs: each function of
  :data:`REMOTE` becomes a :class:`RemoteTest`, which sends the function's *source* and
  its plain arguments to the learner's process and gets plain data back (numbers,
  arrays, tensors as their numbers), with the ``.data`` and ``.grad`` the call left in
  the tensors it was given and the numpy arrays it changed in place written back; a
  dotted name of :data:`REMOTE` (``Normalize.apply``, ``minigrad.autograd.gradcheck``)
  is evaluated there the same way. Every ``lambda`` of the test carries its source, so
  a test function given to the learner's code (the ``f`` of 14.1, the ``loss`` of 16.2)
  is re-created there from its source with minigrad, never handed over as the judge's
  object. Torch's references, the mistakes and the pass/fail stay in the judge;
- the learner's process (:func:`install`) runs them with the exercise's routes off
  (a group of :data:`minigrad.course.verdicts.OWN` for the ones that may differentiate).
"""

import ast

import numpy as np

__all__ = ["REMOTE", "prepare", "install", "RemoteTest"]

# grade_id -> {a function of the test cell, or a dotted name: the learner's process that
# runs it}: "test" runs where the exercise's routes are off; "test:autograd" is an entry
# of OWN with minigrad's reverse mode on (the test forbids only torch's there).
REMOTE = {
    "ex10-momentum-test": {"run_momentum_sgd": "test"},
    "ex11-fix-backward-test": {"your_backward": "test", "through_minigrad": "test:autograd",
                               "minigrad.autograd.gradcheck": "test:autograd",
                               "Normalize.apply": "test:autograd"},
    "ex14-dual-rules-test": {"through_mydual": "test"},
    "ex16-softplus-test": {"forward_then_backward": "test", "through_apply": "test:autograd",
                           "twice": "test:autograd"},
    "ex16-sign-st-test": {"forward_then_backward": "test", "through_apply": "test:autograd"},
    "ex16-clip-hook-test": {"with_your_hook": "test"},
}
GROUPS = ("test", "test:autograd")
_SOURCE = "\x00verdict:source"  # (marker, source): a callable re-created from its source


# --- the judge's side ---------------------------------------------------------------------
class _Rewrite(ast.NodeTransformer):
    def __init__(self, remote):
        self.remote = remote

    def _remote(self, node, key, name, source):
        call = ast.Call(ast.Name("__verdict_remote__", ast.Load()),
                        [ast.Constant(self.remote[key]),
                         ast.Constant(name), ast.Constant(source)], [])
        return ast.copy_location(call, node)

    def visit_FunctionDef(self, node):
        if node.name in self.remote:
            value = self._remote(node, node.name, node.name, ast.unparse(node))
            return ast.copy_location(ast.Assign([ast.Name(node.name, ast.Store())], value),
                                     node)
        return self.generic_visit(node)

    def visit_Attribute(self, node):
        dotted = ast.unparse(node)
        if isinstance(node.ctx, ast.Load) and dotted in self.remote:
            return self._remote(node, dotted, node.attr, dotted)
        return self.generic_visit(node)

    def visit_Lambda(self, node):
        source = ast.unparse(node)
        node = self.generic_visit(node)
        return ast.copy_location(ast.Call(ast.Name("__verdict_lambda__", ast.Load()),
                                          [node, ast.Constant(source)], []), node)


def _lambda(fn, source):
    """A lambda of the test, with its source (sent instead of it where it has no closure)."""
    if not fn.__code__.co_freevars:
        fn.__verdict_source__ = source
    return fn


def prepare(exercise, namespace, channel):
    """The test cell of ``exercise`` (the judge's dict) ready to run: its source, or for an
    exercise of :data:`REMOTE` the rewritten tree (compiled as the source would be)."""
    remote = REMOTE.get(exercise.get("grade_id"))
    if not remote:
        return exercise["source"]
    tree = ast.fix_missing_locations(_Rewrite(remote).visit(ast.parse(exercise["source"])))
    namespace["__verdict_remote__"] = lambda group, name, source: RemoteTest(
        channel, group, name, source)
    namespace["__verdict_lambda__"] = _lambda
    return tree


def _arrays(x):
    """The numpy arrays in ``x`` and its lists, tuples and dicts, in order (both sides)."""
    if type(x) is np.ndarray:
        return [x]
    if type(x) in (list, tuple):
        return [a for v in x for a in _arrays(v)]
    if type(x) is dict:
        return [a for v in x.values() for a in _arrays(v)]
    return []


def _sourced(x):
    from minigrad.course.verdicts_judge import Proxy

    if isinstance(getattr(x, "__verdict_source__", None), str):
        return (_SOURCE, x.__verdict_source__)
    if type(x) is Proxy:  # a name of the learner's: the same name over there
        return (_SOURCE, x.__name__)
    if type(x) in (list, tuple):
        return type(x)(_sourced(v) for v in x)
    if type(x) is dict:
        return {k: _sourced(v) for k, v in x.items()}
    return x


class RemoteTest:
    """A function of the test cell run in the learner's process (see the module's text)."""

    def __init__(self, channel, group, name, source):
        from minigrad.course.verdicts_judge import Proxy

        self._proxy = Proxy(channel, group)
        self.__name__ = self.__qualname__ = name
        self.__verdict_source__ = source

    def __call__(self, *args, **kwargs):
        given = _arrays((args, kwargs))
        answer = self._proxy(self.__verdict_source__, _sourced(list(args)),
                             _sourced(dict(kwargs)))
        if type(answer) is not tuple or len(answer) != 2 or type(answer[1]) is not list \
                or len(answer[1]) != len(given):
            raise RuntimeError("your code's process answered out of turn")
        for mine, theirs in zip(given, answer[1], strict=True):
            if type(theirs) is not np.ndarray or theirs.shape != mine.shape:
                raise RuntimeError("your code's process answered out of turn")
            if not np.array_equal(mine, theirs, equal_nan=mine.dtype.kind in "fc"):
                mine[...] = theirs  # the learner's code changed an array it was given
        return answer[0]

    def __getattr__(self, attr):  # a member of a remote name: evaluated over there too
        if attr.startswith("_"):
            raise AttributeError(attr)
        return RemoteTest(self._proxy._channel, self._proxy.__name__, attr,
                          f"{self.__verdict_source__}.{attr}")


# --- the learner's side -------------------------------------------------------------------
def _made(source, scope):
    tree = ast.parse(source)
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef):
        exec(compile(tree, "<test>", "exec"), scope)  # noqa: S102 - the test's own function
        return scope[tree.body[0].name]
    return eval(compile(source, "<test>", "eval"), scope)  # noqa: S307 - the test's own


def install(namespace):
    """Add the runner of :class:`RemoteTest`'s calls to the learner's ``namespace`` (after
    the solution cells ran), under the names of :data:`GROUPS` (never a Python name)."""
    made, scope = {}, {}

    def function(source):
        if source not in made:
            if not scope:
                scope.update(namespace)
            made[source] = _made(source, scope)
        return made[source]

    def unsourced(x):
        if type(x) is tuple and len(x) == 2 and x[0] == _SOURCE and type(x[1]) is str:
            return function(x[1])
        if type(x) in (list, tuple):
            return type(x)(unsourced(v) for v in x)
        if type(x) is dict:
            return {k: unsourced(v) for k, v in x.items()}
        return x

    def run(source, args, kwargs):
        given = _arrays((args, kwargs))
        result = function(source)(*unsourced(args), **unsourced(kwargs))
        return result, [np.array(a) for a in given]

    for group in GROUPS:
        namespace[group] = run
