"""Chapter 13's capstone helpers: the numpy backward and its breaks against torch, the check
table, the training runs against torch, then the widget around the check."""

import numpy as np
import pytest
import torch

from minigrad.course.capstone import (
    BREAKS,
    STEPS,
    BackwardCheck,
    accuracy,
    break_widget,
    broken_gradients,
    epoch_batches,
    forward_numpy,
    init_params,
    load_digits_arrays,
    load_digits_split,
    torch_gradients,
    train_minigrad,
    train_torch,
)
from tests.capstone_solution import backward_numpy


@pytest.fixture(scope="module")
def batch():
    x, y = load_digits_split(n_train=1500, seed=0)[:2]
    return x[:40], y[:40], init_params((64, 32, 10), seed=0)


def test_the_split_is_seeded_and_complete():
    a, b = load_digits_split(seed=0), load_digits_split(seed=0)
    assert all(np.array_equal(u, v) for u, v in zip(a, b, strict=True))
    x_train, y_train, x_test, y_test = a
    assert x_train.shape == (1500, 64) and x_test.shape == (297, 64)
    assert 0.0 <= x_train.min() and x_train.max() <= 1.0
    assert sorted(np.concatenate([y_train, y_test]).tolist()) == sorted(
        __import__("sklearn.datasets").datasets.load_digits().target.tolist())


def test_the_digits_are_scikit_learns_own():
    """Read from scikit-learn's file without importing it: the arrays load_digits() gives,
    dtypes too; and the split is the one made from load_digits() itself."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    data, target = load_digits_arrays()
    assert data.dtype == digits.data.dtype and target.dtype == digits.target.dtype
    assert np.array_equal(data, digits.data) and np.array_equal(target, digits.target)
    order = np.random.default_rng(0).permutation(len(digits.target))
    x_train, y_train, x_test, y_test = load_digits_split(n_train=1500, seed=0)
    assert np.array_equal(x_train, digits.data[order][:1500] / 16.0)
    assert np.array_equal(y_test, digits.target[order][1500:])


@pytest.mark.parametrize("loss", ["cross_entropy", "mse"])
def test_train_torch_steps_as_torch_optim_sgd_does(loss):
    """train_torch writes SGD's step out; with torch.optim.SGD itself in its place (an
    optimizer driven as usual: zero_grad, backward, step) every loss and accuracy is the
    same, bit for bit."""
    data = load_digits_split(n_train=1500, seed=0)
    p0 = init_params((64, 32, 10), seed=0)
    ours = train_torch(p0, data, 2, 32, 0.1, 1, loss=loss)

    def with_sgd(p0, data, epochs, batch, lr, seed, loss):
        x, y, x_test, y_test = data
        p = [torch.tensor(v, requires_grad=True) for v in p0.values()]
        x_t, y_t = torch.tensor(x), torch.as_tensor(y)
        onehot = torch.nn.functional.one_hot(y_t, 10).double()
        optimizer = torch.optim.SGD(p, lr=lr)
        rng = np.random.default_rng(seed)
        losses, accs = [], []
        for _ in range(epochs):
            for rows in epoch_batches(len(x), batch, rng):
                h = (x_t[rows] @ p[0] + p[1]).relu() @ p[2] + p[3]
                value = (torch.nn.functional.mse_loss(h, onehot[rows]) if loss == "mse"
                         else torch.nn.functional.cross_entropy(h, y_t[rows]))
                optimizer.zero_grad()
                value.backward()
                optimizer.step()
                losses.append(value.item())
            accs.append(accuracy(dict(zip(p0, [t.detach().numpy() for t in p], strict=True)),
                                 x_test, y_test))
        return losses, accs

    assert ours == with_sgd(p0, data, 2, 32, 0.1, 1, loss)


def test_init_params_shapes_and_scale():
    p = init_params((64, 32, 10), seed=3)
    assert {k: v.shape for k, v in p.items()} == {"w1": (64, 32), "b1": (32,),
                                                  "w2": (32, 10), "b2": (10,)}
    assert not p["b1"].any() and abs(p["w1"].std() - np.sqrt(2 / 64)) < 0.03


def test_forward_matches_torch(batch):
    x, y, p = batch
    v = forward_numpy(x, p)
    t = {k: torch.tensor(a) for k, a in p.items()}
    logits = (torch.tensor(x) @ t["w1"] + t["b1"]).relu() @ t["w2"] + t["b2"]
    np.testing.assert_allclose(v["logits"], logits.numpy(), rtol=1e-12)
    np.testing.assert_allclose(v["logp"], torch.log_softmax(logits, 1).numpy(), rtol=1e-12)


def test_unbroken_backward_matches_torch(batch):
    x, y, p = batch
    ref = torch_gradients(x, y, p)
    for ours in (backward_numpy(x, y, p), broken_gradients(x, y, p)):
        assert list(ours) == list(STEPS)
        for name in STEPS:
            np.testing.assert_allclose(ours[name], ref[name], rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("name", ["relu mask", "1/N", "transpose", "bias sum axis"])
def test_each_break_is_the_slip_of_a_hand_written_backward(batch, name):
    """Each break equals the reference backward with its one line changed."""
    x, y, p = batch
    ours = broken_gradients(x, y, p, [name])
    ref = backward_numpy(x, y, p)
    v = forward_numpy(x, p)
    if name == "relu mask":
        expect = {"l1": ref["a1"], "w1": x.T @ ref["a1"], "b1": ref["a1"].sum(0)}
    elif name == "1/N":
        expect = {k: value * len(x) for k, value in ref.items()}
    elif name == "transpose":
        expect = {"w2": ref["logits"].T @ v["a1"], "w1": ref["l1"].T @ x}
    else:
        expect = {"b2": ref["logits"].sum(1), "b1": ref["l1"].sum(1)}
    for key in STEPS:
        want = expect.get(key, ref[key])
        assert ours[key].shape == want.shape, key
        np.testing.assert_allclose(ours[key], want, rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("breaks,first", [
    ((), None), (("relu mask",), "l1.g"), (("1/N",), "logp.g"), (("transpose",), "w2.g"),
    (("bias sum axis",), "b2.g"), (("relu mask", "bias sum axis"), "b2.g")])
def test_first_wrong_gradient_points_at_the_broken_line(batch, breaks, first):
    check = BackwardCheck(*batch)
    assert check.first_wrong(breaks) == first
    table = check.table(breaks)
    assert table.first_wrong == first
    failing = [row.name for row in table.rows if not row.ok]
    assert (failing[0] if failing else None) == first


def test_what_each_break_spoils(batch):
    check = BackwardCheck(*batch)
    failing = {name: {row.name for row in check.rows([name]) if not row.ok} for name in BREAKS}
    assert failing["relu mask"] == {"l1.g", "w1.g", "b1.g"}
    assert failing["1/N"] == {f"{s}.g" for s in STEPS}
    assert failing["transpose"] == {"w2.g", "w1.g"}
    assert failing["bias sum axis"] == {"b2.g", "b1.g"}
    rows = {row.name: row for row in check.rows(["transpose"])}
    assert rows["w2.g"].shape == (10, 32) and rows["w2.g"].torch_shape == (32, 10)
    assert rows["w2.g"].diff is None
    ours = broken_gradients(*batch, breaks=["1/N"])
    np.testing.assert_allclose(ours["w1"] / len(batch[0]), check.reference["w1"], rtol=1e-10)


def test_unknown_break_is_refused(batch):
    with pytest.raises(KeyError, match="unknown break"):
        broken_gradients(*batch, breaks=["sign"])


def test_check_works_on_its_own_copies(batch):
    x, y, p = batch
    x2, p2 = x.copy(), {k: v.copy() for k, v in p.items()}
    check = BackwardCheck(x2, y, p2)
    x2[:] = 0.0
    p2["w1"][:] = 0.0
    assert check.first_wrong() is None
    assert np.array_equal(check.x, x)


def test_table_text_and_html(batch):
    table = BackwardCheck(*batch).table(["relu mask"])
    text = repr(table)
    assert text.splitlines()[0] == "broken: relu mask; first wrong gradient: l1.g"
    assert "l1.g      (40, 32)  (40, 32)" in text and "FAIL" in text
    html = table._repr_html_()
    assert html.count("background:#fdd") == 3 and "<table>" in html
    assert "every gradient matches torch" in repr(BackwardCheck(*batch).table())


def test_epoch_batches_cover_every_row_once():
    rng = np.random.default_rng(5)
    first, second = epoch_batches(10, 4, rng), epoch_batches(10, 4, rng)
    assert [len(b) for b in first] == [4, 4, 2]
    assert sorted(np.concatenate(first).tolist()) == list(range(10))
    assert not np.array_equal(np.concatenate(first), np.concatenate(second))


def test_minigrad_training_matches_torch():
    x, y, x_test, y_test = load_digits_split(n_train=1500, seed=0)
    data = (x[:200], y[:200], x_test, y_test)
    p0 = init_params((64, 16, 10), seed=1)
    losses_t, accs_t = train_torch(p0, data, 2, 32, 0.1, seed=2)
    losses_m, accs_m = train_minigrad(p0, data, 2, 32, 0.1, seed=2)
    assert len(losses_t) == 2 * 7 and len(accs_t) == 2
    np.testing.assert_allclose(losses_m, losses_t, rtol=1e-10)
    assert accs_m == accs_t
    assert losses_t[-1] < losses_t[0]
    _, accs_mse = train_torch(p0, data, 1, 32, 0.1, seed=2, loss="mse")
    assert 0.0 <= accs_mse[0] <= 1.0


def test_accuracy_of_a_perfect_and_a_logistic_model():
    x = np.eye(3)
    p = {"w1": np.eye(3), "b1": np.zeros(3)}
    assert accuracy(p, x, np.array([0, 1, 2])) == 1.0
    assert accuracy(p, x, np.array([1, 1, 1])) == pytest.approx(1 / 3)


def test_widget_boxes_turn_rows_red(batch):
    widget = break_widget(BackwardCheck(*batch))
    *boxes, table = widget.children
    assert len(boxes) == len(BREAKS)
    assert "background:#fdd" not in table.value
    classes = [b._dom_classes[0] for b in boxes]
    assert classes == ["minigrad-ch13-break-relu-mask", "minigrad-ch13-break-1-n",
                       "minigrad-ch13-break-transpose", "minigrad-ch13-break-bias-sum-axis"]
    boxes[0].value = True
    assert "first wrong gradient: l1.g" in table.value
    assert table.value.count("background:#fdd") == 3
    boxes[1].value = True
    assert "first wrong gradient: logp.g" in table.value
    boxes[0].value = boxes[1].value = False
    assert "every gradient matches torch" in table.value
