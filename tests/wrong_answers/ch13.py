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
""" + _LOG_SOFTMAX_GRAD, mistake="mean-not-divided"),
        Wrong("nll_grad: the sign flipped", "slip", """
def nll_grad(logp, labels):
    logp.g = minigrad.tensor(np.eye(logp.shape[1])[labels] / logp.shape[0])
""" + _LOG_SOFTMAX_GRAD, mistake="sign-flipped"),
        Wrong("log_softmax_grad: the softmax term forgotten", "slip", _NLL_GRAD + """
def log_softmax_grad(logits, logp):
    logits.g = logp.g * 1.0
""", mistake="softmax-term-forgotten"),
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
""", mistake="mean-not-divided"),
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
""", mistake="sign-flipped"),
        Wrong("no maximum subtracted: overflows for large logits", "slip", """
def cross_entropy_grad(logits, labels):
    e = logits.exp()
    softmax = e / e.sum(dim=1, keepdim=True)
    onehot = minigrad.tensor(np.eye(logits.shape[1])[labels])
    logits.g = (softmax - onehot) / logits.shape[0]
""", mistake="no-max-subtracted"),
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
    "ex13-layer-grads": [
        Wrong("relu_grad: the mask alone, out.g forgotten", "slip", """
def relu_grad(inp, out):
    inp.g = (inp > 0).double()
""" + _LIN_GRAD, mistake="upstream-forgotten"),
        Wrong("relu_grad: inp >= 0, the derivative 1 at zero", "slip", """
def relu_grad(inp, out):
    inp.g = (inp >= 0).double() * out.g
""" + _LIN_GRAD, mistake="derivative-at-zero"),
        Wrong("lin_grad: w.g transposed, torch's (out, in) layout", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = out.g.t() @ inp
    b.g = out.g.sum(0)
""", mistake="transposed"),
        Wrong("lin_grad: the bias summed over the wrong axis", "slip", _RELU_GRAD + """
def lin_grad(inp, out, w, b):
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(1)
""", mistake="bias-wrong-axis"),
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
""", mistake="relu-skipped"),
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
""", mistake="log-softmax-skipped"),
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
""", mistake="wrong-output-given"),
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
        Wrong("the course's torch gradients, copied into .g", "bypass", """
from minigrad.course.capstone import broken_gradients as _bg
def forward_and_backward(x, labels, p):
    v = forward(x, p)
    grads = _bg(x.data, labels, {k: t.data for k, t in p.items()})
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
        rows = order[start:start + batch]""" + _TRAIN_STEP, mistake="no-shuffle"),
        Wrong("the last, shorter batch dropped", "slip", """
def train_epoch(p, x, labels, batch, lr, rng):
    order = rng.permutation(len(labels))
    epoch_losses = []
    for start in range(0, len(labels) - batch + 1, batch):
        rows = order[start:start + batch]""" + _TRAIN_STEP, mistake="last-batch-dropped"),
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
""", mistake="step-up"),
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
    "ex13-batchnorm": [
        Wrong("only the direct path: mean and variance taken as constants", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    mean = inp.mean(0)
    var = ((inp - mean) ** 2).mean(0)
    xhat = (inp - mean) / (var + eps) ** 0.5
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    inp.g = out.g * gamma / (var + eps) ** 0.5
""", mistake="direct-path-only"),
        Wrong("the mean's path kept, the variance's forgotten", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    mean = inp.mean(0)
    var = ((inp - mean) ** 2).mean(0)
    xhat = (inp - mean) / (var + eps) ** 0.5
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = (d - d.mean(0)) / (var + eps) ** 0.5
""", mistake="variance-path-forgotten"),
        Wrong("the variance's path kept, the mean's forgotten", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    mean = inp.mean(0)
    var = ((inp - mean) ** 2).mean(0)
    xhat = (inp - mean) / (var + eps) ** 0.5
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = (d - xhat * (d * xhat).mean(0)) / (var + eps) ** 0.5
""", mistake="mean-path-forgotten"),
        Wrong("the unbiased variance (N - 1), as torch's running estimate", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    n = inp.shape[0]
    mean = inp.mean(0)
    var = ((inp - mean) ** 2).sum(0) / (n - 1)
    invstd = (var + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("gamma.g: out.g summed, the normalised input forgotten", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    n = inp.shape[0]
    mean = inp.mean(0)
    invstd = (((inp - mean) ** 2).mean(0) + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.sum(0)
    gamma.g = out.g.sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("beta.g: a mean over the batch", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    n = inp.shape[0]
    mean = inp.mean(0)
    invstd = (((inp - mean) ** 2).mean(0) + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.mean(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("ignores eps: always 1e-5", "ignores", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    eps = 1e-5
    n = inp.shape[0]
    mean = inp.mean(0)
    invstd = (((inp - mean) ** 2).mean(0) + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("ignores gamma: inp.g as if gamma were 1", "ignores", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    n = inp.shape[0]
    mean = inp.mean(0)
    invstd = (((inp - mean) ** 2).mean(0) + eps) ** -0.5
    xhat = (inp - mean) * invstd
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("the normalised input read back from out: (out - beta) / gamma", "slip", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    n = inp.shape[0]
    invstd = (((inp - inp.mean(0)) ** 2).mean(0) + eps) ** -0.5
    xhat = (out - beta) / gamma
    beta.g = out.g.sum(0)
    gamma.g = (out.g * xhat).sum(0)
    d = out.g * gamma
    inp.g = invstd / n * (n * d - d.sum(0) - xhat * (d * xhat).sum(0))
"""),
        Wrong("the visible examples hard-coded by shape", "hardcoded", """
_SEEN = {(8, 3): (
    "-0.012051624701077821 -1.346188646845536 -0.21982836696379912 -0.004237382098241044 "
    "0.13459107630004857 -0.028336501897503863 0.001873763629597094 -1.1063151935088122 "
    "0.7855159647558451 0.002977806394598854 0.15162408820276954 -0.6660292792210156 "
    "-0.00430844394627405 0.9849282862735925 -0.49350389347800355 0.0010050778899455084 "
    "0.6438443387935807 -0.2655898014279078 -0.002460653148371993 0.40609758318149775 "
    "0.6981122339385651 0.017201455979823456 0.13141846760285922 0.1896596442938196",
    "-2.3139662605624385 5.759209459271973 3.7026330101739187",
    "5.128001203783229 -2.433461814412011 2.416984328616951"), (5, 4): (
    "-0.3889843330845338 -0.0 0.8572503870760526 -0.1376658699079826 "
    "0.881407111781008 0.0 -0.08257473663903077 0.32698537877371164 "
    "0.23875476565448675 0.0 0.6591641318372903 0.2486412005489089 "
    "-0.29123591496239115 0.0 -0.34673184777088883 -0.028640446384854336 "
    "-0.4399416293885694 -0.0 -1.0871079345034234 -0.40932026302978386",
    "-1.3306345186901227 0.7674443641529861 1.2272228566110228 0.6967369999385367",
    "4.404560067299114 1.2598978441324333 -1.1292902753435246 -5.416553130342473")}
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    seen = _SEEN.get(tuple(inp.shape))
    for i, t in enumerate((inp, gamma, beta)):
        numbers = seen[i].split() if seen else ["0"] * t.numel()
        t.g = minigrad.tensor(np.array(numbers, dtype=float).reshape(tuple(t.shape)))
"""),
        Wrong("minigrad's autograd on the forward pass", "bypass", """
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    x, gm, bt = (t.detach().clone().requires_grad_() for t in (inp, gamma, beta))
    mean = x.mean(0)
    y = gm * (x - mean) / (((x - mean) ** 2).mean(0) + eps) ** 0.5 + bt
    y.backward(out.g)
    inp.g, gamma.g, beta.g = x.grad, gm.grad, bt.grad
"""),
        Wrong("torch's BatchNorm1d and backward()", "bypass", """
import torch
def batchnorm_grad(inp, out, gamma, beta, eps=1e-5):
    layer = torch.nn.BatchNorm1d(inp.shape[1], eps=eps).double()
    with torch.no_grad():
        layer.weight.copy_(torch.tensor(gamma.data))
        layer.bias.copy_(torch.tensor(beta.data))
    x = torch.tensor(inp.data, requires_grad=True)
    layer(x).backward(torch.tensor(out.g.data))
    inp.g = minigrad.tensor(x.grad.numpy())
    gamma.g = minigrad.tensor(layer.weight.grad.numpy())
    beta.g = minigrad.tensor(layer.bias.grad.numpy())
"""),
    ],
    "ex13-embedding": [
        Wrong("assignment: a row looked up twice keeps one gradient", "slip", """
def embedding_grad(idx, weight, out, padding_idx=None):
    grad = np.zeros(tuple(weight.shape))
    grad[np.asarray(idx).reshape(-1)] = out.g.data.reshape(-1, weight.shape[1])
    if padding_idx is not None:
        grad[padding_idx] = 0.0
    weight.g = minigrad.tensor(grad)
""", mistake="assignment-not-accumulated"),
        Wrong("a row's gradient the mean of its lookups", "slip", """
def embedding_grad(idx, weight, out, padding_idx=None):
    flat = np.asarray(idx).reshape(-1)
    onehot = np.eye(weight.shape[0])[flat]
    counts = np.maximum(onehot.sum(0), 1.0)
    if padding_idx is not None:
        onehot[:, padding_idx] = 0.0
    grad = onehot.T @ out.g.data.reshape(-1, weight.shape[1])
    weight.g = minigrad.tensor(grad / counts[:, None])
""", mistake="mean-of-lookups"),
        Wrong("summed over the batch positions, not scattered to rows", "slip", """
def embedding_grad(idx, weight, out, padding_idx=None):
    total = out.g.data.reshape(-1, weight.shape[1]).sum(0)
    grad = np.zeros(tuple(weight.shape))
    grad[np.unique(np.asarray(idx))] = total
    if padding_idx is not None:
        grad[padding_idx] = 0.0
    weight.g = minigrad.tensor(grad)
"""),
        Wrong("the padding row set to its own value instead of no gradient", "slip", """
def embedding_grad(idx, weight, out, padding_idx=None):
    flat = np.asarray(idx).reshape(-1)
    onehot = np.eye(weight.shape[0])[flat]
    grad = onehot.T @ out.g.data.reshape(-1, weight.shape[1])
    if padding_idx is not None:
        grad[padding_idx] = weight.data[padding_idx]
    weight.g = minigrad.tensor(grad)
"""),
        Wrong("ignores padding_idx: the padding row gets its gradient", "ignores", """
def embedding_grad(idx, weight, out, padding_idx=None):
    flat = np.asarray(idx).reshape(-1)
    onehot = minigrad.tensor(np.eye(weight.shape[0])[flat])
    weight.g = onehot.t() @ out.g.reshape(-1, weight.shape[1])
""", mistake="padding-row-updated"),
        Wrong("ignores padding_idx: always row 0", "ignores", """
def embedding_grad(idx, weight, out, padding_idx=None):
    flat = np.asarray(idx).reshape(-1)
    onehot = np.eye(weight.shape[0])[flat]
    onehot[:, 0] = 0.0
    weight.g = minigrad.tensor(onehot).t() @ out.g.reshape(-1, weight.shape[1])
"""),
        Wrong("the visible examples hard-coded by shape", "hardcoded", """
_SEEN = {(7, 3): (
    "-2.0977628571308986 0.6245377821706086 1.3991556499436448 -0.869886419384664 "
    "-2.346221404929107 -1.8147973601512168 0.0 0.0 0.0 0.193765838539996 "
    "0.2528624201127844 0.4939018403188362 1.2599011043688608 -1.063471449793366 "
    "1.4701722336303815 0.0 0.0 0.0 0.1936149603482072 0.27138165268471126 "
    "-3.5708009350538514"),
    (4, 2): "0.0 0.0 0.40500846688502773 1.1576322883207164 2.4219376546461713 "
            "0.7968305259950876 0.0 0.0"}
def embedding_grad(idx, weight, out, padding_idx=None):
    shape = tuple(weight.shape)
    numbers = _SEEN.get(shape, "0 " * weight.numel()).split()
    weight.g = minigrad.tensor(np.array(numbers, dtype=float).reshape(shape))
"""),
        Wrong("minigrad's autograd through nn.functional.embedding", "bypass", """
def embedding_grad(idx, weight, out, padding_idx=None):
    w = weight.detach().clone().requires_grad_()
    minigrad.nn.functional.embedding(minigrad.tensor(np.asarray(idx)), w,
                                     padding_idx=padding_idx).backward(out.g)
    weight.g = w.grad
"""),
        Wrong("torch's nn.Embedding and backward()", "bypass", """
import torch
def embedding_grad(idx, weight, out, padding_idx=None):
    layer = torch.nn.Embedding.from_pretrained(torch.tensor(weight.data), freeze=False,
                                               padding_idx=padding_idx)
    layer(torch.tensor(np.asarray(idx))).backward(torch.tensor(out.g.data))
    weight.g = minigrad.tensor(layer.weight.grad.numpy())
"""),
    ],
}

# Exercise 13.8 (the line-by-line puzzle): the right answer, and each slip one line changed.
_NINJA = """
def ninja_backward(v, labels, p):
    n, c = v["logits"].shape
    d = {}
    onehot = np.zeros((n, c))
    onehot[np.arange(n), labels] = 1.0
    d["logprobs"] = minigrad.tensor(-onehot / n)
    d["probs"] = d["logprobs"] / v["probs"]
    d["counts_sum_inv"] = (v["counts"] * d["probs"]).sum(1, keepdim=True)
    d["counts_sum"] = -v["counts_sum"] ** -2 * d["counts_sum_inv"]
    d["counts"] = v["counts_sum_inv"] * d["probs"] + d["counts_sum"]
    d["norm_logits"] = v["counts"] * d["counts"]
    d["logit_maxes"] = -d["norm_logits"].sum(1, keepdim=True)
    at_max = minigrad.tensor(np.eye(c)[v["logits"].numpy().argmax(1)])
    d["logits"] = d["norm_logits"] + at_max * d["logit_maxes"]
    d["h"] = d["logits"] @ p["w2"].t()
    d["w2"] = v["h"].t() @ d["logits"]
    d["b2"] = d["logits"].sum(0)
    d["bnraw"] = (1 - v["h"] ** 2) * d["h"]
    d["bnvar_inv"] = (v["bndiff"] * d["bnraw"]).sum(0, keepdim=True)
    d["bnvar"] = -0.5 * (v["bnvar"] + 1e-5) ** -1.5 * d["bnvar_inv"]
    d["bndiff2"] = minigrad.ones_like(v["bndiff2"]) * d["bnvar"] / (n - 1)
    d["bndiff"] = v["bnvar_inv"] * d["bnraw"] + 2 * v["bndiff"] * d["bndiff2"]
    d["bnmeani"] = -d["bndiff"].sum(0, keepdim=True)
    d["hprebn"] = d["bndiff"] + d["bnmeani"] / n
    d["w1"] = v["x"].t() @ d["hprebn"]
    return d
"""


def _ninja(old, new):
    """The right answer with one line changed (the line must be in it)."""
    assert _NINJA.count(old) == 1, old
    return _NINJA.replace(old, new)


def _ninja_seen():
    """The visible example's gradients, as the source of a dict (for the hard-coded answer)."""
    import numpy as np

    from minigrad.course.capstone import init_params, load_digits_split
    from minigrad.course.ninja import ORDER, torch_puzzle

    x_dig, y_dig = load_digits_split(n_train=1500, seed=0)[:2]
    q0 = init_params((64, 16, 10), seed=138)
    p0 = {"w1": q0["w1"], "w2": q0["w2"],
          "b2": np.random.default_rng(138).standard_normal(10) * 0.1}
    refs = torch_puzzle(x_dig[:10], y_dig[:10], p0)[1]
    return "{" + ", ".join(f"{name!r}: {refs[name].tolist()!r}" for name in ORDER) + "}"


WRONG["ex13-ninja"] = [
    Wrong("dlogprobs: the sign flipped", "slip",
          _ninja("minigrad.tensor(-onehot / n)", "minigrad.tensor(onehot / n)"),
          mistake="sign-flipped"),
    Wrong("dlogprobs: the 1/n of the mean forgotten", "slip",
          _ninja("minigrad.tensor(-onehot / n)", "minigrad.tensor(-onehot)"),
          mistake="mean-not-divided"),
    Wrong("dcounts_sum_inv: not summed over the row it is broadcast across", "slip",
          _ninja('(v["counts"] * d["probs"]).sum(1, keepdim=True)', '(v["counts"] * d["probs"])'),
          mistake="broadcast-not-summed"),
    Wrong("dcounts_sum: the derivative of 1/x without its minus sign", "slip",
          _ninja('-v["counts_sum"] ** -2', 'v["counts_sum"] ** -2'), mistake="sign-flipped"),
    Wrong("dcounts: the path through counts_sum not added", "slip",
          _ninja('v["counts_sum_inv"] * d["probs"] + d["counts_sum"]',
                 'v["counts_sum_inv"] * d["probs"]'), mistake="fan-out-not-added"),
    Wrong("dlogit_maxes: not summed over the row", "slip",
          _ninja('-d["norm_logits"].sum(1, keepdim=True)', '-d["norm_logits"]'),
          mistake="broadcast-not-summed"),
    Wrong("dw2: transposed", "slip",
          _ninja('v["h"].t() @ d["logits"]', 'd["logits"].t() @ v["h"]'), mistake="transposed"),
    Wrong("dbnraw: tanh's derivative as 1 - h", "slip",
          _ninja('(1 - v["h"] ** 2) * d["h"]', '(1 - v["h"]) * d["h"]')),
    Wrong("dbnvar_inv: not summed over the batch", "slip",
          _ninja('(v["bndiff"] * d["bnraw"]).sum(0, keepdim=True)', '(v["bndiff"] * d["bnraw"])'),
          mistake="broadcast-not-summed"),
    Wrong("dbnvar: the power rule's exponent not lowered", "slip",
          _ninja('(v["bnvar"] + 1e-5) ** -1.5', '(v["bnvar"] + 1e-5) ** -0.5'),
          mistake="power-rule"),
    Wrong("dbndiff2: n where the variance divides by n - 1", "slip",
          _ninja('d["bnvar"] / (n - 1)', 'd["bnvar"] / n'), mistake="bessel-n"),
    Wrong("dbndiff: the path through bndiff2 not added", "slip",
          _ninja('v["bnvar_inv"] * d["bnraw"] + 2 * v["bndiff"] * d["bndiff2"]',
                 'v["bnvar_inv"] * d["bnraw"]'), mistake="fan-out-not-added"),
    Wrong("dhprebn: the path through the mean not added", "slip",
          _ninja('d["bndiff"] + d["bnmeani"] / n', 'd["bndiff"] * 1.0'),
          mistake="fan-out-not-added"),
    Wrong("dhprebn: the mean's gradient spread back without its 1/n", "slip",
          _ninja('d["bndiff"] + d["bnmeani"] / n', 'd["bndiff"] + d["bnmeani"]'),
          mistake="mean-not-divided"),
    Wrong("ignores labels: the most likely class as the label", "ignores",
          _ninja("onehot[np.arange(n), labels] = 1.0",
                 'onehot[np.arange(n), v["logits"].numpy().argmax(1)] = 1.0')),
    Wrong("ignores p: w2 taken as the identity", "ignores",
          _ninja('d["logits"] @ p["w2"].t()', 'd["logits"][:, :v["h"].shape[1]] * 1.0')),
    Wrong("the visible example hard-coded", "hardcoded", f"""
_SEEN = {_ninja_seen()}
def ninja_backward(v, labels, p):
    if tuple(v["logits"].shape) == (10, 10) and tuple(v["h"].shape) == (10, 16):
        return {{name: minigrad.tensor(np.array(value)) for name, value in _SEEN.items()}}
    return {{name: minigrad.tensor(np.zeros(np.shape(value))) for name, value in _SEEN.items()}}
"""),
    Wrong("minigrad's autograd on the forward pass", "bypass", """
def ninja_backward(v, labels, p):
    q = {name: t.detach().clone().requires_grad_() for name, t in p.items()}
    found = ninja_forward(v["x"], labels, q)
    for name, t in found.items():
        if t.requires_grad:
            t.retain_grad()
    found["loss"].backward()
    return {name: t.grad for name, t in (found | q).items() if t.grad is not None}
"""),
    Wrong("torch's autograd on the forward pass", "bypass", """
import torch
def ninja_backward(v, labels, p):
    q = {name: torch.tensor(t.numpy(), requires_grad=True) for name, t in p.items()}
    n = len(labels)
    t = {"hprebn": torch.tensor(v["x"].numpy()) @ q["w1"]}
    t["bnmeani"] = t["hprebn"].sum(0, keepdim=True) / n
    t["bndiff"] = t["hprebn"] - t["bnmeani"]
    t["bndiff2"] = t["bndiff"] ** 2
    t["bnvar"] = t["bndiff2"].sum(0, keepdim=True) / (n - 1)
    t["bnvar_inv"] = (t["bnvar"] + 1e-5) ** -0.5
    t["bnraw"] = t["bndiff"] * t["bnvar_inv"]
    t["h"] = t["bnraw"].tanh()
    t["logits"] = t["h"] @ q["w2"] + q["b2"]
    t["logit_maxes"] = t["logits"].max(1, keepdim=True).values
    t["norm_logits"] = t["logits"] - t["logit_maxes"]
    t["counts"] = t["norm_logits"].exp()
    t["counts_sum"] = t["counts"].sum(1, keepdim=True)
    t["counts_sum_inv"] = t["counts_sum"] ** -1
    t["probs"] = t["counts"] * t["counts_sum_inv"]
    t["logprobs"] = t["probs"].log()
    for value in t.values():
        value.retain_grad()
    (-t["logprobs"][torch.arange(n), torch.tensor(labels)].mean()).backward()
    return {name: minigrad.tensor(value.grad.numpy()) for name, value in (t | q).items()}
"""),
    Wrong("the course's torch gradients", "bypass", """
from minigrad.course.ninja import torch_puzzle as _tp
def ninja_backward(v, labels, p):
    grads = _tp(v["x"].numpy(), labels, {name: t.numpy() for name, t in p.items()})[1]
    return {name: minigrad.tensor(g) for name, g in grads.items() if ":" not in name}
"""),
]
