"""Wrong answers to chapter 10's exercises."""

from tests.wrong_answers import Wrong

_MSE = "((net(inputs) - targets) ** 2).mean()"

WRONG = {
    "ex10-sgd-step": [
        Wrong("a step up the gradient (+= instead of -=)", "slip", """
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.data += lr * p.grad
""", mistake="uphill"),
        Wrong("the name rebound, the parameter never changed", "slip", """
import minigrad
def sgd_step(params, lr):
    with minigrad.no_grad():
        for p in params:
            if p.grad is not None:
                p = p - lr * p.grad
""", mistake="did-not-move"),
        Wrong("a parameter without a gradient not skipped", "slip", """
def sgd_step(params, lr):
    for p in params:
        p.data -= lr * p.grad
""", mistake="none-grad-used"),
        Wrong("-= on the parameter while recording", "slip", """
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p -= lr * p.grad
""", mistake="step-recorded"),
        Wrong("the gradient cleared after the step", "slip", """
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.data -= lr * p.grad
            p.grad = None
""", mistake="grad-cleared"),
        # A hidden example has no gradient for its second parameter: this one multiplies it.
        Wrong("the worked example's first two parameters, by position", "hardcoded", """
def sgd_step(params, lr):
    for p in params[:2]:
        p.data -= lr * p.grad
""", mistake="none-grad-used"),
        Wrong("ignores lr: the worked example's 0.2", "ignores", """
def sgd_step(params, lr):
    for p in params:
        if p.grad is not None:
            p.data -= 0.2 * p.grad
""", mistake="ignores-lr"),
        Wrong("minigrad.optim.SGD does the step", "bypass", """
import minigrad
def sgd_step(params, lr):
    minigrad.optim.SGD(params, lr=lr).step()
"""),
        Wrong("SGD.step through an alias taken as a default argument", "bypass", """
import minigrad
def sgd_step(params, lr, _step=minigrad.optim.SGD.step):
    _step(minigrad.optim.SGD(params, lr=lr))
"""),
        Wrong("torch's optim.SGD on views of the arrays", "bypass", """
import torch
def sgd_step(params, lr):
    views = []
    for p in params:
        v = torch.from_numpy(p.detach().numpy()).requires_grad_()
        if p.grad is not None:
            v.grad = torch.from_numpy(p.grad.numpy().copy())
        views.append(v)
    torch.optim.SGD(views, lr=lr).step()
"""),
    ],
    "ex10-momentum": [
        Wrong("the visible example's momentum 0.8 and lr 0.05 written in", "hardcoded", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.buffers = [None] * len(self.params)

    def zero_grad(self):
        for param in self.params:
            param.grad = None

    def step(self):
        for i, param in enumerate(self.params):
            if param.grad is None:
                continue
            g = param.grad
            self.buffers[i] = g.clone() if self.buffers[i] is None else 0.8 * self.buffers[i] + g
            param.data -= 0.05 * self.buffers[i]
""", mistake="example-numbers"),
        Wrong("a dampened buffer: mu b + (1 - mu) g", "slip", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers = [None] * len(self.params)
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            if self.buffers[i] is None:
                self.buffers[i] = g.clone()
            else:
                self.buffers[i] = self.momentum * self.buffers[i] + (1 - self.momentum) * g
            p.data -= self.lr * self.buffers[i]
""", mistake="dampened"),
        Wrong("the step along the gradient, not the buffer", "slip", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers = [None] * len(self.params)
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            b = self.buffers[i]
            self.buffers[i] = g.clone() if b is None else self.momentum * b + g
            p.data -= self.lr * g
""", mistake="gradient-step"),
        Wrong("the step along the old buffer, updated afterwards", "slip", """
import numpy as np
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers = [np.zeros(p.shape) for p in self.params]
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            p.data -= self.lr * self.buffers[i]
            self.buffers[i] = self.momentum * self.buffers[i] + p.grad
""", mistake="old-buffer"),
        Wrong("one buffer shared by all the parameters", "slip", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffer = None
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad
            self.buffer = g.clone() if self.buffer is None else self.momentum * self.buffer + g
            p.data -= self.lr * self.buffer
"""),
        Wrong("zero_grad() fills zeros instead of None", "slip", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, momentum
        self.buffers = [None] * len(self.params)
    def zero_grad(self):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            b = self.buffers[i]
            self.buffers[i] = g.clone() if b is None else self.momentum * b + g
            p.data -= self.lr * self.buffers[i]
""", mistake="grad-zeroed"),
        Wrong("the parameters kept as the iterator they came in", "slip", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = params, lr, momentum
        self.buffers = {}
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for p in self.params:
            if p.grad is None:
                continue
            g = p.grad
            b = self.buffers.get(id(p))
            self.buffers[id(p)] = b = g.clone() if b is None else self.momentum * b + g
            p.data -= self.lr * b
""", mistake="params-used-up"),
        Wrong("ignores momentum: the worked example's 0.8", "ignores", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), lr, 0.8
        self.buffers = [None] * len(self.params)
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            b = self.buffers[i]
            self.buffers[i] = g.clone() if b is None else self.momentum * b + g
            p.data -= self.lr * self.buffers[i]
""", mistake="ignores-momentum"),
        Wrong("ignores lr: the worked example's 0.05", "ignores", """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params, self.lr, self.momentum = list(params), 0.05, momentum
        self.buffers = [None] * len(self.params)
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for i, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = p.grad
            b = self.buffers[i]
            self.buffers[i] = g.clone() if b is None else self.momentum * b + g
            p.data -= self.lr * self.buffers[i]
""", mistake="ignores-lr"),
        Wrong("minigrad.optim.SGD with momentum inside", "bypass", """
import minigrad
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.inner = minigrad.optim.SGD(list(params), lr=lr, momentum=momentum)
    def zero_grad(self):
        self.inner.zero_grad()
    def step(self):
        self.inner.step()
"""),
        Wrong("a subclass of minigrad.optim.SGD, its step aliased earlier", "bypass", """
import minigrad
_sgd_step = minigrad.optim.SGD.step
class MomentumSGD(minigrad.optim.SGD):
    def __init__(self, params, lr, momentum):
        super().__init__(list(params), lr=lr, momentum=momentum)
    def step(self):
        _sgd_step(self)
"""),
        Wrong("torch's optim.SGD on views of the arrays", "bypass", """
import torch
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.views = [torch.from_numpy(p.detach().numpy()).requires_grad_() for p in self.params]
        self.inner = torch.optim.SGD(self.views, lr=lr, momentum=momentum)
    def zero_grad(self):
        for p in self.params:
            p.grad = None
    def step(self):
        for p, v in zip(self.params, self.views):
            v.grad = None if p.grad is None else torch.from_numpy(p.grad.numpy().copy())
        self.inner.step()
"""),
    ],
    "ex10-decay": [
        Wrong("lam times the sum of squares (gradient 2 lam p)", "slip", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for p in net.parameters():
        total = total + lam * (p ** 2).sum()
    return total
""", mistake="twice-lam"),
        Wrong("the weights only, not the biases", "slip", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for name, p in net.named_parameters():
        if name.endswith("weight"):
            total = total + lam / 2 * (p ** 2).sum()
    return total
""", mistake="weights-only"),
        Wrong("the penalty from the arrays: right value, no gradient", "slip", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for p in net.parameters():
        total = total + lam / 2 * float((p.detach().numpy() ** 2).sum())
    return total
""", mistake="no-gradient"),
        Wrong("the mean of the squares, not their sum", "slip", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for p in net.parameters():
        total = total + lam / 2 * (p ** 2).mean()
    return total
""", mistake="mean-not-sum"),
        Wrong("the worked example's 32 rows hard-coded in the mean", "hardcoded", """
def loss_with_decay(net, inputs, targets, lam):
    total = ((net(inputs) - targets) ** 2).sum() / 32
    for p in net.parameters():
        total = total + lam / 2 * (p ** 2).sum()
    return total
""", mistake="example-rows"),
        Wrong("ignores lam: the worked example's 0.3", "ignores", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for p in net.parameters():
        total = total + 0.3 / 2 * (p ** 2).sum()
    return total
""", mistake="ignores-lam"),
        Wrong("the penalty on the first layer only", "ignores", f"""
def loss_with_decay(net, inputs, targets, lam):
    total = {_MSE}
    for p in net[0].parameters():
        total = total + lam / 2 * (p ** 2).sum()
    return total
""", mistake="first-layer-only"),
        Wrong("the penalty's gradient pushed by its own backward()", "bypass", f"""
def loss_with_decay(net, inputs, targets, lam):
    penalty = 0.0
    for p in net.parameters():
        penalty = penalty + lam / 2 * (p ** 2).sum()
    penalty.backward()
    return {_MSE}
"""),
        Wrong("lam * p written into .grad by hand, the loss without the term", "bypass", f"""
import minigrad
def loss_with_decay(net, inputs, targets, lam):
    for p in net.parameters():
        p.grad = minigrad.tensor(lam * p.detach().numpy())
    return {_MSE}
"""),
    ],
}
