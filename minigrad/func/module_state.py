r"""A module run with parameters it does not own: ``functional_call`` (chapter 15).

``torch.func.grad`` differentiates a function of tensors, and a model's parameters live
inside the model. ``functional_call(model, params, (x,))`` runs ``model(x)`` with each
named tensor of ``params`` (a dict, or a tuple of dicts: parameters and buffers) in place
of the module's own, then puts the module's back, as torch's. So
``grad(lambda p, x: loss(functional_call(model, p, (x,))))`` is the gradient with respect
to a dict of parameters, and ``vmap`` of it gives one gradient per sample.
``stack_module_state(models)`` stacks the parameters of same-shaped models (ensembling).
"""

from minigrad import tensors

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _owner(module, name):
    """The submodule holding ``name`` ("layer.0.weight") and the last part of the name."""
    *path, last = name.split(".")
    for part in path:
        module = module._modules[part]
    return module, last


def _swap(module, name, value):
    """Put ``value`` in the module's slot ``name``; return what was there and where."""
    owner, last = _owner(module, name)
    for store in ("_parameters", "_buffers"):
        table = owner.__dict__[store]
        if last in table:  # minigrad keeps it in the table and as an attribute
            old = table[last], owner.__dict__.get(last, _MISSING)
            table[last] = value
            owner.__dict__[last] = value
            return store, owner, last, old
    if last in owner.__dict__:
        old = owner.__dict__[last]
        owner.__dict__[last] = value
        return "__dict__", owner, last, old
    raise AttributeError(f"{type(owner).__name__} has no attribute `{last}`. Fix: use the "
                         "names of module.named_parameters() and named_buffers().")


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a
    dict name -> tensor, or a tuple of such dicts) in place of its own."""
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        merged = dict(dicts)
    else:
        merged = {}
        for d in dicts:
            for key in d:
                if key in merged:
                    raise ValueError(f"{key} appeared in multiple dictionaries; behavior of "
                                     "functional call is ambiguous. Fix: name each tensor once.")
            merged.update(d)
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {
            n for n, _ in module.named_buffers()}
        missing = sorted(expected - set(merged))
        unexpected = sorted(set(merged) - expected)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: "
                               f"missing keys {missing}, unexpected keys {unexpected}. Fix: "
                               "pass every parameter and buffer by its name.")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = kwargs or {}
    swapped = []
    try:
        for name, value in merged.items():
            swapped.append(_swap(module, name, value))
        return module(*args, **kwargs)
    finally:
        for store, owner, last, old in reversed(swapped):
            if store == "__dict__":
                owner.__dict__[last] = old
            else:
                owner.__dict__[store][last] = old[0]
                if old[1] is _MISSING:
                    owner.__dict__.pop(last, None)
                else:
                    owner.__dict__[last] = old[1]


def stack_module_state(models):
    """``(params, buffers)``: each named tensor of the models stacked along a new dim 0
    (the parameters as new leaves that require grad), as torch's, for
    ``vmap(functional_call ...)`` over an ensemble."""
    from minigrad.ops.joining import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0. Fix: "
                           "pass a list of models.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode. Fix: call .train() or .eval() on every model.")
    names = [n for n, _ in models[0].named_parameters()]
    params = {}
    for name in names:
        data = stack([dict(m.named_parameters())[name].detach() for m in models])._data
        params[name] = tensors.make(data, None).requires_grad_(
            dict(models[0].named_parameters())[name].requires_grad)
    buffers = {}
    for name, _ in models[0].named_buffers():
        buffers[name] = stack([dict(m.named_buffers())[name] for m in models]).detach()
    return params, buffers
