"""``minigrad.cuda``: there is no GPU here (chapter 05).

Public PyTorch code picks its device with
``torch.device("cuda" if torch.cuda.is_available() else "cpu")``; with
``import minigrad as torch`` that line runs and picks the CPU.
"""

__all__ = ["is_available", "device_count"]


def is_available():
    """False: minigrad computes with numpy, on the CPU."""
    return False


def device_count():
    return 0
