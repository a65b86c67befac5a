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
""" + _ACCUMULATED),
        Wrong("a * a differentiated as one factor: a, not 2a", "slip", """
def predicted_grad(a):
    return 3 * a ** 2 + 4 + a
""" + _ACCUMULATED),
        Wrong("the derivative of sum(4a) taken as 4a", "slip", """
def predicted_grad(a):
    return 3 * a ** 2 + 4 * a + 2 * a
""" + _ACCUMULATED),
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
"""),
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
"""),
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
"""),
        Wrong("the stale gradients not cleared first", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    total = sum(sizes)
    first = 0
    for n in sizes:
        loss = ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean()
        (loss * (n / total)).backward()
        first += n
"""),
        Wrong("microbatch means not scaled at all", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    first = 0
    for n in sizes:
        ((model(X[first:first + n]) - y[first:first + n]) ** 2).mean().backward()
        first += n
"""),
        Wrong("the start row never advances", "slip", """
def accumulate_microbatches(model, X, y, sizes):
    model.zero_grad()
    total = sum(sizes)
    for n in sizes:
        loss = ((model(X[:n]) - y[:n]) ** 2).mean()
        (loss * (n / total)).backward()
"""),
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
    "ex08-train": [
        Wrong("zero_grad() once, before the loop", "slip", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    N = X.shape[0]
    opt.zero_grad()
    for _ in range(steps):
        for part in np.array_split(np.arange(N), K):
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)).backward()
        opt.step()
"""),
        Wrong("zero_grad() inside the microbatch loop", "slip", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    N = X.shape[0]
    for _ in range(steps):
        for part in np.array_split(np.arange(N), K):
            opt.zero_grad()
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)).backward()
        opt.step()
"""),
        Wrong("each microbatch mean divided by K (unequal sizes)", "slip", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        for part in np.array_split(np.arange(X.shape[0]), K):
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() / K).backward()
        opt.step()
"""),
        Wrong("step() after each microbatch", "slip", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    N = X.shape[0]
    for _ in range(steps):
        opt.zero_grad()
        for part in np.array_split(np.arange(N), K):
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)).backward()
            opt.step()
"""),
        Wrong("the worked example's sizes 8, 8, 7, 7 hard-coded", "hardcoded", """
import minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        lo = 0
        for n in [8, 8, 7, 7]:
            (((model(X[lo:lo + n]) - y[lo:lo + n]) ** 2).mean() * (n / 30)).backward()
            lo += n
        opt.step()
"""),
        Wrong("ignores lr: the worked example's 0.05", "ignores", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=0.05)
    N = X.shape[0]
    for _ in range(steps):
        opt.zero_grad()
        for part in np.array_split(np.arange(N), K):
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)).backward()
        opt.step()
"""),
        Wrong("ignores K: always 4 microbatches", "ignores", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    N = X.shape[0]
    for _ in range(steps):
        opt.zero_grad()
        for part in np.array_split(np.arange(N), 4):
            lo, hi = part[0], part[-1] + 1
            (((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)).backward()
        opt.step()
"""),
        Wrong("one backward() of the summed microbatch losses per step", "bypass", """
import numpy as np, minigrad
def train_accumulated(model, X, y, K, steps, lr):
    opt = minigrad.optim.SGD(model.parameters(), lr=lr)
    N = X.shape[0]
    for _ in range(steps):
        opt.zero_grad()
        loss = 0.0
        for part in np.array_split(np.arange(N), K):
            lo, hi = part[0], part[-1] + 1
            loss = loss + ((model(X[lo:hi]) - y[lo:hi]) ** 2).mean() * (len(part) / N)
        loss.backward()
        opt.step()
"""),
        Wrong("torch trains a copy, the weights copied back", "bypass", """
import numpy as np, torch
def train_accumulated(model, X, y, K, steps, lr):
    params = list(model.parameters())
    weight, bias = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    opt = torch.optim.SGD([weight, bias], lr=lr)
    N = X.shape[0]
    Xt, yt = torch.tensor(X.detach().numpy()), torch.tensor(y.detach().numpy())
    for _ in range(steps):
        opt.zero_grad()
        for part in np.array_split(np.arange(N), K):
            model(X[int(part[0]):int(part[-1]) + 1])
        ((Xt @ weight.T + bias - yt) ** 2).mean().backward()
        opt.step()
    for p, c in zip(params, [weight, bias]):
        p.detach().numpy()[...] = c.detach().numpy()
"""),
    ],
}
