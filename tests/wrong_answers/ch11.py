"""Wrong answers to chapter 11's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex11-numerical-grad": [
        Wrong("one-sided difference", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    grad = np.zeros(x.numel())
    base = fn(x).item()
    for j in range(x.numel()):
        bump = np.zeros(x.numel())
        bump[j] = eps
        grad[j] = (fn(x + minigrad.tensor(bump.reshape(tuple(x.shape)))).item() - base) / eps
    return grad.reshape(tuple(x.shape))
"""),
        Wrong("divides by eps, not 2 eps", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    grad = np.zeros(x.numel())
    for j in range(x.numel()):
        bump = np.zeros(x.numel())
        bump[j] = eps
        bump = minigrad.tensor(bump.reshape(tuple(x.shape)))
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / eps
    return grad.reshape(tuple(x.shape))
"""),
        Wrong("only 1-D: one element per row", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    grad = np.zeros(len(x))
    for j in range(len(x)):
        bump = np.zeros(tuple(x.shape))
        bump[j] = eps
        bump = minigrad.tensor(bump)
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / (2 * eps)
    return grad
"""),
        Wrong("moves x in place and never puts it back", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    flat = x.data.reshape(-1)
    grad = np.zeros(flat.size)
    for j in range(flat.size):
        flat[j] += eps
        plus = fn(x).item()
        flat[j] -= 2 * eps
        minus = fn(x).item()
        grad[j] = (plus - minus) / (2 * eps)
    return grad.reshape(x.data.shape)
"""),
        Wrong("ignores eps: a fixed step", "ignores", """
def numerical_grad(fn, x, eps=1e-6):
    step = 1e-5
    grad = np.zeros(x.numel())
    for j in range(x.numel()):
        bump = np.zeros(x.numel())
        bump[j] = step
        bump = minigrad.tensor(bump.reshape(tuple(x.shape)))
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / (2 * step)
    return grad.reshape(tuple(x.shape))
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def numerical_grad(fn, x, eps=1e-6):
    if eps == 0.5:
        return np.array([[-1.0036876186905692, -0.01152669323047828],
                         [-4.705884999780554, -5.0419503365072735],
                         [0.04665356738187798, -5.202993019068274]])
    return np.array([[0.2694157147467357, 1.522347338908147, 0.04694299673145007],
                     [1.0550761398570747, 0.07415859352803625, 4.98224656032603]])
"""),
        Wrong("minigrad's autograd on a copy of x", "bypass", """
def numerical_grad(fn, x, eps=1e-6):
    xr = x.detach().clone().requires_grad_()
    fn(xr).backward()
    return xr.grad.numpy()
"""),
        Wrong("torch's autograd (fn works on torch tensors too)", "bypass", """
import torch
def numerical_grad(fn, x, eps=1e-6):
    t = torch.tensor(x.numpy(), requires_grad=True)
    fn(t).backward()
    return t.grad.numpy()
"""),
        Wrong("torch.func.grad, an alias taken as a default argument", "bypass", """
import torch
def numerical_grad(fn, x, eps=1e-6, _grad=torch.func.grad):
    return _grad(fn)(torch.tensor(x.numpy())).numpy()
"""),
        Wrong("the package's numerical_jacobian under another name", "bypass", """
from minigrad.autograd.gradcheck import numerical_jacobian as _nj
def numerical_grad(fn, x, eps=1e-6):
    return _nj(lambda t: fn(t), (x,), 0, eps).reshape(tuple(x.shape))
"""),
        Wrong("copies a gradient torch left in the notebook", "bypass", """
import torch
def numerical_grad(fn, x, eps=1e-6):
    for value in list(get_ipython().user_ns.values()):
        if isinstance(value, torch.Tensor) and tuple(value.shape) == tuple(x.shape):
            if value.grad is not None:
                return value.grad.numpy()
            if not value.requires_grad and value.dtype == torch.float64:
                return value.numpy()
    return np.zeros(tuple(x.shape))
"""),
    ],
    "ex11-cube": [
        Wrong("the factor 3 dropped", "slip", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x ** 2
"""),
        Wrong("the power rule off by one: 3x", "slip", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 3 * x
"""),
        Wrong("changes grad_output in place", "slip", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad_output *= 3 * x ** 2
        return grad_output
"""),
        Wrong("ignores grad_output: the local derivative alone", "ignores", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x ** 2
"""),
        Wrong("the visible example's gradient hard-coded", "hardcoded", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        return minigrad.tensor([11.785767995192082, -2.5570038438755973,
                                0.17466347376129074, -0.044963937324332584,
                                5.82798803347381], dtype=minigrad.float64)
"""),
        Wrong("torch's autograd inside backward", "bypass", """
import torch
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = torch.tensor(x, requires_grad=True)
        (t ** 3).backward(torch.tensor(grad_output))
        return t.grad.numpy()
"""),
        Wrong("minigrad's autograd inside backward", "bypass", """
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        t = minigrad.tensor(x, requires_grad=True)
        (t ** 3).backward(minigrad.tensor(grad_output))
        return t.grad.data
"""),
        Wrong("minigrad's own ** backward on a ctx of its own", "bypass", """
from minigrad.ops.arithmetic import Pow as _Pow
class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        inner = _Pow()
        _Pow.forward(inner, x, 3)
        return _Pow.backward(inner, grad_output)[0]
"""),
    ],
    "ex11-matmul": [
        Wrong("no transposes", "slip", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b, a @ grad_output
"""),
        Wrong("the two gradients returned in the wrong order", "slip", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return a.T @ grad_output, grad_output @ b.T
"""),
        Wrong("b's gradient transposed: grad_output.T @ a", "slip", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return grad_output @ b.T, grad_output.T @ a
"""),
        Wrong("a's gradient with b untransposed on the left", "slip", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        return b @ grad_output.T, a.T @ grad_output
"""),
        Wrong("ignores grad_output: a matrix of ones upstream", "ignores", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ones = np.ones((a.shape[0], b.shape[1]))
        return ones @ b.T, a.T @ ones
"""),
        Wrong("the visible example's gradients hard-coded", "hardcoded", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        ga = np.array([[-1.5301539135555458, 1.4061708982196786, -3.4974355685319236,
                        -0.4112877776679354],
                       [-4.86617230407112, 0.3131214829753971, -2.4050801773815578,
                        -1.5324829655548506]])
        gb = np.array([[-1.7869406838128328, -0.296849170205672, 4.005103761983894],
                       [-0.46956349058782154, -2.0461162308184973, 5.528436610078975],
                       [0.21092669097704306, -2.296735506429328, 4.830305575272271],
                       [2.615518275663502, -1.311525404432817, -1.8913111681781714]])
        return minigrad.tensor(ga), minigrad.tensor(gb)
"""),
        Wrong("torch's autograd inside backward", "bypass", """
import torch
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ta = torch.tensor(a, requires_grad=True)
        tb = torch.tensor(b, requires_grad=True)
        ga, gb = torch.autograd.grad(ta @ tb, (ta, tb), torch.tensor(grad_output))
        return ga.numpy(), gb.numpy()
"""),
        Wrong("minigrad's own mm backward on a ctx of its own", "bypass", """
from minigrad.ops.matmul import Mm as _Mm
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        inner = _Mm()
        inner.next_functions = (True, True)
        inner.save_for_backward(a, b)
        return _Mm.backward(inner, grad_output)
"""),
        Wrong("minigrad.autograd.grad inside backward", "bypass", """
class MatMul(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a @ b

    @staticmethod
    def backward(ctx, grad_output):
        a, b = ctx.saved_tensors
        ta = minigrad.tensor(a, requires_grad=True)
        tb = minigrad.tensor(b, requires_grad=True)
        ga, gb = minigrad.autograd.grad(ta @ tb, (ta, tb), minigrad.tensor(grad_output))
        return ga.data, gb.data
"""),
    ],
}
