r"""``Module``, ``Parameter``, ``Linear``, ``ReLU``, ``Dropout``, ``Sequential`` (chapters
07, 09 and 10).

A module registers what is assigned to it: a :class:`Parameter` becomes one of its
``parameters()``, another module one of its children (whose parameters are found
recursively, named ``"0.weight"``, ``"fc.bias"``... as torch names them). Calling a
module calls its ``forward``. ``zero_grad()`` sets every ``.grad`` to None, as torch.

Once registered, a parameter may be replaced only by a :class:`Parameter` or None, as in
torch: ``lin.weight = lin.weight + 1`` raises ``TypeError: cannot assign
'minigrad.FloatTensor' as parameter 'weight'`` (the sum is a non-leaf that
``parameters()`` and the optimizer would never see). A parameter is changed in place,
under ``no_grad()`` (chapter 10); a child module likewise only by a module or None.

``Linear(in_features, out_features)`` holds ``weight`` of shape ``(out, in)`` and
``bias`` of shape ``(out,)``, both drawn, as torch does, from
:math:`U(-1/\sqrt{\text{in}}, 1/\sqrt{\text{in}})` (minigrad's generator: the same
distribution, not the same numbers). ``Dropout(p)`` zeroes elements in training only
(``ops/dropout.py``); ``model.eval()`` switches it off.
"""

import math

import numpy as np

from minigrad.factories import GENERATOR, as_array
from minigrad.nn import module_hooks
from minigrad.ops.activations import relu
from minigrad.ops.dropout import check_probability, dropout
from minigrad.ops.linear import linear
from minigrad.tensors import Tensor

__all__ = ["Module", "Parameter", "Linear", "ReLU", "Dropout", "Sequential"]


class Parameter(Tensor):
    """A leaf tensor that a module registers as a parameter; requires grad by default."""

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        array = np.zeros(0, np.float32) if data is None else as_array(data)
        super().__init__(array, requires_grad=requires_grad, dtype=array.dtype)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()


def _typename(value):
    """torch.typename's spelling: ``minigrad.FloatTensor`` for a tensor, else the type."""
    if isinstance(value, Tensor):
        return f"minigrad.{value.dtype.tensor_type}"
    kind = type(value)
    return kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"


class Module:
    """Base class of layers and models: registers parameters and submodules."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call. Fix: call "
                                 "super().__init__() first in your __init__.")
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            self._parameters[name] = value
        elif name in self._parameters:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(minigrad.nn.Parameter or None expected). Fix: change the parameter in "
                    f"place under `with minigrad.no_grad():` (self.{name} -= ...), as "
                    "optimizer.step() does, or assign nn.Parameter(new_value).")
            self._parameters[name] = None
        elif isinstance(value, Module):
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(minigrad.nn.Module or None expected). Fix: assign a module, or None.")
            self._modules[name] = None
        object.__setattr__(self, name, value)

    def register_parameter(self, name, param):
        """Register ``param`` (a :class:`Parameter`, or None for a placeholder) as ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter "
                            f"'{name}' (minigrad.nn.Parameter or None required)")
        self._modules.pop(name, None)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def __delattr__(self, name):
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        object.__delattr__(self, name)

    def forward(self, *args):
        raise NotImplementedError(f"Module [{type(self).__name__}] is missing the required "
                                  "\"forward\" function")

    def __call__(self, *args, **kwargs):
        hooks = self.__dict__.get("_hooks")
        if not hooks:
            return self.forward(*args, **kwargs)
        return module_hooks.call_with_hooks(self, hooks, args, kwargs)

    def register_forward_pre_hook(self, hook):
        """``hook(module, args)`` before ``forward``; a value it returns replaces args."""
        return module_hooks.register(self, "forward_pre", hook)

    def register_forward_hook(self, hook):
        """``hook(module, args, output)`` after ``forward``; a value returned replaces
        the output."""
        return module_hooks.register(self, "forward", hook)

    def register_full_backward_hook(self, hook):
        """``hook(module, grad_input, grad_output)`` when the gradient w.r.t. the module's
        input is computed; a tuple returned replaces ``grad_input``."""
        return module_hooks.register(self, "backward", hook)

    def named_children(self):
        yield from ((name, m) for name, m in self._modules.items() if m is not None)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_parameters(self, prefix="", recurse=True):
        """(name, parameter) pairs, each parameter once, children after own."""
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, param in module._parameters.items():
                if param is not None and id(param) not in seen:
                    seen.add(id(param))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's gradient (to None by default, as torch)."""
        for param in self.parameters():
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.data.fill(0)

    def state_dict(self):
        """Parameter name -> tensor (the parameters themselves, as torch)."""
        return dict(self.named_parameters())

    def load_state_dict(self, state_dict):
        """Copy values in by name; accepts minigrad's or torch's ``state_dict()``."""
        own = dict(self.named_parameters())
        missing = sorted(set(own) - set(state_dict))
        unexpected = sorted(set(state_dict) - set(own))
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}.")
        for name, value in state_dict.items():
            array = np.array(value.detach().numpy() if hasattr(value, "detach") else value)
            if array.shape != own[name].data.shape:
                raise RuntimeError(f"size mismatch for {name}: copying a param with shape "
                                   f"{list(array.shape)}, the shape in current model is "
                                   f"{list(own[name].data.shape)}.")
            own[name].data = array.astype(own[name].data.dtype)
        return self

    def train(self, mode=True):
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"  ({name}): " + repr(child).replace("\n", "\n  ")
                 for name, child in self._modules.items()]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``."""

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        bound = 1 / math.sqrt(in_features) if in_features else 0.0
        numpy_dtype = np.dtype(np.float32) if dtype is None else as_array(0.0, dtype).dtype
        rng = GENERATOR[0]
        draw = rng.uniform(-bound, bound, (out_features, in_features)).astype(numpy_dtype)
        self.weight = Parameter(draw)
        if bias:
            self.bias = Parameter(rng.uniform(-bound, bound, out_features).astype(numpy_dtype))
        else:
            self.register_parameter("bias", None)

    def forward(self, x):
        return linear(x, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class ReLU(Module):
    def forward(self, x):
        return relu(x)


class Dropout(Module):
    """In training, zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)``; in eval, return the input."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, x):
        return dropout(x, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Sequential(Module):
    """Modules applied one after the other, registered as ``"0"``, ``"1"``, ..."""

    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            setattr(self, str(i), module)

    def forward(self, x):
        for module in self._modules.values():
            x = module(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)
