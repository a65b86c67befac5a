r"""``Module`` and ``Parameter`` (chapters 07, 09 and 10; the layers are in ``layers.py``,
``normalization.py``, ``sparse.py`` and ``loss.py``).

A module registers what is assigned to it: a :class:`Parameter` becomes one of its
``parameters()``, another module one of its children (whose parameters are found
recursively, named ``"0.weight"``, ``"fc.bias"``... as torch names them). Calling a
module calls its ``forward``. ``zero_grad()`` sets every ``.grad`` to None, as torch.

Once registered, a parameter may be replaced only by a :class:`Parameter` or None, as in
torch: ``lin.weight = lin.weight + 1`` raises ``TypeError: cannot assign
'minigrad.FloatTensor' as parameter 'weight'`` (the sum is a non-leaf that
``parameters()`` and the optimizer would never see). A parameter is changed in place,
under ``no_grad()`` (chapter 10); a child module likewise only by a module or None.

A module's *buffers* (``register_buffer``) are tensors it keeps that are not
parameters: ``BatchNorm1d``'s running statistics. They are in ``state_dict()`` (unless
registered with ``persistent=False``) and ``named_buffers()``, never in ``parameters()``
(an optimizer never changes them).
"""

import numpy as np

from minigrad.factories import as_array
from minigrad.nn import module_hooks
from minigrad.tensors import Tensor

__all__ = ["Module", "Parameter"]


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
        object.__setattr__(self, "_buffers", {})
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign before Module.__init__() call. Fix: call "
                                 "super().__init__() first in your __init__.")
        if isinstance(value, Parameter):
            self._modules.pop(name, None)
            self._buffers.pop(name, None)
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
            self._buffers.pop(name, None)
            self._modules[name] = value
        elif name in self._modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(minigrad.nn.Module or None expected). Fix: assign a module, or None.")
            self._modules[name] = None
        elif name in self.__dict__.get("_buffers", ()):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' (minigrad.Tensor "
                    "or None expected). Fix: assign a tensor, minigrad.tensor(value).")
            self._buffers[name] = value
        object.__setattr__(self, name, value)

    def register_parameter(self, name, param):
        """Register ``param`` (a :class:`Parameter`, or None for a placeholder) as ``name``."""
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter "
                            f"'{name}' (minigrad.nn.Parameter or None required)")
        self._modules.pop(name, None)
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def register_buffer(self, name, tensor, persistent=True):
        """Keep ``tensor`` (or None) as buffer ``name``: in ``state_dict()`` if
        ``persistent``, never among the parameters (``BatchNorm1d``'s running_mean)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call. Fix: "
                                 "call super().__init__() first in your __init__.")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if name in self.__dict__ and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(minigrad Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)
        object.__setattr__(self, name, tensor)

    def __delattr__(self, name):
        self._parameters.pop(name, None)
        self._modules.pop(name, None)
        self._buffers.pop(name, None)
        self._non_persistent_buffers_set.discard(name)
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

    def named_buffers(self, prefix="", recurse=True):
        """(name, buffer) pairs, each buffer once, as ``named_parameters``."""
        seen = set()
        modules = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, buffer in module._buffers.items():
                if buffer is not None and id(buffer) not in seen:
                    seen.add(id(buffer))
                    yield (f"{module_prefix}.{name}" if module_prefix else name), buffer

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def zero_grad(self, set_to_none=True):
        """Clear every parameter's gradient (to None by default, as torch)."""
        for param in self.parameters():
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad._data.fill(0)

    def state_dict(self):
        """Name -> tensor, module by module: its parameters, then its persistent buffers
        (the tensors themselves), in torch's order."""
        out = {}
        for prefix, module in self.named_modules():
            dot = prefix + "." if prefix else ""
            out.update((dot + name, p) for name, p in module._parameters.items()
                       if p is not None)
            out.update((dot + name, b) for name, b in module._buffers.items()
                       if b is not None and name not in module._non_persistent_buffers_set)
        return out

    def load_state_dict(self, state_dict):
        """Copy values in by name; accepts minigrad's or torch's ``state_dict()``."""
        own = self.state_dict()
        missing = sorted(set(own) - set(state_dict))
        unexpected = sorted(set(state_dict) - set(own))
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}.")
        for name, value in state_dict.items():
            array = np.array(value.detach().numpy() if hasattr(value, "detach") else value)
            if array.shape != own[name]._data.shape:
                raise RuntimeError(f"size mismatch for {name}: copying a param with shape "
                                   f"{list(array.shape)}, the shape in current model is "
                                   f"{list(own[name]._data.shape)}.")
            own[name]._data = array.astype(own[name]._data.dtype)
        return self

    def train(self, mode=True):
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Freeze (``False``) or unfreeze every parameter of the module, as torch's."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def to(self, *args, dtype=None, device=None):
        """``to(device)``, ``to(dtype)`` or both: floating parameters and buffers (and their
        grads) converted in place, as torch's ``Module.to``; the CPU is the only device."""
        from minigrad.devices import check_device
        from minigrad.dtypes import to_dtype

        for arg in args:
            if isinstance(arg, str) or type(arg).__name__ == "device":
                device = arg
            elif hasattr(arg, "_data") and hasattr(arg, "grad_fn"):  # to(tensor)
                dtype = arg._data.dtype
            else:
                dtype = arg
        check_device(device)
        if dtype is None:
            return self
        target = to_dtype(dtype)
        if target.kind not in "fc":
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but "
                            f"got desired dtype={dtype}. Fix: convert the inputs instead, "
                            "or pass a float dtype.")
        for t in [*self.parameters(), *self.buffers()]:
            if t._data.dtype.kind == "f":
                t._data = t._data.astype(target)
                if t._grad is not None:
                    t._grad._data = t._grad._data.astype(target)
        return self

    def double(self):
        return self.to(np.dtype(np.float64))

    def float(self):
        return self.to(np.dtype(np.float32))

    def cpu(self):
        return self

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"  ({name}): " + repr(child).replace("\n", "\n  ")
                 for name, child in self._modules.items()]
        if not lines:
            return f"{type(self).__name__}({self.extra_repr()})"
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"
