"""Wrong answers to chapter 15's exercises."""

from tests.wrong_answers import Wrong

# g and H by autograd.grad, as Exercise 15.3 allows: the slips below go wrong only after
GH = '''def _gh(f, x):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    H = np.stack([minigrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy()
                  for i in range(x.numel())])
    return x.detach().numpy(), g.detach().numpy(), H
'''

WRONG = {
    "ex15-nth-derivative": [
        Wrong("create_graph only on the first pass", "slip", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    for k in range(n):
        (y,) = minigrad.autograd.grad(y, x, create_graph=(k == 0))
    return y.item()
""", mistake="graph-not-recorded"),
        Wrong("create_graph forgotten: the gradient has no graph", "slip", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    for _ in range(n):
        (y,) = minigrad.autograd.grad(y, x)
    return y.item()
""", mistake="graph-not-recorded"),
        Wrong("one pass too few", "slip", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    for _ in range(n - 1):
        (y,) = minigrad.autograd.grad(y, x, create_graph=True)
    return y.item()
""", mistake="one-pass-short"),
        Wrong("every pass differentiates f, not the last result", "slip", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    out = y
    for _ in range(n):
        (out,) = minigrad.autograd.grad(y, x, create_graph=True)
    return out.item()
""", mistake="differentiates-f-again"),
        Wrong("backward into x.grad each pass: the derivatives pile up", "slip", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    y = f(x)
    for _ in range(n):
        y.backward(create_graph=True)
        y = x.grad
    return y.item()
""", mistake="grads-piled-up"),
        Wrong("ignores n: always the second derivative", "ignores", """
def nth_derivative(f, x, n):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    return minigrad.autograd.grad(g, x)[0].item()
""", mistake="ignores-n"),
        Wrong("the visible examples hard-coded", "hardcoded", """
def nth_derivative(f, x, n):
    if n == 1:
        return 12.0
    return {2: -0.7268619813835873, 3: -0.5652092882597705}[n]
"""),
        Wrong("finite differences of f (numerical)", "bypass", """
from math import comb
def nth_derivative(f, x, n, h=1e-3):
    value = lambda t: f(minigrad.tensor(float(t), dtype=minigrad.float64)).item()
    return sum((-1) ** k * comb(n, k) * value(x + (n / 2 - k) * h)
               for k in range(n + 1)) / h ** n
"""),
        Wrong("minigrad.func.grad nested", "bypass", """
def nth_derivative(f, x, n):
    for _ in range(n):
        f = minigrad.func.grad(f)
    return f(minigrad.tensor(float(x), dtype=minigrad.float64)).item()
"""),
        Wrong("torch's autograd (f works on torch tensors too)", "bypass", """
import torch
def nth_derivative(f, x, n):
    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    y = f(t)
    for _ in range(n):
        (y,) = torch.autograd.grad(y, t, create_graph=True)
    return y.item()
"""),
    ],
    "ex15-hvp": [
        Wrong("the gradient times v, elementwise", "slip", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x)
    return g * v
""", mistake="gradient-times-v"),
        Wrong("backward twice into x.grad: g + H v", "slip", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    f(x).backward(create_graph=True)
    (x.grad * v).sum().backward()
    return x.grad
""", mistake="gradient-added"),
        Wrong("v forgotten: the gradient of sum(g), H times ones", "ignores", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    (hv,) = minigrad.autograd.grad(g.sum(), x)
    return hv
""", mistake="ignores-v"),
        Wrong("the full Hessian row by row, then H @ v", "bypass", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    rows = [minigrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy()
            for i in range(x.numel())]
    return np.stack(rows) @ v.numpy()
"""),
        Wrong("autograd.functional.vhp (v^T H, the same for a symmetric H)", "bypass", """
def hvp(f, x, v):
    return minigrad.autograd.functional.vhp(f, x, v)[1]
"""),
        Wrong("autograd.functional.hvp", "bypass", """
def hvp(f, x, v):
    return minigrad.autograd.functional.hvp(f, x, v)[1]
"""),
        Wrong("forward over reverse with func.jvp", "bypass", """
def hvp(f, x, v):
    return minigrad.func.jvp(minigrad.func.grad(f), (x,), (v,))[1]
"""),
        Wrong("torch's hvp on copies", "bypass", """
import torch
def hvp(f, x, v):
    return torch.autograd.functional.hvp(f, torch.tensor(x.numpy()),
                                         torch.tensor(v.numpy()))[1]
"""),
        Wrong("the visible example hard-coded", "hardcoded", """
def hvp(f, x, v):
    return np.array([-0.3512787292998718, -4.264241117657114, -9.38905609893065])
"""),
    ],
    "ex15-newton-step": [
        Wrong("multiplies by H instead of solving", "slip", GH + """
def newton_step(f, x):
    x, g, H = _gh(f, x)
    return x - H @ g
""", mistake="multiplied-by-H"),
        Wrong("the wrong sign: x + H^-1 g", "slip", GH + """
def newton_step(f, x):
    x, g, H = _gh(f, x)
    return x + np.linalg.solve(H, g)
""", mistake="sign-flipped"),
        Wrong("the diagonal of H only", "slip", GH + """
def newton_step(f, x):
    x, g, H = _gh(f, x)
    return x - g / np.diag(H)
""", mistake="diagonal-only"),
        Wrong("a gradient step, no Hessian", "slip", GH + """
def newton_step(f, x):
    x, g, H = _gh(f, x)
    return x - g
""", mistake="gradient-step"),
        Wrong("ignores f: always Rosenbrock's formulas", "ignores", """
def newton_step(f, x):
    a, b = x.numpy()
    g = np.array([-2 * (1 - a) - 400 * a * (b - a * a), 200 * (b - a * a)])
    H = np.array([[2 - 400 * (b - 3 * a * a), -400 * a], [-400 * a, 200.0]])
    return x.numpy() - np.linalg.solve(H, g)
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def newton_step(f, x):
    if x.numpy()[0] == -1.2:
        return np.array([-1.1752808988764045, 1.3806741573033707])
    return np.zeros(2)
"""),
        Wrong("minigrad.func.grad and minigrad.func.hessian", "bypass", """
def newton_step(f, x):
    g = minigrad.func.grad(f)(x).numpy()
    H = minigrad.func.hessian(f)(x).numpy()
    return x.numpy() - np.linalg.solve(H, g)
"""),
        Wrong("torch.func on copies", "bypass", """
import torch
def newton_step(f, x):
    t = torch.tensor(x.numpy())
    return t - torch.linalg.solve(torch.func.hessian(f)(t), torch.func.grad(f)(t))
"""),
    ],
    "ex15-power-iteration": [
        Wrong("v never normalised: overflows on a large curvature", "slip", """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = ((v * w).sum() / (v * v).sum()).item()
        v = w
    return lam, v / (v * v).sum() ** 0.5
""", mistake="never-normalised"),
        Wrong("H v0 at every step: v never updated", "slip", """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = (v * w).sum().item()
    return lam, w / (w * w).sum() ** 0.5
""", mistake="v-not-updated"),
        Wrong("the estimate |H v|, not v . H v", "slip", """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = ((w * w).sum() ** 0.5).item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
""", mistake="length-of-Hv"),
        Wrong("v0 not normalised before the first step", "slip", """
def lambda_max(f, x, v0, steps):
    v = v0
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
""", mistake="v0-not-normalised"),
        Wrong("the largest curvature along the axes: max of H's diagonal", "slip", """
def lambda_max(f, x, v0, steps):
    n = x.numel()
    best, best_e = None, None
    for i in range(n):
        e = minigrad.tensor(np.eye(n)[i])
        c = (e * hvp(f, x, e)).sum().item()
        if best is None or c > best:
            best, best_e = c, e
    return best, best_e
""", mistake="largest-diagonal"),
        Wrong("ignores v0: starts from all ones", "ignores", """
def lambda_max(f, x, v0, steps):
    v = minigrad.tensor(np.ones(x.numel()) / x.numel() ** 0.5)
    for _ in range(steps):
        w = hvp(f, x, v)
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
"""),
        Wrong("ignores steps: always 100", "ignores", """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(100):
        w = hvp(f, x, v)
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
"""),
        Wrong("the visible curvatures hard-coded", "hardcoded", """
def lambda_max(f, x, v0, steps):
    n = x.numel()
    lam = {2: 20.0, 4: 1000.0}.get(n, 1.0)
    v = np.zeros(n)
    v[0] = 1.0
    return lam, minigrad.tensor(v)
"""),
        Wrong("the whole Hessian row by row, then numpy's eigh", "bypass", """
def lambda_max(f, x, v0, steps):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    H = np.stack([minigrad.autograd.grad(g[i], x, retain_graph=True)[0].numpy()
                  for i in range(x.numel())])
    values, vectors = np.linalg.eigh(H)
    v = vectors[:, -1] * np.sign(vectors[:, -1] @ v0.numpy())
    return float(values[-1]), minigrad.tensor(v)
"""),
        Wrong("minigrad's ready-made hvp instead of your own", "bypass", """
def lambda_max(f, x, v0, steps):
    v = v0 / (v0 * v0).sum() ** 0.5
    for _ in range(steps):
        w = minigrad.autograd.functional.hvp(f, x, v)[1]
        lam = (v * w).sum().item()
        v = w / (w * w).sum() ** 0.5
    return lam, v
"""),
    ],
}
