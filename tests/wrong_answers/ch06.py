"""Wrong answers to chapter 06's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex06-weighted-sum": [
        Wrong("the cube differentiated as a square", "slip", """
def cube_vjp(w, v):
    return 2 * w * v
""", mistake="cube-as-square"),
        Wrong("the weights summed: every output weighted by sum(v)", "slip", """
def cube_vjp(w, v):
    return 3 * w ** 2 * v.sum()
""", mistake="sum-of-v"),
        Wrong("the VJP as a dot product: one number", "slip", """
import numpy as np
def cube_vjp(w, v):
    return np.dot(3 * w ** 2, v)
""", mistake="one-number"),
        Wrong("the weighted outputs, not their gradient", "slip", """
def cube_vjp(w, v):
    return v * w ** 3
""", mistake="outputs-not-gradient"),
        Wrong("ignores v: the gradient of z.sum()", "ignores", """
def cube_vjp(w, v):
    return 3 * w ** 2
""", mistake="ignores-v"),
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
    "ex06-split-network": [
        Wrong("the two-machine split of section 7: only the last boundary passed back", "slip", """
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    outputs[-2].backward(leaves[-2].grad)
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="earlier-stages-skipped"),
        Wrong("each earlier stage's backward from ones, as for a sum", "slip", """
import minigrad
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(minigrad.ones_like(outputs[k]))
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="ones-upstream"),
        Wrong("the activation passed back instead of its gradient", "slip", """
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(leaves[k].detach())
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="activation-upstream"),
        Wrong("the new leaves made without requires_grad", "slip", """
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach()
        leaves.append(inp)
    outputs[-1].backward()
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(leaves[k].grad)
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="received-without-grad"),
        Wrong("the stages' backward in forward order", "slip", """
import minigrad
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    for k in range(len(stages) - 1):
        g = leaves[k].grad
        outputs[k].backward(minigrad.zeros_like(outputs[k]) if g is None else g)
    outputs[-1].backward()
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="forward-order"),
        Wrong("the boundary gradients returned last stage first", "slip", """
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(leaves[k].grad)
    return [leaf.grad.data for leaf in reversed(leaves[:-1])]
""", mistake="reversed"),
        Wrong("ignores x: the pipeline run on zeros of x's shape", "ignores", """
import minigrad
def pipeline_backward(stages, x):
    inp, outputs, leaves = minigrad.zeros_like(x), [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(leaves[k].grad)
    return [leaf.grad.data for leaf in leaves[:-1]]
""", mistake="ignores-x"),
        Wrong("ignores all stages but the first and the last", "ignores", """
def pipeline_backward(stages, x):
    first, last = stages[0], stages[-1]
    y = first(x)
    y_leaf = y.detach().requires_grad_()
    last(y_leaf).backward()
    y.backward(y_leaf.grad)
    return [y_leaf.grad.data]
"""),
        Wrong("the visible example's boundary gradients pasted in", "hardcoded", """
import numpy as np
import minigrad
_rng = np.random.default_rng(62)
_x = _rng.standard_normal((4, 3))
_W1, _b1 = _rng.standard_normal((5, 3)), _rng.standard_normal(5)
_W2, _b2 = _rng.standard_normal((4, 5)), _rng.standard_normal(4)
_W3, _b3 = _rng.standard_normal((2, 4)), _rng.standard_normal(2)
_t = _rng.standard_normal((4, 2))
_h1 = np.tanh(_x @ _W1.T + _b1)
_h2 = np.maximum(_h1 @ _W2.T + _b2, 0)
_d3 = 2 * (_h2 @ _W3.T + _b3 - _t) / _t.size
_g2 = _d3 @ _W3
_g1 = ((_h1 @ _W2.T + _b2 > 0) * _g2) @ _W2
def pipeline_backward(stages, x):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach().requires_grad_()
        leaves.append(inp)
    outputs[-1].backward()
    grads = [_g1, _g2]
    for k in reversed(range(len(stages) - 1)):
        outputs[k].backward(minigrad.tensor(grads[k]))
    return grads
"""),
        Wrong("dL/dy by central differences through the later stages", "bypass", """
import numpy as np
import minigrad
def pipeline_backward(stages, x, h=1e-6):
    inp, outputs, leaves = x, [], []
    for stage in stages:
        out = stage(inp)
        outputs.append(out)
        inp = out.detach()
        leaves.append(inp)
    def rest(k, y):
        for stage in stages[k + 1:]:
            y = stage(minigrad.tensor(y))
        return y.item()
    grads = [None] * (len(stages) - 1)
    for k in range(len(stages) - 1):
        y0 = leaves[k].data
        grad = np.zeros_like(y0)
        for i in np.ndindex(y0.shape):
            step = np.zeros_like(y0)
            step[i] = h
            grad[i] = (rest(k, y0 + step) - rest(k, y0 - step)) / (2 * h)
        grads[k] = grad
    outputs[-1].backward()
    for k in range(len(stages) - 1):
        outputs[k].backward(minigrad.tensor(grads[k]))
    return grads
"""),
        Wrong("the history stripped with grad_fn = None, one backward", "bypass", """
def pipeline_backward(stages, x):
    inp, outputs = x, []
    for stage in stages:
        saved = getattr(inp, "grad_fn", None)
        if saved is not None:
            inp.grad_fn = None
        out = stage(inp)
        if saved is not None:
            inp.grad_fn = saved
        outputs.append(out)
        inp = out
    for y in outputs[:-1]:
        y.retain_grad()
    outputs[-1].backward()
    return [y.grad.data for y in outputs[:-1]]
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
""", mistake="transposed"),
        Wrong("ones instead of one-hot vectors", "slip", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    return np.stack([minigrad.autograd.grad(y, x, minigrad.ones(y.shape[0]),
                                            retain_graph=True)[0].numpy()
                     for i in range(y.shape[0])])
""", mistake="ones-not-one-hot"),
        Wrong("the graph not kept (no retain_graph)", "slip", """
import numpy as np
import minigrad
def jacobian(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    eye = np.eye(y.shape[0])
    return np.stack([minigrad.autograd.grad(y, x, minigrad.tensor(eye[i]))[0].numpy()
                     for i in range(y.shape[0])])
""", mistake="graph-freed"),
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
