r"""``Value``: one number, its gradient, and the graph that made it (chapters 01-04).

Each op builds its output with its parents (a tuple, in operand order), its op name
(for the drawing) and a function giving its *local gradients* :math:`\partial\,
\mathrm{out} / \partial\,\mathrm{parent}`. :meth:`Value.backward` walks the graph from
the output (chapter 03) and adds local times upstream into each parent (chapter 04):
:math:`\mathrm{parent.grad} \mathrel{+}= \partial\,\mathrm{out} / \partial\,
\mathrm{parent} \cdot \mathrm{out.grad}`. It *adds*, so ``a + a`` gives ``a`` both parts
and a leaf's ``grad`` accumulates over ``backward()`` calls as in PyTorch (reset with
``v.grad = 0.0``; a torch tensor takes ``x.grad = None`` or ``x.grad.zero_()``);
intermediate nodes restart from zero on every call. The graph is kept after
``backward()``, so a second call works and adds again, as torch's does only with
``retain_graph=True``.

Operands are Values or real numbers (a ``bool`` counts as 0 or 1, as in Python and
PyTorch); anything else raises ``TypeError``. Where Python refuses (``log`` of a
non-positive number, ``0 ** -1``, division by zero, overflow) so does minigrad, with a
hint at the fix; PyTorch would return ``inf`` or ``nan``.
"""

import math
from numbers import Real

__all__ = ["Value", "backward_order"]


class Value:
    """A scalar that records how it was computed, so it can backpropagate."""

    __slots__ = ("data", "grad", "label", "_prev", "_op", "_local_grads", "_saved")

    def __init__(self, data, label="", _prev=(), _op="", _local_grads=None, _saved=None):
        self.data = data if type(data) is float else _to_float(data)
        self.grad = 0.0
        self.label = label
        self._prev = _prev  # parents, in operand order
        self._op = _op  # "+", "*", "exp", ... ("" for a leaf)
        self._local_grads = _local_grads  # out -> (d out / d parent for each parent)
        self._saved = _saved  # a constant the local gradients need (pow's exponent)

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data!r}, grad={self.grad!r}{label})"

    @property
    def is_leaf(self):  # made by the user, not by an operation
        return not self._prev

    def local_grads(self):
        r"""Return :math:`\partial\,\mathrm{self} / \partial\,p` for each parent ``p``."""
        return self._local_grads(self) if self._prev else ()

    # --- primitive operations: each returns its output with parents and local grads ---

    def __add__(self, other):
        other = _lift(other, "+")
        return Value(self.data + other.data, "", (self, other), "+", _add_local)

    def __mul__(self, other):
        other = _lift(other, "*")
        return Value(self.data * other.data, "", (self, other), "*", _mul_local)

    def __pow__(self, other):
        if isinstance(other, Value):  # x ** y: both base and exponent get a gradient
            return Value(_power(self.data, other.data), "", (self, other), "**", _pow_local)
        n = _lift(other, "**").data  # x ** 2: the exponent is a constant, saved
        return Value(_power(self.data, n), "", (self,), f"**{n:g}", _pow_const_local, n)

    def exp(self):  # math.exp raises OverflowError past exp(709.78), torch gives inf
        try:
            out = math.exp(self.data)
        except OverflowError as exc:
            raise OverflowError(f"math range error: exp({self.data!r}) is too large for a "
                                "float; torch would return inf. Keep the input below 709, "
                                "e.g. (x - x_max).exp() as a stable softmax does") from exc
        return Value(out, "", (self,), "exp", _exp_local)

    def log(self):
        if not self.data > 0 and not math.isnan(self.data):
            raise ValueError(
                f"math domain error: log needs a positive input, got {self.data!r}; "
                "torch would return -inf or nan here. Keep the input positive, e.g. "
                "(x * x + 1e-12).log() or a probability from sigmoid()")
        return Value(math.log(self.data), "", (self,), "log", _log_local)

    def tanh(self):
        return Value(math.tanh(self.data), "", (self,), "tanh", _tanh_local)

    def sigmoid(self):
        x = self.data
        out = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
        return Value(out, "", (self,), "sigmoid", _sigmoid_local)

    def relu(self):  # nan stays nan and -0.0 stays -0.0, as in torch
        return Value(0.0 if self.data < 0 else self.data, "", (self,), "relu", _relu_local)

    # --- derived operations: one line each, built on the primitives ---

    def __neg__(self):  # -self
        return self * -1

    def __radd__(self, other):  # other + self
        return self + _lift(other, "+", reflected=True)

    def __sub__(self, other):  # self - other
        return self + -_lift(other, "-")

    def __rsub__(self, other):  # other - self
        return _lift(other, "-", reflected=True) + -self

    def __rmul__(self, other):  # other * self
        return self * _lift(other, "*", reflected=True)

    def __truediv__(self, other):  # self / other
        return self * _divisor(_lift(other, "/")) ** -1

    def __rtruediv__(self, other):  # other / self
        return _lift(other, "/", reflected=True) * _divisor(self) ** -1

    def __rpow__(self, other):  # other ** self, e.g. 2 ** x
        return _lift(other, "**", reflected=True) ** self

    # --- backpropagation ---

    def backward(self, gradient=1.0):
        r"""Add :math:`\partial\,\mathrm{self} / \partial\,\mathrm{leaf}` into every leaf's
        ``grad``; ``gradient`` seeds ``self.grad`` (1.0, as in PyTorch)."""
        order = backward_order(self)  # every node after all the nodes that use it
        for node in order:
            if node._prev:  # intermediate grads start from zero on every call
                node.grad = 0.0
        self.grad += gradient  # the seed: d self / d self = 1
        for node in order:
            if node._prev:
                upstream = node.grad  # complete: every node that uses this one came first
                for parent, local in zip(node._prev, node.local_grads(), strict=False):
                    parent.grad += local * upstream  # add: a parent may be used twice


def backward_order(root):
    r"""Return the nodes of ``root``'s graph in the order ``backward`` visits them.

    A depth-first walk appends a node once all its parents are in (post-order), then
    reverses, so a node comes after every node that uses it and its ``grad`` is
    complete when its turn comes. It is micrograd's recursive ``build_topo`` with an
    explicit stack, so any depth works. Sets of nodes hash by identity (``Value``
    keeps ``object``'s hash and ``==``); the order depends only on the graph.
    """
    order, visited = [], set()
    stack, expanded = [root], [False]  # a node; whether its parents are pushed already
    while stack:
        node, parents_pushed = stack.pop(), expanded.pop()
        if parents_pushed:
            order.append(node)  # every parent is in order already
        elif node not in visited:
            visited.add(node)
            stack.append(node)
            expanded.append(True)
            for parent in node._prev:
                if parent not in visited:
                    stack.append(parent)
                    expanded.append(False)
    order.reverse()  # the output first
    return order


# --- local gradients, one function per primitive: out -> tuple, one per parent ---

def _add_local(out):
    return (1.0, 1.0)


def _mul_local(out):
    a, b = out._prev
    return (b.data, a.data)


def _pow_const_local(out):
    (x,) = out._prev
    return (_slope_of_power(x.data, out._saved),)


def _pow_local(out):
    x, y = out._prev
    # d(x ** y)/dy = x ** y * log(x); as in torch, 0 where x == 0 and nan where x < 0
    dy = out.data * math.log(x.data) if x.data > 0 else (0.0 if x.data == 0 else math.nan)
    return (_slope_of_power(x.data, y.data), dy)


def _exp_local(out):
    return (out.data,)


def _log_local(out):
    (x,) = out._prev
    return (1.0 / x.data,)


def _tanh_local(out):
    return (1.0 - out.data * out.data,)


def _sigmoid_local(out):
    return (out.data * (1.0 - out.data),)


def _relu_local(out):  # torch: exactly 0 where off, even times an inf or nan upstream
    return (_OFF if out.data <= 0 else 1.0,)


# --- helpers ---

class _Off(float):  # relu's 0 where off: stays 0 times inf or nan, as torch's relu
    __slots__ = ()

    def __mul__(self, other):
        return 0.0

    __rmul__ = __mul__


_OFF = _Off(0.0)


def _slope_of_power(x, n):  # d/dx x ** n = n x ** (n - 1), with torch's values at 0
    if n == 0:
        return 0.0  # x ** 0 is constant, even at 0
    if x == 0 and n < 1:
        return math.inf  # x ** 0.5 stands vertical at 0
    return n * _power(x, n - 1)


def _power(x, n):  # x ** n as a float, refusing what Python's math.pow refuses
    if x == 0 and n < 0:
        raise ZeroDivisionError(
            f"0.0 cannot be raised to a negative power ({n!r}); torch would return inf. "
            "Keep the base away from zero, e.g. (x + 1e-12) ** n")
    if x < 0 and not float(n).is_integer():
        raise ValueError(
            f"math domain error: a negative base needs a whole exponent, got "
            f"({x!r}) ** {n!r}; torch would return nan. Use e.g. abs(x) ** n or a whole n")
    try:
        return float(x ** n)
    except OverflowError as exc:
        raise OverflowError(
            f"{exc.args[-1]}: ({x!r}) ** {n!r} is too large for a float; torch would "
            "return inf. Keep base and exponent small, e.g. work with logs, "
            "n * x.log() instead of (x ** n).log()") from exc


def _divisor(v):  # the divisor itself, once it is known not to be zero
    if v.data == 0:
        raise ZeroDivisionError("division by zero: the divisor is 0.0; torch would return "
                                "inf or nan. Keep it away from zero, e.g. x / (y + 1e-12)")
    return v


def _to_float(data):
    if isinstance(data, Real):
        try:
            return float(data)
        except OverflowError as exc:
            raise OverflowError(f"{exc}; a Value holds a float, at most about 1.8e308. "
                                "Use a smaller number, e.g. its logarithm, "
                                "Value(math.log(n))") from exc
    raise TypeError(f"Value() needs a real number, got {type(data).__name__}; convert "
                    "first, e.g. Value(float(s)) or Value(t.item()) for a 1-element tensor")


def _lift(other, op, reflected=False):
    """Return ``other`` as a ``Value``: a Value as is, a number wrapped as a leaf."""
    if isinstance(other, Value):
        return other
    if isinstance(other, Real):
        return Value(float(other))
    pair = ("Value", type(other).__name__)
    left, right = pair[::-1] if reflected else pair
    raise TypeError(
        f"unsupported operand type(s) for {op}: '{left}' and '{right}'; a Value combines "
        "only with a number (int, float) or another Value: use one Value per number, "
        "e.g. Value(float(s))")
