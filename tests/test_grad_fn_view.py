"""Torch's grad_fn chain as data and as a drawing beside minigrad's graph (chapter 03)."""

import matplotlib

matplotlib.use("Agg")

import torch  # noqa: E402

from minigrad import Value  # noqa: E402
from minigrad.course.grad_fn_view import (  # noqa: E402
    draw_side_by_side,
    grad_fn_graph,
    grad_fn_lines,
)


def test_the_tutorials_chain_ends_in_accumulate_grad():
    x = torch.tensor(3.0, requires_grad=True)
    z = (x + 1) ** 2
    assert grad_fn_graph(z, {"x": x}) == [
        ("PowBackward0", [1]), ("AddBackward0", [2]), ("AccumulateGrad (x)", [])]
    assert grad_fn_lines(z, {"x": x})[-1] == "AccumulateGrad (x) -> into .grad"


def test_a_shared_function_appears_once():
    p = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    q = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    a = p * q
    out = a * a.tanh() + p
    graph = grad_fn_graph(out, {"p": p, "q": q})
    labels = [label for label, _ in graph]
    assert labels.count("MulBackward0") == 2 and labels.count("AccumulateGrad (p)") == 1
    assert sorted(labels) == sorted(["AddBackward0", "MulBackward0", "MulBackward0",
                                     "TanhBackward0", "AccumulateGrad (p)",
                                     "AccumulateGrad (q)"])


def test_side_by_side_draws_two_panels():
    x = torch.tensor(3.0, requires_grad=True)
    z = (x + 1) ** 2
    xm = Value(3.0, label="x")
    zm = (xm + 1) ** 2
    fig = draw_side_by_side(zm, z, {"x": x})
    assert len(fig.axes) == 2
    assert fig._repr_png_().startswith(b"\x89PNG")
