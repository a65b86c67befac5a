"""minigrad.course.widgets.vjp_view: x.grad = g^T J live, and the Jacobian row by row,
against torch."""

import numpy as np
import pytest
import torch

from minigrad.course.widgets.vjp_view import JacobianFiller, VJPView, vjp_widget

A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
X0 = np.array([0.5, -1.0, 2.0])


def torch_jacobian():
    return torch.autograd.functional.jacobian(
        lambda t: torch.tanh(torch.tensor(A) @ t), torch.tensor(X0)).numpy()


def test_vjp_is_g_times_the_jacobian():
    view = VJPView(A, X0)
    for g in ([1, 1, 1, 1], [0, 0, 1, 0], [2, -1.5, 0.5, 0]):
        view.set_g(g)
        assert view.matches
        np.testing.assert_allclose(view.grad, np.array(g) @ torch_jacobian(), rtol=1e-12)
    view.set_g([0, 0, 0, 0])
    assert np.array_equal(view.grad, np.zeros(3))


def test_rows_one_backward_pass_each():
    filler = JacobianFiller(A, X0)
    reference = torch_jacobian()
    assert filler.rows == [] and "0 of 4" in filler.text()
    for i in range(4):
        row = filler.next_row()
        np.testing.assert_allclose(row, reference[i], rtol=1e-12)
        assert filler.matches and f"{i + 1} of 4" in filler.text()
    assert filler.done
    with pytest.raises(IndexError, match="press reset"):
        filler.next_row()
    filler.reset()
    assert filler.rows == [] and not filler.done
    np.testing.assert_allclose(filler.next_row(), reference[0], rtol=1e-12)


def test_widget_controls():
    box = vjp_widget(A, X0)
    sliders = box.children[0].children[0].children
    readout = box.children[0].children[1]
    next_row, reset = box.children[1].children
    jacobian = box.children[2]
    sliders[1].value = -1.0
    assert box.vjp.g.tolist() == [1, -1, 1, 1] and "matches" in readout.value
    for _ in range(4):
        next_row.click()
    assert next_row.disabled and "4 of 4" in jacobian.value
    reset.click()
    assert not next_row.disabled and "0 of 4" in jacobian.value
