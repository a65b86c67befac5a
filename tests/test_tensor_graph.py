"""minigrad.course.tensor_graph: minigrad's graph, node by node, against torch's."""

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

import minigrad  # noqa: E402
from minigrad.course.graph_memory import torch_saved_tensors  # noqa: E402
from minigrad.course.tensor_graph import (  # noqa: E402
    draw_side_by_side,
    draw_tensor_graph,
    graph_nodes,
    node_text,
    total_saved_bytes,
)


def twins(*shapes, seed=0, grad=True):
    """The same random float32 tensors in both libraries."""
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    ours = [minigrad.tensor(a, requires_grad=grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=grad) for a in arrays]
    return ours, theirs


def tensor_edges(node):
    """Edges to nodes (minigrad also has a None slot for a non-tensor argument)."""
    return tuple(e for e in node.edges if e is not None)


def assert_same_graph(ours, theirs, exact_edges=True):
    mine, torchs = graph_nodes(ours), graph_nodes(theirs)
    assert [n.name for n in mine] == [n.name for n in torchs]
    assert [(n.shape, n.dtype) for n in mine] == [(n.shape, n.dtype) for n in torchs]
    assert [n.saved for n in mine] == [n.saved for n in torchs]
    assert [tensor_edges(n) for n in mine] == [tensor_edges(n) for n in torchs]
    if exact_edges:
        assert [n.edges for n in mine] == [n.edges for n in torchs]
    assert total_saved_bytes(mine) == total_saved_bytes(torchs)
    return mine, torchs


def test_mul_broadcast():
    (a, b), (at, bt) = twins((2, 3), (3,))
    mine, _ = assert_same_graph(a * b, at * bt)
    assert [n.name for n in mine] == ["MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    assert mine[0].edges == (1, 2) and mine[0].shape == (2, 3)
    assert [(s.name, s.shape, s.nbytes, s.leaf) for s in mine[0].saved] == [
        ("other", (3,), 12, True), ("self", (2, 3), 24, True)]
    assert total_saved_bytes(mine) == 36 and total_saved_bytes(mine, leaves=False) == 0


def test_add_broadcast_saves_nothing():
    (a, b), (at, bt) = twins((4, 1), (3,))
    mine, _ = assert_same_graph(a + b, at + bt)
    assert mine[0].name == "AddBackward0" and mine[0].shape == (4, 3)
    assert [n.shape for n in mine[1:]] == [(4, 1), (3,)]
    assert total_saved_bytes(mine) == 0


def test_matmul():
    (a, w), (at, wt) = twins((2, 3), (3, 4))
    mine, _ = assert_same_graph(a @ w, at @ wt)
    assert mine[0].name == "MmBackward0"
    assert [(s.name, s.shape) for s in mine[0].saved] == [("mat2", (3, 4)), ("self", (2, 3))]


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_sum_and_mean_save_no_tensor(op):
    (a,), (at,) = twins((2, 3))
    mine, _ = assert_same_graph(getattr(a, op)(), getattr(at, op)(), exact_edges=False)
    assert mine[0].name == ("SumBackward0" if op == "sum" else "MeanBackward0")
    assert mine[0].shape == () and mine[0].saved == ()
    # minigrad: a None slot per non-tensor argument of forward (dim, keepdim); torch: none.
    assert mine[0].edges == (1, None, None) and graph_nodes(getattr(at, op)())[0].edges == (1,)


def test_relu_saves_its_result():
    (a,), (at,) = twins((2, 3))
    mine, _ = assert_same_graph(a.relu(), at.relu())
    assert [(s.name, s.leaf) for s in mine[0].saved] == [("result", False)]


def mlp_twins(batch=5, x_grad=True):
    """x requires grad here (as an input split off a bigger network would), so that every
    op needs both operands; with a data batch see test_mm_keeps_both_operands..."""
    (x,), (xt,) = twins((batch, 3), seed=1, grad=x_grad)
    (y,), (yt,) = twins((batch, 2), seed=4, grad=False)
    params, params_t = twins((4, 3), (4,), (2, 4), (2,), seed=2)
    return (x, y, *params), (xt, yt, *params_t)


def mlp_loss(x, y, w1, b1, w2, b2):
    h = (x @ w1.t() + b1).relu()
    return (((h @ w2.t() + b2) - y) ** 2).mean()


def test_two_layer_mlp_loss():
    ours, theirs = mlp_twins()
    loss, loss_t = mlp_loss(*ours), mlp_loss(*theirs)
    mine, torchs = assert_same_graph(loss, loss_t, exact_edges=False)
    assert [n.name for n in mine][:6] == ["MeanBackward0", "PowBackward0", "SubBackward0",
                                         "AddBackward0", "MmBackward0", "AccumulateGrad"]
    # Pow's exponent is an argument of forward, so minigrad has a None slot for it.
    assert mine[1].edges == (2, None) and torchs[1].edges == (2,)
    # The relu's result is saved by ReluBackward0 and by the next MmBackward0 (as self):
    # one block of memory, counted once; the same total torch's saved-tensor hooks see.
    relu = next(n for n in mine if n.name == "ReluBackward0")
    mm = mine[4]
    assert relu.saved[0].key == next(s for s in mm.saved if s.name == "self").key
    _, hooked = torch_saved_tensors(lambda: mlp_loss(*theirs))
    assert total_saved_bytes(mine) == sum(b for _, b in hooked)
    leaves_t = [theirs[0], *theirs[2:]]  # x requires grad here: a leaf too
    _, hooked = torch_saved_tensors(lambda: mlp_loss(*theirs), exclude=leaves_t)
    assert total_saved_bytes(mine, leaves=False) == sum(b for _, b in hooked)


def test_nothing_saved_after_backward():
    ours, theirs = mlp_twins()
    loss, loss_t = mlp_loss(*ours), mlp_loss(*theirs)
    loss.backward()
    loss_t.backward()
    mine, torchs = graph_nodes(loss), graph_nodes(loss_t)
    for nodes in (mine, torchs):
        assert total_saved_bytes(nodes) == 0
        assert {n.name for n in nodes if n.freed} == {
            "PowBackward0", "MmBackward0", "ReluBackward0"}
    assert "saved: freed by backward()" in node_text(mine[1])


def test_leaf_and_no_grad_give_no_graph():
    (a,), (at,) = twins((2,))
    assert graph_nodes(a) == [] == graph_nodes(at)
    with minigrad.no_grad():
        assert graph_nodes(a * 2) == []


# The documented differences (module docstring), each as it is.

def test_number_operand_torch_saves_a_tensor_minigrad_the_number():
    (a,), (at,) = twins((2, 3))
    mine, torchs = graph_nodes(a * 3), graph_nodes(at * 3)
    assert [n.edges for n in mine] == [n.edges for n in torchs] == [(1, None), ()]
    fields = [(s.name, s.shape, s.dtype, s.nbytes) for s in (torchs[0].saved + mine[0].saved)]
    assert fields == [("other", (), "int64", 8), ("other", (), "python int", 0)]
    assert total_saved_bytes(torchs) - total_saved_bytes(mine) == 8


def test_nn_linear_one_fused_node_edges_in_another_order():
    torch.manual_seed(0)
    layer_t = torch.nn.Linear(3, 4)
    layer = minigrad.nn.Linear(3, 4)
    layer.load_state_dict(layer_t.state_dict())
    (x,), (xt,) = twins((5, 3), grad=True)
    mine, torchs = graph_nodes(layer(x)), graph_nodes(layer_t(xt))
    assert [n.name for n in mine] == ["AddmmBackward0"] + ["AccumulateGrad"] * 3
    assert [n.name for n in torchs] == ["AddmmBackward0", "AccumulateGrad", "AccumulateGrad",
                                        "TBackward0", "AccumulateGrad"]
    assert [n.shape for n in mine[1:]] == [(5, 3), (4, 3), (4,)]  # x, W, b
    assert [torchs[i].shape for i in (2, 4, 1)] == [(5, 3), (4, 3), (4,)]  # x, W (via T), b
    # Same tensors saved; torch keeps W.t() (3, 4), minigrad W itself (4, 3): same memory.
    assert [(s.name, s.shape, s.nbytes, s.leaf) for s in torchs[0].saved] == [
        ("mat1", (5, 3), 60, True), ("mat2", (3, 4), 48, True)]
    assert [(s.name, s.shape, s.nbytes, s.leaf) for s in mine[0].saved] == [
        ("mat1", (5, 3), 60, True), ("mat2", (4, 3), 48, True)]
    assert total_saved_bytes(mine) == total_saved_bytes(torchs) == 60 + 48


def test_mm_keeps_only_the_operand_the_other_gradient_needs_as_torch():
    (w,), (wt,) = twins((3, 4))
    (x,), (xt,) = twins((2, 3), seed=3, grad=False)
    mine, torchs = graph_nodes(x @ w), graph_nodes(xt @ wt)
    assert [s.name for s in mine[0].saved] == [s.name for s in torchs[0].saved] == ["self"]
    assert total_saved_bytes(mine) == total_saved_bytes(torchs)
    # In the MLP with a data batch, every node saves what torch's saves.
    ours, theirs = mlp_twins(x_grad=False)
    mine, torchs = graph_nodes(mlp_loss(*ours)), graph_nodes(mlp_loss(*theirs))
    assert [a.saved for a in mine] == [b.saved for b in torchs]


def test_mse_loss_saves_its_inputs_as_torch():
    (x, y), (xt, yt) = twins((5, 2), (5, 2))
    y, yt = y.detach(), yt.detach()
    mine = graph_nodes(minigrad.nn.functional.mse_loss(x, y))
    torchs = graph_nodes(torch.nn.functional.mse_loss(xt, yt))
    assert mine[0].name == torchs[0].name == "MseLossBackward0"
    assert [s.name for s in mine[0].saved] == [s.name for s in torchs[0].saved] == [
        "self", "target"]
    assert total_saved_bytes(mine) == total_saved_bytes(torchs)


# The drawing

def test_drawing_has_one_box_per_node_and_the_total_in_the_title():
    ours, theirs = mlp_twins()
    loss = mlp_loss(*ours)
    fig = draw_tensor_graph(loss, title="loss")
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts if t.get_text()]
    assert len(texts) == len(graph_nodes(loss))
    assert texts[0].startswith("MeanBackward0\nout () float32")
    total = total_saved_bytes(graph_nodes(loss))
    assert ax.get_title() == f"loss\nsaved for backward: {total:,} bytes"
    assert fig._repr_png_()[:4] == b"\x89PNG"


def test_side_by_side_is_the_same_on_every_run():
    def texts():
        ours, theirs = mlp_twins()
        fig = draw_side_by_side(mlp_loss(*ours), mlp_loss(*theirs))
        return [(ax.get_title(), [t.get_text() for t in ax.texts if t.get_text()],
                 ax.get_position().bounds) for ax in fig.axes]

    first = texts()
    assert [t[0].split("\n")[0] for t in first] == ["minigrad", "torch"]
    assert first == texts()
