"""Wrong answers to chapter 01's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex01-value-div": [
        Wrong("the sign of b's local derivative: +a / b**2", "slip", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, a.data / b.data ** 2)))
""", mistake="sign-of-b-local"),
        Wrong("the power rule without the chain: -1 / b**2 for b", "slip", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, -1 / b.data ** 2)))
""", mistake="b-local-without-a"),
        Wrong("the two local derivatives swapped", "slip", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, -a.data / b.data ** 2), (b, 1 / b.data)))
""", mistake="swapped-locals"),
        Wrong("the product's rule: locals b and a", "slip", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, b.data), (b, a.data)))
""", mistake="product-locals"),
        Wrong("a / b as a * b**-1 with the draft's ops: the result is a product node", "bypass", """
def div_v1(a, b):
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return a * b ** -1
"""),
        Wrong("only a recorded as a parent", "slip", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, 1 / b.data),))
""", mistake="one-parent"),
        Wrong("plain numbers not wrapped", "ignores", """
def div_v1(a, b):
    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, -a.data / b.data ** 2)))
""", mistake="number-not-wrapped"),
        Wrong("ignores a in b's local derivative", "ignores", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, 1 / b.data), (b, -1 / b.data)))
""", mistake="b-local-ignores-a"),
        Wrong("the visible example's numbers hard-coded", "hardcoded", """
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    return Value_v1(a.data / b.data, ((a, -0.5), (b, -0.75)))
"""),
        Wrong("torch's autograd for the local derivatives", "bypass", """
import torch
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    ta = torch.tensor(a.data, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b.data, dtype=torch.float64, requires_grad=True)
    da, db = torch.autograd.grad(ta / tb, (ta, tb))
    return Value_v1(a.data / b.data, ((a, da.item()), (b, db.item())))
"""),
        Wrong("minigrad.Value's backward for the local derivatives", "bypass", """
import minigrad
def div_v1(a, b):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    va, vb = minigrad.Value(a.data), minigrad.Value(b.data)
    (va / vb).backward()
    return Value_v1(a.data / b.data, ((a, va.grad), (b, vb.grad)))
"""),
        Wrong("numeric slopes for the local derivatives", "bypass", """
def div_v1(a, b, h=1e-6):
    a = a if isinstance(a, Value_v1) else Value_v1(a)
    b = b if isinstance(b, Value_v1) else Value_v1(b)
    da = ((a.data + h) / b.data - (a.data - h) / b.data) / (2 * h)
    db = (a.data / (b.data + h) - a.data / (b.data - h)) / (2 * h)
    return Value_v1(a.data / b.data, ((a, da), (b, db)))
"""),
    ],
    "ex01-error-order": [
        Wrong("the ratio of the errors, not its exponent", "slip", """
def error_order(slope, f, df, x, h):
    big = abs(slope(f, x, h) - df(x))
    small = abs(slope(f, x, h / 10) - df(x))
    return big / small
""", mistake="ratio-not-exponent"),
        Wrong("the natural log of the ratio", "slip", """
import math
def error_order(slope, f, df, x, h):
    big = abs(slope(f, x, h) - df(x))
    small = abs(slope(f, x, h / 10) - df(x))
    return math.log(big / small)
""", mistake="natural-log"),
        Wrong("the ratio upside down (a negative order)", "slip", """
import math
def error_order(slope, f, df, x, h):
    big = abs(slope(f, x, h) - df(x))
    small = abs(slope(f, x, h / 10) - df(x))
    return math.log10(small / big)
""", mistake="ratio-upside-down"),
        Wrong("h and h / 2, read with log10", "slip", """
import math
def error_order(slope, f, df, x, h):
    big = abs(slope(f, x, h) - df(x))
    small = abs(slope(f, x, h / 2) - df(x))
    return math.log10(big / small)
""", mistake="step-ratio-2"),
        Wrong("the steps 10h and h instead of h and h / 10", "slip", """
import math
def error_order(slope, f, df, x, h):
    big = abs(slope(f, x, 10 * h) - df(x))
    small = abs(slope(f, x, h) - df(x))
    return math.log10(big / small)
""", mistake="steps-10h-and-h"),
        Wrong("the change of the slope, not its error", "slip", """
import math
def error_order(slope, f, df, x, h):
    return math.log10(abs(slope(f, x, h) / slope(f, x, h / 10)))
""", mistake="slope-not-error"),
        Wrong("ignores h: a fixed step of 1e-3", "ignores", """
import math
def error_order(slope, f, df, x, h):
    step = 1e-3
    big = abs(slope(f, x, step) - df(x))
    small = abs(slope(f, x, step / 10) - df(x))
    return math.log10(big / small)
"""),
        Wrong("ignores df: a tiny central slope as the exact derivative", "ignores", """
import math
def error_order(slope, f, df, x, h):
    exact = (f(x + 1e-5) - f(x - 1e-5)) / 2e-5
    big = abs(slope(f, x, h) - exact)
    small = abs(slope(f, x, h / 10) - exact)
    return math.log10(big / small)
"""),
        Wrong("the textbook orders hard-coded by the slope's name", "hardcoded", """
def error_order(slope, f, df, x, h):
    return 2.0 if "central" in slope.__name__ else 1.0
""", mistake="textbook-order"),
        Wrong("the orders of the visible checks hard-coded", "hardcoded", """
def error_order(slope, f, df, x, h):
    return {(3.0, 0.1): 1.0, (2.0, 0.5): 2.0, (1.0, 0.5): 1.0597682050034898}.get((x, h), 1.0)
""", mistake="textbook-order"),
        Wrong("torch's derivative instead of df", "bypass", """
import math
from minigrad.course.widgets.explorers import torch_slope as _exact
def error_order(slope, f, df, x, h):
    exact = _exact(f, x)
    big = abs(slope(f, x, h) - exact)
    small = abs(slope(f, x, h / 10) - exact)
    return math.log10(big / small)
"""),
    ],
}
