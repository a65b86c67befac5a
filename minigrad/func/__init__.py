r"""``minigrad.func``: derivatives as functions, and ``vmap``, as ``torch.func``
(chapters 14 and 15).

``transforms`` holds grad, grad_and_value, vjp and jvp; ``jacobians`` jacrev, jacfwd and
hessian;
``vmap`` comes from ``minigrad._functorch``; ``functional_call`` and
``stack_module_state`` (a module run with other parameters) from ``module_state``.
"""

from minigrad._functorch.vmap import vmap
from minigrad.func.jacobians import hessian, jacfwd, jacrev
from minigrad.func.module_state import functional_call, stack_module_state
from minigrad.func.transforms import grad, grad_and_value, jvp, vjp

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]
