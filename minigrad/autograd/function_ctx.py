r"""``FunctionCtx``: what ``ctx`` offers a Function's forward and backward (chapters 05, 16).

As torch's ``torch.autograd.function.FunctionCtx``, which ``Function`` inherits from:
``save_for_backward`` / ``saved_tensors`` (with the version check that refuses a saved
tensor changed in place since), ``needs_input_grad``, and, for a user's Function,
``save_for_forward``, ``mark_non_differentiable``, ``mark_dirty`` and
``set_materialize_grads``. minigrad's own ops save numpy arrays; a user's Function saves
tensors (``custom_function.py``).
"""

from minigrad.dtypes import from_numpy

__all__ = ["FunctionCtx", "FREED"]

FREED = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward(). Fix: pass retain_graph=True to the first "
    ".backward() call, or recompute the forward pass before the second backward."
)



class FunctionCtx:
    """The ``ctx`` methods; a node (a ``Function`` instance) is its own ``ctx``."""

    @property
    def needs_input_grad(self):
        """One bool per input: does that input need a gradient?"""
        return tuple([f is not None for f in self.next_functions])

    def save_for_backward(self, *arrays):
        """Keep arrays for backward. If one is an input's or the output's data, ``apply``
        records that tensor's version, and backward refuses if it has changed since."""
        self._saved = arrays

    def save_for_forward(self, *tensors):
        """A user's Function: keep tensors for ``jvp`` (its ``ctx.saved_tensors``)."""
        self._saved_forward = tensors

    def mark_non_differentiable(self, *outputs):
        """These outputs get no grad_fn; backward receives zeros for them."""
        self._non_differentiable = outputs

    def mark_dirty(self, *tensors):
        """forward changed these inputs in place (and returns them)."""
        self._dirty = tensors

    def set_materialize_grads(self, value):
        """False: an output nothing used gives backward None, not zeros."""
        self._materialize = bool(value)

    @property
    def saved_tensors(self):
        """The saved arrays; raises if they were freed or changed in place since."""
        if self._unpacked is not None:
            return self._unpacked
        if self._custom:
            from minigrad.autograd.custom_function import unpack
            return unpack(self)
        if self._freed:
            raise RuntimeError(FREED)
        for i, counter, version, _ in self._checks:
            if counter[0] != version:
                array = self._saved[i]
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been "
                    f"modified by an inplace operation: [{_describe(array)}] is at version "
                    f"{counter[0]}; expected version {version} instead. Fix: do not "
                    "change a saved tensor between the forward pass and backward(): change "
                    "it after backward (as optimizer.step() does), or build a new one "
                    f"(x = x + 1, or a clone()); {self.name()} needed its old value."
                )
        if self._packed is not None:
            from minigrad.autograd.saved_hooks import unpack_arrays
            return unpack_arrays(self)
        return self._saved

    def release(self):
        """Free what forward saved (after a backward without ``retain_graph``)."""
        self._saved = ()
        self._checks = ()
        self._freed = True
        self._packed = None



def _describe(array):
    return f"minigrad.{from_numpy(array.dtype).tensor_type} {list(array.shape)}"

