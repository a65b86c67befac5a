"""Wrong answers to chapter 04's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex04-sigmoid-local": [
        Wrong("s taken for the input a: sigmoid(s)(1 - sigmoid(s))", "slip", """
import math
def sigmoid_local(s):
    sig = 1 / (1 + math.exp(-s))
    return sig * (1 - sig)
"""),
        Wrong("tanh's local gradient, 1 - s**2", "slip", """
def sigmoid_local(s):
    return 1 - s ** 2
"""),
        Wrong("a sign slip: s * (1 + s)", "slip", """
def sigmoid_local(s):
    return s * (1 + s)
"""),
        Wrong("the visible points hard-coded", "hardcoded", """
def sigmoid_local(s):
    table = {0.1192: 0.1049935854035065, 0.5: 0.25, 0.6225: 0.2350037122015945,
             0.9526: 0.045176659730912}
    return table.get(round(s, 4), 0.25)
"""),
        Wrong("ignores s: the largest value, 1/4", "ignores", """
def sigmoid_local(s):
    return 0.25
"""),
        Wrong("torch's autograd at the logit of s", "bypass", """
import math, torch
def sigmoid_local(s):
    a = torch.tensor(math.log(s / (1 - s)), dtype=torch.float64, requires_grad=True)
    (local,) = torch.autograd.grad(a.sigmoid(), a)
    return local.item()
"""),
        Wrong("minigrad.Value's backward at the logit of s", "bypass", """
import math, minigrad
def sigmoid_local(s):
    a = minigrad.Value(math.log(s / (1 - s)))
    a.sigmoid().backward()
    return a.grad
"""),
        Wrong("the package's local-gradient function, imported under another name", "bypass", """
from minigrad.value import _sigmoid_local as _local
class _Out:
    def __init__(self, s):
        self.data = s
def sigmoid_local(s):
    return _local(_Out(s))[0]
"""),
    ],
    "ex04-by-hand": [
        Wrong("the local gradients swapped: a for a, b for b", "slip", """
def mul_backward(a, b, upstream):
    return a * upstream, b * upstream
"""),
        Wrong("the upstream gradient forgotten", "slip", """
def mul_backward(a, b, upstream):
    return b, a
"""),
        Wrong("local plus upstream", "slip", """
def mul_backward(a, b, upstream):
    return b + upstream, a + upstream
"""),
        Wrong("the visible answer hard-coded", "hardcoded", """
def mul_backward(a, b, upstream):
    return -1.0, 1.5
"""),
        Wrong("ignores upstream: the visible 0.5 built in", "ignores", """
def mul_backward(a, b, upstream):
    return b * 0.5, a * 0.5
"""),
        Wrong("torch's autograd with the upstream gradient", "bypass", """
import torch
def mul_backward(a, b, upstream):
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    (ta * tb).backward(torch.tensor(upstream, dtype=torch.float64))
    return ta.grad.item(), tb.grad.item()
"""),
        Wrong("minigrad.Value's backward seeded with upstream", "bypass", """
import minigrad
def mul_backward(a, b, upstream):
    va, vb = minigrad.Value(a), minigrad.Value(b)
    (va * vb).backward(upstream)
    return va.grad, vb.grad
"""),
        Wrong("the package's _mul_local on a stand-in node", "bypass", """
from minigrad.value import _mul_local
class _Num:
    def __init__(self, x):
        self.data = x
class _Out:
    def __init__(self, a, b):
        self._prev = (_Num(a), _Num(b))
def mul_backward(a, b, upstream):
    la, lb = _mul_local(_Out(a, b))
    return la * upstream, lb * upstream
"""),
    ],
    "ex04-backward-v2": [
        Wrong("assigns with = instead of adding (backward_assign)", "slip", """
def backward_v2(root):
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0
    root.grad = 1.0
    for node in backward_order(root):
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad = local * node.grad
"""),
        Wrong("never resets the intermediate grads", "slip", """
def backward_v2(root):
    root.grad += 1.0
    for v in backward_order(root):
        for p, local in zip(v._prev, v.local_grads(), strict=True):
            p.grad += local * v.grad
"""),
        Wrong("resets every grad, the leaves' too", "slip", """
def backward_v2(root):
    order = backward_order(root)
    for v in order:
        v.grad = 0.0
    root.grad = 1.0
    for v in order:
        for p, local in zip(v._prev, v.local_grads(), strict=True):
            p.grad += local * v.grad
"""),
        Wrong("the upstream gradient left out: adds local only", "slip", """
def backward_v2(root):
    order = backward_order(root)
    for v in order:
        if not v.is_leaf:
            v.grad = 0.0
    root.grad += 1.0
    for v in order:
        for p, local in zip(v._prev, v.local_grads(), strict=True):
            p.grad += local
"""),
        Wrong("visits the nodes leaves first", "slip", """
def backward_v2(root):
    order = backward_order(root)
    for v in order:
        if not v.is_leaf:
            v.grad = 0.0
    root.grad += 1.0
    for v in reversed(order):
        for p, local in zip(v._prev, v.local_grads(), strict=True):
            p.grad += local * v.grad
"""),
        Wrong("the visible graphs' grads hard-coded, looked up by value", "hardcoded", """
import math
_t = 1 - math.tanh(1.0) ** 2
_GRADS = {6.0: {3.0: 2.0}, 0.75: {-1.5: -2.0},
          round(3 * math.tanh(1.0), 6): {0.5: 6 * _t, 2.0: 1.5 * _t},
          1.5: {0.5: 5.0, 2.0: 1.0}}
def backward_v2(root):
    known = _GRADS.get(round(root.data, 6), {})
    for v in backward_order(root):
        if v.is_leaf:
            v.grad += known.get(v.data, 0.0)
        elif v.data == 1.0:
            v.grad = 2.0
    root.grad = 1.0
"""),
        Wrong("ignores all parents but the first", "ignores", """
def backward_v2(root):
    order = backward_order(root)
    for v in order:
        if not v.is_leaf:
            v.grad = 0.0
    root.grad += 1.0
    for v in order:
        if v._prev:
            v._prev[0].grad += v.local_grads()[0] * v.grad
"""),
        Wrong("Value.backward through an alias taken earlier", "bypass", """
import minigrad
_backward = minigrad.Value.backward
def backward_v2(root):
    _backward(root)
"""),
        Wrong("Value.backward as a default argument", "bypass", """
import minigrad
def backward_v2(root, _b=minigrad.value.Value.backward):
    _b(root)
"""),
        Wrong("Value.backward called directly", "bypass", """
def backward_v2(root):
    root.backward()
"""),
        Wrong("the stepper run to the end", "bypass", """
from minigrad.course.widgets.stepper import BackwardStepper
def backward_v2(root):
    stepper = BackwardStepper(root)
    while not stepper.done:
        stepper.step()
"""),
    ],
}
