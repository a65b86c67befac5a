r"""Step through the topological sort of chapter 03 (``backward_order``'s walk).

:class:`TopoSortStepper` is the logic: the same walk as :func:`minigrad.backward_order`,
one pop of the stack per :meth:`~TopoSortStepper.step`, keeping the stack, the set of
visited nodes and the order so far where a reader (and a test) can see them. The first
time a node comes off the stack it is marked visited and pushed again, with its parents
above it; the second time, all its parents are in the order, so it joins the order.
:func:`topo_sort_widget` draws each state on the graph.
"""

from dataclasses import dataclass

from minigrad.course.graph import draw_graph, node_names
from minigrad.course.widgets import controls as ui
from minigrad.course.widgets.stepper import copy_graph

__all__ = ["TopoSortStepper", "TopoEvent", "topo_sort_widget", "topo_text"]

VISITED, PLACED = "#fff3c4", "#c8e6c9"


@dataclass(frozen=True)
class TopoEvent:
    """One pop: ``kind`` is "expand" (first visit), "place" (joins the order) or "skip"."""

    kind: str
    node: object
    pushed: tuple = ()


class TopoSortStepper:
    """``backward_order(root)``'s walk, one stack pop per :meth:`step`.

    ``stack`` holds pairs ``(node, parents_pushed)``, top last; ``visited`` the nodes seen
    (in the order seen); ``order`` the nodes placed, each after its parents. When
    :attr:`done`, ``order`` reversed is ``backward_order(root)``. The graph is only read.
    """

    def __init__(self, root):
        self.root = root
        self.reset()

    def reset(self):
        self.stack = [(self.root, False)]
        self.visited, self._seen = [], set()
        self.order = []
        self.events = []

    @property
    def position(self):
        return len(self.events)

    @property
    def done(self):
        return not self.stack

    def step(self):
        """Pop one entry of the stack, act on it and return a :class:`TopoEvent`."""
        if self.done:
            raise StopIteration("the sort is complete; reset() to start again")
        node, parents_pushed = self.stack.pop()
        if parents_pushed:
            self.order.append(node)
            event = TopoEvent("place", node)
        elif id(node) in self._seen:
            event = TopoEvent("skip", node)
        else:
            self._seen.add(id(node))
            self.visited.append(node)
            self.stack.append((node, True))
            pushed = tuple(p for p in node._prev if id(p) not in self._seen)
            self.stack.extend((p, False) for p in pushed)
            event = TopoEvent("expand", node, pushed)
        self.events.append(event)
        return event

    def goto(self, position):
        """Reset, then take ``position`` steps (fewer if the sort ends first)."""
        self.reset()
        while self.position < position and not self.done:
            self.step()

    def count_steps(self):
        """How many steps the whole sort takes (worked out on a fresh walk)."""
        other = TopoSortStepper(self.root)
        while not other.done:
            other.step()
        return other.position


def topo_text(stepper, names):
    """The readout: the last event, the stack, the visited set and the order so far."""
    def name(node):
        return names[id(node)]

    lines = []
    event = stepper.events[-1] if stepper.events else None
    if event is None:
        lines.append(f"start: the stack holds the output {name(stepper.root)}")
    elif event.kind == "expand":
        pushed = ", ".join(name(p) for p in event.pushed) or "no parent (a leaf)"
        lines.append(f"pop {name(event.node)} (first visit): mark it visited, push "
                     f"{name(event.node)}✓ to come back after its parents, then push {pushed}")
    elif event.kind == "place":
        lines.append(f"pop {name(event.node)}✓: all its parents are placed, so it joins "
                     f"the order at place {len(stepper.order)}")
    else:
        lines.append(f"pop {name(event.node)}: already visited, nothing to do")
    stack = ", ".join(name(n) + ("✓" if done else "") for n, done in stepper.stack)
    lines.append(f"stack (top on the right): [{stack}]")
    lines.append("visited: {" + ", ".join(name(n) for n in stepper.visited) + "}")
    lines.append("order so far: [" + ", ".join(name(n) for n in stepper.order) + "]")
    if stepper.done:
        lines.append("done: backward visits this order reversed, the output first")
    return lines


def topo_sort_widget(root, dpi=80):
    """Buttons Step and Reset, a slider, the graph and a readout; returns a VBox.

    Visited nodes are drawn light yellow, placed ones green with their place in the
    order above them, the node just popped yellow. CSS classes: ``minigrad-ch03-topo-step``,
    ``-reset``, ``-slider``, ``-graph``, ``-readout`` (all ``minigrad-ch03-topo-...``).
    The widget sorts its own copy of the graph; the VBox's ``stepper`` attribute is it.
    """
    root = copy_graph(root)
    stepper = TopoSortStepper(root)
    names = node_names(root)
    total = stepper.count_steps()

    def draw():
        fills = {id(n): VISITED for n in stepper.visited}
        fills.update({id(n): PLACED for n in stepper.order})
        notes = {id(n): f"#{k}" for k, n in enumerate(stepper.order, start=1)}
        event = stepper.events[-1] if stepper.events else None
        return draw_graph(root, fills=fills, notes=notes, numbers=False, fontsize=12,
                          highlight=event.node if event and event.kind != "place" else None)

    def lines():
        return [f"step {stepper.position} of {total}"] + topo_text(stepper, names)

    return ui.stepper_panel(stepper, total, draw, lines, "minigrad-ch03-topo", dpi=dpi)
