"""Wrong answers to chapter 07's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex07-lin-grad-torch-layout": [
        Wrong("the forum thread's weight gradient, in (in, out) layout", "slip", """
def lin_grad_tl(inp, out, weight, bias):
    inp.g = out.g @ weight
    weight.g = inp.t() @ out.g
    bias.g = out.g.sum(0)
"""),
        Wrong("the forum thread's input gradient, out.g @ weight.t()", "slip", """
def lin_grad_tl(inp, out, weight, bias):
    inp.g = out.g @ weight.t()
    weight.g = out.g.t() @ inp
    bias.g = out.g.sum(0)
"""),
        Wrong("the bias gradient averaged over the batch", "slip", """
def lin_grad_tl(inp, out, weight, bias):
    inp.g = out.g @ weight
    weight.g = out.g.t() @ inp
    bias.g = out.g.mean(0)
"""),
        Wrong("the bias gradient summed over the outputs", "slip", """
def lin_grad_tl(inp, out, weight, bias):
    inp.g = out.g @ weight
    weight.g = out.g.t() @ inp
    bias.g = out.g.sum(1)
"""),
        Wrong("ignores out.g: the gradient of out.sum()", "ignores", """
import minigrad
def lin_grad_tl(inp, out, weight, bias):
    ones = minigrad.ones(*out.shape, dtype=minigrad.float64)
    inp.g = ones @ weight
    weight.g = ones.t() @ inp
    bias.g = ones.sum(0)
"""),
        Wrong("the visible example's gradients hard-coded", "hardcoded", """
import numpy as np
import minigrad
_rng = np.random.default_rng(71)
_a = {k: _rng.standard_normal(s) for k, s in
      [("inp", (6, 3)), ("weight", (2, 3)), ("bias", (2,)), ("g", (6, 2))]}
_known = {"inp": _a["g"] @ _a["weight"], "weight": _a["g"].T @ _a["inp"],
          "bias": _a["g"].sum(0)}
def lin_grad_tl(inp, out, weight, bias):
    inp.g = minigrad.tensor(_known["inp"])
    weight.g = minigrad.tensor(_known["weight"])
    bias.g = minigrad.tensor(_known["bias"])
"""),
        Wrong("torch's autograd, copied into .g", "bypass", """
import torch
import minigrad
def lin_grad_tl(inp, out, weight, bias):
    ts = [torch.tensor(t.detach().numpy(), requires_grad=True) for t in (inp, weight, bias)]
    torch.nn.functional.linear(*ts).backward(torch.tensor(out.g.detach().numpy()))
    for t, tt in zip((inp, weight, bias), ts):
        t.g = minigrad.tensor(tt.grad.numpy())
"""),
        Wrong("minigrad's backward on copies that require grad", "bypass", """
import minigrad
def lin_grad_tl(inp, out, weight, bias):
    copies = [t.detach().requires_grad_() for t in (inp, weight, bias)]
    minigrad.nn.functional.linear(*copies).backward(out.g)
    for t, c in zip((inp, weight, bias), copies):
        t.g = c.grad
"""),
        Wrong("minigrad's Linear.backward called with a stand-in ctx", "bypass", """
import types
import minigrad
from minigrad.ops.linear import Linear
def lin_grad_tl(inp, out, weight, bias):
    ctx = types.SimpleNamespace(saved_tensors=(inp.detach().numpy(), weight.detach().numpy()),
                                needs_input_grad=(True, True, True))
    gx, gw, gb = Linear.backward(ctx, out.g.detach().numpy())
    inp.g, weight.g, bias.g = minigrad.tensor(gx), minigrad.tensor(gw), minigrad.tensor(gb)
"""),
    ],
    "ex07-mae-grad": [
        Wrong("the 1/N of the mean forgotten", "slip", """
def mae_grad(inp, targ):
    diff = inp.squeeze(-1) - targ
    inp.g = ((diff > 0).double() * 2 - 1).unsqueeze(-1)
"""),
        Wrong("the sign the wrong way round (targ - inp)", "slip", """
def mae_grad(inp, targ):
    diff = targ - inp.squeeze(-1)
    inp.g = ((diff > 0).double() * 2 - 1).unsqueeze(-1) / inp.shape[0]
"""),
        Wrong("mse's gradient, 2 (inp - targ) / N", "slip", """
def mae_grad(inp, targ):
    inp.g = 2.0 * (inp.squeeze(-1) - targ).unsqueeze(-1) / inp.shape[0]
"""),
        Wrong("shape (N,): the unsqueeze forgotten", "slip", """
def mae_grad(inp, targ):
    diff = inp.squeeze(-1) - targ
    inp.g = ((diff > 0).double() * 2 - 1) / inp.shape[0]
"""),
        Wrong("ignores targ: the sign of the prediction", "ignores", """
import numpy as np
import minigrad
def mae_grad(inp, targ):
    inp.g = minigrad.tensor(np.sign(inp.detach().numpy()) / inp.shape[0])
"""),
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
"""),
        Wrong("the input reshaped to (n, -1): entries scrambled", "slip", """
def seq_lin_grads(inp, out_g):
    n, m = inp.shape[-1], out_g.shape[-1]
    return inp.reshape(n, -1) @ out_g.reshape(-1, m), out_g.sum(axis=(0, 1))
"""),
        Wrong("averaged over the positions", "slip", """
def seq_lin_grads(inp, out_g):
    n, m = inp.shape[-1], out_g.shape[-1]
    k = inp.shape[0] * inp.shape[1]
    return inp.reshape(-1, n).T @ out_g.reshape(-1, m) / k, out_g.sum(axis=(0, 1)) / k
"""),
        Wrong("only the first sequence", "slip", """
def seq_lin_grads(inp, out_g):
    return inp[0].T @ out_g[0], out_g[0].sum(0)
"""),
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
"""),
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
