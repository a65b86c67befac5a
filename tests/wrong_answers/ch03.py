"""Wrong answers to chapter 03's exercises."""

from tests.wrong_answers import Wrong

WRONG = {
    "ex03-by-hand": [
        Wrong("ignores x: the first visible point 0.5 written in", "ignores", """
import math
def dw_dx(x):
    u = 0.5 ** 2
    return (1 - math.tanh(u) ** 2) * 2 * 0.5
""", mistake="ignores-x"),
        Wrong("the inner derivative 2x forgotten", "slip", """
import math
def dw_dx(x):
    u = x ** 2
    return 1 - math.tanh(u) ** 2
""", mistake="inner-forgotten"),
        Wrong("the outer derivative taken at x, not at u = x**2", "slip", """
import math
def dw_dx(x):
    return (1 - math.tanh(x) ** 2) * 2 * x
""", mistake="outer-at-x"),
        Wrong("tanh's derivative as 1 - tanh(u), not squared", "slip", """
import math
def dw_dx(x):
    u = x ** 2
    return (1 - math.tanh(u)) * 2 * x
""", mistake="tanh-not-squared"),
        Wrong("the visible points hard-coded", "hardcoded", """
def dw_dx(x):
    return {0.5: 0.940014848806378, -1.2: -0.4831304937375183,
            2.0: 0.005363802732103666}.get(x, 0.0)
"""),
        Wrong("minigrad.Value and backward()", "bypass", """
import minigrad
def dw_dx(x):
    v = minigrad.Value(x)
    (v ** 2).tanh().backward()
    return v.grad
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def dw_dx(x):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (t ** 2).tanh().backward()
    return t.grad.item()
"""),
        Wrong("the nodes' local gradients from minigrad.Value", "bypass", """
import minigrad
def dw_dx(x):
    u = minigrad.Value(x) ** 2
    w = u.tanh()
    return w.local_grads()[0] * u.local_grads()[0]
"""),
        Wrong("a numeric central slope", "bypass", """
import math
def dw_dx(x, h=1e-6):
    return (math.tanh((x + h) ** 2) - math.tanh((x - h) ** 2)) / (2 * h)
"""),
    ],
    "ex03-topo-sort": [
        Wrong("a fixed three-level walk, enough for a small drawn example", "hardcoded", """
def topo_sort(root):
    levels = [[root]]
    for _ in range(2):
        levels.append([p for v in levels[-1] for p in v._prev])
    order, seen = [], set()
    for level in reversed(levels):
        for v in level:
            if id(v) not in seen:
                seen.add(id(v))
                order.append(v)
    return order
"""),
        Wrong("recursive depth-first walk (micrograd's build_topo)", "slip", """
def topo_sort(root):
    order, visited = [], set()
    def build(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent in node._prev:
                build(parent)
            order.append(node)
    build(root)
    return order
""", mistake="recursive"),
        Wrong("recursive, with the recursion limit raised", "slip", """
import sys
sys.setrecursionlimit(100_000)
def topo_sort(root):
    order, visited = [], set()
    def build(node):
        if id(node) not in visited:
            visited.add(id(node))
            for parent in node._prev:
                build(parent)
            order.append(node)
    build(root)
    return order
""", mistake="recursive"),
        Wrong("the chapter's recursive topo_v1 under the new name", "slip", """
topo_sort = topo_v1
""", mistake="recursive"),
        Wrong("no seen set: a shared node comes twice", "slip", """
def topo_sort(root):
    result, todo = [], [(root, False)]
    while todo:
        v, parents_done = todo.pop()
        if parents_done:
            result.append(v)
        else:
            todo.append((v, True))
            todo.extend((p, False) for p in v._prev)
    return result
""", mistake="no-seen-set"),
        Wrong("a node appended when first met, then the list reversed", "slip", """
def topo_sort(root):
    result, seen, todo = [], set(), [root]
    while todo:
        v = todo.pop()
        if id(v) not in seen:
            seen.add(id(v))
            result.append(v)
            todo.extend(v._prev)
    return result[::-1]
""", mistake="first-met-reversed"),
        Wrong("breadth-first from the output, reversed", "slip", """
from collections import deque
def topo_sort(root):
    result, seen, todo = [], {id(root)}, deque([root])
    while todo:
        v = todo.popleft()
        result.append(v)
        for p in v._prev:
            if id(p) not in seen:
                seen.add(id(p))
                todo.append(p)
    return result[::-1]
""", mistake="breadth-first-reversed"),
        Wrong("ignores all parents but the first", "ignores", """
def topo_sort(root):
    result, v = [], root
    while True:
        result.append(v)
        if not v._prev:
            return result[::-1]
        v = v._prev[0]
""", mistake="first-parent-only"),
        Wrong("the stepper's order, reversed", "bypass", """
from minigrad import BackwardStepper
def topo_sort(root):
    return BackwardStepper(root).order[::-1]
"""),
        Wrong("every node, sorted by its column in the drawing", "bypass", """
from minigrad.course.graph import graph_layout
def topo_sort(root):
    nodes, seen, todo = [], set(), [root]
    while todo:
        v = todo.pop()
        if id(v) not in seen:
            seen.add(id(v))
            nodes.append(v)
            todo.extend(v._prev)
    column = graph_layout(root)
    return sorted(nodes, key=lambda v: column[id(v)][0])
"""),
        Wrong("backward_order by another name, captured as a default", "bypass", """
import minigrad.course.graph
def topo_sort(root, _order=minigrad.course.graph.backward_order):
    return _order(root)[::-1]
"""),
        Wrong("an alias of backward_order taken in an earlier line", "bypass", """
import minigrad
_walk = minigrad.value.backward_order
def topo_sort(root):
    return list(reversed(_walk(root)))
"""),
        Wrong("the drawing's walk order, reversed", "bypass", """
from minigrad.course.graph import _first_seen
def topo_sort(root):
    return _first_seen(root)[::-1]
"""),
        Wrong("the chapter's topological-sort widget, run to the end", "bypass", """
from minigrad.course.widgets.topo_view import TopoSortStepper
def topo_sort(root):
    stepper = TopoSortStepper(root)
    while not stepper.done:
        stepper.step()
    return stepper.order
"""),
    ],
    "ex03-read-graph": [
        Wrong("dr/dm = 2m forgotten", "slip", """
def r_grads(x, y):
    return y + 1, x
""", mistake="outer-forgotten"),
        Wrong("only one path from x: dm/dx = y", "slip", """
def r_grads(x, y):
    m = x * y + x
    return 2 * m * y, 2 * m * x
""", mistake="one-path-from-x"),
        Wrong("the two partials swapped", "slip", """
def r_grads(x, y):
    m = x * y + x
    return 2 * m * x, 2 * m * (y + 1)
""", mistake="partials-swapped"),
        Wrong("the visible answer hard-coded", "hardcoded", """
def r_grads(x, y):
    return 3.0, -4.5
""", mistake="visible-answer"),
        Wrong("ignores y: m at the visible y = -2", "ignores", """
def r_grads(x, y):
    m = x * -2.0 + x
    return 2 * m * (-2.0 + 1), 2 * m * x
""", mistake="ignores-y"),
        Wrong("minigrad.Value and backward()", "bypass", """
import minigrad
def r_grads(x, y):
    vx, vy = minigrad.Value(x), minigrad.Value(y)
    ((vx * vy + vx) ** 2).backward()
    return vx.grad, vy.grad
"""),
        Wrong("torch's autograd", "bypass", """
import torch
def r_grads(x, y):
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    yt = torch.tensor(y, dtype=torch.float64, requires_grad=True)
    ((xt * yt + xt) ** 2).backward()
    return xt.grad.item(), yt.grad.item()
"""),
        Wrong("numeric central slopes", "bypass", """
def r_grads(x, y, h=1e-6):
    r = lambda x, y: (x * y + x) ** 2
    return ((r(x + h, y) - r(x - h, y)) / (2 * h),
            (r(x, y + h) - r(x, y - h)) / (2 * h))
"""),
    ],
}
