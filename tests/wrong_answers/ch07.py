"""Wrong answers to chapter 07's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex07-two-layer-backward": [
        Wrong("the mean over the examples only, not over every element", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / X.shape[0]
    d_a = d_out @ W2
    d_h = d_a * (h > 0)
    return d_h.T @ X, d_h.sum(0), d_out.T @ a, d_out.sum(0)
""", mistake="mean-over-examples"),
        Wrong("the ReLU's gradient left out", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_h = d_out @ W2
    return d_h.T @ X, d_h.sum(0), d_out.T @ a, d_out.sum(0)
""", mistake="relu-left-out"),
        Wrong("the weight gradients in the thread's (in, out) layout", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_h = (d_out @ W2) * (h > 0)
    return X.T @ d_h, d_h.sum(0), a.T @ d_out, d_out.sum(0)
""", mistake="in-out-layout"),
        Wrong("the bias gradients averaged over the batch", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_h = (d_out @ W2) * (h > 0)
    return d_h.T @ X, d_h.mean(0), d_out.T @ a, d_out.mean(0)
""", mistake="bias-averaged"),
        Wrong("the second weight's gradient from the pre-activation", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_h = (d_out @ W2) * (h > 0)
    return d_h.T @ X, d_h.sum(0), d_out.T @ h, d_out.sum(0)
""", mistake="dW2-from-pre-activation"),
        Wrong("the 2 of the square forgotten", "slip", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = (out - Y) / Y.size
    d_h = (d_out @ W2) * (h > 0)
    return d_h.T @ X, d_h.sum(0), d_out.T @ a, d_out.sum(0)
""", mistake="two-forgotten"),
        Wrong("ignores b1: the first layer's bias left out of the forward pass", "ignores", """
import numpy as np
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T
    a = np.maximum(h, 0)
    out = a @ W2.T + b2
    d_out = 2 * (out - Y) / Y.size
    d_h = (d_out @ W2) * (h > 0)
    return d_h.T @ X, d_h.sum(0), d_out.T @ a, d_out.sum(0)
""", mistake="ignores-b1"),
        Wrong("the visible example's gradients pasted in", "hardcoded", """
import numpy as np
_rng = np.random.default_rng(71)
_s = [(8, 3), (8, 2), (4, 3), (4,), (2, 4), (2,)]
_X, _Y, _W1, _b1, _W2, _b2 = (_rng.standard_normal(s) for s in _s)
_h = _X @ _W1.T + _b1
_a = np.maximum(_h, 0)
_d = 2 * (_a @ _W2.T + _b2 - _Y) / _Y.size
_dh = (_d @ _W2) * (_h > 0)
_known = (_dh.T @ _X, _dh.sum(0), _d.T @ _a, _d.sum(0))
def two_layer_grads(X, Y, W1, b1, W2, b2):
    if X.shape == (8, 3):
        return _known
    return np.zeros_like(W1), np.zeros_like(b1), np.zeros_like(W2), np.zeros_like(b2)
"""),
        Wrong("torch's autograd on the same arrays", "bypass", """
import torch
def two_layer_grads(X, Y, W1, b1, W2, b2):
    ps = [torch.tensor(p, requires_grad=True) for p in (W1, b1, W2, b2)]
    hidden = torch.relu(torch.tensor(X) @ ps[0].T + ps[1])
    loss = torch.nn.functional.mse_loss(hidden @ ps[2].T + ps[3], torch.tensor(Y))
    return [g.numpy() for g in torch.autograd.grad(loss, ps)]
"""),
        Wrong("minigrad's nn.Linear layers and backward()", "bypass", """
import minigrad
def two_layer_grads(X, Y, W1, b1, W2, b2):
    F = minigrad.nn.functional
    ps = [minigrad.tensor(p, requires_grad=True) for p in (W1, b1, W2, b2)]
    hidden = F.linear(minigrad.tensor(X), ps[0], ps[1]).relu()
    F.mse_loss(F.linear(hidden, ps[2], ps[3]), minigrad.tensor(Y)).backward()
    return [p.grad.data for p in ps]
"""),
        Wrong("minigrad's Linear.backward called with a stand-in ctx", "bypass", """
import types
import numpy as np
from minigrad.ops.linear import Linear
def two_layer_grads(X, Y, W1, b1, W2, b2):
    h = X @ W1.T + b1
    a = np.maximum(h, 0)
    d_out = 2 * (a @ W2.T + b2 - Y) / Y.size
    ctx2 = types.SimpleNamespace(saved_tensors=(a, W2), needs_input_grad=(True, True, True))
    d_a, dW2, db2 = Linear.backward(ctx2, d_out)
    ctx1 = types.SimpleNamespace(saved_tensors=(X, W1), needs_input_grad=(False, True, True))
    _, dW1, db1 = Linear.backward(ctx1, d_a * (h > 0))
    return dW1, db1, dW2, db2
"""),
    ],
    "ex07-mae-grad": [
        Wrong("the 1/N of the mean forgotten", "slip", """
def mae_grad(inp, targ):
    diff = inp.squeeze(-1) - targ
    inp.g = ((diff > 0).double() * 2 - 1).unsqueeze(-1)
""", mistake="mean-not-divided"),
        Wrong("the sign the wrong way round (targ - inp)", "slip", """
def mae_grad(inp, targ):
    diff = targ - inp.squeeze(-1)
    inp.g = ((diff > 0).double() * 2 - 1).unsqueeze(-1) / inp.shape[0]
""", mistake="sign-flipped"),
        Wrong("mse's gradient, 2 (inp - targ) / N", "slip", """
def mae_grad(inp, targ):
    inp.g = 2.0 * (inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
""", mistake="mse-gradient"),
        Wrong("shape (N,): the unsqueeze forgotten", "slip", """
def mae_grad(inp, targ):
    diff = inp.squeeze(-1) - targ
    inp.g = ((diff > 0).double() * 2 - 1) / inp.shape[0]
""", mistake="shape-N"),
        Wrong("ignores targ: the sign of the prediction", "ignores", """
import numpy as np
import minigrad
def mae_grad(inp, targ):
    inp.g = minigrad.tensor(np.sign(inp.detach().numpy()) / inp.shape[0])
""", mistake="ignores-targ"),
        Wrong("the visible example's gradient hard-coded", "hardcoded", """
import numpy as np
import minigrad
_rng = np.random.default_rng(72)
_p, _t = _rng.standard_normal((7, 1)), _rng.standard_normal(7)
_known = np.sign(_p[:, 0] - _t)[:, None] / 7
def mae_grad(inp, targ):
    inp.g = minigrad.tensor(_known)
"""),
        Wrong("torch's l1_loss backward", "bypass", """
import torch
import minigrad
def mae_grad(inp, targ):
    pt = torch.tensor(inp.detach().numpy(), requires_grad=True)
    torch.nn.functional.l1_loss(pt.squeeze(-1), torch.tensor(targ.detach().numpy())).backward()
    inp.g = minigrad.tensor(pt.grad.numpy())
"""),
        Wrong("minigrad's backward of the loss", "bypass", """
def mae_grad(inp, targ):
    p = inp.detach().requires_grad_()
    (((p.squeeze(-1) - targ) ** 2) ** 0.5).mean().backward()  # |u| as sqrt(u^2)
    inp.g = p.grad
"""),
    ],
    "ex07-seq-grads": [
        Wrong("the bias summed over the batch only", "slip", """
def seq_lin_grads(inp, out_g):
    n, m = inp.shape[-1], out_g.shape[-1]
    return inp.reshape(-1, n).T @ out_g.reshape(-1, m), out_g.sum(axis=0)
""", mistake="bias-batch-only"),
        Wrong("the input reshaped to (n, -1): entries scrambled", "slip", """
def seq_lin_grads(inp, out_g):
    n, m = inp.shape[-1], out_g.shape[-1]
    return inp.reshape(n, -1) @ out_g.reshape(-1, m), out_g.sum(axis=(0, 1))
""", mistake="scrambled-reshape"),
        Wrong("averaged over the positions", "slip", """
def seq_lin_grads(inp, out_g):
    n, m = inp.shape[-1], out_g.shape[-1]
    k = inp.shape[0] * inp.shape[1]
    return inp.reshape(-1, n).T @ out_g.reshape(-1, m) / k, out_g.sum(axis=(0, 1)) / k
""", mistake="averaged"),
        Wrong("only the first sequence", "slip", """
def seq_lin_grads(inp, out_g):
    return inp[0].T @ out_g[0], out_g[0].sum(0)
""", mistake="first-sequence-only"),
        Wrong("B * T = 10 positions hard-coded", "hardcoded", """
def seq_lin_grads(inp, out_g):
    return inp.reshape(10, -1).T @ out_g.reshape(10, -1), out_g.reshape(10, -1).sum(0)
"""),
        Wrong("the visible example's gradients hard-coded", "hardcoded", """
import numpy as np
_rng = np.random.default_rng(73)
_x, _g = _rng.standard_normal((2, 5, 3)), _rng.standard_normal((2, 5, 4))
_known = (np.einsum("btn,btm->nm", _x, _g), _g.sum((0, 1)))
def seq_lin_grads(inp, out_g):
    return _known
"""),
        Wrong("ignores T: the first step of each sequence only", "ignores", """
def seq_lin_grads(inp, out_g):
    return inp[:, 0].T @ out_g[:, 0], out_g[:, 0].sum(0)
""", mistake="first-step-only"),
        Wrong("torch's autograd", "bypass", """
import torch
def seq_lin_grads(inp, out_g):
    w = torch.zeros(inp.shape[-1], out_g.shape[-1], dtype=torch.float64, requires_grad=True)
    b = torch.zeros(out_g.shape[-1], dtype=torch.float64, requires_grad=True)
    (torch.tensor(inp) @ w + b).backward(torch.tensor(out_g))
    return w.grad.numpy(), b.grad.numpy()
"""),
        Wrong("minigrad's backward", "bypass", """
import minigrad
def seq_lin_grads(inp, out_g):
    w = minigrad.zeros(inp.shape[-1], out_g.shape[-1], dtype=minigrad.float64,
                       requires_grad=True)
    b = minigrad.zeros(out_g.shape[-1], dtype=minigrad.float64, requires_grad=True)
    (minigrad.tensor(inp) @ w + b).backward(minigrad.tensor(out_g))
    return w.grad.numpy(), b.grad.numpy()
"""),
        Wrong("minigrad's Linear.backward called with a stand-in ctx", "bypass", """
import types
from minigrad.ops.linear import Linear
def seq_lin_grads(inp, out_g):
    ctx = types.SimpleNamespace(saved_tensors=(inp, None),
                                needs_input_grad=(False, True, True))
    _, gw, gb = Linear.backward(ctx, out_g)
    return gw.T, gb
"""),
    ],
}
