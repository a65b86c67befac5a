"""Wrong answers to chapter 14's exercises."""

from tests.wrong_answers import Wrong

_DUAL_HEAD = '''
import math
class MyDual:
    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)
    def __add__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal + other.primal, self.tangent + other.tangent)
    __radd__ = __add__
    __rmul__ = lambda self, other: self * other
'''

_RIGHT_MUL = '''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal * other.primal,
                      self.tangent * other.primal + self.primal * other.tangent)
'''

_RIGHT_TANH = '''
    def tanh(self):
        t = math.tanh(self.primal)
        return MyDual(t, (1 - t * t) * self.tangent)
'''


def _dual(mul=_RIGHT_MUL, tanh=_RIGHT_TANH, head=_DUAL_HEAD):
    return head + mul + tanh


# Exercise 14.2 and 14.3's visible inputs, as a learner would copy them.
_VISIBLE = '''
import numpy as np
import torch
_A = np.array([[1.0, -0.5, 0.2], [0.3, 0.8, -1.0], [0.0, 0.5, 0.5], [-0.7, 0.1, 0.4]])
_x0 = np.array([0.5, -1.0, 2.0])
_tanh_Ax = lambda t: torch.tanh(torch.tensor(_A) @ t)
'''

WRONG = {
    "ex14-dual-rules": [
        Wrong("the product's tangent as the product of the tangents", "slip", _dual(mul='''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal * other.primal, self.tangent * other.tangent)
'''), mistake="tangent-product"),
        Wrong("the product's tangent as the sum of the tangents", "slip", _dual(mul='''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal * other.primal, self.tangent + other.tangent)
'''), mistake="tangent-sum"),
        Wrong("eps**2 kept: a' b' added to the tangent", "slip", _dual(mul='''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal * other.primal, self.tangent * other.primal
                      + self.primal * other.tangent + self.tangent * other.tangent)
'''), mistake="eps-squared-kept"),
        Wrong("tanh's slope as 1 - x**2 (at the input, not the output)", "slip", _dual(tanh='''
    def tanh(self):
        return MyDual(math.tanh(self.primal), (1 - self.primal ** 2) * self.tangent)
'''), mistake="slope-at-input"),
        Wrong("tanh's tangent as the tanh of the tangent", "slip", _dual(tanh='''
    def tanh(self):
        return MyDual(math.tanh(self.primal), math.tanh(self.tangent))
'''), mistake="tanh-of-tangent"),
        Wrong("tanh leaves the primal as it was", "slip", _dual(tanh='''
    def tanh(self):
        t = math.tanh(self.primal)
        return MyDual(self.primal, (1 - t * t) * self.tangent)
'''), mistake="primal-unchanged"),
        Wrong("ignores the tangent of the other factor", "ignores", _dual(mul='''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal * other.primal, self.tangent * other.primal)
'''), mistake="other-tangent-ignored"),
        Wrong("ignores self.tangent in tanh: the slope alone", "ignores", _dual(tanh='''
    def tanh(self):
        t = math.tanh(self.primal)
        return MyDual(t, 1 - t * t)
'''), mistake="incoming-tangent-ignored"),
        Wrong("the visible tanh values looked up", "hardcoded", _dual(tanh='''
    def tanh(self):
        t = math.tanh(self.primal)
        known = {1.25: (1 - math.tanh(1.25) ** 2) * 2.0}
        return MyDual(t, known.get(self.primal, 0.0))
''')),
        # Past the visible inputs it ignores the other factor's tangent, and is named so.
        Wrong("the visible products looked up", "hardcoded", _dual(mul='''
    def __mul__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        known = {(3.0, 3.0): 6.0, (2.0, 5.0): 4.0, (0.5, 0.5): 2.0}
        return MyDual(self.primal * other.primal,
                      known.get((self.primal, other.primal), self.tangent * other.primal))
'''), mistake="other-tangent-ignored"),
        Wrong("minigrad's Dual does the work", "bypass", _dual(mul='''
    def __mul__(self, other):
        from minigrad.dual import Dual
        other = other if isinstance(other, MyDual) else MyDual(other)
        d = Dual(self.primal, self.tangent) * Dual(other.primal, other.tangent)
        return MyDual(d.primal, d.tangent)
''', tanh='''
    def tanh(self):
        from minigrad.dual import Dual
        d = Dual(self.primal, self.tangent).tanh()
        return MyDual(d.primal, d.tangent)
''')),
        Wrong("a subclass of minigrad's Dual", "bypass", '''
from minigrad.dual import Dual
class MyDual(Dual):
    pass
'''),
        Wrong("tanh's slope from minigrad.Value's backward", "bypass", _dual(tanh='''
    def tanh(self):
        import minigrad
        v = minigrad.Value(self.primal)
        out = v.tanh()
        out.backward()
        return MyDual(out.data, v.grad * self.tangent)
''')),
        Wrong("tanh's tangent from torch's forward mode", "bypass", _dual(tanh='''
    def tanh(self):
        import torch
        import torch.autograd.forward_ad as fwAD
        with fwAD.dual_level():
            t = fwAD.make_dual(torch.tensor(self.primal, dtype=torch.float64),
                               torch.tensor(self.tangent, dtype=torch.float64))
            p, d = fwAD.unpack_dual(torch.tanh(t))
        return MyDual(p.item(), d.item())
''')),
        Wrong("tanh's slope from torch.autograd.grad", "bypass", _dual(tanh='''
    def tanh(self):
        import torch
        t = torch.tensor(self.primal, dtype=torch.float64, requires_grad=True)
        out = torch.tanh(t)
        (slope,) = torch.autograd.grad(out, t)
        return MyDual(out.item(), slope.item() * self.tangent)
''')),
        Wrong("tanh's slope by a central difference", "bypass", _dual(tanh='''
    def tanh(self):
        h = 1e-5
        slope = (math.tanh(self.primal + h) - math.tanh(self.primal - h)) / (2 * h)
        return MyDual(math.tanh(self.primal), slope * self.tangent)
''')),
    ],
    "ex14-jacobian-columns": [
        Wrong("the JVPs stacked as rows: the transpose", "slip", '''
import numpy as np
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    cols = []
    for j in range(len(x0)):
        e = np.zeros(len(x0)); e[j] = 1.0
        _, t = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(e),))
        cols.append(t.detach().numpy())
    return np.stack(cols)
''', mistake="transposed"),
        Wrong("one JVP with ones, repeated in every column", "slip", '''
import numpy as np
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    _, t = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(np.ones(len(x0))),))
    return np.stack([t.detach().numpy()] * len(x0), axis=1)
''', mistake="one-pass"),
        Wrong("the values f(x) stacked, not the tangents", "slip", '''
import numpy as np
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    cols = []
    for j in range(len(x0)):
        e = np.zeros(len(x0)); e[j] = 1.0
        y, _ = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(e),))
        cols.append(y.detach().numpy())
    return np.stack(cols, axis=1)
''', mistake="values-stacked"),
        Wrong("the tangent set to x0 instead of e_j", "slip", '''
import numpy as np
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    cols = []
    for j in range(len(x0)):
        e = np.zeros(len(x0)); e[j] = x0[j]
        _, t = minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(e),))
        cols.append(t.detach().numpy())
    return np.stack(cols, axis=1)
''', mistake="tangent-scaled"),
        Wrong("ignores x0: the Jacobian at ones", "ignores", '''
import numpy as np
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    x = np.ones(len(x0))
    cols = []
    for j in range(len(x)):
        e = np.zeros(len(x)); e[j] = 1.0
        _, t = minigrad.func.jvp(f, (minigrad.tensor(x),), (minigrad.tensor(e),))
        cols.append(t.detach().numpy())
    return np.stack(cols, axis=1)
''', mistake="ignores-x0"),
        Wrong("the visible Jacobians looked up", "hardcoded", _VISIBLE + '''
import minigrad
import minigrad.autograd.forward_ad as _fw
_known = {tuple(_x0): torch.func.jacfwd(_tanh_Ax)(torch.tensor(_x0)).numpy(),
          (0.3, -1.2, 2.0): torch.func.jacfwd(lambda t: t * t.sum())(
              torch.tensor([0.3, -1.2, 2.0])).numpy()}
def jacobian_by_columns(f, x0):
    for j in range(len(x0)):  # the passes the check counts
        with _fw.dual_level():
            _fw.make_dual(minigrad.tensor(x0), minigrad.tensor(np.eye(len(x0))[j]))
    return _known.get(tuple(x0), np.zeros((len(x0), len(x0))))
'''),
        Wrong("minigrad.func.jacfwd", "bypass", '''
import minigrad
import minigrad.func
def jacobian_by_columns(f, x0):
    return minigrad.func.jacfwd(f)(minigrad.tensor(x0)).detach().numpy()
'''),
        Wrong("autograd.functional.jacobian, forward-mode", "bypass", '''
import minigrad
def jacobian_by_columns(f, x0):
    return minigrad.autograd.functional.jacobian(f, minigrad.tensor(x0),
                                                 strategy="forward-mode").detach().numpy()
'''),
        Wrong("reverse mode: a row per output", "bypass", '''
import numpy as np
import minigrad
def jacobian_by_columns(f, x0):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    eye = np.eye(y.shape[0])
    return np.stack([minigrad.autograd.grad(y, x, minigrad.tensor(e), retain_graph=True)[0].numpy()
                     for e in eye])
'''),
        Wrong("columns by central differences", "bypass", '''
import numpy as np
import minigrad
def jacobian_by_columns(f, x0):
    h = 1e-6
    cols = []
    for j in range(len(x0)):
        e = np.zeros(len(x0)); e[j] = h
        cols.append((f(minigrad.tensor(x0 + e)) - f(minigrad.tensor(x0 - e))).numpy() / (2 * h))
    return np.stack(cols, axis=1)
'''),
    ],
    "ex14-double-vjp": [
        Wrong("one VJP with v: J^T v, not J v", "slip", '''
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)
    (g,) = minigrad.autograd.grad(f(x), x, minigrad.tensor(v))
    return g.detach().numpy()
''', mistake="one-vjp"),
        Wrong("the second pass with respect to x, not u", "slip", '''
import numpy as np
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    u = minigrad.tensor(np.ones(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    (jv,) = minigrad.autograd.grad(g, x, minigrad.tensor(v), allow_unused=True)
    return np.zeros(y.shape) if jv is None else jv.detach().numpy()
'''),
        Wrong("the second pass's gradient is u's value: J^T u with u = v", "slip", '''
import numpy as np
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    u = minigrad.tensor(np.ones(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    (jv,) = minigrad.autograd.grad(g.sum(), u)
    return jv.detach().numpy()
''', mistake="ones-for-v"),
        Wrong("ignores v: the second pass with ones", "ignores", '''
import numpy as np
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    u = minigrad.tensor(np.zeros(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    (jv,) = minigrad.autograd.grad(g, u, minigrad.tensor(np.ones(len(x0))))
    return jv.detach().numpy()
''', mistake="ones-for-v"),
        Wrong("ignores x0: the trick at ones", "ignores", '''
import numpy as np
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(np.ones(len(x0)), requires_grad=True)
    y = f(x)
    u = minigrad.tensor(np.zeros(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    (jv,) = minigrad.autograd.grad(g, u, minigrad.tensor(v))
    return jv.detach().numpy()
'''),
        Wrong("the visible answers looked up", "hardcoded", _VISIBLE + '''
import minigrad
_v = np.array([1.0, 0.5, -2.0])
_known = {tuple(_x0): torch.func.jvp(_tanh_Ax, (torch.tensor(_x0),),
                                     (torch.tensor(_v),))[1].numpy(),
          (1.0, 2.0, 3.0): np.array([2.0, 4.0, 6.0])}
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)  # two passes, as the check counts
    y = f(x)
    u = minigrad.tensor(np.zeros(y.shape), requires_grad=True)
    (g,) = minigrad.autograd.grad(y, x, u, create_graph=True)
    minigrad.autograd.grad(g, u, minigrad.tensor(v))
    return _known.get(tuple(x0), np.zeros(y.shape))
'''),
        Wrong("forward mode: minigrad.func.jvp", "bypass", '''
import minigrad
import minigrad.func
def jvp_by_double_vjp(f, x0, v):
    return minigrad.func.jvp(f, (minigrad.tensor(x0),), (minigrad.tensor(v),))[1].numpy()
'''),
        Wrong("forward mode: forward_ad by hand", "bypass", '''
import minigrad
from minigrad.autograd import forward_ad
def jvp_by_double_vjp(f, x0, v):
    with forward_ad.dual_level():
        y = f(forward_ad.make_dual(minigrad.tensor(x0), minigrad.tensor(v)))
        return forward_ad.unpack_dual(y).tangent.detach().numpy()
'''),
        Wrong("minigrad.autograd.functional.jvp", "bypass", '''
import minigrad
def jvp_by_double_vjp(f, x0, v):
    return minigrad.autograd.functional.jvp(f, minigrad.tensor(x0), minigrad.tensor(v))[1].numpy()
'''),
        Wrong("the whole Jacobian by rows, then J @ v", "bypass", '''
import numpy as np
import minigrad
def jvp_by_double_vjp(f, x0, v):
    x = minigrad.tensor(x0, requires_grad=True)
    y = f(x)
    rows = [minigrad.autograd.grad(y, x, minigrad.tensor(e), retain_graph=True)[0].numpy()
            for e in np.eye(y.shape[0])]
    return np.stack(rows) @ v
'''),
        Wrong("a central difference along v", "bypass", '''
import minigrad
def jvp_by_double_vjp(f, x0, v):
    h = 1e-6
    return (f(minigrad.tensor(x0 + h * v)) - f(minigrad.tensor(x0 - h * v))).numpy() / (2 * h)
'''),
    ],
}
