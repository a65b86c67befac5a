r"""Anomaly detection, as ``torch.autograd.anomaly_mode`` (chapter 16).

``with autograd.detect_anomaly():`` (or ``set_detect_anomaly(True)``) does two things:
each node made in forward keeps the traceback of the line that made it, and in backward
a node whose gradient contains NaN raises ``RuntimeError: Function 'PowBackward0'
returned nan values in its 0th output.``, after a warning that prints where in forward
that node was made. Any other error raised by a node in backward gets the same warning.
It slows everything down: for debugging only.
"""

import math
import os
import traceback
import warnings

import numpy as np

from minigrad.autograd.saved_hooks import refresh

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "ANOMALY", "record", "run_node"]

ANOMALY = [False, True]  # enabled, check_nan


def is_anomaly_enabled():
    return ANOMALY[0]


def is_anomaly_check_nan_enabled():
    return ANOMALY[1]


class detect_anomaly:  # noqa: N801 - torch's name
    """Context manager (or decorator) turning anomaly detection on."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = ANOMALY[:]
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the "
                      "runtime and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        self.prev = ANOMALY[:]
        ANOMALY[:] = [True, self.check_nan]
        refresh()

    def __exit__(self, *exc):
        ANOMALY[:] = self.prev
        refresh()
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            prev = ANOMALY[:]
            ANOMALY[:] = [True, self.check_nan]
            refresh()
            try:
                return fn(*args, **kwargs)
            finally:
                ANOMALY[:] = prev
                refresh()
        return wrapper


class set_detect_anomaly:  # noqa: N801 - torch's name
    """Turns anomaly detection on or off, at once or as a context manager."""

    def __init__(self, mode, check_nan=True):
        self.prev = ANOMALY[:]
        ANOMALY[:] = [bool(mode), check_nan]
        refresh()

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        ANOMALY[:] = self.prev
        refresh()
        return False


PACKAGE_FRAME = f'File "{os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}{os.sep}'


def record(ctx):
    """In forward: keep where ``ctx`` was made: the frames above minigrad's own, so that
    ``x.sqrt()`` points at the user's line, as torch's (whose ops are C++) does."""
    stack = traceback.format_stack()
    while stack and PACKAGE_FRAME in stack[-1]:
        stack.pop()
    ctx._anomaly_trace = stack


def run_node(node, call):
    """In backward: ``call()`` (the node's backward); on an error, or a NaN in what it
    returns, warn with the forward's traceback and raise."""
    try:
        results = call()
        if ANOMALY[1]:
            for i, r in enumerate(results if isinstance(results, tuple) else (results,)):
                if r is not None and _has_nan(r):
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its "
                                       f"{i}th output. Fix: the traceback warned above "
                                       "shows the forward line: keep its input in the "
                                       "function's domain (clamp it, add an eps).")
    except Exception:
        trace = getattr(node, "_anomaly_trace", None)
        if trace is None:
            text = ("No forward pass information available. Enable detect anomaly during "
                    "forward pass for more information.")
        else:
            text = (f"Error detected in {node.name()}. Traceback of forward call that caused "
                    "the error:\n" + "".join(trace))
        warnings.warn(text, UserWarning, stacklevel=2)
        raise
    return results


def _has_nan(r):
    data = getattr(r, "_data", r)
    if isinstance(data, float):
        return math.isnan(data)
    data = np.asarray(data)
    return data.dtype.kind in "fc" and bool(np.isnan(data).any())
