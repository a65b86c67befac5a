"""The topological sort stepped (chapter 03): its stack, visited set and order, then the
widget around it."""

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
import torch  # noqa: E402

from minigrad import Value, backward_order  # noqa: E402
from minigrad.course.graph import node_names  # noqa: E402
from minigrad.course.widgets.topo_view import TopoSortStepper, topo_sort_widget, topo_text  # noqa: E402


def shared_graph():
    """Chapter 03's graph: a = p * q feeds tanh and the product; out = a * tanh(a) + p."""
    p, q = Value(2.0, label="p"), Value(-1.0, label="q")
    a = p * q
    a.label = "a"
    b = a.tanh()
    b.label = "b"
    out = a * b + p
    out.label = "out"
    return p, q, a, b, out


def test_the_order_is_backward_order_reversed():
    *_, out = shared_graph()
    stepper = TopoSortStepper(out)
    while not stepper.done:
        stepper.step()
    assert stepper.order == list(reversed(backward_order(out)))
    place = {id(n): k for k, n in enumerate(stepper.order)}
    assert all(place[id(p)] < place[id(n)] for n in stepper.order for p in n._prev)


def test_first_steps_show_the_stack_and_the_visited_set():
    p, q, a, b, out = shared_graph()
    stepper = TopoSortStepper(out)
    names = node_names(out)
    event = stepper.step()
    assert event.kind == "expand" and event.node is out and event.pushed == out._prev
    assert [(names[id(n)], done) for n, done in stepper.stack] == [
        ("out", True), ("v0", False), ("p", False)]
    assert stepper.visited == [out] and stepper.order == []
    stepper.step()  # p, first visit: a leaf, pushed back with nothing above it
    assert stepper.step().kind == "place" and stepper.order == [p]
    lines = topo_text(stepper, names)
    assert lines[0].startswith("pop p✓") and lines[-1] == "order so far: [p]"
    assert "visited: {out, p}" in lines


def test_a_node_met_twice_is_skipped_the_second_time():
    *_, a, b, out = shared_graph()
    stepper = TopoSortStepper(out)
    kinds = []
    while not stepper.done:
        kinds.append(stepper.step())
    skipped = [e.node for e in kinds if e.kind == "skip"]
    assert skipped == [a]  # pushed by v0 = a * b before b visited it
    assert len(stepper.visited) == len(backward_order(out)) == 6
    assert stepper.position == stepper.count_steps() == 13


def test_a_backward_pass_in_the_stepped_order_matches_torch():
    p, q, a, b, out = shared_graph()
    stepper = TopoSortStepper(out)
    stepper.goto(10_000)
    out.grad = 1.0
    for node in reversed(stepper.order):
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
    pt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    qt = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
    at = pt * qt
    (at * at.tanh() + pt).backward()
    assert [p.grad, q.grad] == pytest.approx([pt.grad.item(), qt.grad.item()], rel=1e-15)


def test_a_deep_chain_needs_no_recursion():
    v = Value(1.0)
    for _ in range(3000):
        v = v * 1.0
    stepper = TopoSortStepper(v)
    stepper.goto(10**6)
    assert stepper.done and len(stepper.order) == 6001


def test_widget_steps_resets_and_keeps_the_graph_untouched():
    *_, out = shared_graph()
    box = topo_sort_widget(out)
    buttons, image, readout = box.children
    step, reset, slider = buttons.children
    assert "minigrad-ch03-topo-step" in step._dom_classes
    assert "minigrad-ch03-topo-readout" in readout._dom_classes
    assert "step 0 of 13" in readout.value and "start" in readout.value
    first = bytes(image.value)
    step.click()
    assert "step 1 of 13" in readout.value and "pop out (first visit)" in readout.value
    assert bytes(image.value) != first and slider.value == 1
    slider.value = 13
    assert "done" in readout.value and step.disabled
    assert "order so far: [p, q, a, b, v0, out]" in readout.value
    assert box.stepper.root is not out
    reset.click()
    assert "step 0 of 13" in readout.value and not step.disabled
