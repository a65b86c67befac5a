"""minigrad: a small autograd engine and the helpers of the course that teaches it.

The scalar engine ``Value`` comes first (chapters 01-04), then ``Tensor`` with
PyTorch's autograd semantics (chapters 05-13). Every result a chapter computes is
checked against PyTorch with :func:`check`.
"""

from minigrad.compare import check, check_all
from minigrad.source import show_source

# --- scalar engine (chapters 01-04) ---
# isort: split
from minigrad.graph import draw_graph
from minigrad.stepper import BackwardStepper, stepper_widget
from minigrad.value import Value, backward_order

# --- tensor engine (chapters 05-13) ---

__all__ = [
    "check",
    "check_all",
    "show_source",
    # scalar engine
    "Value",
    "backward_order",
    "draw_graph",
    "BackwardStepper",
    "stepper_widget",
]
