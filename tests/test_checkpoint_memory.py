"""Chapter 16's checkpointing model, apart from its drawing: bytes against torch's saved
tensors, the recomputed blocks, the gradients."""

import numpy as np
import pytest
import torch

import minigrad
from minigrad.course.widgets.checkpoint_memory import CheckpointMemory


@pytest.fixture(scope="module")
def memory():
    return CheckpointMemory(depth=6, every=0)


def test_without_checkpointing_each_block_keeps_its_input_and_two_tanh_outputs(memory):
    memory.set(6, 0)
    block = memory.batch * memory.width * 8  # one float64 activation
    r = memory.results
    assert r["kept"] == r["torch_kept"] == r["plain"] == (2 * 6 + 1) * block
    assert r["torch_count"] == 13
    assert r["peak"] == r["kept"] and r["recomputed"] == 0 and r["grads_agree"]


@pytest.mark.parametrize(("depth", "every"), [(6, 1), (6, 2), (6, 4), (7, 3), (12, 12)])
def test_checkpointing_keeps_one_input_per_segment_as_torch_and_recomputes_every_block(
        memory, depth, every):
    memory.set(depth, every)
    block = memory.batch * memory.width * 8
    segments = -(-depth // every)
    r = memory.results
    assert len(memory.segments()) == segments
    assert r["kept"] == r["torch_kept"] == segments * block
    assert r["torch_count"] == segments
    assert r["recomputed"] == depth
    assert r["peak"] == r["kept"] + 2 * min(every, depth) * block  # the longest segment
    assert r["plain"] == (2 * depth + 1) * block
    assert r["grads_agree"]


def test_the_output_and_gradients_are_torch_s_whatever_the_checkpointing(memory):
    memory.set(5, 2)
    params = [(torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True))
              for a, b in memory.weights[:5]]
    h = torch.tensor(memory.x0)
    for w1, w2 in params:
        h = torch.tanh(torch.tanh(h @ w1) @ w2)
    np.testing.assert_allclose(memory.results["out"], h.detach().numpy(), rtol=1e-12)
    h.sum().backward()
    mg_params = memory._params(minigrad)
    out, _ = memory.forward(minigrad, mg_params)
    out.sum().backward()
    for (a, b), (ta, tb) in zip(mg_params, params, strict=True):
        np.testing.assert_allclose(a.grad.data, ta.grad.numpy(), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(b.grad.data, tb.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_text_names_the_setting_and_measure_adds_the_times(memory):
    memory.set(4, 2)
    text = memory.text()
    assert "4 blocks" in text and "checkpoint every 2 block(s): 2 segment(s)" in text
    assert "block forwards run again in backward: 4" in text and "measured" not in text
    now, plain = memory.measure(repeats=2)
    assert now > 0 and plain > 0 and "measured (best of 5)" in memory.text()
    assert memory.every == 2
    memory.set(4, 0)
    assert "no checkpointing" in memory.text() and memory.times is None


def test_depth_out_of_range_is_refused(memory):
    with pytest.raises(ValueError, match="depth must be 1 to 12"):
        memory.set(13, 0)
