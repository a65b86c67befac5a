"""What a graph keeps alive for its backward pass, counted in arrays and bytes (chapter 09).

While gradients are recorded, each op saves the arrays its backward will need (an
input, the output, a weight) with ``ctx.save_for_backward``; they stay in memory as
long as the graph does, until ``backward()`` frees them. :func:`saved_arrays` walks
minigrad's graph and lists them; :func:`torch_saved_tensors` asks torch the same
question through its hooks on saved tensors
(``torch.autograd.graph.saved_tensors_hooks``), so a chapter can measure both.

Both take ``exclude``: tensors (the parameters, say) whose memory is not counted,
since it is held anyway, graph or no graph.
"""

from minigrad.autograd.engine import topological_order

__all__ = ["saved_arrays", "saved_bytes", "torch_saved_tensors"]


def saved_arrays(tensor, exclude=()):
    """The distinct arrays saved for backward in the graph that made ``tensor``."""
    if tensor.grad_fn is None:
        return []
    seen = {id(t.data) for t in exclude}
    arrays = []
    for node in topological_order(tensor.grad_fn):
        for array in node._saved:
            if hasattr(array, "nbytes") and id(array) not in seen:
                seen.add(id(array))
                arrays.append(array)
    return arrays


def saved_bytes(tensor, exclude=()):
    """Total bytes of :func:`saved_arrays` (shared arrays counted once)."""
    return sum(array.nbytes for array in saved_arrays(tensor, exclude))


def torch_saved_tensors(fn, exclude=()):
    """Run ``fn()`` with torch; return ``(its result, [(shape, bytes), ...])``.

    One entry per distinct memory block torch saved for backward while ``fn`` ran (a
    tensor saved by two ops, or a view such as ``weight.t()``, is counted once, by
    its data pointer).
    """
    import torch

    seen = {t.data_ptr() for t in exclude}
    saved = []

    def pack(t):
        if t.data_ptr() not in seen:
            seen.add(t.data_ptr())
            saved.append((tuple(t.shape), t.numel() * t.element_size()))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        result = fn()
    return result, saved
