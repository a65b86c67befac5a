"""detect_anomaly's warning ends on the user's forward line, as torch's does (chapter 12).

torch's ops are C++, so the traceback it prints stops at the line that called
``x.sqrt()``; minigrad's ops are Python, and their own frames must not follow that line.
"""

import warnings

import torch

import minigrad


def _forward_lines(lib):
    """The source lines of the traceback that detect_anomaly's warning prints."""
    x = lib.tensor([0.0, 1.0, 4.0], dtype=lib.float64, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            y = lib.where(x > 0, x.sqrt(), lib.zeros(3, dtype=lib.float64))
            try:
                y.sum().backward()
            except RuntimeError as error:
                message = str(error)
    trace = str(caught[-1].message)
    lines = trace.splitlines()
    return (message, lines[0], [line.strip() for line in lines if line.startswith("    ")],
            [line for line in lines if line.startswith('  File "')])


def test_the_last_forward_line_is_the_users_as_in_torch():
    ours, theirs = _forward_lines(minigrad), _forward_lines(torch)
    assert theirs[0].startswith("Function 'SqrtBackward0' returned nan values")
    assert ours[0].startswith(theirs[0])
    assert ours[1] == theirs[1] == ("Error detected in SqrtBackward0. Traceback of forward "
                                    "call that caused the error:")
    assert ours[2][-1] == theirs[2][-1] == (
        "y = lib.where(x > 0, x.sqrt(), lib.zeros(3, dtype=lib.float64))")
    assert __file__ in ours[3][-1] and __file__ in theirs[3][-1]
