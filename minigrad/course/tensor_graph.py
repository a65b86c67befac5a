"""The graph a tensor's backward pass walks, as records and as a drawing (chapters 05, 08, 09).

For a minigrad ``Tensor`` or a torch tensor (or directly a ``grad_fn`` node of either):

* :func:`graph_nodes(root) <graph_nodes>` -> ``[Node, ...]``: the nodes reachable from
  ``root.grad_fn`` through ``next_functions``, the root's node first, then in the order
  a breadth-first walk meets them (inputs in operand order), so the same expression gives
  the same list in both libraries. Each :class:`Node` has

  - ``index`` (its place in the list) and ``name`` as torch names it: ``MulBackward0``,
    ``SumBackward0``, ``AccumulateGrad`` (a leaf's node; torch prints it
    ``torch::autograd::AccumulateGrad``, shortened here);
  - ``shape`` and ``dtype`` (``"float32"``...) of the tensor the node made (a leaf's own,
    for ``AccumulateGrad``): the shape of the gradient it receives;
  - ``saved``: a tuple of :class:`Saved` ``(name, shape, dtype, nbytes, leaf)``, what
    the node keeps for its backward, sorted by name, with torch's names (``self``,
    ``other``, ``result``, ``mat1``, ``mat2``...; torch's ``_saved_self`` is ``self``).
    ``leaf`` is True when the saved tensor is the data of a leaf of this graph (a
    parameter), memory that is held anyway. Only tensors (minigrad: arrays) count; the
    ints and sizes torch also keeps (``_saved_alpha``, ``_saved_self_sym_sizes``) do not;
  - ``edges``: one entry per ``next_functions`` slot, the ``index`` of that node or
    ``None`` where the input needs no gradient (torch's ``(None, 0)``);
  - ``freed``: True once a backward without ``retain_graph`` has released the saved
    tensors of a node that saves some (``saved`` is then empty); False for a node that
    saves none (``AddBackward0``), as torch can only tell for the others.

* :func:`total_saved_bytes(nodes, leaves=True) <total_saved_bytes>`: bytes saved by the
  whole graph, a memory block saved by two nodes counted once (by its address, as
  :func:`minigrad.course.graph_memory.torch_saved_tensors` does); ``leaves=False`` leaves
  out the leaves' data.
* :func:`draw_tensor_graph(root, ax=None, title=None) <draw_tensor_graph>` -> a
  matplotlib ``Figure`` (a :class:`~minigrad.course.graph.GraphFigure` when ``ax`` is
  None: Jupyter shows it as a PNG without pyplot). One box per node: name, output shape
  and dtype, each saved tensor with its bytes; arrows follow ``next_functions`` (the way
  the backward pass goes, from the output on the right to the leaves on the left); the
  total saved bytes is in the title.
* :func:`draw_side_by_side(minigrad_root, torch_root) <draw_side_by_side>`: the two
  graphs in one figure, minigrad's on the left.

Where minigrad's graph differs from torch's, on purpose (``tests/test_tensor_graph.py``
tests each):

* ``x * 3``: torch wraps the Python number into a 0-d tensor and saves it (8 bytes,
  ``int64`` or ``float64``); minigrad keeps the number itself, listed as a saved
  ``other`` of shape ``()``, dtype ``"python int"`` (or float) and 0 array bytes.
* ``nn.Linear`` / ``linear(x, W, b)``: torch builds ``AddmmBackward0`` with edges
  ``(bias, x, TBackward0 -> W)``; minigrad's is one fused node, also named
  ``AddmmBackward0``, with edges ``(x, W, bias)`` and no ``TBackward0``. Saved tensors
  and bytes are the same (``mat1`` = x, ``mat2`` = W).
* ``cross_entropy``: torch has two nodes (``LogSoftmaxBackward0``, then
  ``NllLossBackward0``), minigrad one (``NllLossBackward0``, saving the logits and the
  targets).

``x @ W`` keeps only the operand the other one's gradient needs, and ``mse_loss`` keeps
``self`` and ``target``, in both libraries.
"""

from dataclasses import dataclass, field

__all__ = ["Node", "Saved", "graph_nodes", "total_saved_bytes", "draw_tensor_graph",
           "draw_side_by_side", "node_text"]

# torch's names for what minigrad's ops save, slot by slot (by the node's torch name): every
# op that calls ctx.save_for_backward is here.
SAVED_NAMES = {
    "MulBackward0": ("self", "other"),
    "DivBackward0": ("self", "other"),
    "MmBackward0": ("self", "mat2"),
    "MvBackward0": ("self", "vec"),
    "DotBackward0": ("self", "tensor"),
    "AddmmBackward0": ("mat1", "mat2"),
    "PowBackward0": ("self",),
    "PowBackward1": ("self", "exponent", "result"),
    "PowBackward2": ("result", "exponent"),
    "IndexBackward0": ("indices",),
    "LogBackward0": ("self",),
    "ExpBackward0": ("result",),
    "TanhBackward0": ("result",),
    "SigmoidBackward0": ("result",),
    "ReluBackward0": ("result",),
    "ReciprocalBackward0": ("result",),
    "MaxBackward1": ("self", "result"),
    "MseLossBackward0": ("self", "target"),
    "NllLossBackward0": ("exp", "total", "target"),
}
LEAF, INNER, ROOT, EDGE = "#e3f2fd", "#f5f5f5", "#e8f5e9", "#546e7a"


@dataclass(frozen=True)
class Saved:
    """One tensor a node keeps for its backward pass."""

    name: str
    shape: tuple
    dtype: str
    nbytes: int
    leaf: bool = False
    key: object = field(default=None, compare=False, repr=False)  # memory block, to count once


@dataclass(frozen=True)
class Node:
    """One node of the graph; ``edges`` are indices into the list (None: no gradient)."""

    index: int
    name: str
    shape: tuple
    dtype: str
    saved: tuple
    edges: tuple
    freed: bool = False


def _is_torch(obj):
    return type(obj).__module__.startswith("torch")


def _walk(start, children):
    """Nodes in breadth-first order from ``start``, each once (by identity)."""
    order, seen, k = [start], {id(start)}, 0
    while k < len(order):
        for child in children(order[k]):
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                order.append(child)
        k += 1
    return order


def _start(root):
    """The root's node: its ``grad_fn``, or ``root`` itself if it is a node."""
    if hasattr(root, "next_functions"):
        return root
    return root.grad_fn


def graph_nodes(root):
    """The graph behind ``root`` (a minigrad or torch tensor, or a node) as records.

    A tensor without ``grad_fn`` (a leaf, or made under ``no_grad``) gives ``[]``.
    """
    start = _start(root)
    if start is None:
        return []
    if _is_torch(start) or _is_torch(root):
        return _torch_nodes(start)
    return _minigrad_nodes(start)


def _torch_nodes(start):
    def children(node):
        return [f for f, _ in node.next_functions]

    order = _walk(start, children)
    index = {id(n): i for i, n in enumerate(order)}
    leaves = {_torch_key(n.variable) for n in order if hasattr(n, "variable")}
    nodes = []
    for i, node in enumerate(order):
        name = node.name().rsplit("::", 1)[-1]
        if hasattr(node, "variable"):
            shape, dtype = tuple(node.variable.shape), node.variable.dtype
        else:
            meta = node._input_metadata[0]
            shape, dtype = tuple(meta.shape), meta.dtype
        saved, freed = _torch_saved(node, leaves)
        edges = tuple(None if f is None else index[id(f)] for f in children(node))
        nodes.append(Node(i, name, shape, str(dtype).removeprefix("torch."), saved, edges,
                          freed))
    return nodes


def _torch_key(t):
    return (t.data_ptr(), t.numel() * t.element_size())


def _torch_saved(node, leaves):
    """``(saved records sorted by name, freed?)`` from the node's ``_saved_*`` tensors."""
    import torch

    saved, freed = [], False
    for attr in dir(node):
        if not attr.startswith("_saved_"):
            continue
        try:
            value = getattr(node, attr)
        except RuntimeError:  # freed by a backward pass without retain_graph
            freed = True
            continue
        values = value if isinstance(value, list | tuple) else [value]
        if not values or not all(isinstance(v, torch.Tensor) for v in values):
            continue  # None (not needed), an int, a size
        name = attr.removeprefix("_saved_")
        for k, t in enumerate(values):
            key = _torch_key(t)
            saved.append(Saved(name if len(values) == 1 else f"{name}[{k}]", tuple(t.shape),
                               str(t.dtype).removeprefix("torch."),
                               t.numel() * t.element_size(), key in leaves, key))
    return tuple(sorted(saved, key=lambda s: s.name)), freed


def _minigrad_nodes(start):
    from minigrad.autograd.function import AccumulateGrad

    order = _walk(start, lambda node: node.next_functions)
    index = {id(n): i for i, n in enumerate(order)}
    leaves = {_array_key(n.variable.data) for n in order
              if type(n) is AccumulateGrad and n.variable is not None}
    nodes = []
    for i, node in enumerate(order):
        name = node.name()
        names = SAVED_NAMES.get(name, ())
        saved = []
        for k, item in enumerate(node._saved):
            if item is None:
                continue
            slot = names[k] if k < len(names) else f"saved{k}"
            if hasattr(item, "nbytes"):
                key = _array_key(item)
                saved.append(Saved(slot, tuple(item.shape), str(item.dtype), int(item.nbytes),
                                   key in leaves, key))
            else:  # a Python number, kept as it is
                saved.append(Saved(slot, (), f"python {type(item).__name__}", 0))
        edges = tuple(None if f is None else index[id(f)] for f in node.next_functions)
        dtype = node.out_dtype
        nodes.append(Node(i, name, tuple(node.out_shape), "" if dtype is None else str(dtype),
                          tuple(sorted(saved, key=lambda s: s.name)), edges,
                          bool(node._freed) and name in SAVED_NAMES))
    return nodes


def _array_key(array):
    return (array.__array_interface__["data"][0], int(array.nbytes))


def total_saved_bytes(nodes, leaves=True):
    """Bytes saved by the graph, each memory block once; ``leaves=False``: without the
    leaves' data (parameters are held anyway, graph or no graph)."""
    seen, total = set(), 0
    for node in nodes:
        for s in node.saved:
            if s.key is None or s.key in seen or (s.leaf and not leaves):
                continue
            seen.add(s.key)
            total += s.nbytes
    return total


def _shape_text(shape):
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def node_text(node):
    """The lines of a node's box: name, output shape and dtype, one line per saved tensor."""
    lines = [node.name, f"out {_shape_text(node.shape)} {node.dtype}"]
    for s in node.saved:
        size = f"{s.nbytes:,} B" + (", leaf" if s.leaf else "")
        lines.append(f"saved {s.name} {_shape_text(s.shape)} {s.dtype}: {size}")
    if node.freed:
        lines.append("saved: freed by backward()")
    return lines


def _layout(nodes, fontsize):
    """``{index: (x_left, y_center, width, height)}`` in inches, and the total extent.

    Column: the longest path from the root (root rightmost, leaves far left); rows in
    list order. Depends only on the records, so a figure is the same on every run.
    """
    level = {0: 0} if nodes else {}
    changed = True  # relax until every node sits one column left of its leftmost user
    while changed:
        changed = False
        for node in nodes:
            if node.index not in level:
                continue
            for e in node.edges:
                if e is not None and level.get(e, -1) < level[node.index] + 1:
                    level[e] = level[node.index] + 1
                    changed = True
    depth = max(level.values(), default=0)
    char, line = 0.62 * fontsize / 72, 1.35 * fontsize / 72
    sizes = {n.index: (max(len(t) for t in node_text(n)) * char + 0.3,
                       len(node_text(n)) * line + 0.15) for n in nodes}
    columns = {}
    for n in nodes:
        columns.setdefault(depth - level[n.index], []).append(n.index)
    boxes, left, height = {}, 0.0, 0.0
    for c in sorted(columns):
        members = columns[c]
        column_height = sum(sizes[i][1] for i in members) + 0.3 * (len(members) - 1)
        height = max(height, column_height)
        y = column_height / 2
        for i in members:
            w, h = sizes[i]
            boxes[i] = (left, y - h / 2, w, h)
            y -= h + 0.3
        left += max(sizes[i][0] for i in members) + 0.6
    return boxes, max(left - 0.6, 0.0), height


def _graph_figure(width, height):
    from minigrad.course.graph import _graph_figure_class

    return _graph_figure_class()(figsize=(width, height))


def _draw(ax, nodes, title, fontsize):
    from matplotlib.patches import FancyBboxPatch

    boxes, width, height = _layout(nodes, fontsize)
    for node in nodes:
        x, y, w, h = boxes[node.index]
        color = LEAF if node.name == "AccumulateGrad" else ROOT if node.index == 0 else INNER
        ax.add_patch(FancyBboxPatch((x, y - h / 2), w, h, boxstyle="round,pad=0.02",
                                    facecolor=color, edgecolor="#90a4ae"))
        ax.text(x + 0.1, y, "\n".join(node_text(node)), ha="left", va="center",
                family="monospace", fontsize=fontsize, linespacing=1.25)
        for e in node.edges:
            if e is None:
                continue
            ex, ey, ew, _ = boxes[e]
            ax.annotate("", xy=(ex + ew + 0.03, ey), xytext=(x - 0.03, y),
                        arrowprops={"arrowstyle": "->", "color": EDGE, "lw": 1.0})
    ax.set_xlim(-0.15, width + 0.15)
    ax.set_ylim(-height / 2 - 0.2, height / 2 + 0.2)
    ax.set_axis_off()
    total = total_saved_bytes(nodes)
    heading = f"saved for backward: {total:,} bytes"
    ax.set_title(heading if title is None else f"{title}\n{heading}", fontsize=fontsize + 1)
    return width + 0.3, height + 0.4


def draw_tensor_graph(root, ax=None, title=None, fontsize=8):
    """Draw the graph behind ``root`` (minigrad or torch); return the figure."""
    nodes = graph_nodes(root)
    if ax is not None:
        _draw(ax, nodes, title, fontsize)
        return ax.figure
    _, width, height = _layout(nodes, fontsize)
    lines = 1 if title is None else 2
    top = (lines * 1.5 * (fontsize + 1) / 72) + 0.15
    fig = _graph_figure(width + 0.3, height + 0.4 + top)
    ax = fig.add_axes((0, 0, 1, (height + 0.4) / (height + 0.4 + top)))
    _draw(ax, nodes, title, fontsize)
    return fig


def draw_side_by_side(minigrad_root, torch_root, titles=("minigrad", "torch"), fontsize=8):
    """minigrad's graph (left) and torch's (right) of the same expression, in one figure."""
    sizes = []
    for root in (minigrad_root, torch_root):
        _, width, height = _layout(graph_nodes(root), fontsize)
        sizes.append((width + 0.3, height + 0.4))
    top = 2 * 1.5 * (fontsize + 1) / 72 + 0.15
    total_width = sizes[0][0] + sizes[1][0] + 0.4
    total_height = max(h for _, h in sizes) + top
    fig = _graph_figure(total_width, total_height)
    left = 0.0
    for (w, h), root, title in zip(sizes, (minigrad_root, torch_root), titles, strict=True):
        ax = fig.add_axes((left / total_width, 0, w / total_width, h / total_height))
        _draw(ax, graph_nodes(root), title, fontsize)
        left += w + 0.4
    return fig
