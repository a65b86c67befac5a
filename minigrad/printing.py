"""How a tensor prints: torch's format, with ``minigrad`` where torch says ``torch``
(chapter 05).

``tensor([2., 4., 6.], requires_grad=True)``, ``tensor(6.)``, two-dimensional tensors
over several lines, ``dtype=minigrad.float64`` when the dtype is not the default, and
``grad_fn=<MulBackward0>``. Numbers are formatted as torch's ``_Formatter`` does: four
decimals, integers with a trailing dot, scientific notation when magnitudes differ by
more than 1000x; tensors of more than 1000 elements are summarized with ``...``. No
memory address ever appears, so a notebook's output is the same on every run.
"""

import math

import numpy as np

__all__ = ["tensor_repr"]

PRECISION = 4
LINEWIDTH = 80
THRESHOLD = 1000
EDGEITEMS = 3


class _Formatter:
    """Pick one width and one style (int, fixed or scientific) for all the elements."""

    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        magnitudes = np.abs(finite)
        low, high = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        if self.int_mode and not self.sci_mode:
            widths = [len(f"{v:.0f}") + 1 for v in finite.tolist()]
        elif self.sci_mode:
            widths = [len(f"{v:.{PRECISION}e}") for v in finite.tolist()]
        else:
            widths = [len(f"{v:.{PRECISION}f}") for v in finite.tolist()]
        self.max_width = max(widths)

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{PRECISION}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{PRECISION}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values):
    """The corner elements that a summarized print shows (for the formatter)."""
    if values.ndim == 0:
        return values
    if values.shape[0] > 2 * EDGEITEMS:
        parts = [values[:EDGEITEMS], values[-EDGEITEMS:]]
    else:
        parts = [values]
    if values.ndim == 1:
        return np.concatenate(parts)
    return np.concatenate([_summarized(row)[None] for part in parts for row in part])


def _vector(values, indent, summarize, fmt):
    per_line = max(1, math.floor((LINEWIDTH - indent) / (fmt.max_width + 2)))
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        data = ([fmt.format(v) for v in values[:EDGEITEMS].tolist()] + [" ..."]
                + [fmt.format(v) for v in values[-EDGEITEMS:].tolist()])
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(values, indent, summarize, fmt):
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    if summarize and values.shape[0] > 2 * EDGEITEMS:
        rows = ([_body(values[i], indent + 1, summarize, fmt) for i in range(EDGEITEMS)]
                + ["..."]
                + [_body(values[i], indent + 1, summarize, fmt)
                   for i in range(len(values) - EDGEITEMS, len(values))])
    else:
        rows = [_body(row, indent + 1, summarize, fmt) for row in values]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(rows) + "]"


def _add_suffixes(text, suffixes, indent):
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        # Measured as torch's text ("torch." is 3 characters shorter), so lines break
        # exactly where torch breaks them.
        length = len(suffix) - 3 * suffix.count("minigrad.")
        if last_line + length + 2 > LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + length
        else:
            parts.append(", " + suffix)
            last_line += length + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(t, prefix="tensor("):
    """The text torch would print for this tensor, with ``minigrad`` for ``torch``."""
    values = t.data
    indent = len(prefix)
    suffixes = []
    if values.size == 0:
        body = "[]"
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if values.dtype != np.float32:
            suffixes.append(f"dtype={t.dtype!r}")
    else:
        summarize = values.size > THRESHOLD
        fmt = _Formatter(_summarized(values) if summarize else values)
        body = _body(values, indent, summarize, fmt)
    if values.size and values.dtype not in (np.float32, np.int64, np.bool_):
        suffixes.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + _add_suffixes(body, suffixes, indent)
