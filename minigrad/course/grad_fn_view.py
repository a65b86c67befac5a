r"""Torch's record of a computation, its ``grad_fn`` chain, drawn beside minigrad's graph
(chapter 03).

A tensor made by an operation has a ``grad_fn`` (``PowBackward0``, ``AddBackward0``,
...); each ``grad_fn`` lists in ``next_functions`` the functions that receive its
gradients, down to one ``AccumulateGrad`` per leaf, which adds into ``leaf.grad``.
:func:`grad_fn_graph` walks that chain (no recursion) into plain data;
:func:`draw_side_by_side` draws it next to :func:`minigrad.course.graph.draw_graph`.
"""

from minigrad.course.graph import (
    _box_width,
    _graph_figure_class,
    draw_graph,
    graph_layout,
    node_names,
)

__all__ = ["grad_fn_graph", "grad_fn_lines", "draw_side_by_side"]


def grad_fn_graph(tensor, names=None):
    """Return ``[(label, [index of each next function]), ...]``, ``tensor.grad_fn`` first.

    ``label`` is the function's class name; an ``AccumulateGrad`` gets the name of its
    leaf from ``names`` (``{"x": x}``) when it is there. Empty slots of
    ``next_functions`` (a constant such as the ``1`` of ``x + 1``) are left out.
    """
    names = names or {}
    nodes, index, stack = [], {}, [tensor.grad_fn]
    while stack:  # first pass: number the functions in the order a walk meets them
        fn = stack.pop()
        if fn is None or fn in index:
            continue
        index[fn] = len(nodes)
        nodes.append(fn)
        stack.extend(reversed([f for f, _ in fn.next_functions]))
    graph = []
    for fn in nodes:
        label = type(fn).__name__
        leaf = getattr(fn, "variable", None)
        leaf_name = next((n for n, t in names.items() if t is leaf), None)
        if leaf_name:
            label = f"{label} ({leaf_name})"
        graph.append((label, [index[f] for f, _ in fn.next_functions if f is not None]))
    return graph


def grad_fn_lines(tensor, names=None):
    """The chain as text, one function per line with where its gradients go."""
    graph = grad_fn_graph(tensor, names)
    lines = []
    for label, nexts in graph:
        targets = ", ".join(graph[k][0] for k in nexts) or "into .grad"
        lines.append(f"{label} -> {targets}")
    return lines


def _torch_layout(graph):
    """Columns by height (AccumulateGrad at 0), rows by the order the walk met them."""
    column = [0] * len(graph)
    for _ in graph:  # longest path down to an AccumulateGrad; small graphs, so repeat
        column = [1 + max((column[j] for j in nexts), default=-1) for _, nexts in graph]
    rows = {}
    position = []
    for k in range(len(graph)):
        c = column[k]
        position.append((c, -rows.get(c, 0)))
        rows[c] = rows.get(c, 0) + 1
    return position


def draw_side_by_side(root, tensor, names=None, fontsize=9):
    """minigrad's graph of ``root`` on the left, torch's ``grad_fn`` chain of ``tensor``
    on the right, each with a title; returns the figure."""
    graph = grad_fn_graph(tensor, names)
    position = _torch_layout(graph)
    step = 0.6 * fontsize / 72 * max(len(label) for label, _ in graph) + 0.9  # inches
    width_t = step * (1 + max(c for c, _ in position)) + 0.2
    layout, names = graph_layout(root, fontsize), node_names(root)
    width_m = max(layout[key][0] + _box_width(name, fontsize) for key, name in names.items())
    width_m += 1.1
    rows = max(len({y for _, y in layout.values()}), 1 - min(r for _, r in position))
    height = max(rows, 2) + 0.8
    fig = _graph_figure_class()(figsize=(width_m + width_t, height))
    left = fig.add_axes((0, 0, width_m / (width_m + width_t), 1 - 0.3 / height))
    draw_graph(root, ax=left, fontsize=fontsize, title="minigrad: the Values and their ops")
    right = fig.add_axes((width_m / (width_m + width_t), 0, width_t / (width_m + width_t),
                          1 - 0.3 / height))
    right.set_xlim(-0.2, width_t - 0.2)
    right.set_ylim(-height + 1.0, 0.8)
    right.set_axis_off()
    right.set_title("torch: z.grad_fn and its next_functions", fontsize=fontsize + 1)
    boxes = []
    for (label, _), (c, r) in zip(graph, position, strict=True):
        fill = "#e3f2fd" if label.startswith("AccumulateGrad") else "#f5f5f5"
        boxes.append(right.text(step * c + 0.1, r, label, ha="left", va="center",
                                family="monospace", fontsize=fontsize,
                                bbox={"boxstyle": "round,pad=0.4", "fc": fill, "ec": "black"}))
    arrow = {"arrowstyle": "-|>", "color": "#555555", "shrinkA": 1, "shrinkB": 1}
    for k, (_, nexts) in enumerate(graph):
        for j in nexts:  # gradients flow from a function to its next functions
            right.annotate("", xy=(1, 0.5), xycoords=boxes[j], xytext=(0, 0.5),
                           textcoords=boxes[k], arrowprops=arrow)
    return fig
