"""Wrong answers to chapter 08's exercises."""

from tests.wrong_answers import Wrong

_ACCUMULATED = """
import minigrad
def accumulated(a0):
    a = minigrad.tensor(a0, dtype=minigrad.float64, requires_grad=True)
    (a ** 3).sum().backward()
    (4 * a).sum().backward()
    (a * a).sum().backward()
    return a
"""

_PREDICTED = """
def predicted_grad(a):
    return 3 * a ** 2 + 4 + 2 * a
"""

WRONG = {
    "ex08-predict": [
        Wrong("backward replaces .grad: only the last loss's derivative", "slip", """
def predicted_grad(a):
    return 2 * a
""" + _ACCUMULATED, mistake="last-loss-only"),
        Wrong("a * a differentiated as one factor: a, not 2a", "slip", """
def predicted_grad(a):
    return 3 * a ** 2 + 4 + a
""" + _ACCUMULATED, mistake="product-one-factor"),
        Wrong("the derivative of sum(4a) taken as 4a", "slip", """
def predicted_grad(a):
    return 3 * a ** 2 + 4 * a + 2 * a
""" + _ACCUMULATED, mistake="linear-as-4a"),
        Wrong("gradients cleared between the backward() calls", "slip", _PREDICTED + """
import minigrad
def accumulated(a0):
    a = minigrad.tensor(a0, dtype=minigrad.float64, requires_grad=True)
    (a ** 3).sum().backward()
    a.grad = None
    (4 * a).sum().backward()
    a.grad = None
    (a * a).sum().backward()
    return a
""", mistake="cleared-between"),
        Wrong("the worked example's prediction hard-coded", "hardcoded", """
import numpy as np
def predicted_grad(a):
    return np.array([9.0, 12.0, 5.75])
""" + _ACCUMULATED),
        Wrong("accumulated ignores a0: the worked example's values", "ignores", _PREDICTED + """
import minigrad
def accumulated(a0):
    a = minigrad.tensor([1.0, -2.0, 0.5], dtype=minigrad.float64, requires_grad=True)
    (a ** 3).sum().backward()
    (4 * a).sum().backward()
    (a * a).sum().backward()
    return a
""", mistake="ignores-a0"),
        Wrong("the prediction from torch's autograd", "bypass", """
import torch
def predicted_grad(a):
    t = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    (t ** 3).sum().backward()
    (4 * t).sum().backward()
    (t * t).sum().backward()
    return t.grad.numpy()
""" + _ACCUMULATED),
        Wrong("the prediction from the other function's backward()", "bypass", _ACCUMULATED + """
def predicted_grad(a):
    return accumulated(a).grad.numpy()
"""),
        Wrong("the prediction from central differences, not the derivatives", "bypass", """
import numpy as np
def predicted_grad(a):
    loss = lambda v: (v ** 3).sum() + (4 * v).sum() + (v * v).sum()
    a = np.asarray(a, dtype=np.float64)
    out = np.zeros_like(a)
    h = 1e-6
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += h
        down[i] -= h
        out[i] = (loss(up) - loss(down)) / (2 * h)
    return out
""" + _ACCUMULATED),
        Wrong("the prediction copied into .grad, no backward()", "bypass", _PREDICTED + """
import minigrad
def accumulated(a0):
    a = minigrad.tensor(a0, dtype=minigrad.float64, requires_grad=True)
    a.grad = minigrad.tensor(predicted_grad(a.detach().numpy()))
    return a
"""),
    ],
    "ex08-unequal": [
        Wrong("each microbatch mean divided by the number of microbatches", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    first = 0
    for n in sizes:
        loss = ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean()
        (loss / len(sizes)).backward()
        first += n
""", mistake="divided-by-count"),
        Wrong("the stale gradients not cleared first", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    total = sum(sizes)
    first = 0
    for n in sizes:
        loss = ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean()
        (loss * (n / total)).backward()
        first += n
""", mistake="stale-not-cleared"),
        Wrong("microbatch means not scaled at all", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    first = 0
    for n in sizes:
        ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean().backward()
        first += n
""", mistake="not-scaled"),
        Wrong("the start row never advances", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    total = sum(sizes)
    for n in sizes:
        loss = ((model(X[:n]) - y[:n]) ** 2).mean()
        (loss * (n / total)).backward()
""", mistake="start-not-advancing"),
        Wrong("the worked example's shares 0.5, 0.3, 0.2 hard-coded", "hardcoded", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    first = 0
    for n, share in zip(sizes, [0.5, 0.3, 0.2]):
        loss = ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean()
        (loss * share).backward()
        first += n
"""),
        Wrong("ignores sizes: np.array_split into as many parts", "ignores", """
import numpy as np
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    total = X.shape[0]
    for part in np.array_split(np.arange(total), len(sizes)):
        lo, hi = int(part[0]), int(part[-1]) + 1
        loss = ((model(X[lo:hi]) - y[lo:hi]) ** 2).mean()
        (loss * ((hi - lo) / total)).backward()
"""),
        Wrong("one full-batch backward() of the summed microbatch losses", "bypass", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    total = sum(sizes)
    first, loss = 0, 0.0
    for n in sizes:
        loss = loss + ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean() * (n / total)
        first += n
    loss.backward()
"""),
        Wrong("one full-batch forward and backward", "bypass", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    ((model(X) - y) ** 2).mean().backward()
"""),
        Wrong("torch's full-batch gradient copied into .grad", "bypass", """
import torch, minigrad
def accumulate_microbatches(model, X, y, sizes):
    params = list(model.parameters())
    copies = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    first = 0
    for n in sizes:
        model(X[first:first + n])
        first += n
    weight, bias = copies
    out = torch.tensor(X.detach().numpy()) @ weight.T + bias
    ((out - torch.tensor(y.detach().numpy())) ** 2).mean().backward()
    for p, c in zip(params, copies):
        p.grad = minigrad.tensor(c.grad.numpy())
"""),
    ],
    "ex08-stale-skip": [
        Wrong("the supplied loop as it is", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        if loss.item() > max_loss:
            continue
        optimizer.step()
        optimizer.zero_grad()
    return losses
""", mistake="supplied-loop"),
        Wrong("zero_grad() added once, before the loop", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    optimizer.zero_grad()
    losses = []
    for X, y in batches:
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        if loss.item() > max_loss:
            continue
        optimizer.step()
        optimizer.zero_grad()
    return losses
""", mistake="zero-before-loop"),
        Wrong("zero_grad() moved between backward() and step()", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        if loss.item() > max_loss:
            continue
        optimizer.zero_grad()
        optimizer.step()
    return losses
""", mistake="zero-between"),
        Wrong("the skip test moved after the step", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
        if loss.item() > max_loss:
            continue
    return losses
""", mistake="no-skip"),
        Wrong("only the weight's gradient cleared: the bias stays stale", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    weight = list(model.parameters())[0]
    losses = []
    for X, y in batches:
        weight.grad = None
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        if loss.item() > max_loss:
            continue
        optimizer.step()
    return losses
""", mistake="weight-only-cleared"),
        Wrong("break at the first outlier instead of skipping it", "slip", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        if loss.item() > max_loss:
            break
        loss.backward()
        optimizer.step()
    return losses
""", mistake="break"),
        Wrong("ignores max_loss: no batch skipped", "ignores", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for X, y in batches:
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
""", mistake="no-skip"),
        Wrong("ignores lr: the demo's 0.1", "ignores", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for X, y in batches:
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        if loss.item() > max_loss:
            continue
        loss.backward()
        optimizer.step()
    return losses
"""),
        Wrong("the visible example's outlier, batch 3, skipped by position", "hardcoded", """
import minigrad
def train_skipping(model, batches, lr, max_loss):
    optimizer = minigrad.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for k, (X, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = ((model(X) - y) ** 2).mean()
        losses.append(loss.item())
        if k == 3:
            continue
        loss.backward()
        optimizer.step()
    return losses
"""),
        Wrong("torch's loop on a copy, its parameters loaded back", "bypass", """
import torch
def train_skipping(model, batches, lr, max_loss):
    params = list(model.parameters())
    copies = [torch.tensor(p.data, requires_grad=True) for p in params]
    optimizer = torch.optim.SGD(copies, lr=lr)
    losses = []
    for X, y in batches:
        out = torch.tensor(X.data) @ copies[0].T + copies[1]
        loss = ((out - torch.tensor(y.data)) ** 2).mean()
        losses.append(loss.item())
        if loss.item() > max_loss:
            continue
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for p, c in zip(params, copies):
        p.data = minigrad.tensor(c.detach().numpy())
    return losses
"""),
    ],
}
