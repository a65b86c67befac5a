"""minigrad.course.widgets.broadcast_view: copies and summed axes of a broadcast, against torch."""

import numpy as np
import pytest
import torch

from minigrad.course.widgets.broadcast_view import SHAPES, BroadcastView, broadcast_widget


@pytest.mark.parametrize("in_shape", SHAPES)
@pytest.mark.parametrize("out_shape", SHAPES)
def test_every_pair_matches_torch_or_gives_its_error(in_shape, out_shape):
    view = BroadcastView(in_shape, out_shape)
    x = torch.tensor(view.x, requires_grad=True)
    try:
        y = x.expand(out_shape)
    except RuntimeError as error:
        assert view.error == f"RuntimeError: {error}" and "does not broadcast" in view.text()
        return
    (y * torch.tensor(view.G)).sum().backward()
    assert view.matches and np.array_equal(view.grad, x.grad.numpy())
    assert np.array_equal(view.summed, x.grad.numpy())  # sum_to_shape itself
    assert view.copies * x.numel() == y.numel()
    summed = view.added + view.stretched
    assert np.array_equal(view.G.sum(axis=summed).reshape(in_shape) if summed else view.G,
                          view.summed)


def test_the_chapter_example():
    view = BroadcastView((3, 1), (2, 3, 4))
    assert (view.added, view.stretched, view.copies) == ((0,), (2,), 8)
    assert "sums G over axes (0, 2)" in view.text() and "matches torch" in view.text()


def test_widget_readout_follows_the_dropdowns():
    box = broadcast_widget((3, 1), (2, 3, 4))
    inp, out = box.children[0].children
    readout = box.children[1]
    assert "each element of x is used 8 times" in readout.value
    inp.value = (4,)
    assert "axes added (0, 1)" in readout.value and box.view.in_shape == (4,)
    out.value = (3, 1)
    assert "does not broadcast" in readout.value and "must match" in readout.value
    out.value = (2, 3, 4)
    inp.value = (2, 1, 4)
    assert "axes stretched (1,)" in readout.value
