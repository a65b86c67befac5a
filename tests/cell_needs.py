"""Which cells of a chapter a widget cell needs: the browser test (tests/test_browser_widgets.py)
runs those, as a learner who jumps to a widget would, not the whole chapter up to it (nbval
runs every cell of every chapter elsewhere).

A cell is needed when it binds or changes a name that a needed cell reads: a plain or
augmented assignment, ``import``, ``def``/``class``, an attribute or item assigned on the
name (``x.grad = None``, ``d[k] = v``), or a call on it as a statement of its own
(``x.backward()``, ``torch.manual_seed(0)``, ``model.eval()``). Walking back from the widget,
a name stops being looked for at the cell that binds it unconditionally at the top level
(``x = ...``, ``import x``, ``def x``): what came before is overwritten there. Names read
inside a function count as read by the cell that defines it. The rule errs towards running
more: a cell that changes a needed object through a name the analysis cannot see (an alias)
is the one way it could miss, and the drivers' first checks of each widget's readout (before
any control moves) would then fail.
"""

import ast
import functools
import json

from tests.notebook_tools import ROOT


def _python(source):
    """The cell as plain Python (IPython's magics and ``!`` lines turned into calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def _root(node, modules=frozenset()):
    """The name an attribute or item chain starts from (``x`` of ``x.grad.data[0]``, of
    ``x.detach().add_``); not a module's, past a call (``torch.mm(a, b).backward()``
    changes nothing in torch)."""
    called = False
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        called |= isinstance(node, ast.Call)
        node = node.func if isinstance(node, ast.Call) else node.value
    if not isinstance(node, ast.Name) or (called and node.id in modules):
        return None
    return node.id


def _stored(nodes):
    """Names bound anywhere in ``nodes`` (a function's or a comprehension's locals)."""
    found = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                found.add(sub.id)
            elif isinstance(sub, ast.arg):
                found.add(sub.arg)
    return found


def _reads(node, local=frozenset()):
    """Global names read in ``node``: a function's parameters and locals, and a
    comprehension's targets, are not."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        outside = set()
        for sub in [*node.args.defaults, *node.args.kw_defaults,
                    *getattr(node, "decorator_list", [])]:
            if sub is not None:
                outside |= _reads(sub, local)
        inner = local | _stored([node.args, *(node.body if isinstance(node.body, list)
                                              else [node.body])])
        body = node.body if isinstance(node.body, list) else [node.body]
        return outside | set().union(*(_reads(s, inner) for s in body))
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        local = local | _stored([g.target for g in node.generators])
    if isinstance(node, ast.Name):
        return {node.id} if isinstance(node.ctx, ast.Load) and node.id not in local else set()
    return set().union(*(_reads(child, local) for child in ast.iter_child_nodes(node)))


def _names(source, modules):
    """(reads, changes, overwrites): the names a cell reads before it binds them, the names
    it binds or changes, and those it binds unconditionally at its top level."""
    tree = ast.parse(_python(source))
    changes, reads, overwrites = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            changes.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            changes.add(node.name)
        elif isinstance(node, ast.alias):
            changes.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Attribute | ast.Subscript) and \
                isinstance(node.ctx, ast.Store | ast.Del):
            changes.add(_root(node))
        elif isinstance(node, ast.AugAssign):
            changes.add(_root(node.target))
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute):
            changes.add(_root(node.value.func, modules))  # x.backward(), torch.manual_seed(0)
    for statement in tree.body:  # a read after the cell's own x = ... needs no earlier x
        reads |= _reads(statement) - overwrites - _loop_names(statement)
        if isinstance(statement, ast.Assign):
            overwrites |= {n.id for t in statement.targets if not isinstance(t, ast.Attribute |
                                                                           ast.Subscript)
                           for n in ast.walk(t) if isinstance(n, ast.Name)}  # x, (a, b)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            overwrites |= {(a.asname or a.name).split(".")[0] for a in statement.names}
        elif isinstance(statement, ast.FunctionDef | ast.ClassDef):
            overwrites.add(statement.name)
    changes.discard(None)
    return reads, changes, overwrites


def _loop_names(statement):
    """Names a statement binds before its body reads them: ``for`` targets, ``with ... as``,
    ``except ... as``."""
    targets = []
    for node in ast.walk(statement):
        if isinstance(node, ast.For | ast.AsyncFor):
            targets.append(node.target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            targets.append(node.optional_vars)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            targets.append(ast.Name(node.name, ast.Store()))
    return _stored(targets)


def _modules(cells):
    """The names the chapter binds with ``import`` (torch, np, plt, minigrad)."""
    return frozenset(a.asname or a.name.split(".")[0]
                     for cell in cells if cell["cell_type"] == "code"
                     for node in ast.walk(ast.parse(_python("".join(cell["source"]))))
                     if isinstance(node, ast.Import) for a in node.names)


@functools.cache
def needed_cells(notebook, widget_indices):
    """Indices of the code cells of ``notebooks/<notebook>`` that the cells at
    ``widget_indices`` need, those (the code cells among them) included, in order."""
    cells = json.loads((ROOT / "notebooks" / notebook).read_text())["cells"]
    return needed_in(cells, widget_indices)


def needed_in(cells, widget_indices):
    """:func:`needed_cells` of a list of nbformat cells."""
    chosen, wanted, modules = set(), set(), _modules(cells)
    for i in range(max(widget_indices), -1, -1):
        if cells[i]["cell_type"] != "code":
            continue
        reads, changes, overwrites = _names("".join(cells[i]["source"]), modules)
        if i in widget_indices or changes & wanted:
            chosen.add(i)
            wanted = (wanted - overwrites) | reads
    return sorted(chosen)
