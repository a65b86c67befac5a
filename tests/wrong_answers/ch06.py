"""Wrong answers to chapter 06's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex06-weighted-sum": [
        Wrong("the cube differentiated as a square", "slip", """
def cube_vjp(w, v):
    return 2 * w * v
"""),
        Wrong("the weights summed: every output weighted by sum(v)", "slip", """
def cube_vjp(w, v):
    return 3 * w ** 2 * v.sum()
"""),
        Wrong("the VJP as a dot product: one number", "slip", """
import numpy as np
def cube_vjp(w, v):
    return np.dot(3 * w ** 2, v)
"""),
        Wrong("the weighted outputs, not their gradient", "slip", """
def cube_vjp(w, v):
    return v * w ** 3
"""),
        Wrong("ignores v: the gradient of z.sum()", "ignores", """
def cube_vjp(w, v):
    return 3 * w ** 2
"""),
        Wrong("the visible examples' answers looked up", "hardcoded", """
import numpy as np
_rng = np.random.default_rng(61)
_w, _v = _rng.standard_normal(5), _rng.standard_normal(5)
_answers = {(1.0, -2.0, 0.5, 3.0): np.array([3.0, -12.0, 0.0, 54.0]),
            tuple(_w): 3 * _w ** 2 * _v}
def cube_vjp(w, v):
    return _answers.get(tuple(np.ravel(w)), np.zeros_like(w))
"""),
        Wrong("only 1-D: v times the Jacobian matrix", "hardcoded", """
import numpy as np
def cube_vjp(w, v):
    return v @ np.diag(3 * w ** 2)
"""),
        Wrong("minigrad's z.backward(v)", "bypass", """
import minigrad
def cube_vjp(w, v):
    wm = minigrad.tensor(w, requires_grad=True)
    (wm ** 3).backward(minigrad.tensor(v))
    return wm.grad.numpy()
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def cube_vjp(w, v):
    wt = torch.tensor(w, requires_grad=True)
    (wt ** 3).backward(torch.tensor(v))
    return wt.grad.numpy()
"""),
        Wrong("torch.func.vjp", "bypass", """
import torch
def cube_vjp(w, v):
    _, pullback = torch.func.vjp(lambda t: t ** 3, torch.tensor(w))
    return pullback(torch.tensor(v))[0].numpy()
"""),
    ],
    "ex06-mm-grads": [
        Wrong("no transposes", "slip", """
def mm_grads(p, q, g):
    return g @ q, p @ g
"""),
        Wrong("grad_q as g.T @ p: transposed", "slip", """
def mm_grads(p, q, g):
    return g @ q.T, g.T @ p
"""),
        Wrong("the pair in the wrong order", "slip", """
def mm_grads(p, q, g):
    return p.T @ g, g @ q.T
"""),
        Wrong("the forum thread's pattern: row and column sums of g", "slip", """
import numpy as np
def mm_grads(p, q, g):
    return (np.repeat(g.sum(1, keepdims=True), p.shape[1], axis=1),
            np.repeat(g.sum(0, keepdims=True), q.shape[0], axis=0))
"""),
        Wrong("ignores g: the gradient of out.sum()", "ignores", """
import numpy as np
def mm_grads(p, q, g):
    ones = np.ones_like(g)
    return ones @ q.T, p.T @ ones
"""),
        Wrong("the visible answers looked up", "hardcoded", """
import numpy as np
_rng = np.random.default_rng(62)
_p, _q, _g = (_rng.standard_normal(s) for s in [(2, 3), (3, 5), (2, 5)])
_known = {_g.tobytes(): (_g @ _q.T, _p.T @ _g)}
def mm_grads(p, q, g):
    if g.shape == (2, 4):
        return np.array([[10.0] * 3, [26.0] * 3]), np.array([[6.0, 8, 10, 12]] * 3)
    return _known.get(g.tobytes(), (np.zeros(p.shape), np.zeros(q.shape)))
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def mm_grads(p, q, g):
    pt = torch.tensor(p, requires_grad=True)
    qt = torch.tensor(q, requires_grad=True)
    torch.mm(pt, qt).backward(torch.tensor(g))
    return pt.grad.numpy(), qt.grad.numpy()
"""),
        Wrong("minigrad's backward", "bypass", """
import minigrad
def mm_grads(p, q, g):
    pm = minigrad.tensor(p, requires_grad=True)
    qm = minigrad.tensor(q, requires_grad=True)
    minigrad.mm(pm, qm).backward(minigrad.tensor(g))
    return pm.grad.numpy(), qm.grad.numpy()
"""),
        Wrong("minigrad's Mm.backward called with a stand-in ctx", "bypass", """
import types
from minigrad.ops.matmul import Mm
def mm_grads(p, q, g):
    ctx = types.SimpleNamespace(saved_tensors=(p, q), needs_input_grad=(True, True))
    return Mm.backward(ctx, g)
"""),
    ],
    "ex06-jacobian": [
        Wrong("columns instead of rows: the transpose", "slip", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    eye = np.eye(y.shape[0])
    return np.stack([minigrad.autograd.grad(y, x, minigrad.tensor(eye[i]),
                                            retain_graph=True)[0].numpy()
                     for i in range(y.shape[0])], axis=1)
"""),
        Wrong("ones instead of one-hot vectors", "slip", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    return np.stack([minigrad.autograd.grad(y, x, minigrad.ones(y.shape[0]),
                                            retain_graph=True)[0].numpy()
                     for i in range(y.shape[0])])
"""),
        Wrong("the graph not kept (no retain_graph)", "slip", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    eye = np.eye(y.shape[0])
    return np.stack([minigrad.autograd.grad(y, x, minigrad.tensor(eye[i]))[0].numpy()
                     for i in range(y.shape[0])])
"""),
        Wrong("one-hot vectors sized by the input, not the output", "ignores", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    eye = np.eye(len(x0))
    return np.stack([minigrad.autograd.grad(y, x, minigrad.tensor(eye[i]),
                                            retain_graph=True)[0].numpy()
                     for i in range(len(x0))])
"""),
        Wrong("the visible Jacobian hard-coded, with one grad call per row", "hardcoded", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    for i in range(y.shape[0]):
        minigrad.autograd.grad(y, x, minigrad.ones(y.shape[0]), retain_graph=True)
    s = x0.sum()
    return np.array([[s + 0.3, 0.3, 0.3], [-1.2, s - 1.2, -1.2], [2.0, 2.0, s + 2.0]])
"""),
        Wrong("torch's jacobian on the same f", "bypass", """
import torch
def jacobian(f, x0):
    return torch.autograd.functional.jacobian(f, torch.tensor(x0)).numpy()
"""),
        Wrong("backward with e_i and x.grad cleared, no autograd.grad", "bypass", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    rows = []
    for i in range(y.shape[0]):
        x.grad = None
        y.backward(minigrad.tensor(np.eye(y.shape[0])[i]), retain_graph=True)
        rows.append(x.grad.numpy())
    return np.stack(rows)
"""),
        Wrong("central differences", "bypass", """
import numpy as np
import minigrad
def jacobian(f, x0, h=1e-6):
    cols = []
    for j in range(len(x0)):
        step = np.zeros(len(x0))
        step[j] = h
        cols.append((f(minigrad.tensor(x0 + step)).detach().numpy()
                     - f(minigrad.tensor(x0 - step)).detach().numpy()) / (2 * h))
    return np.stack(cols, axis=1)
"""),
        Wrong("minigrad's gradcheck.analytical_jacobian", "bypass", """
import minigrad
from minigrad.autograd.gradcheck import analytical_jacobian
def jacobian(f, x0):
    return analytical_jacobian(f, [minigrad.tensor(x0, requires_grad=True)], 0).T
"""),
    ],
}
