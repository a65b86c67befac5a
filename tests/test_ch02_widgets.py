"""Chapter 02's widgets: partial derivatives as slopes of slices, and a step's actual change
against the gradient's prediction. The logic is checked against torch."""

import math

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from minigrad.course.widgets.first_order import FirstOrderStep, step_widget  # noqa: E402
from minigrad.course.widgets.slices import PartialSlices, slices_widget  # noqa: E402


def L(x, y):
    return x ** 2 + 3 * y


def f(x, y):
    return x * y + y ** 3


def torch_grad(fn, x, y):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    fn(xt, yt).backward()
    return [xt.grad.item(), yt.grad.item()]


@pytest.mark.parametrize("fn", [L, f])
@pytest.mark.parametrize("point", [(2.0, 4.0), (-1.5, 0.5), (0.0, -2.0)])
def test_gradient_matches_torch(fn, point):
    view = PartialSlices(fn, *point)
    assert view.gradient == pytest.approx(torch_grad(fn, *point), rel=1e-12)
    assert view.torch == torch_grad(fn, *point) and view.agrees


def test_slices_pass_through_the_point_with_the_partials_as_slopes():
    view = PartialSlices(f, 1.5, -2.0)
    assert view.slice_x([1.5]) == [f(1.5, -2.0)] == view.slice_y([-2.0])
    h = 1e-6
    sx = (view.slice_x([1.5 + h])[0] - view.slice_x([1.5 - h])[0]) / (2 * h)
    sy = (view.slice_y([-2.0 + h])[0] - view.slice_y([-2.0 - h])[0]) / (2 * h)
    assert [sx, sy] == pytest.approx(torch_grad(f, 1.5, -2.0), rel=1e-6)
    assert view.tangent_x([2.5])[0] == pytest.approx(f(1.5, -2.0) + view.gradient[0])
    assert view.tangent_y([-1.0])[0] == pytest.approx(f(1.5, -2.0) + view.gradient[1])


def test_the_tutorials_point_reads_4_and_3():
    text = PartialSlices(L, 2.0, 4.0).readout()
    assert "dL/dx = 4.0000" in text and "dL/dy = 3.0000" in text and "matches torch" in text


def test_slices_widget_follows_its_sliders():
    box = slices_widget(L)
    (xs, ys), readout = box.children[0].children, box.children[1]
    assert "minigrad-ch02-x" in xs._dom_classes and "minigrad-ch02-y" in ys._dom_classes
    xs.value = -1.0
    assert "dL/dx = -2.0000" in readout.value and "dL/dy = 3.0000" in readout.value
    assert box.view.gradient == torch_grad(L, -1.0, 4.0)


def test_step_prediction_is_g_dot_s_and_the_gap_is_second_order():
    model = FirstOrderStep(L, (2.0, 4.0))
    assert list(model.gradient) == torch_grad(L, 2.0, 4.0) == list(model.torch)
    along = model.step(0.01, 0)
    assert along.step == pytest.approx((0.008, 0.006))  # 0.01 * (4, 3) / 5
    assert along.predicted == pytest.approx(0.05)  # |g| r = 5 * 0.01
    assert along.gap == pytest.approx(6.4e-5)  # (dx)^2, L's only second-order term
    for theta in [0, 30, 90, 135]:
        ratios = [model.step(r, theta).gap_over_r2 for r in [1e-3, 1e-2, 1e-1, 1.0]]
        c = math.cos(model.angle + math.radians(theta)) ** 2  # gap = (r cos a)^2
        assert ratios == pytest.approx([c] * 4, rel=1e-6, abs=1e-9)


def test_step_gap_of_a_cubic_shrinks_like_r_squared_against_torch():
    model = FirstOrderStep(f, (1.5, -2.0))
    for theta in [0, 45, 200]:
        res = [model.step(r, theta) for r in [1e-3, 1e-4]]
        # the prediction is torch's gradient dotted with the step
        g = torch_grad(f, 1.5, -2.0)
        for x in res:
            assert x.predicted == pytest.approx(g[0] * x.step[0] + g[1] * x.step[1], rel=1e-12)
        assert res[1].gap / res[0].gap == pytest.approx(0.01, rel=0.02)


def test_best_direction_is_the_gradient_for_small_steps_only():
    model = FirstOrderStep(L, (2.0, 4.0))
    assert model.best_angle(0.01) == 0
    assert model.best_angle(3.0) < -10


def test_step_widget_follows_its_sliders():
    box = step_widget(L)
    (r, theta), readout = box.children[0].children, box.children[1]
    assert "gap 6.4e-05 = 0.64 r^2" in readout.value
    theta.value = 90
    assert "g . s = 0," in readout.value and "0.36 r^2" in readout.value
    r.value = 1.0
    assert "r = 1," in readout.value and "gap 0.36 = 0.36 r^2" in readout.value
