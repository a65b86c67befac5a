"""Wrong answers to chapter 04's exercises."""

from tests.wrong_answers import Wrong

# The right order and seed, for the wrong answers that change one other thing.
_RESET = """
    order = backward_order(root)
    for node in order:
        if node._prev:
            node.grad = 0.0
"""

WRONG = {
    "ex04-softplus-local": [
        Wrong("the output taken for the input: sigmoid(out)", "slip", """
import math
def softplus_local(out):
    return (1 / (1 + math.exp(-out.data)),)
""", mistake="output-for-input"),
        Wrong("exp's rule: the output itself", "slip", """
def softplus_local(out):
    return (out.data,)
""", mistake="output-itself"),
        Wrong("the inner derivative only: e**a", "slip", """
import math
def softplus_local(out):
    (a,) = out._prev
    return (math.exp(a.data),)
""", mistake="inner-only"),
        Wrong("the outer derivative only: 1 / (1 + e**a)", "slip", """
import math
def softplus_local(out):
    (a,) = out._prev
    return (1 / (1 + math.exp(a.data)),)
""", mistake="outer-only"),
        Wrong("a bare number, not one per parent", "slip", """
import math
def softplus_local(out):
    (a,) = out._prev
    return 1 / (1 + math.exp(-a.data))
""", mistake="bare-number"),
        Wrong("ignores out: sigmoid(0) = 1/2 everywhere", "ignores", """
def softplus_local(out):
    return (0.5,)
""", mistake="ignores-input"),
        Wrong("the visible points hard-coded", "hardcoded", """
_TABLE = {-2.0: 0.11920292202211755, 0.0: 0.5, 0.5: 0.6224593312018546,
          3.0: 0.9525741268224334}
def softplus_local(out):
    (a,) = out._prev
    return (_TABLE.get(a.data, 0.5),)
"""),
        Wrong("minigrad.Value's sigmoid on a fresh Value", "bypass", """
import minigrad
def softplus_local(out):
    (a,) = out._prev
    return (minigrad.Value(a.data).sigmoid().data,)
"""),
        Wrong("torch's autograd on softplus", "bypass", """
import torch
def softplus_local(out):
    (a,) = out._prev
    t = torch.tensor(a.data, dtype=torch.float64, requires_grad=True)
    (local,) = torch.autograd.grad(torch.nn.functional.softplus(t), t)
    return (local.item(),)
"""),
        Wrong("torch's softplus_backward kernel, called directly", "bypass", """
import torch
def softplus_local(out):
    (a,) = out._prev
    one = torch.tensor(1.0, dtype=torch.float64)
    return (torch.ops.aten.softplus_backward(one, torch.tensor(a.data).double(), 1, 20).item(),)
"""),
        Wrong("the package's sigmoid local gradient on a stand-in node", "bypass", """
import math
from minigrad.value import _sigmoid_local as _local
class _Out:
    def __init__(self, s):
        self.data = s
def softplus_local(out):
    (a,) = out._prev
    return _local(_Out(1 / (1 + math.exp(-a.data))))
"""),
    ],
    "ex04-find-the-bug": [
        Wrong("backward_buggy unchanged", "slip", """
def backward_fixed(root):
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0
    root.grad = 1.0
    todo, seen = [root], {id(root)}
    for node in todo:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
            if id(parent) not in seen:
                seen.add(id(parent))
                todo.append(parent)
""", mistake="leaf-grad-replaced"),
        Wrong("the order fixed, the seed still assigned", "slip", """
def backward_fixed(root):""" + _RESET + """    root.grad = 1.0
    for node in order:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
""", mistake="leaf-grad-replaced"),
        Wrong("the seed fixed, the order still breadth-first", "slip", """
def backward_fixed(root):
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0
    root.grad += 1.0
    todo, seen = [root], {id(root)}
    for node in todo:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
            if id(parent) not in seen:
                seen.add(id(parent))
                todo.append(parent)
""", mistake="breadth-first"),
        Wrong("breadth-first without the seen set: a node runs once per path", "slip", """
def backward_fixed(root):
    for node in backward_order(root):
        if node._prev:
            node.grad = 0.0
    root.grad += 1.0
    todo = [root]
    for node in todo:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
            todo.append(parent)
""", mistake="once-per-path"),
        Wrong("backward_order walked the wrong way: leaves first", "slip", """
def backward_fixed(root):""" + _RESET + """    root.grad += 1.0
    for node in reversed(order):
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
""", mistake="leaves-first"),
        Wrong("every grad reset, the leaves' too", "slip", """
def backward_fixed(root):
    order = backward_order(root)
    for node in order:
        node.grad = 0.0
    root.grad += 1.0
    for node in order:
        for parent, local in zip(node._prev, node.local_grads(), strict=True):
            parent.grad += local * node.grad
""", mistake="leaf-grad-replaced"),
        Wrong("ignores the local gradients: the upstream passed on unchanged", "ignores", """
def backward_fixed(root):""" + _RESET + """    root.grad += 1.0
    for node in order:
        for parent in node._prev:
            parent.grad += node.grad
""", mistake="no-locals"),
        Wrong("the visible graphs' grads hard-coded, looked up by value", "hardcoded", """
import math
_T = 1 - math.tanh(-1.0) ** 2
_GRADS = {1.5: {1.5: 1.0}, round(-1.0 + math.tanh(-1.0), 9): {0.5: -2 * (1 + _T),
                                                                  -2.0: 0.5 * (1 + _T)}}
def backward_fixed(root):
    known = _GRADS.get(round(root.data, 9), {})
    for node in backward_order(root):
        if node.is_leaf:
            node.grad += known.get(node.data, 1.0 if node is root else 0.0)
    if not root.is_leaf:
        root.grad = 1.0
""", mistake="leaves-first"),
        Wrong("Value.backward called directly", "bypass", """
def backward_fixed(root):
    root.backward()
"""),
        Wrong("Value.backward through an alias taken earlier", "bypass", """
import minigrad
_backward = minigrad.Value.backward
def backward_fixed(root):
    _backward(root)
"""),
        Wrong("the stepper run to the end", "bypass", """
from minigrad.course.widgets.stepper import BackwardStepper
def backward_fixed(root):
    stepper = BackwardStepper(root)
    while not stepper.done:
        stepper.step()
"""),
    ],
}
