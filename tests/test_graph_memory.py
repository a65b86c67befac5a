"""minigrad.course.graph_memory: saved arrays of a graph, counted as torch counts them (ch 09)."""

import torch

import minigrad
from minigrad.course.graph_memory import saved_arrays, saved_bytes, torch_saved_tensors


def _twin_mlp():
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(5, 7), torch.nn.ReLU(), torch.nn.Linear(7, 2))
    ours = minigrad.nn.Sequential(minigrad.nn.Linear(5, 7), minigrad.nn.ReLU(),
                                  minigrad.nn.Linear(7, 2))
    ours.load_state_dict(theirs.state_dict())
    return ours, theirs


def test_saved_activations_match_torch_and_scale_with_the_batch():
    ours, theirs = _twin_mlp()
    for batch in (1, 3, 10):
        x_t = torch.randn(batch, 5)
        _, saved_t = torch_saved_tensors(lambda x=x_t: theirs(x), exclude=list(theirs.parameters()))
        out = ours(minigrad.tensor(x_t.numpy()))
        params = list(ours.parameters())
        assert sorted(a.shape for a in saved_arrays(out, params)) == sorted(s for s, _ in saved_t)
        assert saved_bytes(out, params) == sum(b for _, b in saved_t) == batch * (5 + 7) * 4


def test_nothing_saved_under_no_grad_and_nothing_left_after_backward():
    ours, theirs = _twin_mlp()
    x_t = torch.randn(4, 5)
    with torch.no_grad():
        _, saved_t = torch_saved_tensors(lambda: theirs(x_t))
    with minigrad.no_grad():
        out = ours(minigrad.tensor(x_t.numpy()))
    assert saved_t == [] and saved_arrays(out) == [] and saved_bytes(out) == 0
    out = ours(minigrad.tensor(x_t.numpy())).sum()
    assert saved_bytes(out) > 0
    out.backward()
    assert saved_bytes(out) == 0
