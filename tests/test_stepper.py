"""The backward stepper: its steps, its effect on the grads, then the widget around it."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from minigrad import Value, backward_order  # noqa: E402
from minigrad.course.graph import node_names  # noqa: E402
from minigrad.course.widgets.stepper import BackwardStepper, step_text, stepper_widget  # noqa: E402


def seed_graph():
    """z = (x + y) ** 2 at (2, 3): x.grad and y.grad are 10."""
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    a = x + y
    a.label = "a"
    z = a ** 2
    z.label = "z"
    return x, y, a, z


def grads(*nodes):
    return [n.grad for n in nodes]


def test_steps_of_the_seed_example():
    x, y, a, z = seed_graph()
    stepper = BackwardStepper(z)
    assert [s.node for s in stepper.steps] == [z, a]
    first, second = stepper.steps
    (u,) = first.updates
    assert u.parent is a
    assert (u.local, u.upstream, u.product, u.before, u.after) == pytest.approx(
        (10.0, 1.0, 10.0, 0.0, 10.0))
    assert [u.parent for u in second.updates] == [x, y]
    for u in second.updates:
        assert (u.local, u.upstream, u.product, u.after) == pytest.approx((1.0, 10, 10, 10))


def test_stepping_moves_the_grads_one_node_at_a_time():
    x, y, a, z = seed_graph()
    stepper = BackwardStepper(z)
    assert grads(z, a, x, y) == pytest.approx([1.0, 0.0, 0.0, 0.0])
    assert stepper.current is None and not stepper.done
    assert stepper.step().node is z
    assert grads(z, a, x, y) == pytest.approx([1.0, 10.0, 0.0, 0.0])
    stepper.step()
    assert stepper.done and stepper.current.node is a
    assert grads(z, a, x, y) == pytest.approx([1.0, 10.0, 10.0, 10.0])
    with pytest.raises(StopIteration, match="reset"):
        stepper.step()


def build_graphs():
    """Graphs with fan-out, reuse and every op; each returns (root, leaves)."""
    def seed():
        x, y, a, z = seed_graph()
        return z, [x, y]

    def fan_out():
        a = Value(3.0, label="a")
        return a + a, [a]

    def mixed():
        x, w = Value(0.5, label="x"), Value(-1.5, label="w")
        h = (x * w + 1).tanh()
        out = h * h + (x.exp() / (w * w)).log() + h.sigmoid() * (2 ** x) - x ** w.relu()
        return out, [x, w]

    return [seed, fan_out, mixed]


@pytest.mark.parametrize("build", build_graphs())
def test_after_the_last_step_every_grad_equals_backward(build):
    root, _ = build()
    stepper = BackwardStepper(root)
    while not stepper.done:
        stepper.step()
    same_graph, _ = build()
    same_graph.backward()
    expected = [n.grad for n in backward_order(same_graph)]
    assert [n.grad for n in stepper.order] == pytest.approx(expected, rel=1e-15, abs=0)


def test_fan_out_adds_twice_into_the_same_grad():
    a = Value(3.0, label="a")
    b = a + a
    b.label = "b"
    (step,) = BackwardStepper(b).steps
    assert [u.parent for u in step.updates] == [a, a]
    assert [x for u in step.updates for x in (u.before, u.after)] == pytest.approx([0, 1, 1, 2])
    assert step_text(step, node_names(b)) == [
        "b = a + a; upstream b.grad = 1",
        "a: local 1 × upstream 1 = 1 → a.grad 0 → 1",
        "a: local 1 × upstream 1 = 1 → a.grad 1 → 2",
    ]


def test_leaves_accumulate_and_reset_restores_them():
    x, y, a, z = seed_graph()
    z.backward()  # x.grad is already 10
    stepper = BackwardStepper(z)
    stepper.goto(len(stepper.steps))
    assert grads(x, y) == pytest.approx([20.0, 20.0])  # as a second z.backward() would
    stepper.reset()
    assert grads(x, y, a, z) == pytest.approx([10.0, 10.0, 0.0, 1.0])
    assert stepper.position == 0


def test_step_text_reads_local_times_upstream():
    x = Value(3.0, label="x")
    y = x + 1
    y.label = "y"
    z = y ** 2
    z.label = "z"
    first = BackwardStepper(z).steps[0]
    assert step_text(first, node_names(z)) == [
        "z = y ** 2; upstream z.grad = 1",
        "y: local 8 × upstream 1 = 8 → y.grad 0 → 8",
    ]


# --- the widget, driven without a browser ---

def test_widget_buttons_step_and_reset_the_readout():
    x, y, a, z = seed_graph()
    box = stepper_widget(z)
    buttons, image, readout = box.children
    next_button, reset_button, slider = buttons.children
    assert "minigrad-stepper-next" in next_button._dom_classes
    assert "minigrad-stepper-readout" in readout._dom_classes
    assert "press Step" in readout.value
    first_image = bytes(image.value)
    assert first_image.startswith(b"\x89PNG")
    next_button.click()
    assert "a: local 10 × upstream 1 = 10 → a.grad 0 → 10" in readout.value
    assert bytes(image.value) != first_image  # the current node is highlighted
    assert slider.value == 1
    next_button.click()
    assert "x: local 1 × upstream 10 = 10 → x.grad 0 → 10" in readout.value
    assert next_button.disabled and "done" in readout.value
    leaves = [n for n in box.stepper.order if n.is_leaf]
    assert grads(*leaves) == pytest.approx([10.0, 10.0])  # the widget's own copy
    assert grads(x, y) == pytest.approx([0.0, 0.0])  # the learner's graph is untouched
    reset_button.click()
    assert "press Step" in readout.value and not next_button.disabled
    assert grads(*leaves) == pytest.approx([0.0, 0.0])
    slider.value = 2
    assert box.stepper.done and grads(*leaves) == pytest.approx([10.0, 10.0])
    assert grads(x, y) == pytest.approx([0.0, 0.0])


def test_copy_graph_keeps_data_labels_and_structure():
    from minigrad.course.widgets.stepper import copy_graph

    x, y, a, z = seed_graph()
    x.grad = 1.5
    copy = copy_graph(z)
    assert copy is not z and copy.data == z.data and copy.label == z.label
    copy.backward()
    leaves = [n for n in copy._prev[0]._prev]
    assert [n.label for n in leaves] == ["x", "y"]
    assert grads(*leaves) == pytest.approx([11.5, 10.0])
    assert grads(x, y) == pytest.approx([1.5, 0.0])
