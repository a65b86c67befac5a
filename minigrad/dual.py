r"""``Dual``: one number and its tangent, for forward mode on scalars (chapter 14).

A dual number is :math:`a + \dot{a}\,\varepsilon` with :math:`\varepsilon^2 = 0`. Feed
:math:`x + 1\,\varepsilon` to a function built from the ops below and the result is
:math:`f(x) + f'(x)\,\varepsilon`: Taylor's formula stops after its first term, because
every higher power of :math:`\varepsilon` is zero. So the derivative comes out of *one
forward pass*, alongside the value, with no graph and no backward pass: each op
computes its output's tangent from its inputs' values and tangents (its *tangent
rule*), e.g. :math:`(a + \dot{a}\varepsilon)(b + \dot{b}\varepsilon) = ab + (\dot{a}b +
a\dot{b})\varepsilon`.

``primal`` and ``tangent`` are the names torch's ``forward_ad.unpack_dual`` gives the two
parts. Chapter 01's ``Value`` records a graph and sends derivatives back; a ``Dual``
sends them forward. Operands are Duals or real numbers (a number is a constant: its
tangent is 0).
"""

import math
from numbers import Real

__all__ = ["Dual", "derivative"]


class Dual:
    r"""``primal + tangent * eps`` with ``eps ** 2 == 0``."""

    __slots__ = ("primal", "tangent")

    def __init__(self, primal, tangent=0.0):
        self.primal = _to_float(primal)
        self.tangent = _to_float(tangent)

    def __repr__(self):
        return f"Dual(primal={self.primal!r}, tangent={self.tangent!r})"

    # --- primitive operations: the value, and the tangent rule -------------------------

    def __add__(self, other):
        other = _lift(other, "+")
        return Dual(self.primal + other.primal, self.tangent + other.tangent)

    def __mul__(self, other):  # (a + a' eps)(b + b' eps) = ab + (a' b + a b') eps
        other = _lift(other, "*")
        return Dual(self.primal * other.primal,
                    self.tangent * other.primal + self.primal * other.tangent)

    def __pow__(self, n):  # a constant exponent: d(a ** n) = n a ** (n - 1) da
        n = _lift(n, "**")
        if n.tangent != 0.0:
            raise TypeError("Dual ** Dual is not written here: a Dual exponent needs "
                            "log; use (n * x.log()).exp()")
        n = n.primal
        slope = 0.0 if n == 0 else n * self.primal ** (n - 1)
        return Dual(self.primal ** n, slope * self.tangent)

    def exp(self):
        out = math.exp(self.primal)
        return Dual(out, out * self.tangent)

    def log(self):
        return Dual(math.log(self.primal), self.tangent / self.primal)

    def tanh(self):
        out = math.tanh(self.primal)
        return Dual(out, (1.0 - out * out) * self.tangent)

    def sigmoid(self):
        out = 1.0 / (1.0 + math.exp(-self.primal))
        return Dual(out, out * (1.0 - out) * self.tangent)

    # --- derived operations: one line each, built on the primitives --------------------

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + -_lift(other, "-")

    def __rsub__(self, other):
        return _lift(other, "-") + -self

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * _lift(other, "/") ** -1

    def __rtruediv__(self, other):
        return _lift(other, "/") * self ** -1


def derivative(f, x):
    """``f'(x)`` in one forward pass: the tangent of ``f(Dual(x, 1.0))``."""
    return f(Dual(x, 1.0)).tangent


def _to_float(x):
    if isinstance(x, Real):
        return float(x)
    raise TypeError(f"Dual() needs real numbers, got {type(x).__name__}; convert first, "
                    "e.g. Dual(float(s)) or Dual(t.item())")


def _lift(other, op):
    if isinstance(other, Dual):
        return other
    if isinstance(other, Real):
        return Dual(float(other), 0.0)  # a constant: its tangent is 0
    raise TypeError(f"unsupported operand type(s) for {op}: 'Dual' and "
                    f"'{type(other).__name__}'; a Dual combines with a number or a Dual")
