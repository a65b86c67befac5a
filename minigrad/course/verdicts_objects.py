r"""What crosses a verdict besides plain data, for chapters 08, 09, 10, 12 and 13 (issue 19).

Hooked into :mod:`minigrad.course.verdicts_wire` (its kinds ``Module``, ``rng``,
``learner`` and a tensor's ``graph`` marker); the exercises and the call's flow are
:mod:`minigrad.course.verdicts_models`'s.

- a ``minigrad.nn`` module crosses as its class (a minigrad class by name, a test's class
  by the source :func:`~minigrad.course.verdicts_models.prepare` attached) and its state:
  parameters as arrays with their ``.grad`` and ``requires_grad``, children, buffers and
  plain attributes; one object sent twice in a call crosses once (:data:`STATE` ``sent``);
- a numpy ``Generator`` crosses as its bit generator's state;
- a proxy of the judge for a learner's name crosses as that name;
- a tensor with a graph carries the number of arrays it saved; the judge gives it a
  :class:`RemoteGraph`.

Only the learner's process rebuilds a module or runs a test class's source; the judge
decodes none of these kinds (a learner's process answers plain data), and writes the
state the learner's process sends back onto its own objects (:func:`write_module`).
"""

import numpy as np

from minigrad.course.verdicts_wire import WireError, decode, encode

__all__ = ["STATE", "RemoteGraph", "KINDS", "graph", "mark", "encode_extra", "decode_extra",
           "state_of", "write_module"]

# graphs: this test is one of chapters 08-13's; namespace: the learner's names (None in
# the judge); sent: the modules and rngs of the current call, in order; classes: test
# classes made from their source.
STATE = {"graphs": False, "namespace": None, "sent": [], "classes": {}}


class RemoteGraph:
    """A stand-in ``grad_fn`` (judge): the learner's result had a graph that saved
    ``saved`` arrays; it cannot be walked back from here."""

    next_functions = ()

    def __init__(self, saved):
        self._saved = [np.zeros(1) for _ in range(saved)]

    def name(self):
        return "RemoteGraph"

    def __repr__(self):
        return "<RemoteGraph: recorded in your code's process>"


# --- the wire: what crosses besides verdicts_wire's kinds ---------------------------
KINDS = ("Module", "rng", "learner")


def _module_class():
    from minigrad.nn.module import Module

    return Module


def graph(t):
    """(learner) The marker of a tensor with a graph, for the judge."""
    if not STATE["graphs"] or t.grad_fn is None:
        return {}
    from minigrad.course.graph_memory import saved_arrays

    return {"graph": len(saved_arrays(t))}


def mark(t, d):
    """(judge) A tensor decoded with a graph marker gets a :class:`RemoteGraph`."""
    if "graph" in d and STATE["graphs"] and STATE["namespace"] is None:
        saved = d["graph"]
        t.grad_fn = RemoteGraph(saved if type(saved) is int and 0 <= saved < 10_000 else 0)
        t._requires_grad = True


def encode_extra(x, refs):
    """``x`` as plain data, if it is one of :data:`KINDS`; else None."""
    from minigrad.course.verdicts_judge import Proxy

    if type(x) is Proxy and not hasattr(x, "_source"):
        return {"t": "learner", "name": x.__name__}
    if isinstance(x, _module_class()) or type(x) is np.random.Generator:
        if STATE["namespace"] is not None:  # the learner's process answers plain data
            raise WireError(f"a {type(x).__name__} is not plain data")
        sent = STATE["sent"]
        for i, obj in enumerate(sent):
            if obj is x:
                return {"t": "rng" if type(x) is np.random.Generator else "Module", "same": i}
        sent.append(x)
        if type(x) is np.random.Generator:
            return {"t": "rng", "id": len(sent) - 1, "bit": type(x.bit_generator).__name__,
                    "state": encode(x.bit_generator.state)}
        cls = type(x)
        if cls.__module__.startswith("minigrad."):
            spec = {"module": cls.__module__, "name": cls.__qualname__}
        elif isinstance(getattr(cls, "__verdict_source__", None), str):
            spec = {"name": cls.__name__, "source": cls.__verdict_source__}
        else:
            raise WireError(f"a {cls.__name__} does not cross")
        return {"t": "Module", "id": len(sent) - 1, "cls": spec, "state": state_of(x, refs)}
    return None


def state_of(m, refs=None):
    from minigrad.tensors import Tensor

    def param(p):
        return None if p is None else {"v": encode(np.asarray(p.detach().numpy())),
                                       "requires_grad": bool(p.requires_grad),
                                       "grad": encode(p.grad)}

    skip = {*m._parameters, *m._modules, *m._buffers}
    extra = {}
    for k, v in vars(m).items():
        if k in skip or k.startswith("_"):
            continue
        try:
            extra[k] = encode(v, refs)
        except WireError:
            if refs is not None:
                raise
    out = {"params": {k: param(p) for k, p in m._parameters.items()},
           "buffers": {k: encode(b if type(b) is Tensor or b is None else b.detach())
                       for k, b in m._buffers.items()}, "extra": extra}
    if refs is not None:
        out["modules"] = {k: encode(c, refs) for k, c in m._modules.items()}
    return out


def _class(spec):
    import importlib

    Module = _module_class()
    if "source" in spec:
        key = (spec["name"], spec["source"])
        if key not in STATE["classes"]:
            import minigrad

            namespace = {"__name__": "__verdict_test__", "minigrad": minigrad, "np": np}
            exec(compile(str(spec["source"]), "<test>", "exec"), namespace)  # noqa: S102
            STATE["classes"][key] = namespace[spec["name"]]
        cls = STATE["classes"][key]
    else:
        if not str(spec["module"]).startswith("minigrad."):
            raise WireError("a module class outside minigrad does not cross")
        cls = importlib.import_module(spec["module"])
        for part in str(spec["name"]).split("."):
            cls = getattr(cls, part)
    if not (isinstance(cls, type) and issubclass(cls, Module)):
        raise WireError(f"{spec['name']} is not a module class")
    return cls


def decode_extra(d, fn=None):
    """(learner) The object of :func:`encode_extra`'s ``d``; the judge rebuilds none."""
    namespace = STATE["namespace"]
    if namespace is None:
        raise WireError(f"{d['t']!r} does not cross to the judge")
    if d["t"] == "learner":
        return namespace[str(d["name"])]
    sent = STATE["sent"]
    if "same" in d:
        return sent[int(d["same"])]
    if d["t"] == "rng":
        bit = getattr(np.random, str(d["bit"]))
        if not (isinstance(bit, type) and issubclass(bit, np.random.BitGenerator)):
            raise WireError("not a numpy bit generator")
        obj = np.random.Generator(bit())
        obj.bit_generator.state = decode(d["state"])
        sent.append(obj)
        return obj
    from minigrad.nn.module import Parameter

    cls = _class(d["cls"])
    obj = cls.__new__(cls)
    _module_class().__init__(obj)
    sent.append(obj)
    state = d["state"]
    for k, st in state["params"].items():
        p = None
        if st is not None:
            p = Parameter(decode(st["v"]), requires_grad=bool(st["requires_grad"]))
            p.grad = decode(st["grad"])
        obj._parameters[k] = p
        object.__setattr__(obj, k, p)
    for kind, table in (("_modules", state["modules"]), ("_buffers", state["buffers"])):
        for k, v in table.items():
            value = decode(v, fn)
            getattr(obj, kind)[k] = value
            object.__setattr__(obj, k, value)
    for k, v in state["extra"].items():
        object.__setattr__(obj, k, decode(v, fn))
    return obj


def write_module(m, state):
    import minigrad

    for k, st in state["params"].items():
        p = m._parameters.get(k)
        if p is None or st is None:
            continue
        value = decode(st["v"])
        old = p.detach().numpy()
        if type(value) is not np.ndarray or value.shape != old.shape:
            raise RuntimeError(f"your code changed the shape of parameter {k}")
        if value.tobytes() != old.tobytes() or value.dtype != old.dtype:
            p.data = minigrad.tensor(value)
        p.requires_grad_(bool(st["requires_grad"]))
        p.grad = decode(st["grad"])
    for k, v in state["buffers"].items():
        b = m._buffers.get(k)
        value = decode(v)
        if b is not None and type(value) is minigrad.Tensor:
            b.data = value
    kept = {*m._parameters, *m._modules, *m._buffers}
    for k, v in state["extra"].items():  # only the plain attributes it had (rows, outputs)
        if k in vars(m) and k not in kept and not k.startswith("_"):
            object.__setattr__(m, k, decode(v))
