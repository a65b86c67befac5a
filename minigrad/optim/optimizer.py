r"""``Optimizer``: the base of torch's optimizers, as ``torch.optim.Optimizer`` (chapter 10).

An optimizer holds the parameters in ``param_groups`` (a list of dicts: ``"params"`` and
the group's options, missing ones taken from ``defaults``), and what it keeps per
parameter in ``state`` (a ``defaultdict(dict)`` keyed by the parameter tensor: momentum
buffers, moving averages, the step count). A subclass's ``step()`` reads each
parameter's ``.grad`` and changes the parameter in place, skipping a parameter whose
``.grad`` is None (a zero gradient is a step, a None one is not).

``state_dict()`` replaces the tensors by numbers (their order over the groups), as torch,
so that a new optimizer over new parameters can ``load_state_dict()`` it and go on.
``zero_grad()`` sets the gradients to None by default, as torch does since 2.0.

minigrad runs the single-tensor form only: ``foreach``, ``fused``, ``capturable`` and
``differentiable`` are accepted with their default values and kept in the groups, as
torch's, so that ``param_groups`` and ``state_dict()`` hold the same keys. The step
hooks, and torch's profiler wrapping of ``step``, are not copied.
"""

import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain

from minigrad.autograd.grad_mode import enable_grad
from minigrad.optim.arrays import zero_grad_

__all__ = ["Optimizer"]

SINGLE_TENSOR = {"foreach": (None, False), "fused": (None, False), "capturable": (False,),
                 "differentiable": (False,)}


def check_single_tensor(**options):
    """Refuse the options that ask for another implementation than the for-loop one."""
    for name, value in options.items():
        if value not in SINGLE_TENSOR[name]:
            raise NotImplementedError(
                f"minigrad's optimizers have only the single-tensor implementation, not "
                f"{name}={value!r}. Fix: leave {name} at its default.")


def check_at_least(value, what, low=0.0):
    """torch's ``ValueError(f"Invalid {what}: {value}")`` for ``value < low``."""
    if not low <= value:
        raise ValueError(f"Invalid {what}: {value}. Fix: pass a value >= {low}.")


def closure_loss(closure):
    """``closure()`` with gradients recorded (as torch runs it inside ``step``)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _typename(obj):
    from minigrad.tensors import Tensor

    if isinstance(obj, Tensor):
        return f"minigrad.{obj.dtype.tensor_type}"
    return type(obj).__name__ if type(obj).__module__ == "builtins" else (
        f"{type(obj).__module__}.{type(obj).__qualname__}")


class Optimizer:
    """Holds ``param_groups``, ``defaults`` and per-parameter ``state``; see the module."""

    def __init__(self, params, defaults):
        from minigrad.tensors import Tensor

        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {_typename(params)}. Fix: pass a list, "
                "SGD([w], lr=0.1), or model.parameters().")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if not param_groups:
            raise ValueError("optimizer got an empty parameter list. Fix: pass the "
                             "parameters to train, e.g. model.parameters().")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group (a dict with ``"params"`` and its own options) to ``param_groups``."""
        from minigrad.tensors import Tensor

        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}. Fix: "
                            "pass {'params': [w, b], 'lr': 0.01}.")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead. Fix: pass a list, e.g. list(model.parameters()).")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params "
                                f"is {_typename(param)}. Fix: pass tensors.")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor. Fix: optimize the leaf "
                                 "it was computed from, or detach() it and set "
                                 "requires_grad_() on the copy.")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information. Fix: list each parameter once.", UserWarning, stacklevel=3)
        known = set(chain.from_iterable(g["params"] for g in self.param_groups))
        if not known.isdisjoint(params):
            raise ValueError("some parameters appear in more than one parameter group. Fix: "
                             "put each parameter in one group only.")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Set every parameter's ``.grad`` to None, or (``set_to_none=False``) to zeros."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        zero_grad_(p.grad)

    def step(self, closure=None):
        """One update of every parameter that has a gradient (in the subclasses)."""
        raise NotImplementedError

    # --- saving and loading -------------------------------------------------
    def state_dict(self):
        """``{"state": {index: state}, "param_groups": [group with "params": indices]}``.

        The state tensors are the optimizer's own (not copies), as in torch."""
        index = {}
        groups = []
        for group in self.param_groups:
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if id(k) in index else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Take the state and the group options of ``state_dict`` (from ``state_dict()``
        of an optimizer over parameters of the same shapes, in the same groups)."""
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups. "
                             "Fix: build the optimizer with the same groups as the saved one.")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups,
                                                                     strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group. Fix: build the optimizer with "
                             "the same parameters, in the same order, as the saved one.")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {key: _cast(param, key, value) for key, value in v.items()}
            else:
                state[k] = v
        for group, saved in zip(groups, saved_groups, strict=True):
            saved["params"] = group["params"]
        self.__setstate__({"state": state, "param_groups": saved_groups})

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        text = f"{type(self).__name__} ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            text += "".join(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return text + ")"


def _cast(param, key, value):
    """A loaded state tensor in the parameter's dtype, as torch (``step`` kept as it is)."""
    from minigrad.tensors import Tensor

    if isinstance(value, Tensor) and key != "step" and param.dtype.is_floating_point:
        return value.to(param.dtype)
    return value
