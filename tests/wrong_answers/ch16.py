"""Wrong answers to chapter 16's exercises."""

from tests.wrong_answers import Wrong

_RIGHT_FORWARD = '''
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        out = minigrad.tensor(np.maximum(a, 0) + np.log1p(np.exp(-np.abs(a))))
        ctx.save_for_backward(x, out)
        return out
'''

_RIGHT_BACKWARD = '''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * math.e ** (x - out)
'''


def _softplus(forward=_RIGHT_FORWARD, backward=_RIGHT_BACKWARD):
    return ("import math\nimport numpy as np\nimport minigrad\n"
            "class Softplus(minigrad.autograd.Function):\n" + forward + backward)


def _clip(body):
    return "def clip_hook(max_norm):\n    def hook(grad):\n" + body + "    return hook\n"


_RIGHT_SIGN_FORWARD = '''
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sign()
'''

_RIGHT_SIGN_BACKWARD = '''
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() < 1)
'''


def _sign(forward=_RIGHT_SIGN_FORWARD, backward=_RIGHT_SIGN_BACKWARD):
    return ("import numpy as np\nimport minigrad\n"
            "class SignST(minigrad.autograd.Function):\n" + forward + backward)


_PREDICT = """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan) + 2 * max(plan), "recomputed": depth}
"""

_PLAN = """
def plan_checkpoints(depth, budget):
    if 2 * depth + 1 <= budget:
        return []
    for segments in range(1, depth + 1):
        longest = -(-depth // segments)
        if segments + 2 * longest <= budget:
            short, extra = divmod(depth, segments)
            return [short + 1] * extra + [short] * (segments - extra)
    return None
"""


WRONG = {
    "ex16-softplus": [
        Wrong("the naive log(1 + exp(x)): inf at 800", "slip", _softplus(forward='''
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        with np.errstate(over="ignore"):
            out = minigrad.tensor(np.log(1 + np.exp(a)))
        ctx.save_for_backward(x, out)
        return out
'''), mistake="naive-forward"),
        Wrong("the shift without abs: exp(-x) overflows at -800", "slip", _softplus(forward='''
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        with np.errstate(over="ignore"):
            out = minigrad.tensor(np.maximum(a, 0) + np.log1p(np.exp(-a)))
        ctx.save_for_backward(x, out)
        return out
'''), mistake="shift-without-abs"),
        Wrong("log(1 + u) instead of log1p(u): 0 at x = -40", "slip", _softplus(forward='''
    @staticmethod
    def forward(ctx, x):
        a = x.detach().numpy()
        out = minigrad.tensor(np.maximum(a, 0) + np.log(1 + np.exp(-np.abs(a))))
        ctx.save_for_backward(x, out)
        return out
'''), mistake="log-not-log1p"),
        Wrong("backward with np.exp: right once, not twice differentiable", "slip",
              _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * np.exp(x - out)
'''), mistake="numpy-on-tensor"),
        Wrong("x and the output kept on ctx, not saved: constants to the graph", "slip",
              _softplus(forward='''
    @staticmethod
    def forward(ctx, x):
        out = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))
        ctx.x, ctx.out = x, out
        return out
''', backward='''
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * math.e ** (ctx.x - ctx.out)
'''), mistake="numpy-on-tensor"),
        Wrong("backward returns softplus itself, not its derivative", "slip",
              _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * out
'''), mistake="output-itself"),
        Wrong("backward with sigmoid(-x)", "slip", _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * (-out).exp()  # sigmoid(-x) = e^(-softplus(x))
'''), mistake="sigmoid-of-minus-x"),
        Wrong("backward from e^(out - x), upside down", "slip", _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * (out - x).clamp(max=700).exp()
''')),
        Wrong("ignores grad_output: the local derivative alone", "ignores",
              _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return (x - out).exp()
'''), mistake="ignores-grad-output"),
        Wrong("the visible forward values looked up", "hardcoded", _softplus(forward='''
    @staticmethod
    def forward(ctx, x):
        known = np.array([0.0, 4.248354255291589e-18, 0.1269280110429725,
                          0.6931471805599453, 0.9740769841801067, 3.048587351573742,
                          40.0, 800.0])
        out = minigrad.tensor(known if x.shape == (8,) else np.zeros(tuple(x.shape)))
        ctx.save_for_backward(x, out)
        return out
''')),
        Wrong("backward through minigrad's autograd of the naive formula", "bypass",
              _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        t = x.detach().requires_grad_()
        with minigrad.enable_grad():
            (g,) = minigrad.autograd.grad((t.exp() + 1).log(), t, grad_output)
        return g
''')),
        Wrong("backward through torch's softplus and autograd", "bypass",
              _softplus(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        import torch
        x, out = ctx.saved_tensors
        t = torch.tensor(x.detach().numpy(), requires_grad=True)
        (g,) = torch.autograd.grad(torch.nn.functional.softplus(t), t,
                                   torch.tensor(grad_output.numpy()))
        return minigrad.tensor(g.numpy())
''')),
    ],
    "ex16-clip-hook": [
        Wrong("clips each element to [-max_norm, max_norm]", "slip", _clip('''
        return minigrad.tensor(np.clip(grad.detach().numpy(), -max_norm, max_norm))
'''), mistake="clipped-each-entry"),
        Wrong("always scales to max_norm, even a shorter gradient", "slip", _clip('''
        norm = float((grad * grad).sum() ** 0.5)
        return grad * (max_norm / norm)
'''), mistake="always-scaled"),
        Wrong("the squared norm in place of the norm", "slip", _clip('''
        norm = float((grad * grad).sum())
        if norm > max_norm:
            return grad * (max_norm / norm)
        return grad
'''), mistake="squared-norm"),
        Wrong("computes the clipped gradient but returns nothing", "slip", _clip('''
        norm = float((grad * grad).sum() ** 0.5)
        if norm > max_norm:
            grad = grad * (max_norm / norm)
'''), mistake="not-returned"),
        Wrong("scales by norm / max_norm, upside down", "slip", _clip('''
        norm = float((grad * grad).sum() ** 0.5)
        if norm > max_norm:
            return grad * (norm / max_norm)
        return grad
'''), mistake="upside-down"),
        Wrong("ignores max_norm: clips to norm 1", "ignores", _clip('''
        norm = float((grad * grad).sum() ** 0.5)
        if norm > 1.0:
            return grad * (1.0 / norm)
        return grad
'''), mistake="ignores-max-norm"),
        Wrong("the visible answer", "hardcoded", _clip('''
        if grad.shape == (2,) and max_norm == 5.0:
            return minigrad.tensor([3.0, -4.0])
        return grad
''')),
        Wrong("torch's clip_grad_norm_ on a copy (its eps shifts the scale)", "bypass", _clip('''
        import torch
        t = torch.zeros(grad.shape, dtype=torch.float64, requires_grad=True)
        t.grad = torch.tensor(grad.detach().numpy())
        torch.nn.utils.clip_grad_norm_([t], max_norm)
        return minigrad.tensor(t.grad.numpy().copy())
''')),
    ],
    "ex16-sign-st": [
        Wrong("plain straight-through: the gradient passes everywhere", "slip",
              _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output
'''), mistake="no-window"),
        Wrong("the window includes its edges, |x| <= 1", "slip", _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1)
'''), mistake="edges-included"),
        Wrong("the true derivative of sign: zero", "slip", _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * 0.0
'''), mistake="zero-gradient"),
        Wrong("round in place of sign", "slip", _sign(forward='''
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return minigrad.tensor(np.round(x.detach().numpy()))
'''), mistake="round-not-sign"),
        Wrong("the window on the output, not the input", "slip", _sign(forward='''
    @staticmethod
    def forward(ctx, x):
        out = x.sign()
        ctx.save_for_backward(out)
        return out
'''), mistake="window-on-output"),
        Wrong("ignores grad_output: the mask alone", "ignores", _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return (x.abs() < 1).to(x.dtype)
'''), mistake="ignores-grad-output"),
        Wrong("the visible gradient looked up", "hardcoded", _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        if grad_output.shape == (7,):
            return minigrad.tensor([0.0, 0.0, -3.0, 0.5, 2.0, 0.0, 0.0])
        return grad_output
'''), mistake="no-window"),
        Wrong("backward through torch's hardtanh and autograd", "bypass", _sign(backward='''
    @staticmethod
    def backward(ctx, grad_output):
        import torch
        (x,) = ctx.saved_tensors
        t = torch.tensor(x.detach().numpy(), requires_grad=True)
        (g,) = torch.autograd.grad(torch.nn.functional.hardtanh(t), t,
                                   torch.tensor(grad_output.numpy()))
        return minigrad.tensor(g.numpy())
''')),
    ],
    "ex16-checkpoint-plan": [
        Wrong("peak: the kept arrays only, the recorded segment forgotten", "slip",
              _PLAN + """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan), "recomputed": depth}
""", mistake="peak-without-segment"),
        Wrong("three arrays a block: consecutive blocks' shared array counted twice", "slip",
              _PLAN + """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 3 * depth, "peak": 3 * depth, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan) + 3 * max(plan), "recomputed": depth}
""", mistake="three-per-block"),
        Wrong("recomputed: the last segment not run again", "slip", _PLAN + """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan) + 2 * max(plan),
            "recomputed": depth - plan[-1]}
""", mistake="last-not-recomputed"),
        Wrong("peak from the average segment, not the longest", "slip", _PLAN + """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    return {"kept": len(plan), "peak": len(plan) + 2 * -(-depth // len(plan)),
            "recomputed": depth}
""", mistake="even-segments-assumed"),
        Wrong("plan: always checkpoints, even where the plain network fits", "slip",
              _PREDICT + """
def plan_checkpoints(depth, budget):
    for segments in range(1, depth + 1):
        longest = -(-depth // segments)
        if segments + 2 * longest <= budget:
            short, extra = divmod(depth, segments)
            return [short + 1] * extra + [short] * (segments - extra)
    return None
""", mistake="checkpoints-when-it-fits"),
        Wrong("plan: equal segments with the remainder left over in one long segment",
              "slip", _PREDICT + """
def plan_checkpoints(depth, budget):
    if 2 * depth + 1 <= budget:
        return []
    for segments in range(1, depth + 1):
        if segments + 2 * -(-depth // segments) <= budget:
            k = depth // segments
            return [k] * (segments - 1) + [depth - k * (segments - 1)]
    return None
""", mistake="uneven-segments"),
        Wrong("ignores budget: sqrt(depth / 2) blocks a segment, the textbook choice",
              "ignores", _PREDICT + """
def plan_checkpoints(depth, budget):
    k = max(1, round((depth / 2) ** 0.5))
    return [k] * (depth // k) + ([depth % k] if depth % k else [])
"""),
        Wrong("ignores plan: a checkpoint every 2 blocks", "ignores", _PLAN + """
def predict_memory(depth, plan):
    if not plan:
        return {"kept": 2 * depth + 1, "peak": 2 * depth + 1, "recomputed": 0}
    m = -(-depth // 2)  # a checkpoint every 2 blocks, whatever the plan
    return {"kept": m, "peak": m + 4, "recomputed": depth}
"""),
        Wrong("the visible answers looked up", "hardcoded", """
def predict_memory(depth, plan):
    seen = {(4, ()): (9, 9, 0), (6, (2, 2, 2)): (3, 7, 6), (7, (4, 1, 2)): (3, 11, 7)}
    kept, peak, recomputed = seen.get((depth, tuple(plan)), (0, 0, 0))
    return {"kept": kept, "peak": peak, "recomputed": recomputed}
def plan_checkpoints(depth, budget):
    return {(11, 11): [4, 4, 3], (5, 11): []}.get((depth, budget))
"""),
        Wrong("measures each plan with the course's helper", "bypass", """
from minigrad.course.checkpoint_plan import measure_plan as _measure
def predict_memory(depth, plan):
    return _measure(depth, plan)
def plan_checkpoints(depth, budget):
    if _measure(depth, [])["peak"] <= budget:
        return []
    for segments in range(1, depth + 1):
        short, extra = divmod(depth, segments)
        plan = [short + 1] * extra + [short] * (segments - extra)
        if _measure(depth, plan)["peak"] <= budget:
            return plan
    return None
"""),
        Wrong("measures with chapter 09's saved_bytes on a network of its own", "bypass",
              _PLAN + """
from minigrad.course.widgets.checkpoint_memory import CheckpointMemory as _CM
def predict_memory(depth, plan):
    every = plan[0] if plan else 0
    r = _CM(depth=depth, every=every).results
    return {"kept": r["kept"] // 4096, "peak": r["peak"] // 4096,
            "recomputed": r["recomputed"]}
"""),
    ],
}
