"""Wrong answers to chapter 09's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex09-predict": [
        Wrong("recording switched off with a plain call, left off", "slip", """
import minigrad
def predict(net, inputs):
    minigrad.set_grad_enabled(False)
    return net(inputs)
"""),
        Wrong("the result detached: the net has recorded its graph already", "slip", """
def predict(net, inputs):
    return net(inputs).detach()
"""),
        Wrong("torch's no_grad as the decorator", "slip", """
import torch
@torch.no_grad()
def predict(net, inputs):
    return net(inputs)
"""),
        Wrong("eval() instead of no_grad()", "slip", """
def predict(net, inputs):
    net.eval()
    return net(inputs)
"""),
        Wrong("recording switched off and back on by hand", "slip", """
import minigrad
def predict(net, inputs):
    minigrad.set_grad_enabled(False)
    out = net(inputs)
    minigrad.set_grad_enabled(True)
    return out
"""),
        Wrong("minigrad's switch right, torch's switched off and left off", "slip", """
import minigrad, torch
@minigrad.no_grad
def predict(net, inputs):
    torch.set_grad_enabled(False)
    return net(inputs)
"""),
        Wrong("the worked example's prediction hard-coded", "hardcoded", """
import minigrad
def predict(net, inputs):
    return minigrad.tensor([[-1.740012672211169, 0.9826248882859903],
                            [-0.4609043307932024, 0.6097652804322018],
                            [0.24265033807626224, 0.1795331424979038],
                            [-0.497946012997904, 1.2793599084564897],
                            [0.18972062564826575, 1.296777955691161]], dtype=minigrad.float64)
"""),
        Wrong("ignores inputs after the first call (a cache by net)", "ignores", """
import minigrad
_cache = {}
@minigrad.no_grad
def predict(net, inputs):
    key = tuple(inputs.shape)
    if key not in _cache:
        _cache[key] = net(inputs)
    return _cache[key]
"""),
        Wrong("recorded forward, a fresh tensor made from its numbers", "bypass", """
import minigrad
def predict(net, inputs):
    return minigrad.tensor(net(inputs).detach().numpy())
"""),
        Wrong("torch computes the prediction from the net's weights", "bypass", """
import minigrad, torch
def predict(net, inputs):
    layer = [m for m in net.modules() if isinstance(m, minigrad.nn.Linear)][0]
    with torch.no_grad():
        out = torch.nn.functional.linear(torch.tensor(inputs.detach().numpy()),
                                         torch.tensor(layer.weight.detach().numpy()),
                                         torch.tensor(layer.bias.detach().numpy()))
    return minigrad.tensor(out.numpy())
"""),
    ],
    "ex09-detach": [
        Wrong("norm not detached: a second gradient term", "slip", """
def normalised_backward(p, c):
    loss = (p / ((p ** 2).sum() ** 0.5) * c).sum()
    loss.backward()
    return loss
"""),
        Wrong("the squared norm, no square root", "slip", """
def normalised_backward(p, c):
    loss = (p / (p.detach() ** 2).sum() * c).sum()
    loss.backward()
    return loss
"""),
        Wrong("p itself detached: nothing to go back through", "slip", """
def normalised_backward(p, c):
    norm = ((p.detach() ** 2).sum()) ** 0.5
    loss = (p.detach() / norm * c).sum()
    loss.backward()
    return loss
"""),
        Wrong("the root mean square as the norm", "slip", """
def normalised_backward(p, c):
    norm = ((p.detach() ** 2).mean()) ** 0.5
    loss = (p / norm * c).sum()
    loss.backward()
    return loss
"""),
        Wrong("the worked example's norm 13 hard-coded", "hardcoded", """
def normalised_backward(p, c):
    loss = (p / 13.0 * c).sum()
    loss.backward()
    return loss
"""),
        Wrong("ignores c: the worked example's [1, 2, -1]", "ignores", """
import minigrad
def normalised_backward(p, c):
    c9 = minigrad.tensor([1.0, 2.0, -1.0], dtype=minigrad.float64)
    loss = (p / ((p.detach() ** 2).sum()) ** 0.5 * c9).sum()
    loss.backward()
    return loss
"""),
        Wrong("torch's autograd, the gradient copied into p.grad", "bypass", """
import minigrad, torch
def normalised_backward(p, c):
    pt = torch.tensor(p.detach().numpy(), requires_grad=True)
    lt = (pt / pt.detach().norm() * torch.tensor(c.detach().numpy())).sum()
    lt.backward()
    p.grad = minigrad.tensor(pt.grad.numpy())
    loss = (p * minigrad.tensor(pt.grad.numpy())).sum()
    return loss
"""),
        Wrong("the gradient c / norm written into p.grad, no backward()", "bypass", """
def normalised_backward(p, c):
    norm = ((p.detach() ** 2).sum()) ** 0.5
    loss = (p / norm * c).sum()
    p.grad = c / norm
    return loss
"""),
    ],
    "ex09-train-eval": [
        Wrong("set_grad_enabled(train) as a plain call: left off after evaluating", "slip", """
import minigrad
def mse_pass(net, inputs, targets, train):
    minigrad.set_grad_enabled(train)
    loss = ((net(inputs) - targets) ** 2).mean()
    if train:
        loss.backward()
    return loss
"""),
        Wrong("backward() when evaluating too", "slip", """
import minigrad
def mse_pass(net, inputs, targets, train):
    with minigrad.set_grad_enabled(train):
        loss = ((net(inputs) - targets) ** 2).mean()
    loss.backward()
    return loss
"""),
        Wrong("net.train(train) instead of a grad switch", "slip", """
def mse_pass(net, inputs, targets, train):
    net.train(train)
    loss = ((net(inputs) - targets) ** 2).mean()
    if train:
        loss.backward()
    return loss
"""),
        Wrong("no_grad when evaluating, the caller's setting when training", "slip", """
import minigrad
def mse_pass(net, inputs, targets, train):
    if not train:
        with minigrad.no_grad():
            return ((net(inputs) - targets) ** 2).mean()
    loss = ((net(inputs) - targets) ** 2).mean()
    loss.backward()
    return loss
"""),
        Wrong("backward() never called", "slip", """
import minigrad
def mse_pass(net, inputs, targets, train):
    with minigrad.set_grad_enabled(train):
        return ((net(inputs) - targets) ** 2).mean()
"""),
        Wrong("the worked example's 12 entries hard-coded in the mean", "hardcoded", """
import minigrad
def mse_pass(net, inputs, targets, train):
    with minigrad.set_grad_enabled(train):
        loss = ((net(inputs) - targets) ** 2).sum() / 12
    if train:
        loss.backward()
    return loss
"""),
        Wrong("ignores train: always records and backpropagates", "ignores", """
import minigrad
def mse_pass(net, inputs, targets, train):
    with minigrad.enable_grad():
        loss = ((net(inputs) - targets) ** 2).mean()
    loss.backward()
    return loss
"""),
        Wrong("recorded loss detached for evaluation", "bypass", """
def mse_pass(net, inputs, targets, train):
    loss = ((net(inputs) - targets) ** 2).mean()
    if train:
        loss.backward()
        return loss
    return loss.detach()
"""),
        Wrong("torch computes the gradient, copied into .grad", "bypass", """
import minigrad, torch
def mse_pass(net, inputs, targets, train):
    with minigrad.set_grad_enabled(train):
        loss = ((net(inputs) - targets) ** 2).mean()
    if train:
        params = list(net.parameters())
        w, b = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in params]
        x, t = torch.tensor(inputs.detach().numpy()), torch.tensor(targets.detach().numpy())
        ((x @ w.T + b - t) ** 2).mean().backward()
        for p, q in zip(params, [w, b]):
            p.grad = minigrad.tensor(q.grad.numpy())
    return loss
"""),
    ],
}
