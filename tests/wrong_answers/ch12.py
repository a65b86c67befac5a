"""Wrong answers to chapter 12's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex12-train-step": [
        Wrong("no zero_grad: stale gradients add up", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    step_loss.backward()
    optimizer.step()
    return step_loss.item()
"""),
        Wrong("zero_grad between backward and step", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    step_loss.backward()
    optimizer.zero_grad()
    optimizer.step()
    return step_loss.item()
"""),
        Wrong("zero_grad after the step (the first step uses the stale gradients)", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    step_loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return step_loss.item()
"""),
        Wrong("the sum of squares, not the mean", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).sum()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    return step_loss.item()
"""),
        Wrong("returns the loss after the step", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    return ((model(X) - y) ** 2).mean().item()
"""),
        Wrong("ignores the optimizer: its own SGD with the example's lr", "ignores", """
def train_step(model, optimizer, X, y):
    own = minigrad.optim.SGD(model.parameters(), lr=0.2)
    step_loss = ((model(X) - y) ** 2).mean()
    own.zero_grad()
    step_loss.backward()
    own.step()
    return step_loss.item()
"""),
        Wrong("the visible losses hard-coded, the step done right", "hardcoded", """
_seen = []
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    _seen.append(1)
    return [0.9817616438510309, 0.6731461148647148, 0.5934745912504694][(len(_seen) - 1) % 3]
"""),
        Wrong("a torch twin trained instead, the weights copied back", "bypass", """
import torch
def train_step(model, optimizer, X, y):
    params = list(model.parameters())
    twins = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    lr = optimizer.param_groups[0]["lr"]
    X_t, y_t = torch.tensor(X.detach().numpy()), torch.tensor(y.detach().numpy())
    out = X_t
    for layer in model.children() if hasattr(model, "children") else [model]:
        names = [n for n, _ in layer.named_parameters()]
        if names:
            w = next(t for p, t in zip(params, twins) if p is layer.weight)
            b = next(t for p, t in zip(params, twins) if p is layer.bias)
            out = out @ w.T + b
        else:
            out = out.relu()
    step_loss = ((out - y_t) ** 2).mean()
    step_loss.backward()
    with minigrad.no_grad():
        for p, t in zip(params, twins):
            p.detach().numpy()[...] -= lr * t.grad.numpy()
            p.grad = None
    return step_loss.item()
"""),
        Wrong("the update by hand, no optimizer step", "bypass", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    lr = optimizer.param_groups[0]["lr"]
    with minigrad.no_grad():
        for p in model.parameters():
            p.data -= lr * p.grad
    return step_loss.item()
"""),
        Wrong("the loss returned as a tensor", "slip", """
def train_step(model, optimizer, X, y):
    step_loss = ((model(X) - y) ** 2).mean()
    optimizer.zero_grad()
    step_loss.backward()
    optimizer.step()
    return step_loss
"""),
    ],
    "ex12-softmax": [
        Wrong("still in place: div_", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    e.div_(e.sum(dim=dim, keepdim=True))
    return e
"""),
        Wrong("still in place: /=", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    e /= e.sum(dim=dim, keepdim=True)
    return e
"""),
        Wrong("sums along dim 0", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=0, keepdim=True)
"""),
        Wrong("no keepdim", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=dim)
"""),
        Wrong("the denominator detached", "slip", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True).detach()
"""),
        Wrong("ignores dim: always dim 1", "ignores", """
def softmax_fixed(z, dim=1):
    e = z.exp()
    return e / e.sum(dim=1, keepdim=True)
"""),
        Wrong("only 2-D: a transpose for dim 0", "ignores", """
def softmax_fixed(z, dim=1):
    if dim == 0:
        z = z.t()
    e = z.exp()
    out = e / e.sum(dim=1, keepdim=True)
    return out.t() if dim == 0 else out
"""),
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
"""),
        Wrong("retain_grad after backward", "slip", """
def hidden_grad(x, w1, w2):
    h = (x @ w1).relu()
    ((h @ w2) ** 2).sum().backward()
    h.retain_grad()
    return h.grad
"""),
        Wrong("the gradient before the relu", "slip", """
def hidden_grad(x, w1, w2):
    pre = x @ w1
    pre.retain_grad()
    h = pre.relu()
    ((h @ w2) ** 2).sum().backward()
    return pre.grad
"""),
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
}
