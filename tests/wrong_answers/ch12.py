"""Wrong answers to chapter 12's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex12-debug-train": [
        Wrong('zero_grad() still missing: the gradients pile up', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
""", mistake="no-zero-grad"),
        Wrong('the penalty still computed through .data: it has no gradient', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p.data ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
""", mistake="penalty-detached"),
        Wrong('the penalty from detached parameters: no gradient either', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p.detach() ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
""", mistake="penalty-detached"),
        Wrong('the prediction still detached: only the penalty trains', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x).detach() - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong('zero_grad() between backward() and step(): nothing moves', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return losses
""", mistake="never-moves"),
        Wrong('zero_grad() after the step: the first step uses stale gradients', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses
"""),
        Wrong('step() still before backward(), zero_grad() first: nothing moves', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        optimizer.step()
        loss.backward()
        losses.append(loss.item())
    return losses
""", mistake="never-moves"),
        Wrong('the penalty over the weights only, not the biases', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for n, p in model.named_parameters()
                      if n.endswith("weight"))
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong('lam times the sum of squares, not lam / 2', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong('the squared errors summed over the outputs, then averaged over the rows', 'slip', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).sum(1).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong("the worked example's losses hard-coded", "hardcoded", """
def train_fixed(model, batches, lr, lam):
    return [0.7881555291120738, 0.6334788539270877, 1.067285292374249]
""", mistake="never-moves"),
        Wrong('ignores lam: no penalty', 'ignores', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        loss = (err * err).mean()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong("ignores lr: the worked example's 0.1", 'ignores', """
import minigrad
def train_fixed(model, batches, lr, lam):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        err = model(x) - y
        penalty = sum((p ** 2).sum() for p in model.parameters())
        loss = (err * err).mean() + lam / 2 * penalty
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong("torch trains a copy, the trained values copied back", "bypass", """
import minigrad, torch
def train_fixed(model, batches, lr, lam):
    params = list(model.parameters())
    copies = [torch.tensor(p.data, requires_grad=True) for p in params]
    optimizer = torch.optim.SGD(copies, lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        optimizer.zero_grad()
        h = torch.tensor(x.data)
        for i in range(0, len(copies), 2):
            h = h @ copies[i].T + copies[i + 1]
            if i + 2 < len(copies):
                h = h.relu()
        loss = ((h - torch.tensor(y.data)) ** 2).mean() + lam / 2 * sum(
            (c ** 2).sum() for c in copies)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    for p, c in zip(params, copies):
        p.data = minigrad.tensor(c.detach().numpy())
    return losses
"""),
    ],
    "ex12-softmax": [
        Wrong("still in place: div_", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    e.div_(e.sum(dim=dim, keepdim=True))
    return e
""", mistake="in-place"),
        Wrong("still in place: /=", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    e /= e.sum(dim=dim, keepdim=True)
    return e
""", mistake="in-place"),
        Wrong("sums along dim 0", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=0, keepdim=True)
""", mistake="other-dim"),
        Wrong("no keepdim", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=dim)
"""),
        Wrong("the denominator detached", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True).detach()
""", mistake="denominator-detached"),
        Wrong("ignores dim: always dim 1", "ignores", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=1, keepdim=True)
""", mistake="other-dim"),
        Wrong("only 2-D: a transpose for dim 0", "ignores", """
def softmax_fixed(z, dim=1):
    if dim == 0:
        z = z.t()
    e = z.exp()
    out = e / e.sum(dim=1, keepdim=True)
    return out.t() if dim == 0 else out
""", mistake="other-dim"),
        Wrong("the visible example hard-coded, in the graph", "hardcoded", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True) * 0 + minigrad.tensor(
        [[0.23122389762214907, 0.6285317192117624, 0.14024438316608848],
         [0.05126360578081643, 0.0170641719851039, 0.9316722222340796]],
        dtype=minigrad.float64)
"""),
        Wrong("numpy softmax wrapped in a new tensor (out of the graph)", "bypass", """
def softmax_fixed(z, dim=1):
    e = np.exp(z.detach().numpy())
    return minigrad.tensor(e / e.sum(axis=dim, keepdims=True), requires_grad=True)
"""),
        Wrong("torch's softmax", "bypass", """
import torch
def softmax_fixed(z, dim=1):
    return torch.softmax(torch.tensor(z.detach().numpy(), requires_grad=True), dim=dim)
"""),
    ],
    "ex12-hidden-grad": [
        Wrong("no retain_grad: h.grad is None", "slip", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    ((h @ w2) ** 2).sum().backward()
    return h.grad
""", mistake="no-retain-grad"),
        Wrong("retain_grad after backward", "slip", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    ((h @ w2) ** 2).sum().backward()
    h.retain_grad()
    return h.grad
""", mistake="no-retain-grad"),
        Wrong("the gradient before the relu", "slip", """
def hidden_grad(x, w1, w2):
    pre = x @ w1
    pre.retain_grad()
    h = pre.relu()
    ((h @ w2) ** 2).sum().backward()
    return pre.grad
""", mistake="before-relu"),
        Wrong("the loss without the square", "slip", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    h.retain_grad()
    (h @ w2).sum().backward()
    return h.grad
"""),
        Wrong("ignores w2: L = sum(h ** 2)", "ignores", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    h.retain_grad()
    ((h ** 2).sum() + (w2 * 0).sum()).backward()
    return h.grad
"""),
        Wrong("the visible dL/dh hard-coded", "hardcoded", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    ((h @ w2) ** 2).sum().backward()
    return minigrad.tensor([
        [42.21586381544057, -5.477333506846849, -18.978518744909515],
        [-2.8317067381412704, 0.08028104172600711, 3.192804805863562],
        [-2.7901605044878366, -0.7687738397219651, 8.815142516955259],
        [-14.42151027099398, 0.3698588735942504, 16.521314824120488],
        [-11.153642104281968, -0.007472679380146285, 14.740226126631153]],
        dtype=minigrad.float64)
"""),
        Wrong("the formula by hand, no backward", "bypass", """
def hidden_grad(x, w1, w2):
    with minigrad.no_grad():
        h = (x @ w1).relu()
        return 2 * (h @ w2) @ w2.t()
"""),
        Wrong("torch computes it, with retain_grad", "bypass", """
import torch
def hidden_grad(x, w1, w2):
    w1_t = torch.tensor(w1.detach().numpy(), requires_grad=True)
    w2_t = torch.tensor(w2.detach().numpy(), requires_grad=True)
    h = (torch.tensor(x.detach().numpy()) @ w1_t).relu()
    h.retain_grad()
    ((h @ w2_t) ** 2).sum().backward()
    w1.grad, w2.grad = minigrad.tensor(w1_t.grad.numpy()), minigrad.tensor(w2_t.grad.numpy())
    return minigrad.tensor(h.grad.numpy())
"""),
        Wrong("copies a retained torch gradient left in the notebook", "bypass", """
import torch
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    ((h @ w2) ** 2).sum().backward()
    for value in list(get_ipython().user_ns.values()):
        if isinstance(value, torch.Tensor) and value.retains_grad and value.grad is not None:
            return minigrad.tensor(value.grad.numpy())
    return minigrad.zeros(*h.shape, dtype=minigrad.float64)
"""),
    ],
    "ex12-inplace-safe": [
        Wrong("tanh's output still changed in place: y *= 2", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z.clone()
    z += b
    y = z.tanh()
    y *= 2
    y += skip
    return y
""", mistake="saved-changed"),
        Wrong("y *= 2 made out of place, but y += skip still changes tanh's output", "slip",
              """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z.clone()
    z += b
    y = z.tanh()
    y += skip / 2
    return y * 2
""", mistake="saved-changed"),
        Wrong("x still centred in place: the caller's x changes", "slip", """
def block_fixed(x, w, b):
    x -= x.mean(dim=0)
    z = x @ w
    skip = z.clone()
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="input-changed"),
        Wrong("x centred in place through detach(): it shares x's memory", "slip", """
def block_fixed(x, w, b):
    x = x.detach()
    x -= x.mean(dim=0)
    z = x @ w
    skip = z.clone()
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="input-changed"),
        Wrong("skip still an alias of z: z += b changes it", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="alias"),
        Wrong("skip = z.detach(): a view of z's numbers, out of the graph", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z.detach()
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="alias"),
        Wrong("the skip copied after the bias was added", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    z += b
    skip = z.clone()
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="alias"),
        Wrong("the centring line deleted with the bug", "slip", """
def block_fixed(x, w, b):
    z = x @ w
    skip = z.clone()
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
""", mistake="not-centred"),
        Wrong("every op out of place: right numbers, no in-place op left", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    y = 2 * (z + b).tanh() + z
    return y
""", mistake="out-of-place"),
        Wrong("the skip path without its gradient (z.detach().clone())", "slip", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z.detach().clone()
    z += b
    y = 2 * z.tanh()
    y += skip
    return y
"""),
        Wrong("the visible example's y hard-coded, in the graph", "hardcoded", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    y = (z + b) * 0
    y += minigrad.tensor(
        [[1.5420220440163384, -1.47302543075846], [3.7591170891204033, 2.230531556467854],
         [4.5999964375253235, -0.3428870988952176],
         [-6.390410208261067, 2.2145803294780864]], dtype=minigrad.float64)
    return y
"""),
        Wrong("ignores b: no bias", "ignores", """
def block_fixed(x, w, b):
    x = x - x.mean(dim=0)
    z = x @ w
    skip = z.clone()
    z += b * 0
    y = 2 * z.tanh()
    y += skip
    return y
"""),
        Wrong("numpy computes y, a new tensor out of the graph", "bypass", """
import numpy as np
def block_fixed(x, w, b):
    x0, w0, b0 = x.detach().numpy(), w.detach().numpy(), b.detach().numpy()
    z = (x0 - x0.mean(axis=0)) @ w0
    return minigrad.tensor(2 * np.tanh(z + b0) + z, requires_grad=True)
"""),
        Wrong("torch computes it", "bypass", """
import torch
def block_fixed(x, w, b):
    w_t = torch.tensor(w.detach().numpy(), requires_grad=True)
    b_t = torch.tensor(b.detach().numpy(), requires_grad=True)
    x_t = torch.tensor(x.detach().numpy())
    z = (x_t - x_t.mean(dim=0)) @ w_t
    y = 2 * (z + b_t).tanh()
    y += z
    return y
"""),
    ],
}
