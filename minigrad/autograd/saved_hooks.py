r"""The stack of saved-tensor hooks (chapter 16), read by every op that saves for backward.

``graph.saved_tensors_hooks(pack_hook, unpack_hook)`` pushes a pair: while it is open,
each tensor an op saves goes through ``pack_hook(tensor)`` at once (what it returns is
kept instead), and ``unpack_hook(packed)`` gives the tensor back when backward reads it.
Pairs nest: the innermost one is used, as torch's.
"""

__all__ = ["STACK", "EXTRAS", "refresh", "current", "pack_arrays"]

STACK = []  # (pack_hook, unpack_hook) pairs, innermost last
# One flag the hot path (Function.apply, the engine's loop) reads: is anything extra on,
# saved-tensor hooks, anomaly mode, or a user's Function recorded since the start?
EXTRAS = [False]


def refresh():
    """Recompute ``EXTRAS`` after one of its causes changed."""
    from minigrad.autograd import anomaly_mode, custom_function
    EXTRAS[0] = bool(STACK) or anomaly_mode.ANOMALY[0] or custom_function.SEEN[0]


def current():
    """The innermost pair, or None."""
    return STACK[-1] if STACK else None


def pack_arrays(ctx, hooks, args, result):
    """A built-in op's saved arrays through ``pack_hook``: each is given as the tensor it
    is (an input, the output) or a new one; ``ctx._saved`` then holds the packed values
    and ``ctx._packed`` the pair, so ``saved_tensors`` unpacks them."""
    from minigrad import tensors

    whose = {i: k for i, _, _, k in ctx._checks}
    packed = list(ctx._saved)
    for i in ctx._pack_order or range(len(packed)):  # torch's order of saving
        array = packed[i]
        k = whose.get(i)
        if not hasattr(array, "shape") or getattr(array, "dtype", None) is None:
            packed[i] = (False, array)  # a shape, an axis: not a tensor
            continue
        t = result if k == -1 else args[k] if k is not None else tensors.make(array, None)
        packed[i] = (True, hooks[0](t))
    ctx._saved = tuple(packed)
    ctx._packed = hooks


def unpack_arrays(ctx):
    """The saved arrays again, each from ``unpack_hook``."""
    unpack = ctx._packed[1]
    out = [v for _, v in ctx._saved]
    for i in ctx._pack_order or range(len(out)):
        if ctx._saved[i][0]:
            out[i] = unpack(out[i])._data
    return tuple(out)
