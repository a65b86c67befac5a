r"""Draw a ``Value``'s computational graph with matplotlib alone (chapters 03-04).

Inputs on the left, the output on the right: a value node sits one column right of
its rightmost parent, each value is a box ``name | data | grad`` and each op a small
circle in front of the box it makes, with arrows from inputs to outputs. The layout
depends only on the graph's shape and labels (operand order, never memory addresses,
never the numbers), so a figure is the same on every run and a stepper's frames line up.
"""

from minigrad.course.widgets.controls import png_bytes
from minigrad.value import backward_order

# GraphFigure is defined on first use (see __getattr__ below), so matplotlib is imported then.
__all__ = ["draw_graph", "graph_layout", "node_names", "format_number", "GraphFigure"]  # noqa: F822

NUMBER_CHARS = 9  # room kept for each of data and grad: -1.235e+20 is rare, 0.1235 common
OP_SYMBOLS = {"sigmoid": "σ"}
LEAF, INNER, ROOT, HOT, WARM = "#e3f2fd", "#f5f5f5", "#e8f5e9", "#ffd54f", "#fff3c4"


def _graph_figure_class():
    """:class:`GraphFigure`, defined on first use: ``import minigrad`` needs no matplotlib."""
    if "GraphFigure" not in globals():
        from matplotlib.figure import Figure

        class GraphFigure(Figure):
            """A figure that Jupyter shows as a PNG even when pyplot was never imported."""

            def _repr_png_(self):
                return png_bytes(self)

        GraphFigure.__qualname__ = "GraphFigure"
        globals()["GraphFigure"] = GraphFigure
    return globals()["GraphFigure"]


def __getattr__(name):  # minigrad.course.graph.GraphFigure imports matplotlib when first asked for
    if name == "GraphFigure":
        return _graph_figure_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def format_number(x):
    """Four significant digits, always readable as a float: 3.0, 0.1235, 1e+20."""
    return repr(float(f"{x:.4g}"))


def _first_seen(root):
    """Nodes in the order a depth-first walk from ``root`` meets them (operand order)."""
    seen, order, stack = set(), [], [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend(reversed(node._prev))  # the first operand is visited first
    return order


def node_names(root):
    """Map ``id(node)`` to its label, or to ``v0``, ``v1``, ... (inputs first) if unlabeled."""
    names, count = {}, 0
    for node in reversed(_first_seen(root)):
        names[id(node)] = node.label or f"v{count}"
        count += not node.label
    return names


def _box_width(name, fontsize, numbers=True):
    """Inches a box may need: its name, two numbers of NUMBER_CHARS, the separators."""
    chars = len(name) + (len(" | data  | grad ") + 2 * NUMBER_CHARS if numbers else 1)
    return chars * 0.6 * fontsize / 72


def graph_layout(root, fontsize=9, numbers=True):
    """Return ``{id(node): (x, y)}``, in inches: the left end of each node's box.

    Column: one more than the rightmost parent; a leaf one less than its first use.
    Row: in the first column, the order a walk from the output meets the nodes; later
    columns sorted by the mean row of their parents, so a node sits near its inputs.
    A column is as wide as its widest box could be, whatever its numbers.
    """
    first_seen = _first_seen(root)
    rank = {id(n): i for i, n in enumerate(first_seen)}
    names = node_names(root)
    column, order = {}, backward_order(root)
    for node in reversed(order):  # parents before the nodes they make
        column[id(node)] = 1 + max((column[id(p)] for p in node._prev), default=-1)
    first_use = {}
    for node in order:  # a leaf sits just left of its first use, not always at the far left
        for p in node._prev:
            first_use[id(p)] = min(first_use.get(id(p), column[id(node)]), column[id(node)])
    for node in order:
        if not node._prev and node is not root:
            column[id(node)] = first_use[id(node)] - 1
    columns = {}
    for node in first_seen:
        columns.setdefault(column[id(node)], []).append(node)
    position, left = {}, 0.0
    for c in sorted(columns):
        def mean_parent_row(node):
            rows = [position[id(p)][1] for p in node._prev]
            return -sum(rows) / len(rows) if rows else 0.0

        nodes = sorted(columns[c], key=lambda n: (mean_parent_row(n), rank[id(n)]))
        for k, node in enumerate(nodes):
            position[id(node)] = (left, (len(nodes) - 1) / 2 - k)
        left += max(_box_width(names[id(n)], fontsize, numbers) for n in nodes)
        left += 1.3  # room for the arrows and the next op's circle
    return position


def _box_text(name, node, numbers=True):
    if not numbers:
        return name
    return f"{name} | data {format_number(node.data)} | grad {format_number(node.grad)}"


def draw_graph(root, ax=None, highlight=None, title=None, fontsize=9, fills=None, notes=None,
               numbers=True):
    """Draw ``root``'s graph and return the figure (one inch per layout unit).

    Without ``ax`` the figure is a :class:`GraphFigure`, not one of pyplot's: Jupyter
    shows it once, as the cell's value, and nothing needs closing.

    ``highlight`` is a node to mark (the stepper's current node): its box and op turn
    yellow, the boxes of its parents light yellow. ``fills`` maps ``id(node)`` to a box
    colour and ``notes`` to a short text written above the box (the topological sort's
    widget marks visited nodes and their places in the order this way). With
    ``numbers=False`` a box shows only the node's name.
    """
    fills, notes = fills or {}, notes or {}
    position = graph_layout(root, fontsize, numbers)
    names = node_names(root)
    nodes = sorted(_first_seen(root), key=lambda n: position[id(n)])
    ys = [y for _, y in position.values()]
    x0 = -0.9  # room for the circle of an op whose box starts at 0
    x1 = max(position[id(n)][0] + _box_width(names[id(n)], fontsize, numbers) for n in nodes)
    x1 += 0.2
    y0, y1 = min(ys) - 0.6, max(ys) + (0.85 if notes else 0.6)  # notes sit above boxes
    if ax is None:
        fig = _graph_figure_class()(figsize=(x1 - x0, y1 - y0 + (0.3 if title else 0)))
        ax = fig.add_axes((0, 0, 1, (y1 - y0) / (y1 - y0 + (0.3 if title else 0))))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_axis_off()
    hot_parents = {id(p) for p in highlight._prev} if highlight is not None else set()

    boxes, ops = {}, {}
    for node in nodes:
        x, y = position[id(node)]
        fill = LEAF if node.is_leaf else ROOT if node is root else INNER
        fill = WARM if id(node) in hot_parents else fill
        fill = HOT if node is highlight else fills.get(id(node), fill)
        if id(node) in notes:
            ax.text(x + 0.1, y + 0.32, notes[id(node)], ha="left", va="bottom",
                    fontsize=fontsize - 1, color="#1b5e20", weight="bold")
        boxes[id(node)] = ax.text(
            x, y, _box_text(names[id(node)], node, numbers), ha="left", va="center",
            family="monospace", fontsize=fontsize,
            bbox={"boxstyle": "round,pad=0.4", "fc": fill, "ec": "black",
                  "lw": 2.0 if node is highlight else 1.0})
        if node._prev:
            ops[id(node)] = ax.text(
                x - 0.45, y, OP_SYMBOLS.get(node._op, node._op), ha="center",
                va="center", fontsize=fontsize - 1,
                bbox={"boxstyle": "circle,pad=0.25", "ec": "black",
                      "fc": HOT if node is highlight else "white"})
    arrow = {"arrowstyle": "-|>", "color": "#555555", "shrinkA": 1, "shrinkB": 1}
    column = {x: c for c, x in enumerate(sorted({x for x, _ in position.values()}))}
    for node in nodes:
        if not node._prev:
            continue
        op = ops[id(node)]
        ax.annotate("", xy=(0, 0.5), xycoords=boxes[id(node)], xytext=(1, 0.5),
                    textcoords=op, arrowprops=arrow)
        for k, parent in enumerate(node._prev):
            repeat = sum(p is parent for p in node._prev[:k])  # a + a: a second arrow
            (x, _), (x_parent, _) = position[id(node)], position[id(parent)]
            skips = column[x] - column[x_parent] > 1  # arc some 0.4 inch over the boxes
            bend = 0.4 * repeat or (-0.9 / (x - x_parent) if skips else 0.0)
            ax.annotate("", xy=(0, 0.5), xycoords=op, xytext=(1, 0.5),
                        textcoords=boxes[id(parent)],
                        arrowprops={**arrow, "connectionstyle": f"arc3,rad={bend}"})
    if title:
        ax.set_title(title, fontsize=fontsize + 1)
    return ax.figure
