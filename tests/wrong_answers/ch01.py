"""Wrong answers to chapter 01's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex01-central-slope": [
        Wrong("one-sided difference", "slip", """
def central_slope(f, x, h=1e-4):
    return (f(x + h) - f(x)) / h
"""),
        Wrong("divides by h, not 2h", "slip", """
def central_slope(f, x, h=1e-4):
    return (f(x + h) - f(x - h)) / h
"""),
        Wrong("backward difference", "slip", """
def central_slope(f, x, h=1e-4):
    return (f(x) - f(x - h)) / h
"""),
        Wrong("ignores h: a fixed tiny step", "ignores", """
def central_slope(f, x, h=1e-4):
    step = 1e-6
    return (f(x + step) - f(x - step)) / (2 * step)
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def central_slope(f, x, h=1e-4):
    return 12.0 if x == 2.0 else 6.0
"""),
        Wrong("torch's autograd, through an alias taken as a default", "bypass", """
import torch
def central_slope(f, x, h=1e-4, _backward=torch.Tensor.backward):
    t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    _backward(f(t))
    return t.grad.item()
"""),
        Wrong("minigrad.Value's backward", "bypass", """
import minigrad
def central_slope(f, x, h=1e-4):
    v = minigrad.Value(x)
    f(v).backward()
    return v.grad
"""),
        Wrong("the chapter's torch_slope under another name", "bypass", """
from minigrad.course.widgets.explorers import torch_slope as _exact
def central_slope(f, x, h=1e-4):
    return _exact(f, x)
"""),
        Wrong("a lazy number that asks torch when compared", "bypass", """
from minigrad.course.widgets.explorers import torch_slope as _exact
class _Lazy(float):
    def __new__(cls, f, x):
        obj = super().__new__(cls, 0.0)
        obj.f, obj.x = f, x
        return obj
    def __float__(self):
        return _exact(self.f, self.x)
    def __array__(self, dtype=None, copy=None):
        import numpy as np
        return np.asarray(_exact(self.f, self.x))
def central_slope(f, x, h=1e-4):
    return _Lazy(f, x)
"""),
    ],
    "ex01-value-derivative": [
        Wrong("backward never called: grad left at 0", "slip", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(x0)
    p = xp ** 3 + 2 * xp ** 2 + xp
    return xp
"""),
        Wrong("a derivative term dropped (2x^2 as 2x)", "slip", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(x0)
    p = xp ** 3 + 2 * xp + xp
    p.backward()
    return xp
"""),
        Wrong("backward called on the input", "slip", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(x0)
    p = xp ** 3 + 2 * xp ** 2 + xp
    xp.backward()
    return xp
"""),
        Wrong("the visible example's 13.75 hard-coded", "hardcoded", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(x0)
    xp.grad = 13.75 if x0 == 1.5 else 0.0
    return xp
"""),
        Wrong("ignores x0", "ignores", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(1.5)
    (xp ** 3 + 2 * xp ** 2 + xp).backward()
    return xp
"""),
        Wrong("torch computes the grad, copied into the Value", "bypass", """
import minigrad, torch
def p_grad(x0):
    t = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    (t ** 3 + 2 * t ** 2 + t).backward()
    xp = minigrad.Value(x0)
    xp.grad = t.grad.item()
    return xp
"""),
        Wrong("backward called twice (grad doubled)", "slip", """
import minigrad
def p_grad(x0):
    xp = minigrad.Value(x0)
    p = xp ** 3 + 2 * xp ** 2 + xp
    p.backward()
    p.backward()
    return xp
"""),
    ],
    "ex01-product": [
        Wrong("q as a sum, (x + 1) + (x + 2)", "slip", """
import minigrad
def q(x):
    return (x + 1) + (x + 2)
def q_slope(x0):
    v = minigrad.Value(x0)
    q(v).backward()
    return v.grad
"""),
        Wrong("only one factor differentiated: slope x + 2", "slip", """
import minigrad
def q(x):
    return (x + 1) * (x + 2)
def q_slope(x0):
    return x0 + 2
"""),
        Wrong("the visible slope 4.0 hard-coded", "hardcoded", """
def q(x):
    return (x + 1) * (x + 2)
def q_slope(x0):
    return 4.0
"""),
        Wrong("ignores x0", "ignores", """
import minigrad
def q(x):
    return (x + 1) * (x + 2)
def q_slope(x0):
    v = minigrad.Value(0.5)
    q(v).backward()
    return v.grad
"""),
        Wrong("torch's autograd for the slope", "bypass", """
import torch
def q(x):
    return (x + 1) * (x + 2)
def q_slope(x0):
    t = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    q(t).backward()
    return t.grad.item()
"""),
        Wrong("the slope formula by hand, no backward", "bypass", """
def q(x):
    return (x + 1) * (x + 2)
def q_slope(x0):
    return 2 * x0 + 3
"""),
        Wrong("q only works on floats (math.prod of a list)", "slip", """
import math, minigrad
def q(x):
    return math.prod([float(x) + 1, float(x) + 2])
def q_slope(x0):
    v = minigrad.Value(x0)
    q(v)
    return 2 * x0 + 3
"""),
    ],
}
