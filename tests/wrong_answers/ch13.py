"""Wrong answers to chapter 13's exercises."""

from tests.wrong_answers import Wrong

_DEEP_FORWARD = """
    h1 = lin(x, q["w1"], q["b1"])
    r1 = h1.relu()
    h2 = lin(r1, q["w2"], q["b2"])
    r2 = h2.relu()
    h3 = lin(r2, q["w3"], q["b3"])
    deep_loss = mse(h3, target)
"""

WRONG = {
    "ex13-cross-entropy-grad": [
        Wrong("the 1/N of the mean forgotten", "slip", """
def cross_entropy_grad(logits, labels):
    e = (logits - logits.max(dim=1, keepdim=True).values).exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    logits.g = softmax - minigrad.tensor(np.eye(logits.shape[1])[labels])
"""),
        Wrong("softmax along the batch (dim 0)", "slip", """
def cross_entropy_grad(logits, labels):
    e = (logits - logits.max(dim=0, keepdim=True).values).exp()
    softmax = e / e.sum(dim=0, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (softmax - onehot) / logits.shape[0]
"""),
        Wrong("the sign flipped: one-hot minus softmax", "slip", """
def cross_entropy_grad(logits, labels):
    e = (logits - logits.max(dim=1, keepdim=True).values).exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (onehot - softmax) / logits.shape[0]
"""),
        Wrong("no maximum subtracted: overflows for large logits", "slip", """
def cross_entropy_grad(logits, labels):
    e = logits.exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (softmax - onehot) / logits.shape[0]
"""),
        Wrong("divided by N * C, as the mean squared error", "slip", """
def cross_entropy_grad(logits, labels):
    e = (logits - logits.max(dim=1, keepdim=True).values).exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (softmax - onehot) / logits.numel()
"""),
        Wrong("ignores labels: the predicted class as the label", "ignores", """
def cross_entropy_grad(logits, labels):
    e = (logits - logits.max(dim=1, keepdim=True).values).exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[logits.data.argmax(axis=1)])
    logits.g = (softmax - onehot) / logits.shape[0]
"""),
        Wrong("the visible gradient hard-coded", "hardcoded", """
def cross_entropy_grad(logits, labels):
    logits.g = minigrad.tensor([
        [-0.16356238381429786, 0.16186849553408936, 0.0006175377663740463,
         0.0010763505138344574],
        [0.15510152651853354, 0.006881005292960129, 0.00016445347860853324,
         -0.1621469852901022],
        [0.02382249499667914, -0.12792197275007272, 0.10344166998491423,
         0.0006578077684793608],
        [9.55789548230151e-07, -0.16661516462086848, 0.16361728330489,
         0.0029969255264302554],
        [8.019963027269206e-05, 1.9134619019669828e-07, -0.00018895492970964303,
         0.00010856395324677437],
        [0.0624536240297351, 0.018247276034720407, 0.08011518921897919,
         -0.1608160892834347]], dtype=minigrad.float64)[: logits.shape[0], : logits.shape[1]]
"""),
        Wrong("minigrad's cross_entropy and backward()", "bypass", """
def cross_entropy_grad(logits, labels):
    z = logits.detach().clone().requires_grad_()
    minigrad.nn.functional.cross_entropy(z, labels).backward()
    logits.g = z.grad
"""),
        Wrong("torch's cross_entropy and backward()", "bypass", """
import torch
def cross_entropy_grad(logits, labels):
    z = torch.tensor(logits.data, requires_grad=True)
    torch.nn.functional.cross_entropy(z, torch.tensor(labels)).backward()
    logits.g = minigrad.tensor(z.grad.numpy())
"""),
        Wrong("minigrad's own cross-entropy backward on a ctx of its own", "bypass", """
from minigrad.ops.losses import CrossEntropy as _CE
def cross_entropy_grad(logits, labels):
    ctx = _CE()
    _CE.forward(ctx, logits.data, np.asarray(labels), "mean")
    logits.g = minigrad.tensor(_CE.backward(ctx, np.array(1.0))[0])
"""),
        Wrong("copies a torch gradient left in the notebook", "bypass", """
import torch
def cross_entropy_grad(logits, labels):
    for value in list(get_ipython().user_ns.values()):
        if isinstance(value, torch.Tensor) and value.grad is not None \\
                and tuple(value.shape) == tuple(logits.shape):
            logits.g = minigrad.tensor(value.grad.numpy())
            return
    logits.g = minigrad.zeros(*logits.shape, dtype=minigrad.float64)
"""),
    ],
    "ex13-leaky-relu-grad": [
        Wrong("inp >= 0: the derivative 1 at zero", "slip", """
def leaky_relu_grad(inp, out, slope=0.01):
    positive = (inp >= 0).double()
    inp.g = (positive + slope * (1 - positive)) * out.g
"""),
        Wrong("the local derivative alone, out.g forgotten", "slip", """
def leaky_relu_grad(inp, out, slope=0.01):
    positive = (inp > 0).double()
    inp.g = positive + slope * (1 - positive)
"""),
        Wrong("the two sides swapped", "slip", """
def leaky_relu_grad(inp, out, slope=0.01):
    positive = (inp > 0).double()
    inp.g = (slope * positive + (1 - positive)) * out.g
"""),
        Wrong("ignores slope: always 0.01", "ignores", """
def leaky_relu_grad(inp, out, slope=0.01):
    positive = (inp > 0).double()
    inp.g = (positive + 0.01 * (1 - positive)) * out.g
"""),
        Wrong("ignores slope: the derivative read off out / inp", "ignores", """
def leaky_relu_grad(inp, out, slope=0.01):
    inp.g = out / inp * out.g
"""),
        Wrong("the relu gradient (slope 0)", "slip", """
def leaky_relu_grad(inp, out, slope=0.01):
    inp.g = (inp > 0).double() * out.g
"""),
        Wrong("the visible example hard-coded by shape", "hardcoded", """
def leaky_relu_grad(inp, out, slope=0.01):
    positive = (inp > 0).double()
    s = 0.01 if inp.shape == (5, 7) else 0.2
    inp.g = (positive + s * (1 - positive)) * out.g
"""),
        Wrong("torch's leaky_relu and backward()", "bypass", """
import torch
def leaky_relu_grad(inp, out, slope=0.01):
    t = torch.tensor(inp.data, requires_grad=True)
    torch.nn.functional.leaky_relu(t, slope).backward(torch.tensor(out.g.data))
    inp.g = minigrad.tensor(t.grad.numpy())
"""),
        Wrong("minigrad's autograd on relu(x) - slope relu(-x)", "bypass", """
def leaky_relu_grad(inp, out, slope=0.01):
    t = inp.detach().clone().requires_grad_()
    (t.relu() - slope * (-t).relu()).backward(out.g)
    inp.g = t.grad
"""),
    ],
    "ex13-deep-backward": [
        Wrong("the second relu_grad skipped", "slip", """
def forward_and_backward_deep(x, target, q):""" + _DEEP_FORWARD + """
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    h2.g = r2.g
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("backward in forward order", "slip", """
def forward_and_backward_deep(x, target, q):""" + _DEEP_FORWARD + """
    h1.g = minigrad.zeros(*h1.shape, dtype=minigrad.float64)
    lin_grad(x, h1, q["w1"], q["b1"])
    relu_grad(h1, r1)
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    return deep_loss
"""),
        Wrong("relu_grad given the pre-activation of the wrong layer", "slip", """
def forward_and_backward_deep(x, target, q):""" + _DEEP_FORWARD + """
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    h1.g = (h2.sum(1, keepdim=True) > 0).double() * r1.g
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("ignores the biases in the forward pass", "ignores", """
def forward_and_backward_deep(x, target, q):
    h1 = x @ q["w1"]
    r1 = h1.relu()
    h2 = r1 @ q["w2"]
    r2 = h2.relu()
    h3 = r2 @ q["w3"]
    deep_loss = mse(h3, target)
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("ignores target: the chapter's one-hot rows", "ignores", """
def forward_and_backward_deep(x, target, q):
    target = onehot_train[: x.shape[0]]""" + _DEEP_FORWARD + """
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("the visible loss hard-coded", "hardcoded", """
def forward_and_backward_deep(x, target, q):""" + _DEEP_FORWARD + """
    mse_grad(h3, target)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return 0.3332767724835179
"""),
        Wrong("minigrad's autograd, .grad copied into .g", "bypass", """
def forward_and_backward_deep(x, target, q):
    for p in q.values():
        p.requires_grad_()
    out = lin(lin(lin(x, q["w1"], q["b1"]).relu(), q["w2"], q["b2"]).relu(), q["w3"], q["b3"])
    deep_loss = mse(out, target)
    deep_loss.backward()
    for p in q.values():
        p.g = p.grad
    return deep_loss.detach()
"""),
        Wrong("torch's autograd, gradients copied into .g", "bypass", """
import torch
def forward_and_backward_deep(x, target, q):
    p = {k: torch.tensor(v.data, requires_grad=True) for k, v in q.items()}
    h = torch.tensor(x.data)
    h = (h @ p["w1"] + p["b1"]).relu()
    h = (h @ p["w2"] + p["b2"]).relu()
    deep_loss = ((h @ p["w3"] + p["b3"] - torch.tensor(target.data)) ** 2).mean()
    deep_loss.backward()
    for k in q:
        q[k].g = minigrad.tensor(p[k].grad.numpy())
    return deep_loss.item()
"""),
    ],
}
