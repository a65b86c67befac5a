"""Hostile answers to the exercises of chapters 10, 11, 14 and 16 whose answer is a class
or a hook (issue 19; decided outside the kernel by minigrad/course/verdicts_classes.py).

The kinds of ``tests/wrong_answers/hostile.py``, on classes: ``caller-frame``,
``silenced-grader`` and ``lying-result`` wrap every method the honest class defines (its
``forward`` and ``backward``, ``step``, ``__mul__`` and ``tanh``) and the hook the honest
factory returns, with hostile.py's own muting and lying code; the answer is made wrong
(a step's parameters and a dual number's tangent too). ``copy-at-import`` and
``gc-restored`` reach the answer through the route the exercise switches off
(minigrad's ``SGD.step``, reverse mode, ``Dual.__mul__`` and ``tanh``), put back during
the call from a copy made at import or from the grader's list found with ``gc``.
:func:`hostile` samples the kinds over the six exercises (the test file's CPU budget).
"""

from tests.wrong_answers import hostile as base
from tests.wrong_answers.hostile import Hostile

# Every method of every class the answer defines, and the hook a factory returns, wrapped.
_WRAP_CLASSES = """
def _method(fn, name):
    def wrapped(*args, **kwargs):
        _MUTE(_grader())
        result = fn(*args, **kwargs)
        if name == "step":
            for value in list(vars(args[0]).values()):
                for t in (value if isinstance(value, list) else []):
                    if isinstance(t, minigrad.Tensor):
                        _SPOIL(t)
        if callable(result) and not isinstance(result, type):
            return _method(result, "hook")
        if hasattr(result, "tangent"):
            result.tangent = _WORSE(result.tangent)
            return result
        return _WORSE(result)
    wrapped.__name__ = fn.__name__
    return wrapped

def _wrap_all(namespace):
    for key, value in list(namespace.items()):
        if isinstance(value, type) and value.__module__ == __name__:
            for name, attr in list(vars(value).items()):
                if name.startswith("__") and name not in ("__mul__", "__rmul__", "__add__",
                                                            "__radd__"):
                    continue
                if isinstance(attr, staticmethod):
                    setattr(value, name, staticmethod(_method(attr.__func__, name)))
                elif callable(attr):
                    setattr(value, name, _method(attr, name))
        elif callable(value) and getattr(value, "__module__", None) == __name__ and \\
                not key.startswith("_") and type(value).__name__ == "function":
            namespace[key] = _method(value, key)
"""
_MODES = {"caller-frame": base._FRAME, "silenced-grader": base._SILENCE, "lying-result": base._LIE}

# Through the route each exercise switches off, restored during the call (`_routes_back`).
_ROUTE_BACKWARD = """
    @staticmethod
    def backward(ctx, grad_output):
        _routes_back()
        saved = ctx.saved_tensors
        x = saved[0]
        tensor = isinstance(x, minigrad.Tensor)
        xt = minigrad.tensor(x.detach().numpy() if tensor else x, requires_grad=True)
        up = grad_output.detach().numpy() if isinstance(grad_output, minigrad.Tensor) \\
            else grad_output
        with minigrad.enable_grad():
            FORWARD.backward(minigrad.tensor(up))
        return xt.grad if tensor else xt.grad.numpy()
"""
ROUTED = {
    "ex10-momentum": """
class MomentumSGD:
    def __init__(self, params, lr, momentum):
        self.params = list(params)
        self.inner = minigrad.optim.SGD(self.params, lr=lr, momentum=momentum)

    def zero_grad(self):
        self.inner.zero_grad()

    def step(self):
        _routes_back()
        self.inner.step()
""",
    "ex11-fix-backward": """
class Normalize(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (x * x).sum() ** 0.5
""" + _ROUTE_BACKWARD.replace("FORWARD", "(xt / (xt * xt).sum() ** 0.5)"),
    "ex14-dual-rules": """
from minigrad.dual import Dual

class MyDual:
    def __init__(self, primal, tangent=0.0):
        self.primal, self.tangent = float(primal), float(tangent)

    def __add__(self, other):
        other = other if isinstance(other, MyDual) else MyDual(other)
        return MyDual(self.primal + other.primal, self.tangent + other.tangent)

    __radd__ = __add__

    def __mul__(self, other):
        _routes_back()
        other = other if isinstance(other, MyDual) else MyDual(other)
        d = Dual(self.primal, self.tangent) * Dual(other.primal, other.tangent)
        return MyDual(d.primal, d.tangent)

    def __rmul__(self, other):
        return self * other

    def tanh(self):
        _routes_back()
        d = Dual(self.primal, self.tangent).tanh()
        return MyDual(d.primal, d.tangent)
""",
    "ex16-softplus": """
class Softplus(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        y = minigrad.tensor(np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a))))
        ctx.save_for_backward(x, y)
        return y
""" + _ROUTE_BACKWARD.replace(  # d/dx exp(x - softplus(x)) with softplus(x) held fixed
        "FORWARD", "(xt - minigrad.tensor(saved[1].detach().numpy())).exp()"),
    "ex16-sign-st": """
class SignST(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sign()
""" + _ROUTE_BACKWARD.replace(
        "FORWARD", "(xt * minigrad.tensor((np.abs(xt.detach().numpy()) < 1) * 1.0))"),
}
_COPY_DUAL = base._COPY.replace("minigrad.optim.SGD.step)", "minigrad.optim.SGD.step,\n"
                           "                                    minigrad.dual.Dual.__mul__, "
                           "minigrad.dual.Dual.tanh)")
# The kinds sampled on each exercise (every kind on some exercise; 16.2 forbids no route
# that exists in the learner's process, so it gets the three wrapping kinds).
SAMPLE = {
    "ex10-momentum": ("caller-frame", "silenced-grader", "copy-at-import"),
    "ex11-fix-backward": ("lying-result", "silenced-grader", "gc-restored"),
    "ex14-dual-rules": ("caller-frame", "lying-result", "copy-at-import"),
    "ex16-softplus": ("silenced-grader", "lying-result", "gc-restored"),
    "ex16-sign-st": ("caller-frame", "copy-at-import"),
    "ex16-clip-hook": ("caller-frame", "silenced-grader", "lying-result"),
}


def hostile(exercise, honest, kinds=None):
    """The hostile answers to ``exercise`` (a solution cell's grade_id) of ``kinds``
    (:data:`SAMPLE`'s by default); ``honest``: its reference solution's source."""
    answers = []
    for kind in SAMPLE[exercise] if kinds is None else kinds:
        if kind in _MODES:
            source = (base._IMPORTS + "_IN_PLACE = False\n" + honest + base._WRAP + _WRAP_CLASSES
                      + _MODES[kind] + "_wrap_all(globals())\n")
        elif kind in ("copy-at-import", "gc-restored") and exercise in ROUTED:
            restore = base._GC if kind == "gc-restored" else (
                _COPY_DUAL if exercise == "ex14-dual-rules" else base._COPY)
            source = base._IMPORTS + "import minigrad.dual\nimport minigrad.optim\n" + restore + \
                ROUTED[exercise]
        else:
            continue
        answers.append(Hostile(exercise, kind, source))
    return answers
