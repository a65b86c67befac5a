r"""Step through a backward pass one node at a time (chapter 04).

:class:`BackwardStepper` is the logic: the same order and the same arithmetic as
:meth:`Value.backward`, cut into steps. Step ``k`` takes the ``k``-th non-leaf node in
``backward_order`` and, for each parent, adds

.. math:: \underbrace{\frac{\partial\,\mathrm{node}}{\partial\,\mathrm{parent}}}_{\text{local}}
          \cdot \underbrace{\mathrm{node.grad}}_{\text{upstream}}

into ``parent.grad``, recording each number on the way. :func:`stepper_widget` puts
the stepper behind two buttons and a slider, with the graph drawing and a readout
such as ``local 2 × upstream 1 = 2 → x.grad 0 → 2``.
"""

from dataclasses import dataclass

from minigrad.course.graph import draw_graph, node_names
from minigrad.course.widgets import controls as ui
from minigrad.value import backward_order

__all__ = ["BackwardStepper", "ParentUpdate", "Step", "copy_graph", "stepper_widget",
           "step_text"]


@dataclass(frozen=True)
class ParentUpdate:
    """One ``parent.grad += local * upstream``, with the grad before and after."""

    parent: object
    local: float
    upstream: float
    product: float
    before: float
    after: float


@dataclass(frozen=True)
class Step:
    """The node whose grad is sent back, and one update per parent (operand order)."""

    node: object
    updates: tuple


class BackwardStepper:
    """A backward pass from ``root``, one node per :meth:`step`.

    Creating it starts the pass exactly as ``root.backward(gradient)`` does: the
    graph's intermediate grads go to 0 and ``root.grad`` gets the seed; leaves keep
    what they hold (grads accumulate). After the last step every grad equals what
    ``backward()`` gives. :meth:`reset` puts the grads back as they were at creation
    and starts again. ``steps`` lists every step in advance, computed with the same
    float operations in the same order, so its numbers match the graph's exactly.
    """

    def __init__(self, root, gradient=1.0):
        self.root = root
        self.gradient = gradient
        self.order = backward_order(root)
        self._initial = [node.grad for node in self.order]
        self.steps = self._plan()
        self.position = 0
        self.reset()

    def _start(self, grads):
        """Set ``grads`` (a list in ``order``) as backward's first lines would."""
        for i, node in enumerate(self.order):
            if node._prev:
                grads[i] = 0.0
        grads[0] += self.gradient  # order[0] is the root
        return grads

    def _plan(self):
        index = {id(node): i for i, node in enumerate(self.order)}
        grads = self._start(list(self._initial))
        steps = []
        for node in self.order:
            if not node._prev:
                continue
            upstream, updates = grads[index[id(node)]], []
            for parent, local in zip(node._prev, node.local_grads(), strict=True):
                i = index[id(parent)]
                before = grads[i]
                product = local * upstream
                grads[i] = before + product
                updates.append(ParentUpdate(parent, local, upstream, product, before, grads[i]))
            steps.append(Step(node, tuple(updates)))
        return steps

    @property
    def done(self):
        return self.position == len(self.steps)

    @property
    def current(self):
        """The step taken last, or None before the first."""
        return self.steps[self.position - 1] if self.position else None

    def reset(self):
        """Put the grads back as they were at creation and start the pass again."""
        for node, grad in zip(self.order, self._start(list(self._initial)), strict=True):
            node.grad = grad
        self.position = 0
        self.partial = 0  # updates of the next step already made (by step_update)

    def step(self):
        """Take the next step (its updates not made yet) and return its record."""
        if self.done:
            raise StopIteration("the backward pass is complete; reset() to start again")
        step = self.steps[self.position]
        for update in step.updates[self.partial:]:
            update.parent.grad += update.product
        self.position += 1
        self.partial = 0
        return step

    def step_update(self):
        """Make one ``parent.grad += local * upstream`` of the next step; return its record.
        After the step's last update the step counts as taken."""
        if self.done:
            raise StopIteration("the backward pass is complete; reset() to start again")
        step = self.steps[self.position]
        update = step.updates[self.partial]
        update.parent.grad += update.product
        self.partial += 1
        if self.partial == len(step.updates):
            self.position += 1
            self.partial = 0
        return update

    def goto(self, position):
        """Reset, then take ``position`` steps."""
        self.reset()
        for _ in range(position):
            self.step()


def copy_graph(root):
    """A copy of the graph that ends at ``root`` (same data, labels and grads); returns
    the copy of ``root``. A widget steps its copy, so later cells see the graph as it was.
    """
    from minigrad.value import Value

    copies = {}
    for node in reversed(backward_order(root)):  # leaves first
        new = Value(node.data, node.label, tuple(copies[id(p)] for p in node._prev),
                    node._op, node._local_grads, node._saved)
        new.grad = node.grad
        copies[id(node)] = new
    return copies[id(root)]


def _num(x):
    return f"{x:.4g}"


def step_text(step, names):
    """Lines such as ``local 2 × upstream 1 = 2 → x.grad 0 → 2`` for one step."""
    node, op = names[id(step.node)], step.node._op
    parents = [names[id(p)] for p in step.node._prev]
    if len(parents) == 2:
        formula = f"{parents[0]} {op} {parents[1]}"  # x + y, x ** y
    else:
        formula = f"{parents[0]} ** {op[2:]}" if op.startswith("**") else f"{op}({parents[0]})"
    lines = [f"{node} = {formula}; upstream {node}.grad = {_num(step.updates[0].upstream)}"]
    for u in step.updates:
        name = names[id(u.parent)]
        lines.append(f"{name}: local {_num(u.local)} × upstream {_num(u.upstream)} = "
                     f"{_num(u.product)} → {name}.grad {_num(u.before)} → {_num(u.after)}")
    return lines


def _status(stepper, names):
    if stepper.current is None:
        root = names[id(stepper.root)]
        return [f"{root}.grad = {_num(stepper.root.grad)}, the seed. "
                f"{len(stepper.steps)} step{'s' * (len(stepper.steps) != 1)} to go: press Step."]
    lines = [f"step {stepper.position} of {len(stepper.steps)}"]
    lines += step_text(stepper.current, names)
    return lines + (["done: every grad is what backward() gives"] if stepper.done else [])


def stepper_widget(root, gradient=1.0, dpi=80):
    """Buttons Step and Reset, a slider, the graph and a readout; returns a VBox.

    Stable CSS classes for a browser test: ``minigrad-stepper-next``,
    ``minigrad-stepper-reset``, ``minigrad-stepper-slider``,
    ``minigrad-stepper-graph``, ``minigrad-stepper-readout``. The VBox's ``stepper``
    attribute is the :class:`BackwardStepper` it drives, on its own copy of the graph
    (:func:`copy_graph`): stepping never changes the grads of ``root``'s graph.
    """
    root = copy_graph(root)
    stepper = BackwardStepper(root, gradient)
    names = node_names(root)

    def draw():
        current = stepper.current
        return draw_graph(root, highlight=current.node if current else None)

    return ui.stepper_panel(stepper, len(stepper.steps), draw, lambda: _status(stepper, names),
                            "minigrad-stepper", "next", dpi)
