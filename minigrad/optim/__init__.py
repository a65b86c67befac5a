"""``minigrad.optim``: torch's optimizers and learning-rate schedulers (chapter 10).

Laid out as ``torch.optim``: :class:`Optimizer` (optimizer.py) holds the parameter groups
and the per-parameter state; :class:`SGD`, :class:`Adam`, :class:`AdamW` and
:class:`RMSprop` each compute torch's single-tensor update, so that the numbers agree
with torch's to rounding; ``lr_scheduler`` holds the schedules. The steps change the
arrays behind the tensors through :mod:`minigrad.optim.arrays`.
"""

from minigrad.optim import lr_scheduler
from minigrad.optim.adam import Adam
from minigrad.optim.adamw import AdamW
from minigrad.optim.optimizer import Optimizer
from minigrad.optim.rmsprop import RMSprop
from minigrad.optim.sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "lr_scheduler"]
