"""A torch-free smoke test of both engines on the seeds' numbers, for any Python.

Run by tests/test_python_versions.py with the interpreter of a fresh venv that holds
the minigrad-course wheel and what pip chose for it, nothing else: no torch, and no
matplotlib or ipywidgets unless the ``helpers`` extra is installed (``--helpers``).
Prints one line per check and ``smoke ok`` at the end; any failure raises.
"""

import importlib.util
import sys

import minigrad
from minigrad import Value

helpers = "--helpers" in sys.argv[1:]


def same(name, got, want):
    assert got == want, f"{name}: {got!r} != {want!r}"
    print(f"{name}: {got!r}")


# The scalar engine (chapters 01-04).
x = Value(3.0)
(x ** 2).backward()
same("Value x**2 at 3, x.grad", x.grad, 6.0)
x = Value(3.0)
((x + 1) ** 2).backward()
same("Value (x+1)**2 at 3, x.grad", x.grad, 8.0)
x, y = Value(2.0), Value(3.0)
vz = (x + y) ** 2
vz.backward()
same("Value (x+y)**2 at (2, 3), grads", (x.grad, y.grad), (10.0, 10.0))

# The tensor engine (chapters 05-13), written as the seeds' torch code is.
torch = minigrad
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2
y.backward()
same("tensor x**2 at 3, x.grad", repr(x.grad), "tensor(6.)")
x = torch.tensor(3.0, requires_grad=True)
z = (x + 1) ** 2
z.backward()
same("tensor (x+1)**2 at 3, x.grad", x.grad.item(), 8.0)
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = (x + y) ** 2
z.backward()
same("tensor (x+y)**2 at (2, 3), grads", (x.grad.item(), y.grad.item()), (10.0, 10.0))
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x ** 2
y.backward(torch.tensor([1.0, 1.0, 1.0]))
same("tensor x**2 at [1, 2, 3], backward(ones)", repr(x.grad), "tensor([2., 4., 6.])")
layer = torch.nn.Linear(3, 4)
X = torch.randn(5, 3)
layer(X).sum().backward()
same("nn.Linear(3, 4) on a batch of 5, weight.grad.shape", tuple(layer.weight.grad.shape), (4, 3))
same("bias.grad", repr(layer.bias.grad), "tensor([5., 5., 5., 5.])")
Variable = torch.autograd.Variable
x = Variable(torch.ones(2, 3), requires_grad=True)
a = Variable(torch.ones(3, 4))
out = torch.mm(x, a)
gradient = torch.FloatTensor([[1, 2, 3, 4], [5, 6, 7, 8]])
out.backward(gradient)
same("mm, backward(gradient), x.grad", repr(x.grad),
     "tensor([[10., 10., 10.],\n        [26., 26., 26.]])")

assert "torch" not in sys.modules, "minigrad imported torch"
if helpers:
    fig = minigrad.draw_graph(vz)
    assert type(fig).__name__ == "GraphFigure" and fig._repr_png_().startswith(b"\x89PNG")
    widget = minigrad.stepper_widget(vz)
    widget.stepper.step()
    print("helpers: draw_graph PNG, stepper_widget steps")
else:
    for name in ("matplotlib", "ipywidgets"):
        assert importlib.util.find_spec(name) is None, f"{name} is installed without the extra"
        assert name not in sys.modules
    print("import minigrad needs neither matplotlib nor ipywidgets")
print(f"smoke ok: Python {sys.version.split()[0]}, numpy {sys.modules['numpy'].__version__}")
