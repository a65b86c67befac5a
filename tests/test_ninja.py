"""Chapter 13's puzzle helpers (minigrad.course.ninja): torch's gradients of every
intermediate, the variants the test cell names as slips, and Karpathy's comparison table."""

import numpy as np
import pytest
import torch

from minigrad.course.ninja import ORDER, WIDE, cmp_table, torch_puzzle


def _case(n=6, sizes=(5, 4, 3), seed=0):
    rng = np.random.default_rng(seed)
    p = {"w1": rng.standard_normal(sizes[:2]), "w2": rng.standard_normal(sizes[1:]),
         "b2": rng.standard_normal(sizes[2])}
    return rng.standard_normal((n, sizes[0])), rng.integers(0, sizes[2], n), p


def test_the_forward_is_batch_norm_with_bessel_and_cross_entropy():
    x, labels, p = _case()
    values, grads = torch_puzzle(x, labels, p)
    h = x @ p["w1"]
    raw = (h - h.mean(0)) / np.sqrt(h.var(0, ddof=1) + 1e-5)
    logits = np.tanh(raw) @ p["w2"] + p["b2"]
    np.testing.assert_allclose(values["logits"], logits, rtol=1e-12)
    loss = torch.nn.functional.cross_entropy(torch.tensor(logits), torch.tensor(labels))
    np.testing.assert_allclose(values["loss"], loss.numpy(), rtol=1e-12)
    assert set(ORDER) <= set(grads)
    for name in ORDER:
        assert grads[name].shape == (p | values)[name].shape, name


def test_the_gradients_are_torchs_of_the_loss():
    x, labels, p = _case(seed=1)
    _, grads = torch_puzzle(x, labels, p)
    leaves = {k: torch.tensor(v, requires_grad=True) for k, v in p.items()}
    h = torch.tensor(x) @ leaves["w1"]
    raw = (h - h.mean(0)) / (h.var(0) + 1e-5) ** 0.5
    logits = raw.tanh() @ leaves["w2"] + leaves["b2"]
    torch.nn.functional.cross_entropy(logits, torch.tensor(labels)).backward()
    for name in ("w1", "w2", "b2"):
        np.testing.assert_allclose(grads[name], leaves[name].grad.numpy(), rtol=1e-10,
                                   atol=1e-14)


def test_a_wide_gradient_sums_to_the_narrow_one():
    x, labels, p = _case(seed=2)
    _, grads = torch_puzzle(x, labels, p)
    for name in WIDE:
        wide, narrow = grads[f"{name}:wide"], grads[name]
        axis = 0 if narrow.shape[0] == 1 else 1
        np.testing.assert_allclose(wide.sum(axis, keepdims=True), narrow, rtol=1e-10,
                                   atol=1e-15)
        assert wide.shape != narrow.shape


def test_the_variants_cut_one_path():
    x, labels, p = _case(seed=3)
    values, grads = torch_puzzle(x, labels, p)
    n = len(x)
    cut = torch_puzzle(x, labels, p, "cut bndiff2")[1]
    np.testing.assert_allclose(cut["bndiff"], grads["bnraw"] * values["bnvar_inv"], rtol=1e-10)
    cut = torch_puzzle(x, labels, p, "cut bnmeani")[1]
    np.testing.assert_allclose(cut["hprebn"], grads["bndiff"], rtol=1e-10, atol=1e-15)
    cut = torch_puzzle(x, labels, p, "cut counts_sum")[1]
    np.testing.assert_allclose(cut["counts"], grads["probs"] * values["counts_sum_inv"],
                               rtol=1e-10)
    undivided = torch_puzzle(x, labels, p, "mean undivided")[1]
    np.testing.assert_allclose(undivided["hprebn"], grads["bndiff"] + grads["bnmeani"],
                               rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(grads["hprebn"], grads["bndiff"] + grads["bnmeani"] / n,
                               rtol=1e-10, atol=1e-15)
    assert not np.allclose(undivided["hprebn"], grads["hprebn"])
    with pytest.raises(ValueError, match="unknown variant"):
        torch_puzzle(x, labels, p, "cut w1")


def test_the_table_says_exact_approximate_and_missing():
    x, labels, p = _case(seed=4)
    _, grads = torch_puzzle(x, labels, p)
    yours = {name: grads[name].copy() for name in ORDER}
    yours["probs"] = yours["probs"] + 1e-17 * np.abs(yours["probs"]).max()
    yours["h"] = yours["h"] * 2
    yours["counts_sum_inv"] = grads["counts_sum_inv:wide"]
    del yours["w1"]
    rows = {row[0]: row for row in cmp_table(yours, grads).rows}
    assert rows["dlogprobs"][2:4] == ("True", "True")
    assert rows["dh"][2:4] == ("False", "False")
    assert rows["dcounts_sum_inv"][1].endswith("torch (6, 1)")
    assert rows["dw1"][1] == "missing"
    text = repr(cmp_table(yours, grads))
    assert text.splitlines()[0].split(" | ")[0].strip() == "gradient"
    assert "background:#fdd" in cmp_table(yours, grads)._repr_html_()
