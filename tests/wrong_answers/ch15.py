"""Wrong answers to chapter 15's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex15-second-derivative": [
        Wrong("create_graph forgotten: the gradient has no graph", "slip", """
def second_derivative(f, x):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    (g,) = minigrad.autograd.grad(f(x), x)
    (h,) = minigrad.autograd.grad(g, x)
    return h.item()
"""),
        Wrong("returns the first derivative", "slip", """
def second_derivative(f, x):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    return g.item()
"""),
        Wrong("backward twice into x.grad: f' + f''", "slip", """
def second_derivative(f, x):
    x = minigrad.tensor(float(x), dtype=minigrad.float64, requires_grad=True)
    f(x).backward(create_graph=True)
    x.grad.backward()
    return x.grad.item()
"""),
        Wrong("ignores x: always at 0.5", "ignores", """
def second_derivative(f, x):
    x = minigrad.tensor(0.5, dtype=minigrad.float64, requires_grad=True)
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    (h,) = minigrad.autograd.grad(g, x)
    return h.item()
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def second_derivative(f, x):
    if x == 0.5:
        return -0.7268619813835873
    return 12.0
"""),
        Wrong("a second difference of f (numerical)", "bypass", """
def second_derivative(f, x, h=1e-4):
    value = lambda t: f(minigrad.tensor(float(t), dtype=minigrad.float64)).item()
    return (value(x + h) - 2 * value(x) + value(x - h)) / h ** 2
"""),
        Wrong("minigrad.func.hessian", "bypass", """
def second_derivative(f, x):
    return minigrad.func.hessian(f)(minigrad.tensor(float(x), dtype=minigrad.float64)).item()
"""),
        Wrong("minigrad.func.grad twice", "bypass", """
def second_derivative(f, x):
    return minigrad.func.grad(minigrad.func.grad(f))(
        minigrad.tensor(float(x), dtype=minigrad.float64)).item()
"""),
        Wrong("torch's autograd (f works on torch tensors too)", "bypass", """
import torch
def second_derivative(f, x):
    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(f(t), t, create_graph=True)
    return torch.autograd.grad(g, t)[0].item()
"""),
    ],
    "ex15-hvp": [
        Wrong("the gradient times v, elementwise", "slip", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x)
    return g * v
"""),
        Wrong("backward twice into x.grad: g + H v", "slip", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    f(x).backward(create_graph=True)
    (x.grad * v).sum().backward()
    return x.grad
"""),
        Wrong("v forgotten: the gradient of sum(g), H times ones", "ignores", """
def hvp(f, x, v):
    x = x.detach().requires_grad_()
    (g,) = minigrad.autograd.grad(f(x), x, create_graph=True)
    (hv,) = minigrad.autograd.grad(g.sum(), x)
    return hv
"""),
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
        Wrong("multiplies by H instead of solving", "slip", """
def newton_step(f, x):
    g = minigrad.func.grad(f)(x).numpy()
    H = minigrad.func.hessian(f)(x).numpy()
    return x.numpy() - H @ g
"""),
        Wrong("the wrong sign: x + H^-1 g", "slip", """
def newton_step(f, x):
    g = minigrad.func.grad(f)(x).numpy()
    H = minigrad.func.hessian(f)(x).numpy()
    return x.numpy() + np.linalg.solve(H, g)
"""),
        Wrong("the diagonal of H only", "slip", """
def newton_step(f, x):
    g = minigrad.func.grad(f)(x).numpy()
    H = minigrad.func.hessian(f)(x).numpy()
    return x.numpy() - g / np.diag(H)
"""),
        Wrong("a gradient step, no Hessian", "slip", """
def newton_step(f, x):
    return x.numpy() - minigrad.func.grad(f)(x).numpy()
"""),
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
        Wrong("torch.func on copies", "bypass", """
import torch
def newton_step(f, x):
    t = torch.tensor(x.numpy())
    return t - torch.linalg.solve(torch.func.hessian(f)(t), torch.func.grad(f)(t))
"""),
    ],
}
