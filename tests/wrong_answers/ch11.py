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
""", mistake="one-sided"),
        Wrong("divides by eps, not 2 eps", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    grad = np.zeros(x.numel())
    for j in range(x.numel()):
        bump = np.zeros(x.numel())
        bump[j] = eps
        bump = minigrad.tensor(bump.reshape(tuple(x.shape)))
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / eps
    return grad.reshape(tuple(x.shape))
""", mistake="half-step"),
        Wrong("only 1-D: one element per row", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    grad = np.zeros(len(x))
    for j in range(len(x)):
        bump = np.zeros(tuple(x.shape))
        bump[j] = eps
        bump = minigrad.tensor(bump)
        grad[j] = (fn(x + bump).item() - fn(x - bump).item()) / (2 * eps)
    return grad
""", mistake="rows-moved"),
        Wrong("moves x in place and never puts it back", "slip", """
def numerical_grad(fn, x, eps=1e-6):
    flat = x.detach().numpy().reshape(-1)
    grad = np.zeros(flat.size)
    for j in range(flat.size):
        flat[j] += eps
        plus = fn(x).item()
        flat[j] -= 2 * eps
        minus = fn(x).item()
        grad[j] = (plus - minus) / (2 * eps)
    return grad.reshape(x.detach().numpy().shape)
""", mistake="not-put-back"),
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
    "ex11-find-bugs": [
        Wrong('inputs of ones: bugs that vanish at 1 go unseen', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.ones(shape, dtype=minigrad.float64, requires_grad=True)
                  for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="special-inputs"),
        Wrong('the same random tensor for inputs of the same shape', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)
    same = {}

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [same.setdefault(tuple(shape), minigrad.tensor(rng.standard_normal(shape),
                                                                requires_grad=True))
                  for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="later-input-unchecked"),
        Wrong('only the first input requires grad', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.standard_normal(shape), requires_grad=(i == 0))
                  for i, shape in enumerate(shapes)]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="later-input-unchecked"),
        Wrong('float32 inputs: rounding fails correct backwards', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.randn(*shape, requires_grad=True) for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="float32-inputs"),
        Wrong('positive inputs only (uniform in (0, 1))', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.random(shape), requires_grad=True) for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="positive-inputs"),
        Wrong("gradcheck's exception not caught", 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)
    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.standard_normal(shape), requires_grad=True)
                  for shape in shapes]
        if not minigrad.autograd.gradcheck(cls.apply, inputs):
            wrong.append(name)
    return sorted(wrong)
""", mistake="check-raised"),
        Wrong('only a GradcheckError counts: a backward that raises stops the search', 'slip', """
import numpy as np
import minigrad
from minigrad.autograd import GradcheckError
def wrong_backwards(functions):
    rng = np.random.default_rng(0)
    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.standard_normal(shape), requires_grad=True)
                  for shape in shapes]
        try:
            minigrad.autograd.gradcheck(cls.apply, inputs)
        except GradcheckError:
            wrong.append(name)
    return sorted(wrong)
""", mistake="backward-raised"),
        Wrong('the ones gradcheck accepts, not the ones it refuses', 'slip', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)
    right = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.standard_normal(shape), requires_grad=True)
                  for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if ok:
            right.append(name)
    return sorted(right)
""", mistake="inverted"),
        Wrong("the worked example's answer hard-coded", 'hardcoded', """
def wrong_backwards(functions):
    return ["CubeAbs", "MatMulNoT", "Mul", "Square"]
""", mistake="worked-answer"),
        Wrong('ignores the shapes: every input of shape (3,)', 'ignores', """
import numpy as np
import minigrad
def wrong_backwards(functions):
    rng = np.random.default_rng(0)

    wrong = []
    for name, (cls, shapes) in functions.items():
        inputs = [minigrad.tensor(rng.standard_normal(3), requires_grad=True) for shape in shapes]
        try:
            ok = minigrad.autograd.gradcheck(cls.apply, inputs, raise_exception=False)
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="ignores-shapes"),
        # On the worked batch it calls every Function wrong, as float32 inputs do: by its
        # outputs alone the check cannot tell the two apart.
        Wrong("torch's autograd on the forward, compared with the backward", 'bypass', """
import numpy as np
import torch
def wrong_backwards(functions):
    rng = np.random.default_rng(0)
    wrong = []
    for name, (cls, shapes) in functions.items():
        xs = [torch.tensor(rng.standard_normal(shape), requires_grad=True) for shape in shapes]
        ctx = cls()
        ctx.next_functions = tuple(object() for _ in xs)
        try:
            out = cls.forward(ctx, *xs)
            up = torch.tensor(rng.standard_normal(tuple(out.shape)))
            truth = torch.autograd.grad(out, xs, up)
            mine = cls.backward(ctx, up)
            mine = mine if isinstance(mine, tuple) else (mine,)
            ok = all(torch.allclose(torch.as_tensor(m), t) for m, t in zip(mine, truth))
        except Exception:
            ok = False
        if not ok:
            wrong.append(name)
    return sorted(wrong)
""", mistake="float32-inputs"),
    ],
    "ex11-fix-backward": [
        Wrong('the planted bug kept: the norm taken as a constant', 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return grad_output / norm
""", mistake="norm-constant"),
        Wrong("the projection's sign flipped", 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return (grad_output + u * (grad_output * u).sum()) / norm
""", mistake="sign-flipped"),
        Wrong('elementwise, no sum over the entries', 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return (grad_output - u * (grad_output * u)) / norm
""", mistake="no-sum"),
        Wrong('x where u is due in the projection', 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return (grad_output - x * (grad_output * x).sum()) / norm
""", mistake="x-for-u"),
        Wrong('the division by the norm left out', 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return grad_output - u * (grad_output * u).sum()
""", mistake="norm-left-out"),
        Wrong('grad_output changed in place', 'slip', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        grad_output -= u * (grad_output * u).sum()
        return grad_output / norm
""", mistake="changed-in-place"),
        Wrong("the worked example's gradient hard-coded", 'hardcoded', """
import numpy as np
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        return np.array([0.08416052, -0.22342186, 0.13587016, -0.02134398])
"""),
        Wrong('ignores grad_output: an upstream gradient of ones', 'ignores', """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        ones = grad_output * 0 + 1
        return (ones - u * (ones * u).sum()) / norm
""", mistake="ignores-grad-output"),
        Wrong("minigrad's autograd inside backward", 'bypass', """
import minigrad
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        import numpy as np
        t = minigrad.tensor(np.array(x, dtype=np.float64), requires_grad=True)
        with minigrad.enable_grad():
            out = t / (t * t).sum() ** 0.5
        (grad,) = minigrad.autograd.grad(out, t, minigrad.tensor(np.array(grad_output)))
        return grad.data
"""),
        Wrong("torch's autograd inside backward", 'bypass', """
import minigrad
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        norm = (x * x).sum() ** 0.5
        u = x / norm
        import numpy as np
        import torch
        t = torch.tensor(np.array(x, dtype=np.float64), requires_grad=True)
        (grad,) = torch.autograd.grad(t / t.norm(), t, torch.tensor(np.array(grad_output)))
        return grad.numpy()
"""),
    ],
}
