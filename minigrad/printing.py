"""How a tensor prints: torch's format, with ``minigrad`` where torch says ``torch``
(chapter 05).

``tensor([2., 4., 6.], requires_grad=True)``, ``tensor(6.)``, two-dimensional tensors
over several lines, ``dtype=minigrad.float64`` when the dtype is not the default, and
``grad_fn=<MulBackward0>``. Numbers are formatted as torch's ``_Formatter`` does: four
decimals, integers with a trailing dot, scientific notation when magnitudes differ by
more than 1000x; tensors of more than 1000 elements are summarized with ``...``. No
memory address ever appears, so a notebook's output is the same on every run.

``set_printoptions(precision=2)`` (and ``threshold``, ``edgeitems``, ``linewidth``,
``sci_mode``, ``profile``) changes all of that as torch's does; ``printoptions(...)`` is
the same inside a ``with`` block.
"""

import contextlib
import dataclasses
import math

import numpy as np

__all__ = ["tensor_repr", "set_printoptions", "get_printoptions", "printoptions", "PRINT_OPTS"]


@dataclasses.dataclass
class _PrinterOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrinterOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """torch's print options: digits after the point, the element count above which a
    tensor is summarized, the items kept at each end then, the line width, and
    scientific notation forced on (True), off (False) or chosen per tensor (None, the
    default: every call resets it unless given, as torch's)."""
    if profile is not None and profile in _PROFILES:
        (PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems,
         PRINT_OPTS.linewidth) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions():
    """The current options, a dict that ``set_printoptions(**options)`` accepts."""
    return dataclasses.asdict(PRINT_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """``with printoptions(precision=2):`` the options changed inside the block only."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


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
        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = bool(high / low > 1000.0 or high > 1.0e8 or low < 1.0e-4)
        else:
            self.sci_mode = bool(PRINT_OPTS.sci_mode)
        precision = PRINT_OPTS.precision
        if self.sci_mode:
            widths = [len(f"{v:.{precision}e}") for v in finite.tolist()]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in finite.tolist()]
        else:
            widths = [len(f"{v:.{precision}f}") for v in finite.tolist()]
        self.max_width = max(self.max_width, *widths)

    def format(self, value):
        precision = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                text = f"{value:{self.max_width}.{precision}e}"
            elif self.int_mode:
                text = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    text += "."
            else:
                text = f"{value:.{precision}f}"
        else:
            text = f"{value}"
        return (self.max_width - len(text)) * " " + text


def _summarized(values):
    """The corner elements that a summarized print shows (for the formatter)."""
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim > 1 and not edge:
        return values[:0]
    if values.shape[0] > 2 * edge:
        parts = [values[:edge], values[values.shape[0] - edge:]]
    else:
        parts = [values]
    if values.ndim == 1:
        return np.concatenate(parts)
    return np.concatenate([_summarized(row)[None] for part in parts for row in part])


def _vector(values, indent, summarize, fmt):
    edge = PRINT_OPTS.edgeitems
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    if summarize and not edge:
        data = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        data = ([fmt.format(v) for v in values[:edge].tolist()] + [" ..."]
                + [fmt.format(v) for v in values[values.shape[0] - edge:].tolist()])
    else:
        data = [fmt.format(v) for v in values.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _body(values, indent, summarize, fmt):
    edge = PRINT_OPTS.edgeitems
    if values.ndim == 0:
        return fmt.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarize, fmt)
    if summarize and values.shape[0] > 2 * edge:
        rows = ([_body(values[i], indent + 1, summarize, fmt) for i in range(edge)]
                + ["..."]
                + [_body(values[i], indent + 1, summarize, fmt)
                   for i in range(len(values) - edge, len(values))])
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
        if last_line + length + 2 > PRINT_OPTS.linewidth:
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
        summarize = values.size > PRINT_OPTS.threshold
        fmt = _Formatter(_summarized(values) if summarize else values)
        body = _body(values, indent, summarize, fmt)
    if values.size and values.dtype not in (np.float32, np.int64, np.bool_):
        suffixes.append(f"dtype={t.dtype!r}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return prefix + _add_suffixes(body, suffixes, indent)
