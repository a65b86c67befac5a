"""Wrong answers to chapter 09's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex09-predict": [
        Wrong("recording switched off with a plain call, left off", "slip", """
import minigrad
def predict(net, inputs):
    minigrad.set_grad_enabled(False)
    return net(inputs)
""", mistake="left-off"),
        Wrong("the result detached: the net has recorded its graph already", "slip", """
def predict(net, inputs):
    return net(inputs).detach()
""", mistake="detached-after"),
        Wrong("torch's no_grad as the decorator", "slip", """
import torch
@torch.no_grad()
def predict(net, inputs):
    return net(inputs)
""", mistake="recorded"),
        Wrong("eval() instead of no_grad()", "slip", """
def predict(net, inputs):
    net.eval()
    return net(inputs)
""", mistake="recorded"),
        Wrong("recording switched off and back on by hand", "slip", """
import minigrad
def predict(net, inputs):
    minigrad.set_grad_enabled(False)
    out = net(inputs)
    minigrad.set_grad_enabled(True)
    return out
""", mistake="forced-on"),
        Wrong("minigrad's switch right, torch's switched off and left off", "slip", """
import minigrad, torch
@minigrad.no_grad
def predict(net, inputs):
    torch.set_grad_enabled(False)
    return net(inputs)
""", mistake="torch-left-off"),
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
""", mistake="detached-after"),
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
""", mistake="norm-not-detached"),
        Wrong("the squared norm, no square root", "slip", """
def normalised_backward(p, c):
    loss = (p / (p.detach() ** 2).sum() * c).sum()
    loss.backward()
    return loss
""", mistake="squared-norm"),
        Wrong("p itself detached: nothing to go back through", "slip", """
def normalised_backward(p, c):
    norm = ((p.detach() ** 2).sum()) ** 0.5
    loss = (p.detach() / norm * c).sum()
    loss.backward()
    return loss
""", mistake="p-detached"),
        Wrong("the root mean square as the norm", "slip", """
def normalised_backward(p, c):
    norm = ((p.detach() ** 2).mean()) ** 0.5
    loss = (p / norm * c).sum()
    loss.backward()
    return loss
""", mistake="rms-norm"),
        Wrong("the worked example's norm 13 hard-coded", "hardcoded", """
def normalised_backward(p, c):
    loss = (p / 13.0 * c).sum()
    loss.backward()
    return loss
""", mistake="norm-fixed-13"),
        Wrong("ignores c: the worked example's [1, 2, -1]", "ignores", """
import minigrad
def normalised_backward(p, c):
    c9 = minigrad.tensor([1.0, 2.0, -1.0], dtype=minigrad.float64)
    loss = (p / ((p.detach() ** 2).sum()) ** 0.5 * c9).sum()
    loss.backward()
    return loss
""", mistake="ignores-c"),
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
    "ex09-freeze": [
        Wrong("only the weights frozen: the biases still train", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        module.weight.requires_grad_(False)
    opt = minigrad.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr,
                             momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""", mistake="biases-train"),
        Wrong("frozen by a learning rate of 0: backward still fills their .grad", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    fixed = [p for m in frozen for p in m.parameters()]
    rest = [p for p in model.parameters() if all(p is not q for q in fixed)]
    groups = [{"params": rest}] + ([{"params": fixed, "lr": 0.0}] if fixed else [])
    opt = minigrad.optim.SGD(groups, lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""", mistake="lr-zero"),
        Wrong("eval() on the frozen modules: a layer mode, not a freeze", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        module.eval()
    opt = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""", mistake="still-trains"),
        Wrong("no zero_grad(): the trained parameters' gradients pile up", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        for p in module.parameters():
            p.requires_grad_(False)
    opt = minigrad.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr,
                             momentum=0.9)
    losses = []
    for x, y in batches:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""", mistake="grads-pile-up"),
        Wrong("frozen only after the first step has moved them", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        for module in frozen:
            for p in module.parameters():
                p.requires_grad_(False)
                p.grad = None
    return losses
""", mistake="frozen-late"),
        Wrong("unfrozen again at the end, to leave the model as it came", "slip", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        for p in module.parameters():
            p.requires_grad_(False)
    opt = minigrad.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr,
                             momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    for p in model.parameters():
        p.requires_grad_(True)
    return losses
""", mistake="unfrozen-at-end"),
        Wrong("the worked example's losses hard-coded", "hardcoded", """
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        for p in module.parameters():
            p.requires_grad_(False)
    return [0.7736414198417745, 0.5188018224390155, 0.7514691658608554]
"""),
        Wrong("ignores frozen: always freezes the model's first module", "ignores", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for p in model[0].parameters():
        p.requires_grad_(False)
    opt = minigrad.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=lr,
                             momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
""", mistake="still-trains"),
        Wrong("ignores lr: the worked example's 0.1", "ignores", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    for module in frozen:
        for p in module.parameters():
            p.requires_grad_(False)
    opt = minigrad.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1,
                             momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
"""),
        Wrong("everything trained, the frozen values put back at the end", "bypass", """
import minigrad
def train_frozen(model, frozen, batches, lr):
    fixed = [p for m in frozen for p in m.parameters()]
    saved = [p.detach().clone() for p in fixed]
    opt = minigrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    for x, y in batches:
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    for p, v in zip(fixed, saved):
        p.data = v
        p.grad = None
        p.requires_grad_(False)
    return losses
"""),
        Wrong("torch trains a copy, the trained values copied back", "bypass", """
import minigrad, torch
def train_frozen(model, frozen, batches, lr):
    fixed = {id(p) for m in frozen for p in m.parameters()}
    params = list(model.parameters())
    copies = [torch.tensor(p.data, requires_grad=id(p) not in fixed) for p in params]
    opt = torch.optim.SGD([c for c in copies if c.requires_grad], lr=lr, momentum=0.9)
    linears = [m for m in model if isinstance(m, minigrad.nn.Linear)]
    losses = []
    for x, y in batches:
        opt.zero_grad()
        h = torch.tensor(x.data)
        for i in range(len(linears)):
            h = h @ copies[2 * i].T + copies[2 * i + 1]
            if i < len(linears) - 1:
                h = h.relu()
        loss = ((h - torch.tensor(y.data)) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    for p, c in zip(params, copies):
        p.data = minigrad.tensor(c.detach().numpy())
        if id(p) in fixed:
            p.requires_grad_(False)
    return losses
"""),
    ],
}
