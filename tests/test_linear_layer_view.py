"""Chapter 07's widgets: the layer's numbers and what they touch, and the mean-vs-sum scale
(logic against torch, then the widgets around it)."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from minigrad.course.widgets.linear_layer_view import (  # noqa: E402
    LayerTouches,
    ReductionScale,
    layer_widget,
    reduction_widget,
)


def layer():
    rng = np.random.default_rng(0)
    X, G = rng.standard_normal((5, 3)), rng.standard_normal((5, 2))
    w = np.array([[0.2, -0.4], [0.7, 0.1], [-0.3, 0.5]])
    return X, w, np.array([0.05, -0.1]), G


def torch_grads(X, w, b, G):
    ts = [torch.tensor(a, requires_grad=True) for a in (X, w, b)]
    (ts[0] @ ts[1] + ts[2]).backward(torch.tensor(G))
    return [t.grad.numpy() for t in ts]


def test_every_number_gets_torchs_gradient():
    X, w, b, G = layer()
    view = LayerTouches(X, w, b, G)
    gx, gw, gb = torch_grads(X, w, b, G)
    assert len(view.names()) == 3 + 6 + 2
    for name in view.names():
        p = view.pick(name)
        ref = {"x": gx, "w": gw, "b": gb}[p["kind"]][p["index"]]
        assert p["grad"] == pytest.approx(ref, rel=1e-12, abs=1e-12)
        assert p["torch"] == pytest.approx(ref, rel=1e-12, abs=1e-12)


def test_what_each_number_touches():
    view = LayerTouches(*layer())
    assert view.pick("x_12")["outputs"] == [0, 1]  # an input feeds every output
    assert len(view.pick("x_12")["terms"]) == 2  # one term per output, one example
    assert view.pick("w_21")["outputs"] == [0]  # w_ij feeds f_j only
    assert len(view.pick("w_21")["terms"]) == 5  # ... in each of the 5 examples
    assert [t[2] for t in view.pick("w_21")["terms"]] == list(layer()[0][:, 1])  # x_k2
    assert view.pick("b_2")["outputs"] == [1]
    assert all(t[2] == 1.0 for t in view.pick("b_2")["terms"])


def test_readout_names_the_sum_and_torch():
    text = LayerTouches(*layer()).text("w_21")
    assert "touches f_1 in every example" in text
    assert "sum over examples k of x_ki * g_kj" in text and "(matches)" in text


def test_bad_pick_and_shapes_are_refused():
    X, w, b, G = layer()
    with pytest.raises(ValueError):
        LayerTouches(X, w, b, G).pick("y_11")
    with pytest.raises(ValueError):
        LayerTouches(X, w.T, b, G)


def test_mean_keeps_the_scale_and_sum_grows_with_the_batch():
    scale = ReductionScale(max_batch=16)
    for reduction in ("mean", "sum"):
        assert np.allclose(scale.norms[reduction], scale.torch_norms[reduction], rtol=1e-12)
    ratio = np.array(scale.norms["sum"]) / np.array(scale.norms["mean"])
    assert np.allclose(ratio, 3 * np.arange(1, 17))  # mse_loss's mean divides by N * m
    mean = np.array(scale.norms["mean"][3:])
    assert mean.max() / mean.min() < 3  # roughly flat once N > 3
    assert "sum / mean = 24.0 = N x m = 8 x 3" in scale.text(8)


def test_mse_mean_divides_by_every_element():
    """The (4, 3) case: each entry of the gradient of mse_loss(zeros, ones) is -2/12."""
    import minigrad

    p = minigrad.zeros(4, 3, dtype=minigrad.float64, requires_grad=True)
    minigrad.nn.functional.mse_loss(p, minigrad.ones(4, 3, dtype=minigrad.float64)).backward()
    pt = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    torch.nn.functional.mse_loss(pt, torch.ones(4, 3, dtype=torch.float64)).backward()
    assert np.allclose(p.grad.numpy(), pt.grad.numpy()) and pt.grad[0, 0] == -2 / 12


def test_widgets_follow_their_controls():
    box = layer_widget(*layer())
    pick, image, readout = box.children
    assert "w_21" in readout.value and image.value[:4] == b"\x89PNG"
    pick.value = "b_1"
    assert "dL/db_1" in readout.value
    box = reduction_widget(max_batch=8, start=2)
    slider, image, readout = box.children
    assert "N = 2" in readout.value
    slider.value = 5
    assert "N = 5" in readout.value and "= N x m = 5 x 3" in readout.value
