"""Wrong answers to chapter 02's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex02-numeric-gradient": [
        Wrong("one-sided (forward) difference", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        plus = list(point)
        plus[i] += h
        slopes.append((fn(*plus) - fn(*point)) / h)
    return slopes
""", mistake="one-sided"),
        Wrong("divides by h, not 2h", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += h
        minus[i] -= h
        slopes.append((fn(*plus) - fn(*minus)) / h)
    return slopes
""", mistake="divided-by-h"),
        Wrong("nudges every coordinate at once", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    plus = [p + h for p in point]
    minus = [p - h for p in point]
    slope = (fn(*plus) - fn(*minus)) / (2 * h)
    return [slope for _ in point]
""", mistake="all-at-once"),
        Wrong("nudges point in place and never puts it back", "slip", """
def numeric_gradient(fn, point, h=1e-6):
    slopes = []
    for i in range(len(point)):
        point[i] += h
        up = fn(*point)
        point[i] -= 2 * h
        down = fn(*point)
        slopes.append((up - down) / (2 * h))
    return slopes
""", mistake="moved-in-place"),
        Wrong("ignores h: a fixed step of 1e-5", "ignores", """
def numeric_gradient(fn, point, h=1e-6):
    step = 1e-5
    slopes = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += step
        minus[i] -= step
        slopes.append((fn(*plus) - fn(*minus)) / (2 * step))
    return slopes
"""),
        Wrong("the visible examples hard-coded", "hardcoded", """
def numeric_gradient(fn, point, h=1e-6):
    if point == [2.0, 4.0]:
        return [4.0, 3.0]
    return [-1.0, 13.5]
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def numeric_gradient(fn, point, h=1e-6):
    inputs = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in point]
    fn(*inputs).backward()
    return [t.grad.item() for t in inputs]
"""),
        Wrong("the chapter's minigrad gradient helper", "bypass", """
def numeric_gradient(fn, point, h=1e-6, _grad=gradient):
    return _grad(fn, *point)
"""),
    ],
    "ex02-slope-along": [
        Wrong("the direction not made unit: g . d", "slip", """
def slope_along(fn, point, direction):
    g = gradient(fn, *point)
    return sum(gi * di for gi, di in zip(g, direction))
""", mistake="direction-not-unit"),
        Wrong("the gradient made unit as well: the cosine of the angle", "slip", """
def slope_along(fn, point, direction):
    g = gradient(fn, *point)
    glen = sum(gi * gi for gi in g) ** 0.5
    dlen = sum(di * di for di in direction) ** 0.5
    return sum(gi * di for gi, di in zip(g, direction)) / (glen * dlen)
""", mistake="cosine"),
        Wrong("the steepest slope |g|, whatever the direction", "slip", """
def slope_along(fn, point, direction):
    return sum(gi * gi for gi in gradient(fn, *point)) ** 0.5
""", mistake="steepest-slope"),
        Wrong("divided by the sum of the direction's entries", "slip", """
def slope_along(fn, point, direction):
    g = gradient(fn, *point)
    return sum(gi * di for gi, di in zip(g, direction)) / sum(abs(di) for di in direction)
""", mistake="sum-of-entries"),
        Wrong("the partials added up, direction only for its sign", "slip", """
def slope_along(fn, point, direction):
    g = gradient(fn, *point)
    return sum(gi if di > 0 else -gi for gi, di in zip(g, direction))
""", mistake="signs-only"),
        Wrong("2-D only: the first two components", "ignores", """
def slope_along(fn, point, direction):
    g = gradient(fn, *point)
    dlen = (direction[0] ** 2 + direction[1] ** 2) ** 0.5
    return (g[0] * direction[0] + g[1] * direction[1]) / dlen
""", mistake="first-two-only"),
        Wrong("ignores the direction: along the first axis", "ignores", """
def slope_along(fn, point, direction):
    return gradient(fn, *point)[0]
""", mistake="first-axis"),
        Wrong("the visible slopes hard-coded", "hardcoded", """
def slope_along(fn, point, direction):
    gradient(fn, *point)  # one backward(), for the count
    return 4.8 if len(point) == 2 else -2.967844398206081
""", mistake="visible-slope"),
        Wrong("torch's autograd along the line", "bypass", """
import torch
def slope_along(fn, point, direction):
    u = torch.tensor(direction, dtype=torch.float64)
    t = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    fn(*(torch.tensor(point, dtype=torch.float64) + t * u / u.norm())).backward()
    return t.grad.item()
"""),
        Wrong("a numeric slope along the line, no backward", "bypass", """
def slope_along(fn, point, direction, h=1e-6):
    dlen = sum(di * di for di in direction) ** 0.5
    u = [di / dlen for di in direction]
    plus = [p + h * ui for p, ui in zip(point, u)]
    minus = [p - h * ui for p, ui in zip(point, u)]
    return (fn(*plus) - fn(*minus)) / (2 * h)
"""),
    ],
    "ex02-descent": [
        Wrong("uphill: plus the gradient", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    return [gi / length for gi in g]
""", mistake="uphill"),
        Wrong("not normalized: minus the gradient", "slip", """
def descent_direction(fn, point):
    return [-gi for gi in gradient(fn, *point)]
""", mistake="not-unit"),
        Wrong("divided by the sum of absolute values", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(abs(gi) for gi in g)
    return [-gi / length for gi in g]
""", mistake="sum-of-abs"),
        Wrong("2-D only: the length of the first two components", "ignores", """
import math
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = math.hypot(g[0], g[1])
    return [-gi / length for gi in g]
""", mistake="first-two-length"),
        Wrong("2-D only: two components returned", "ignores", """
import math
def descent_direction(fn, point):
    gx, gy = gradient(fn, *point)[:2]
    length = math.hypot(gx, gy)
    return [-gx / length, -gy / length]
""", mistake="two-components"),
        Wrong("the visible example hard-coded", "hardcoded", """
def descent_direction(fn, point):
    gradient(fn, *point)  # one backward(), for the count
    if point == [1.0, 0.0]:
        return [0.0, 0.0]
    return [-0.8, -0.6] if len(point) == 2 else [0.2922099972877862, -0.22531142834853957,
                                                  0.9294342783331229]
"""),
        Wrong("no stationary point: divides by a zero length", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    return [-gi / length for gi in g]
""", mistake="zero-length"),
        Wrong("None at a stationary point", "slip", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    if length == 0:
        return None
    return [-gi / length for gi in g]
""", mistake="none-at-stationary"),
        Wrong("stationary whenever the first partial is zero", "ignores", """
def descent_direction(fn, point):
    g = gradient(fn, *point)
    if g[0] == 0:
        return [0.0] * len(g)
    length = sum(gi * gi for gi in g) ** 0.5
    return [-gi / length for gi in g]
""", mistake="zero-first-partial"),
        Wrong("torch's nan at a stationary point", "slip", """
import math
def descent_direction(fn, point):
    g = gradient(fn, *point)
    length = sum(gi * gi for gi in g) ** 0.5
    if length == 0:
        return [math.nan] * len(g)
    return [-gi / length for gi in g]
""", mistake="nan-at-stationary"),

        Wrong("torch's autograd", "bypass", """
import torch
def descent_direction(fn, point):
    t = torch.tensor(point, dtype=torch.float64, requires_grad=True)
    fn(*t).backward()
    return (-t.grad / t.grad.norm()).tolist()
"""),
        Wrong("a numeric gradient, no backward", "bypass", """
def descent_direction(fn, point, h=1e-7):
    g = []
    for i in range(len(point)):
        plus, minus = list(point), list(point)
        plus[i] += h
        minus[i] -= h
        g.append((fn(*plus) - fn(*minus)) / (2 * h))
    length = sum(gi * gi for gi in g) ** 0.5
    return [-gi / length for gi in g]
"""),
    ],
}
