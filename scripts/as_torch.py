r"""Run PyTorch code twice, with torch and with ``import minigrad as torch``, and compare.

    .venv/bin/python scripts/as_torch.py my_program.py [more.py ...]
    .venv/bin/python scripts/as_torch.py --torch-docs      # torch's own docstring examples

Each program runs in this process twice: once as written, once with ``torch`` (and
``torch.nn``, ``torch.autograd``, ``torch.func``... wherever minigrad has the module) bound
to minigrad. Both runs draw the same random numbers: in the minigrad run, ``randn``,
``rand`` and minigrad's generator (weight initialisation, dropout masks) draw from
torch's generator, in the dtype torch would use, so ``torch.manual_seed(0); torch.randn(3)``
gives the same three numbers in both. What each run prints (doctest-style examples
also print the value of each expression) is compared: numbers within a tolerance, the
rest of the text exactly, after naming minigrad's types as torch's (``minigrad.float64``
is printed ``torch.float64``) and dropping memory addresses.

A program counts only where torch runs it: one that fails in torch (a CUDA example, a
data download) is reported as ``skipped``. The verdicts: ``same``, ``differs`` (the first
line that differs), ``fails`` (the exception minigrad raised).
"""

import argparse
import ast
import contextlib
import importlib
import io
import pathlib
import random
import re
import sys
import traceback

import numpy as np
import torch

import minigrad
from minigrad import factories, generators

# torch's modules that a program may import, and minigrad's module standing for each.
MODULES = {
    "torch": "minigrad",
    "torch.nn": "minigrad.nn",
    "torch.nn.functional": "minigrad.nn.functional",
    "torch.nn.init": "minigrad.nn.init",
    "torch.optim": "minigrad.optim",
    "torch.optim.lr_scheduler": "minigrad.optim.lr_scheduler",
    "torch.autograd": "minigrad.autograd",
    "torch.autograd.forward_ad": "minigrad.autograd.forward_ad",
    "torch.autograd.functional": "minigrad.autograd.functional",
    "torch.autograd.graph": "minigrad.autograd.graph",
    "torch.autograd.function": "minigrad.autograd.function",
    "torch.func": "minigrad.func",
    "torch.utils": "minigrad.utils",
    "torch.utils.checkpoint": "minigrad.utils.checkpoint",
}

# The objects whose docstring examples ``--torch-docs`` runs: torch's autograd surface and
# what a course reaches for around it.
TORCH_DOCS = [
    "torch.autograd.functional.jacobian", "torch.autograd.functional.hessian",
    "torch.autograd.functional.vjp", "torch.autograd.functional.jvp",
    "torch.autograd.functional.hvp", "torch.autograd.functional.vhp",
    "torch.func.grad", "torch.func.vjp", "torch.func.jvp", "torch.func.jacrev",
    "torch.func.jacfwd", "torch.func.hessian", "torch.func.vmap", "torch.func.functional_call",
    "torch.autograd.forward_ad.make_dual", "torch.autograd.forward_ad.dual_level",
    "torch.autograd.Function", "torch.autograd.graph.saved_tensors_hooks",
    "torch.autograd.graph.save_on_cpu", "torch.autograd.anomaly_mode.detect_anomaly",
    "torch.autograd.function.FunctionCtx.mark_non_differentiable",
    "torch.autograd.function.FunctionCtx.set_materialize_grads",
    "torch.autograd.function.FunctionCtx.save_for_backward",
    "torch.autograd.grad_mode.no_grad", "torch.autograd.grad_mode.enable_grad",
    "torch.autograd.grad_mode.inference_mode", "torch.autograd.grad_mode.set_grad_enabled",
    "torch.Tensor.register_hook",
    "torch.nn.Linear", "torch.nn.BatchNorm1d", "torch.nn.LayerNorm", "torch.nn.Embedding",
    "torch.nn.MSELoss", "torch.nn.CrossEntropyLoss", "torch.nn.BCELoss",
    "torch.nn.BCEWithLogitsLoss", "torch.nn.Dropout", "torch.nn.ReLU", "torch.nn.Tanh",
    "torch.nn.Sigmoid", "torch.nn.functional.binary_cross_entropy",
    "torch.optim.SGD", "torch.optim.lr_scheduler.StepLR",
    "torch.optim.lr_scheduler.CosineAnnealingLR", "torch.optim.lr_scheduler.LambdaLR",
    "torch.stack", "torch.cat", "torch.eye", "torch.linspace", "torch.full", "torch.allclose",
    "torch.isclose", "torch.where", "torch.clamp", "torch.abs", "torch.sin", "torch.movedim",
    "torch.dot", "torch.norm", "torch.zeros_like", "torch.ones_like", "torch.equal",
    "torch.mm", "torch.matmul", "torch.sum", "torch.mean", "torch.exp", "torch.tanh",
    "torch.transpose", "torch.reshape", "torch.unsqueeze", "torch.squeeze", "torch.max",
    "torch.arange", "torch.zeros", "torch.ones", "torch.randn",
]

RTOL, ATOL = 1e-4, 1e-6
PROMPT = re.compile(r"^\s*(>>>|\.\.\.) ?(.*)$", re.M)
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan")


# --- the same random numbers in both runs -------------------------------------------------

class TorchDraws:
    """Stands for minigrad's numpy generator in the minigrad run: every draw comes from
    torch's generator, in float32 (torch's default dtype), so that weight initialisation
    and dropout masks match torch's call for call."""

    def uniform(self, low=0.0, high=1.0, size=None):
        return torch.empty(_size(size)).uniform_(low, high).double().numpy()

    def random(self, size=None, dtype=None):
        return torch.rand(_size(size)).double().numpy()

    def standard_normal(self, size=None, dtype=None):
        return torch.randn(_size(size)).double().numpy()

    def normal(self, loc=0.0, scale=1.0, size=None):
        return torch.empty(_size(size)).normal_(loc, scale).double().numpy()

    def integers(self, low, high=None, size=None, dtype=None, endpoint=False):
        low, high = (0, low) if high is None else (low, high)
        high = high + 1 if endpoint else high
        return torch.empty(_size(size), dtype=torch.long).random_(low, high).numpy()


def _size(size):
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def _drawn(torch_fn):
    """minigrad's ``randn``/``rand``/``randint``, drawing torch's numbers in torch's dtype
    (from the torch generator standing for a minigrad ``Generator``)."""
    def draw(*size, dtype=None, requires_grad=False, generator=None, **kwargs):
        kwargs.pop("device", None)
        theirs = torch_fn(*size, dtype=_torch_dtype(dtype), generator=_theirs(generator),
                          **kwargs)
        return minigrad.tensor(theirs.numpy(), requires_grad=requires_grad)
    return draw


class TorchGenerator(generators.Generator):
    """minigrad's ``Generator`` in the minigrad run: a torch generator draws its numbers."""

    def __init__(self, device="cpu"):
        super().__init__(device)
        self.torch_generator = torch.Generator()

    def manual_seed(self, seed):
        super().manual_seed(seed)
        self.torch_generator.manual_seed(seed)
        return self


def _theirs(generator):
    return None if generator is None else generator.torch_generator


def _multinomial(input, num_samples, replacement=False, *, generator=None):  # noqa: A002
    """minigrad's ``multinomial`` drawing torch's indices from the same probabilities."""
    probs = torch.from_numpy(np.array(input.detach().numpy()))
    drawn = torch.multinomial(probs, num_samples, replacement, generator=_theirs(generator))
    return minigrad.tensor(drawn.numpy())


def _torch_dtype(dtype):
    return None if dtype is None else getattr(torch, str(dtype).rpartition(".")[2])


@contextlib.contextmanager
def as_minigrad():
    """``import torch`` gives minigrad (its modules where minigrad has them), and minigrad
    draws torch's random numbers, until the block ends."""
    saved = {name: sys.modules.get(name) for name in MODULES}
    patched = [(factories, "GENERATOR", [TorchDraws()])]
    for module in (minigrad, factories, generators):
        for name, fn in (("randn", torch.randn), ("rand", torch.rand),
                         ("randint", torch.randint)):
            if hasattr(module, name):
                patched.append((module, name, _drawn(fn)))
        if hasattr(module, "manual_seed"):
            patched.append((module, "manual_seed", torch.default_generator.manual_seed))
    for module in (minigrad, generators):
        patched += [(module, "Generator", TorchGenerator),
                    (module, "multinomial", _multinomial)]
    originals = [(m, n, getattr(m, n, None)) for m, n, _ in patched]
    try:
        for name, ours in MODULES.items():
            try:
                sys.modules[name] = importlib.import_module(ours)
            except ImportError:
                sys.modules.pop(name, None)
        for module, name, value in patched:
            if name == "GENERATOR":
                module.GENERATOR[:] = value
            else:
                setattr(module, name, value)
        yield
    finally:
        for module, name, value in originals:
            if name == "GENERATOR":
                module.GENERATOR[:] = [np.random.default_rng(0)]
            elif value is not None:
                setattr(module, name, value)
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


# --- running a program -----------------------------------------------------------------

def run(source, use_minigrad, name="<program>"):
    """What ``source`` prints (expressions of doctest-style lines printed too), and the
    exception it raised (or None). Torch's generator is seeded 0 before each run, and
    Python's ``random`` and numpy's global generator too, so that both runs draw the same."""
    out = io.StringIO()
    torch.manual_seed(0)
    random.seed(0)
    np.random.seed(0)
    torch.set_grad_enabled(True)  # as a fresh interpreter: an earlier program may have
    minigrad.set_grad_enabled(True)  # switched recording off
    context = as_minigrad() if use_minigrad else contextlib.nullcontext()
    namespace = {"__name__": "__main__"}
    error = None
    with context, contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            for mode, code in _pieces(source):
                exec(compile(code, name, mode), namespace)  # noqa: S102 - running it is the point
        except BaseException as exc:  # noqa: BLE001 - a program's failure is its verdict
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return out.getvalue(), error


def _pieces(source):
    """One top-level statement at a time; an expression statement prints its value, as
    in the interpreter (and in a docstring's example). Lines of a doctest-style text
    (``>>> ``, ``... ``) lose their prompts, and the outputs shown between them are
    dropped."""
    if re.search(r"^\s*>>>", source, re.M):
        source = "\n".join(m.group(2) for m in PROMPT.finditer(source)) + "\n"
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Expr):
            yield "single", ast.Interactive(body=[node], type_ignores=[])
        else:
            yield "exec", ast.Module(body=[node], type_ignores=[])


def normalise(text):
    """minigrad's names as torch's, torch's C functions as functions, no memory addresses."""
    text = text.replace("minigrad.", "torch.")
    text = re.sub(r"<built-in method (\w+) of type object", r"<function \1", text)  # torch.dot
    return re.sub(r" at 0x[0-9a-f]+", "", text)


def compare(ours, theirs):
    """None if the two printed texts agree (numbers within tolerance), else the first
    differing line of each."""
    a_lines, b_lines = normalise(ours).splitlines(), normalise(theirs).splitlines()
    for i in range(max(len(a_lines), len(b_lines))):
        a = a_lines[i] if i < len(a_lines) else "<nothing>"
        b = b_lines[i] if i < len(b_lines) else "<nothing>"
        if not _same_line(a, b):
            return f"line {i + 1}: minigrad {a.strip()!r}, torch {b.strip()!r}"
    return None


def _same_line(a, b):
    if NUMBER.sub("#", a).replace(" ", "") != NUMBER.sub("#", b).replace(" ", ""):
        return False
    for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True):
        if x == y:
            continue
        fx, fy = float(x), float(y)
        if not (np.isclose(fx, fy, rtol=RTOL, atol=ATOL) or (np.isnan(fx) and np.isnan(fy))):
            return False
    return True


def largest_drift(ours, theirs):
    """The largest relative difference between the two runs' numbers when their text
    agrees line for line (a float32 program's summation-order drift), else None."""
    a_lines, b_lines = normalise(ours).splitlines(), normalise(theirs).splitlines()
    if len(a_lines) != len(b_lines):
        return None
    largest = 0.0
    for a, b in zip(a_lines, b_lines, strict=True):
        if NUMBER.sub("#", a).replace(" ", "") != NUMBER.sub("#", b).replace(" ", ""):
            return None
        for x, y in zip(NUMBER.findall(a), NUMBER.findall(b), strict=True):
            fx, fy = float(x), float(y)
            if np.isfinite(fx) and np.isfinite(fy) and abs(fx - fy) > ATOL:
                largest = max(largest, abs(fx - fy) / max(abs(fy), ATOL))
    return largest


def verdict(source, name="<program>"):
    """``(verdict, detail)``: same, differs, fails, or skipped (torch fails too)."""
    theirs, their_error = run(source, False, name)
    if their_error is not None:
        return "skipped", f"torch: {their_error.splitlines()[-1]}"
    ours, our_error = run(source, True, name)
    if our_error is not None:
        return "fails", our_error.splitlines()[-1]
    difference = compare(ours, theirs)
    if difference is None:
        return "same", ""
    drift = largest_drift(ours, theirs)
    if drift is not None:  # reported, never hidden: the verdict stays ``differs``
        difference += f" (same text; largest relative drift {drift:.1e})"
    return "differs", difference


# --- torch's own examples -------------------------------------------------------------------

def resolve(qualname):
    parts = qualname.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
            break
        except ImportError:
            continue
    for attr in parts[i:]:
        obj = getattr(obj, attr)
    return obj


PREAMBLE = {  # what torch's docstring examples take as already imported
    "torch": "import torch", "nn": "from torch import nn",
    "F": "import torch.nn.functional as F", "fwAD": "import torch.autograd.forward_ad as fwAD",
    "Function": "from torch.autograd import Function",
    "optim": "from torch import optim", "math": "import math",
}
FROM = {"torch.func": ["grad", "vmap", "jacrev", "jacfwd", "vjp", "jvp", "hessian",
                       "functional_call", "grad_and_value"],
        "torch.autograd.forward_ad": ["dual_level", "make_dual", "unpack_dual"],
        "torch.optim.lr_scheduler": ["StepLR", "CosineAnnealingLR", "LambdaLR"],
        "torch.autograd.functional": ["jacobian", "hessian", "hvp", "vhp"],
        "torch.autograd.function": ["once_differentiable"]}


def docstring_program(qualname):
    """The examples of an object's docstring (the ``>>>`` and ``...`` lines) as one
    program, with the imports torch's documentation takes for granted; None where there
    are none. Whether it counts is torch's to say: one that torch cannot run here (CUDA,
    undefined names) is skipped by ``verdict``."""
    doc = resolve(qualname).__doc__ or ""
    lines = [m.group(2) for m in PROMPT.finditer(doc)]
    if not lines:
        return None
    body = "\n".join(lines) + "\n"
    used = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", body))
    head = [line for name, line in PREAMBLE.items() if name in used]
    module = qualname.rpartition(".")[0]
    for where, names in FROM.items():
        wanted = [n for n in names if n in used and not re.search(rf"\b{n}\s*=", body)]
        if wanted and (where == module or where == "torch.func" and "torch.func" in qualname
                       or where != "torch.autograd.functional"):
            head.append(f"from {where} import {', '.join(wanted)}")
    return "\n".join(head) + "\n" + body


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("programs", nargs="*", type=pathlib.Path)
    parser.add_argument("--torch-docs", action="store_true",
                        help="run the docstring examples of torch's autograd surface")
    args = parser.parse_args(argv)
    jobs = [(str(p), p.read_text()) for p in args.programs]
    if args.torch_docs:
        jobs += [(q, s) for q in TORCH_DOCS if (s := docstring_program(q)) is not None]
    counts = {}
    for name, source in jobs:
        result, detail = verdict(source, name)
        counts[result] = counts.get(result, 0) + 1
        print(f"{result:8} {name}  {detail}"[:200])
    print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
