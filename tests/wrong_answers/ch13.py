"""Wrong answers to chapter 13's exercises."""

from tests.wrong_answers import Wrong

_LOG_SOFTMAX_GRAD = """
def log_softmax_grad(logits, logp):
    softmax = logp.exp()
    logits.g = logp.g - softmax * logp.g.sum(dim=1, keepdim=True)
"""

_NLL_GRAD = """
def nll_grad(logp, labels):
    onehot = np.eye(logp.shape[1])[labels]
    logp.g = minigrad.tensor(-onehot / logp.shape[0])
"""

_RELU_GRAD = """
def relu_grad(inp, out):
    inp.g = (inp > 0).double() * out.g
"""

_LIN_GRAD = """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
"""

_DEEP_FORWARD = """
    h1 = lin(x, q["w1"], q["b1"])
    r1 = h1.relu()
    h2 = lin(r1, q["w2"], q["b2"])
    r2 = h2.relu()
    h3 = lin(r2, q["w3"], q["b3"])
    lp3 = log_softmax(h3)
    deep_loss = nll(lp3, labels)
"""

_DEEP_TAIL = """
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""

_TRAIN_STEP = """
        loss, _ = forward_and_backward(x[rows], labels[rows], p)
        for name in p:
            p[name] = p[name] - lr * p[name].g
        epoch_losses.append(loss.item())
    return epoch_losses
"""

WRONG = {
    "ex13-loss-steps-grad": [
        Wrong("nll_grad: the 1/N of the mean forgotten", "slip", """
def nll_grad(logp, labels):
    logp.g = minigrad.tensor(-np.eye(logp.shape[1])[labels])
""" + _LOG_SOFTMAX_GRAD),
        Wrong("nll_grad: the sign flipped", "slip", """
def nll_grad(logp, labels):
    logp.g = minigrad.tensor(np.eye(logp.shape[1])[labels] / logp.shape[0])
""" + _LOG_SOFTMAX_GRAD),
        Wrong("log_softmax_grad: the softmax term forgotten", "slip", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    logits.g = logp.g * 1.0
"""),
        Wrong("log_softmax_grad: logp where its exp belongs", "slip", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    logits.g = logp.g - logp * logp.g.sum(dim=1, keepdim=True)
"""),
        Wrong("log_softmax_grad: the row sum taken along the batch", "slip", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    logits.g = logp.g - logp.exp() * logp.g.sum(dim=0, keepdim=True)
"""),
        Wrong("log_softmax_grad: softmax of the raw logits (overflows)", "slip", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    e = logits.exp()
    logits.g = logp.g - e / e.sum(dim=1, keepdim=True) * logp.g.sum(dim=1, keepdim=True)
"""),
        Wrong("log_softmax_grad ignores logp.g: assumes the loss's upstream", "ignores",
              _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    n = logp.shape[0]
    onehot = minigrad.tensor(np.eye(logp.shape[1])[logp.g.detach().numpy().argmin(axis=1)])
    logits.g = (logp.exp() - onehot) / n
"""),
        Wrong("nll_grad ignores labels: the most likely class instead", "ignores", """
def nll_grad(logp, labels):
    onehot = np.eye(logp.shape[1])[logp.detach().numpy().argmax(axis=1)]
    logp.g = minigrad.tensor(-onehot / logp.shape[0])
""" + _LOG_SOFTMAX_GRAD),
        Wrong("log_softmax_grad: the visible examples hard-coded", "hardcoded", _NLL_GRAD + """
_SEEN = {(6, 4): (
    "-0.989668542960436 1.445915410890177 -0.8495484731721401 0.39330160524239904 "
    "-0.7734419097270663 -1.1206302448231973 -0.1687004467190077 2.062772601269271 "
    "-0.9570441634320886 -0.9127581723080044 2.642537395557257 -0.7727350598171635 "
    "-1.1220335071501681 -0.16492607539329307 -0.9619194532424913 2.2488790357859525 "
    "0.3817073662619187 -0.9773171594381017 1.62504203705617 -1.0294322438799868 "
    "-0.09288227938417098 1.2723117203375347 -0.46189976191390114 -0.7175296790394625 "
), (2, 3): (
    "0.3633726712075104 -0.24270117052464346 -0.12067150068286675 -0.024009972334960605 "
    "-1.1034049574834632 1.127414929818424 "
)}
def log_softmax_grad(logits, logp):
    shape = tuple(logits.shape)
    numbers = np.array(_SEEN.get(shape, "0 " * logits.numel()).split(), dtype=float)
    logits.g = minigrad.tensor(numbers.reshape(shape))
"""),
        Wrong("torch's autograd for both steps", "bypass", """
import torch
def nll_grad(logp, labels):
    t = torch.tensor(logp.detach().numpy(), requires_grad=True)
    torch.nn.functional.nll_loss(t, torch.tensor(labels)).backward()
    logp.g = minigrad.tensor(t.grad.numpy())
def log_softmax_grad(logits, logp):
    t = torch.tensor(logits.detach().numpy(), requires_grad=True)
    torch.log_softmax(t, dim=1).backward(torch.tensor(logp.g.detach().numpy()))
    logits.g = minigrad.tensor(t.grad.numpy())
"""),
        Wrong("minigrad's autograd for the log-softmax step", "bypass", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    z = logits.detach().clone().requires_grad_()
    shifted = z - z.max(dim=1, keepdim=True).values
    (shifted - shifted.exp().sum(dim=1, keepdim=True).log()).backward(logp.g)
    logits.g = z.grad
"""),
    ],
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
    onehot = minigrad.tensor(np.eye(logits.shape[1])[logits.detach().numpy().argmax(axis=1)])
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
    z = torch.tensor(logits.detach().numpy(), requires_grad=True)
    torch.nn.functional.cross_entropy(z, torch.tensor(labels)).backward()
    logits.g = minigrad.tensor(z.grad.numpy())
"""),
        Wrong("minigrad's own cross-entropy backward on a ctx of its own", "bypass", """
from minigrad.ops.losses import CrossEntropy as _CE
def cross_entropy_grad(logits, labels):
    ctx = _CE()
    _CE.forward(ctx, logits.detach().numpy(), np.asarray(labels), "mean")
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
    t = torch.tensor(inp.detach().numpy(), requires_grad=True)
    torch.nn.functional.leaky_relu(t, slope).backward(torch.tensor(out.g.detach().numpy()))
    inp.g = minigrad.tensor(t.grad.numpy())
"""),
        Wrong("minigrad's autograd on relu(x) - slope relu(-x)", "bypass", """
def leaky_relu_grad(inp, out, slope=0.01):
    t = inp.detach().clone().requires_grad_()
    (t.relu() - slope * (-t).relu()).backward(out.g)
    inp.g = t.grad
"""),
    ],
    "ex13-layer-grads": [
        Wrong("relu_grad: the mask alone, out.g forgotten", "slip", """
def relu_grad(inp, out):
    inp.g = (inp > 0).double()
""" + _LIN_GRAD),
        Wrong("relu_grad: inp >= 0, the derivative 1 at zero", "slip", """
def relu_grad(inp, out):
    inp.g = (inp >= 0).double() * out.g
""" + _LIN_GRAD),
        Wrong("lin_grad: w.g transposed, torch's (out, in) layout", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
"""),
        Wrong("lin_grad: the bias summed over the wrong axis", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(1)
"""),
        Wrong("lin_grad: the bias's gradient a mean over the batch", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.mean(0)
"""),
        Wrong("lin_grad: w not transposed for the input's gradient", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
"""),
        Wrong("lin_grad ignores w: the input's gradient from out.g alone", "ignores",
              _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g.sum(1, keepdim=True) * minigrad.ones(*inp.shape, dtype=minigrad.float64)
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)
"""),
        Wrong("relu_grad: the visible example hard-coded", "hardcoded", """
_SEEN = (
    "0.0 0.0 0.0 2.1053643005158746 -0.0 0.0 -1.1292501976334495 0.0 -0.0 "
    "-1.1225600941008873 0.0 0.0 -0.0 1.092168399543735 -0.0 -0.0 1.3729805222226859 "
    "-0.0 0.0 0.0 -0.30481569445049134 -0.0 1.0556319436017267 0.0 1.0382133294899818 "
    "-0.0 -0.0 -0.14687101250220805 -0.0 0.3610616719637145 -0.0 1.25267749212204 "
    "0.9358888617819241 0.0 0.21267425082105917 "
)
def relu_grad(inp, out):
    if tuple(inp.shape) == (5, 7):
        inp.g = minigrad.tensor(np.array(_SEEN.split(), dtype=float).reshape(5, 7))
    else:
        inp.g = out.g * 1.0
""" + _LIN_GRAD),
        Wrong("minigrad's autograd for the linear layer", "bypass", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    x2, w2, b2 = (t.detach().clone().requires_grad_() for t in (inp, w, b))
    (x2 @ w2 + b2).backward(out.g)
    inp.g, w.g, b.g = x2.grad, w2.grad, b2.grad
"""),
        Wrong("torch's autograd for both", "bypass", """
import torch
def relu_grad(inp, out):
    t = torch.tensor(inp.detach().numpy(), requires_grad=True)
    t.relu().backward(torch.tensor(out.g.detach().numpy()))
    inp.g = minigrad.tensor(t.grad.numpy())
""" + _LIN_GRAD),
    ],
    "ex13-backward": [
        Wrong("the relu_grad step skipped", "slip", """
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    loss = nll(v["logp"], labels)
    nll_grad(v["logp"], labels)
    log_softmax_grad(v["logits"], v["logp"])
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    v["l1"].g = v["a1"].g
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return loss, v
"""),
        Wrong("the log-softmax step skipped", "slip", """
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    loss = nll(v["logp"], labels)
    nll_grad(v["logp"], labels)
    v["logits"].g = v["logp"].g
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return loss, v
"""),
        Wrong("the first layer given the second layer's output", "slip", """
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    loss = nll(v["logp"], labels)
    nll_grad(v["logp"], labels)
    log_softmax_grad(v["logits"], v["logp"])
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["a1"], p["w1"], p["b1"])
    return loss, v
"""),
        Wrong("ignores labels: the most likely class as the label", "ignores", """
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    labels = v["logp"].detach().numpy().argmax(axis=1)
    loss = nll(v["logp"], labels)
    nll_grad(v["logp"], labels)
    log_softmax_grad(v["logits"], v["logp"])
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return loss, v
"""),
        Wrong("the visible loss hard-coded", "hardcoded", """
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    nll_grad(v["logp"], labels)
    log_softmax_grad(v["logits"], v["logp"])
    lin_grad(v["a1"], v["logits"], p["w2"], p["b2"])
    relu_grad(v["l1"], v["a1"])
    lin_grad(v["x"], v["l1"], p["w1"], p["b1"])
    return 4.735079788197675, v
"""),
        Wrong("minigrad's autograd, .grad copied into .g", "bypass", """
def forward_and_backward(x, labels, p):
    for t in p.values():
        t.requires_grad_()
    v = forward(x, p)
    for t in v.values():
        if t.requires_grad:
            t.retain_grad()
    loss = nll(v["logp"], labels)
    loss.backward()
    for t in list(v.values()) + list(p.values()):
        t.g = t.grad
    return loss.detach(), v
"""),
        Wrong("the course's numpy backward, copied into .g", "bypass", """
from minigrad.course.capstone import backward_numpy as _bn
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    grads = _bn(x.detach().numpy(), labels, {k: t.detach().numpy() for k, t in p.items()})
    for name, value in grads.items():
        (v | p)[name].g = minigrad.tensor(value)
    return nll(v["logp"], labels), v
"""),
    ],
    "ex13-train-epoch": [
        Wrong("no shuffle: the rows in order every epoch", "slip", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = np.arange(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP),
        Wrong("the last, shorter batch dropped", "slip", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels) - batch + 1, batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP),
        Wrong("a step up the gradient", "slip", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]
        loss, _ = forward_and_backward(x[rows], labels[rows], p)
        for name in p:
            p[name] = p[name] + lr * p[name].g
        epoch_losses.append(loss.item())
    return epoch_losses
"""),
        Wrong("a new permutation for every batch", "slip", """
def train_epoch(p, x, labels, batch, lr, rng):
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = rng.permutation(len(labels))[start:start + batch]""" + _TRAIN_STEP),
        Wrong("ignores rng: a generator of its own", "ignores", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = np.random.default_rng(0).permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP),
        Wrong("ignores lr: always 0.2", "ignores", """
def train_epoch(p, x, labels, batch, lr, rng):
    lr = 0.2
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP),
        Wrong("ignores batch: always 32 rows", "ignores", """
def train_epoch(p, x, labels, batch, lr, rng):
    batch = 32
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP),
        Wrong("the visible losses hard-coded", "hardcoded", """
_SEEN = [
    [2.329517884431712, 2.3602877666405178, 2.2020770262878537,
     2.2445129600405105, 1.9811384010141677],
    [2.2263542668538956, 2.094871412064304, 2.201406009221637,
     2.1331882357800875, 1.874096982228966],
]
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]
        forward_and_backward(x[rows], labels[rows], p)
        for name in p:
            p[name] = p[name] - lr * p[name].g
    train_epoch.calls = getattr(train_epoch, "calls", -1) + 1
    return _SEEN[train_epoch.calls % 2]
"""),
        Wrong("minigrad's autograd and cross_entropy", "bypass", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels), batch):
        rows = order[start:start + batch]
        q = {k: t.detach().clone().requires_grad_() for k, t in p.items()}
        h = (x[rows] @ q["w1"] + q["b1"]).relu() @ q["w2"] + q["b2"]
        loss = minigrad.nn.functional.cross_entropy(h, labels[rows])
        loss.backward()
        for name in p:
            p[name] = p[name] - lr * q[name].grad
        epoch_losses.append(loss.item())
    return epoch_losses
"""),
    ],
    "ex13-deep-backward": [
        Wrong("the second relu_grad skipped", "slip", """
def forward_and_backward_deep(x, labels, q):""" + _DEEP_FORWARD + """
    nll_grad(lp3, labels)
    log_softmax_grad(h3, lp3)
    lin_grad(r2, h3, q["w3"], q["b3"])
    h2.g = r2.g
    lin_grad(r1, h2, q["w2"], q["b2"])
    relu_grad(h1, r1)
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("the log-softmax step skipped", "slip", """
def forward_and_backward_deep(x, labels, q):""" + _DEEP_FORWARD + """
    nll_grad(lp3, labels)
    h3.g = lp3.g""" + _DEEP_TAIL),
        Wrong("relu_grad given the pre-activation of the wrong layer", "slip", """
def forward_and_backward_deep(x, labels, q):""" + _DEEP_FORWARD + """
    cross_entropy_grad(h3, labels)
    lin_grad(r2, h3, q["w3"], q["b3"])
    relu_grad(h2, r2)
    lin_grad(r1, h2, q["w2"], q["b2"])
    h1.g = (h2.sum(1, keepdim=True) > 0).double() * r1.g
    lin_grad(x, h1, q["w1"], q["b1"])
    return deep_loss
"""),
        Wrong("ignores the biases in the forward pass", "ignores", """
def forward_and_backward_deep(x, labels, q):
    h1 = x @ q["w1"]
    r1 = h1.relu()
    h2 = r1 @ q["w2"]
    r2 = h2.relu()
    h3 = r2 @ q["w3"]
    deep_loss = nll(log_softmax(h3), labels)
    cross_entropy_grad(h3, labels)""" + _DEEP_TAIL),
        Wrong("ignores labels: the chapter's training labels", "ignores", """
def forward_and_backward_deep(x, labels, q):
    labels = y_train[: x.shape[0]]""" + _DEEP_FORWARD + """
    cross_entropy_grad(h3, labels)""" + _DEEP_TAIL),
        Wrong("the visible loss hard-coded", "hardcoded", """
def forward_and_backward_deep(x, labels, q):""" + _DEEP_FORWARD + """
    cross_entropy_grad(h3, labels)""" + _DEEP_TAIL.replace(
            "return deep_loss", "return 2.4236368990377675")),
        Wrong("minigrad's autograd, .grad copied into .g", "bypass", """
def forward_and_backward_deep(x, labels, q):
    for p in q.values():
        p.requires_grad_()
    out = lin(lin(lin(x, q["w1"], q["b1"]).relu(), q["w2"], q["b2"]).relu(), q["w3"], q["b3"])
    deep_loss = nll(log_softmax(out), labels)
    deep_loss.backward()
    for p in q.values():
        p.g = p.grad
    return deep_loss.detach()
"""),
        Wrong("torch's autograd, gradients copied into .g", "bypass", """
import torch
def forward_and_backward_deep(x, labels, q):
    p = {k: torch.tensor(v.detach().numpy(), requires_grad=True) for k, v in q.items()}
    h = torch.tensor(x.detach().numpy())
    h = (h @ p["w1"] + p["b1"]).relu()
    h = (h @ p["w2"] + p["b2"]).relu()
    deep_loss = torch.nn.functional.cross_entropy(h @ p["w3"] + p["b3"], torch.tensor(labels))
    deep_loss.backward()
    for k in q:
        q[k].g = minigrad.tensor(p[k].grad.numpy())
    return deep_loss.item()
"""),
    ],
}
