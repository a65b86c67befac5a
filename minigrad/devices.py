"""``minigrad.device("cpu")``: where a tensor lives, as ``torch.device`` (chapter 05).

minigrad computes on the CPU only, with numpy. Code written for torch names devices
anyway (``device="cpu"``, ``t.to(device)``, ``t.device``), so the object exists with
torch's look: ``device(type='cpu')``, ``.type``, ``.index``, equality with another
device (not with the string ``"cpu"``, as in torch). Making ``device("cuda")`` works, as
in torch; putting a tensor there is refused (:func:`check_device`).
"""

__all__ = ["device", "check_device", "CPU_ONLY"]

CPU_ONLY = ("minigrad runs on the CPU only. Fix: drop .cuda() / .to('cuda') / "
            "device='cuda'; every tensor is on 'cpu'.")
_TYPES = ("cpu", "cuda", "mps", "meta", "xpu")


class device:  # noqa: N801 - torch's name
    """A device: ``device("cpu")``, ``device("cuda", 0)``, ``device("cpu:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):  # noqa: A002 - torch's argument name
        kind = type
        if isinstance(kind, device):
            kind, index = kind.type, kind.index
        elif not isinstance(kind, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_name(kind)}). Fix: pass a string, device('cpu').")
        elif ":" in kind:
            kind, _, number = kind.partition(":")
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{kind}:{number}'. Fix: write "
                                   "'cpu' or 'cuda:0'.")
            index = int(number)
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {kind}. Fix: minigrad has device('cpu').")
        self.type = kind
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if not isinstance(other, device):
            return False
        return (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")


def _name(value):
    return type(value).__name__


def check_device(spec):
    """``None``, ``"cpu"`` or ``device("cpu")`` pass; ``"cuda"`` and the rest are refused
    with minigrad's RuntimeError (torch without CUDA raises too)."""
    if spec is None:
        return CPU
    found = device(spec) if isinstance(spec, str | device) else None
    if found is None:
        raise TypeError(f"expected a device, got {_name(spec)}. Fix: device='cpu'.")
    if found.type != "cpu":
        raise RuntimeError(CPU_ONLY)
    return CPU
