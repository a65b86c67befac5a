"""Wrong answers to chapter 05's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex05-grad-by-hand": [
        Wrong("the 1/N of the mean forgotten", "slip", """
def grad_P(P, Q):
    return Q + 3 * P ** 2
""", mistake="mean-not-divided"),
        Wrong("N taken as the number of rows", "slip", """
def grad_P(P, Q):
    return Q + 3 * P ** 2 / len(P)
""", mistake="rows-as-N"),
        Wrong("the cube differentiated as a square", "slip", """
def grad_P(P, Q):
    return Q + 2 * P / P.size
""", mistake="cube-as-square"),
        Wrong("the first sum's derivative taken as P, not Q", "slip", """
def grad_P(P, Q):
    return P + 3 * P ** 2 / P.size
""", mistake="sum-part-P"),
        Wrong("N hard-coded: the visible example's 15 entries", "hardcoded", """
def grad_P(P, Q):
    return Q + 3 * P ** 2 / 15
""", mistake="N-fixed-15"),
        Wrong("N as rows x columns: only 2-D arrays", "hardcoded", """
def grad_P(P, Q):
    return Q + 3 * P ** 2 / (P.shape[0] * P.shape[1])
""", mistake="N-rows-times-columns"),
        Wrong("ignores Q (treated as ones)", "ignores", """
import numpy as np
def grad_P(P, Q):
    return np.ones_like(P) + 3 * P ** 2 / P.size
""", mistake="ignores-Q"),
        Wrong("torch's autograd", "bypass", """
import torch
def grad_P(P, Q):
    Pt = torch.tensor(P, requires_grad=True)
    ((Pt * torch.tensor(Q)).sum() + (Pt ** 3).mean()).backward()
    return Pt.grad.numpy()
"""),
        Wrong("minigrad's backward", "bypass", """
import minigrad
def grad_P(P, Q):
    Pm = minigrad.tensor(P, requires_grad=True)
    ((Pm * minigrad.tensor(Q)).sum() + (Pm ** 3).mean()).backward()
    return Pm.grad.numpy()
"""),
        Wrong("torch.func.grad, taken as a default argument", "bypass", """
import torch
def grad_P(P, Q, _grad=torch.func.grad):
    f = lambda p: (p * torch.tensor(Q)).sum() + (p ** 3).mean()
    return _grad(f)(torch.tensor(P)).numpy()
"""),
        Wrong("the chapter's numeric_gradient (central differences)", "bypass", """
def grad_P(P, Q):
    return numeric_gradient(lambda p: (p * Q).sum() + (p ** 3).mean(), P)
"""),
    ],
    "ex05-unbroadcast": [
        Wrong("ignores shape: sums the leading axis away, always", "ignores", """
def unbroadcast(grad, shape):
    return grad.sum(axis=0) if grad.ndim else grad
""", mistake="ones-not-summed"),
        Wrong("only the leading dimensions summed", "slip", """
def unbroadcast(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))
""", mistake="ones-not-summed"),
        Wrong("size-1 dimensions summed without keepdims", "slip", """
def unbroadcast(grad, shape):
    grad = grad.sum(axis=tuple(range(grad.ndim - len(shape))))
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and grad.shape[i] != 1)
    return grad.sum(axis=axes)
""", mistake="no-keepdims"),
        Wrong("shape lined up with the first dimensions, not the last", "slip", """
def unbroadcast(grad, shape):
    grad = grad.sum(axis=tuple(range(len(shape), grad.ndim)))
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad
""", mistake="aligned-first"),
        Wrong("size-1 axes summed before the leading ones are dropped", "slip", """
def unbroadcast(grad, shape):
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))
""", mistake="ones-before-leading"),
        Wrong("one leading dimension at most", "slip", """
def unbroadcast(grad, shape):
    if grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad
""", mistake="one-leading-at-most"),
        Wrong("the visible shapes hard-coded", "hardcoded", """
def unbroadcast(grad, shape):
    if shape == (3, 4):
        return grad.sum(0)
    if shape == (3, 1):
        return grad.sum((0, 2))[:, None]
    if shape == (1, 4):
        return grad.sum((0, 1))[None, :]
    if shape == ():
        return grad.sum()
    return grad
""", mistake="ones-not-summed"),
        Wrong("sum_to_shape taken as a default argument", "bypass", """
import minigrad
def unbroadcast(grad, shape, _f=minigrad.autograd.engine.sum_to_shape):
    return _f(grad, shape)
"""),
        Wrong("sum_to_shape imported under another name", "bypass", """
from minigrad.autograd.engine import sum_to_shape as _collapse
def unbroadcast(grad, shape):
    return _collapse(grad, shape)
"""),
        Wrong("torch's sum_to_size", "bypass", """
import torch
def unbroadcast(grad, shape):
    return torch.from_numpy(grad).sum_to_size(shape).numpy()
"""),
        Wrong("minigrad's backward through a broadcast add", "bypass", """
import numpy as np
import minigrad
def unbroadcast(grad, shape):
    x = minigrad.zeros(*shape, dtype=minigrad.float64, requires_grad=True)
    (x + minigrad.tensor(np.zeros(grad.shape))).backward(minigrad.tensor(grad))
    return x.grad.numpy()
"""),
    ],
    "ex05-row-scale-by-hand": [
        Wrong("the 2 of the square forgotten", "slip", """
def row_scale_grad(M, s):
    return s * (M ** 2).sum(1, keepdims=True)
""", mistake="two-forgotten"),
        Wrong("the factor s forgotten", "slip", """
def row_scale_grad(M, s):
    return 2 * (M ** 2).sum(1, keepdims=True)
""", mistake="factor-s-missing"),
        Wrong("summed over the rows (axis 0) instead of along them", "slip", """
def row_scale_grad(M, s):
    return 2 * s * (M ** 2).sum(0, keepdims=True)
""", mistake="summed-over-rows"),
        Wrong("summed without keepdims: shape (r,) against s (r, 1)", "slip", """
def row_scale_grad(M, s):
    return 2 * s * (M ** 2).sum(1)
""", mistake="no-keepdims"),
        Wrong("the upstream gradient not summed: one entry per entry of M", "slip", """
def row_scale_grad(M, s):
    return 2 * s * M ** 2
""", mistake="not-summed"),
        Wrong("the square of the row sum, not the sum of the squares", "slip", """
def row_scale_grad(M, s):
    return 2 * s * M.sum(1, keepdims=True) ** 2
""", mistake="square-of-sum"),
        Wrong("the sum over axis 0, stood up as a column", "slip", """
def row_scale_grad(M, s):
    return 2 * s * (M ** 2).sum(0)[:, None]
""", mistake="summed-over-rows"),
        Wrong("ignores s: the factors taken as ones", "ignores", """
def row_scale_grad(M, s):
    return 2 * (M ** 2).sum(1, keepdims=True) * np.ones_like(s)
""", mistake="factor-s-missing"),
        Wrong("ignores M: the example's matrix", "ignores", """
def row_scale_grad(M, s):
    example = np.arange(1.0, 13.0).reshape(3, 4)
    return 2 * s * (example ** 2).sum(1, keepdims=True)
"""),
        Wrong("the visible gradient hard-coded", "hardcoded", """
def row_scale_grad(M, s):
    return np.array([[30.0], [-348.0], [1784.0]])
"""),
        Wrong("minigrad's backward", "bypass", """
import minigrad
def row_scale_grad(M, s):
    st = minigrad.tensor(s, dtype=minigrad.float64, requires_grad=True)
    ((minigrad.tensor(M) * st) ** 2).sum().backward()
    return st.grad.numpy()
"""),
        Wrong("torch's backward", "bypass", """
import torch
def row_scale_grad(M, s):
    st = torch.tensor(s, requires_grad=True)
    ((torch.tensor(M) * st) ** 2).sum().backward()
    return st.grad.numpy()
"""),
        Wrong("central differences, one factor at a time", "bypass", """
def row_scale_grad(M, s, h=1.0):
    def loss(factors):
        return ((M * factors) ** 2).sum()
    grad = np.zeros_like(s)
    for i in np.ndindex(s.shape):
        step = np.zeros_like(s)
        step[i] = h
        grad[i] = (loss(s + step) - loss(s - step)) / (2 * h)
    return grad
"""),
    ],
}
