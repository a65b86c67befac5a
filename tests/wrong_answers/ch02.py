"""Wrong answers to chapter 02's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex02-numeric-gradient": [
        Wrong("one-sided (forward) difference", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        plus = list(point)
        plus[i] += h
        slopes.append((fn(*plus) - fn(*point)) / h)
    return slopes
"""),
        Wrong("divides by h, not 2h", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += h
        minus[i] -= h
        slopes.append((fn(*plus) - fn(*minus)) / h)
    return slopes
"""),
        Wrong("nudges every coordinate at once", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    plus = [p + h for p in point]
    minus = [p - h for p in point]
    slope = (fn(*plus) - fn(*minus)) / (2 * h)
    return [slope for _ in point]
"""),
        Wrong("nudges point in place and never puts it back", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        point[i] += h
        up = fn(*point)
        point[i] -= 2 * h
        down = fn(*point)
        slopes.append((up - down) / (2 * h))
    return slopes
"""),
        Wrong("ignores h: a fixed step of 1e-5", "ignores", """
def numeric_gradient(fn, point, h=1e-6):
    step = 1e-5
    slopes = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += step
        minus[i] -= step
        slopes.append((fn(*plus) - fn(*minus)) / (2 * step))
    return slopes
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def numeric_gradient(fn, point, h=1e-6):
    if point == [2.0, 4.0]:
        return [4.0, 3.0]
    return [-1.0, 13.5]
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def numeric_gradient(fn, point, h=1e-6):
    inputs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
    fn(*inputs).backward()
    return [t.grad.item() for t in inputs]
"""),
        Wrong("the chapter's minigrad gradient helper", "bypass", """
def numeric_gradient(fn, point, h=1e-6, _grad=gradient):
    return _grad(fn, *point)
"""),
    ],
    "ex02-one-pass": [
        Wrong("backward never called: grads left at 0", "slip", """
import minigrad
def q_grad(a, b, c):
    va, vb, vc = minigrad.Value(a), minigrad.Value(b), minigrad.Value(c)
    q = va * vb + vb * vc + vc.tanh()
    return [va.grad, vb.grad, vc.grad]
"""),
        Wrong("tanh forgotten: q = ab + bc + c", "slip", """
import minigrad
def q_grad(a, b, c):
    va, vb, vc = minigrad.Value(a), minigrad.Value(b), minigrad.Value(c)
    q = va * vb + vb * vc + vc
    q.backward()
    return [va.grad, vb.grad, vc.grad]
"""),
        Wrong("one backward() per input (grads pile up)", "slip", """
import minigrad
def q_grad(a, b, c):
    va, vb, vc = minigrad.Value(a), minigrad.Value(b), minigrad.Value(c)
    q = va * vb + vb * vc + vc.tanh()
    grads = []
    for v in (va, vb, vc):
        q.backward()
        grads.append(v.grad)
    return grads
"""),
        Wrong("the visible grads hard-coded", "hardcoded", """
def q_grad(a, b, c):
    return [-1.0, 2.5, -0.9293491751468356]
"""),
        Wrong("ignores c: the Values at the visible point's c", "ignores", """
import minigrad
def q_grad(a, b, c):
    va, vb, vc = minigrad.Value(a), minigrad.Value(b), minigrad.Value(2.0)
    q = va * vb + vb * vc + vc.tanh()
    q.backward()
    return [va.grad, vb.grad, vc.grad]
"""),
        Wrong("Values made once, outside the function (grads accumulate)", "ignores", """
import minigrad
_va, _vb, _vc = minigrad.Value(0.5), minigrad.Value(-1.0), minigrad.Value(2.0)
def q_grad(a, b, c):
    (_va * _vb + _vb * _vc + _vc.tanh()).backward()
    return [_va.grad, _vb.grad, _vc.grad]
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def q_grad(a, b, c):
    ta, tb, tc = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
                  for v in (a, b, c))
    (ta * tb + tb * tc + tc.tanh()).backward()
    return [ta.grad.item(), tb.grad.item(), tc.grad.item()]
"""),
        Wrong("the partials by hand, no backward", "bypass", """
import math
def q_grad(a, b, c):
    return [b, a + c, b + 1 - math.tanh(c) ** 2]
"""),
    ],
    "ex02-descent": [
        Wrong("uphill: plus the gradient", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    return [gi / length for gi in g]
"""),
        Wrong("not normalized: minus the gradient", "slip", """
def descent_direction(fn, point):
    return [-gi for gi in gradient(fn, *point)]
"""),
        Wrong("divided by the sum of absolute values", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(abs(gi) for gi in g)
    return [-gi / length for gi in g]
"""),
        Wrong("2-D only: the length of the first two components", "ignores", """
import math
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = math.hypot(g[0], g[1])
    return [-gi / length for gi in g]
"""),
        Wrong("2-D only: two components returned", "ignores", """
import math
def descent_direction(fn, point):
    gx, gy = gradient(fn, *point)[:2]
    length = math.hypot(gx, gy)
    return [-gx / length, -gy / length]
"""),
        Wrong("the visible example hard-coded", "hardcoded", """
def descent_direction(fn, point):
    return [-0.8, -0.6]
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def descent_direction(fn, point):
    t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    fn(*t).backward()
    return (-t.grad / t.grad.norm()).tolist()
"""),
        Wrong("a numeric gradient, no backward", "bypass", """
def descent_direction(fn, point, h=1e-7):
    g = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += h
        minus[i] -= h
        g.append((fn(*plus) - fn(*minus)) / (2 * h))
    length = sum(gi * gi for gi in g) ** 0.5
    return [-gi / length for gi in g]
"""),
    ],
}
