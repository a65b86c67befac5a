r"""``softmax`` and ``log_softmax`` (``torch.softmax``, ``Tensor.softmax`` and
``torch.nn.functional``'s; the makemore chapters: the classifier's probabilities, and the
manual backprop through cross entropy).

$\mathrm{softmax}(x)_i = e^{x_i - m} / \sum_j e^{x_j - m}$ with $m = \max_j x_j$ held
constant (it cancels: the value and the gradient are the same for any $m$), built out of
differentiable ops, so gradients of every order follow. As torch's kernels: floating
inputs only (``dtype=`` converts first), and an empty input comes back empty.
"""

from minigrad.dtypes import torch_name

__all__ = ["softmax", "log_softmax"]


def _prepare(input, dim, dtype, name):  # noqa: A002 - torch's name
    if dim is None:
        raise TypeError(f"{name}() missing the dim argument. Fix: {name}(x, dim=-1) (torch's "
                        "implicit dim is deprecated).")
    x = input if dtype is None else input.to(dtype)
    if x._data.size == 0:
        return x, None
    if x._data.dtype.kind != "f":
        last = dim in (-1, x._data.ndim - 1) or x._data.ndim == 0
        kernel = f"{name}_lastdim_kernel_impl" if last else f"{name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{torch_name(x._data.dtype)}'. Fix: convert first, "
                                  f"x.float().{name}(dim) or {name}(x, dim, "
                                  "dtype=torch.float64).")
    return x, x - x.detach().max(dim, keepdim=True).values


def softmax(input, dim=None, dtype=None):  # noqa: A002 - torch's name
    x, shifted = _prepare(input, dim, dtype, "softmax")
    if shifted is None:
        return x * 1 if x._data.dtype.kind == "f" else x.clone()
    e = shifted.exp()
    return e / e.sum(dim, keepdim=True)


def log_softmax(input, dim=None, dtype=None):  # noqa: A002 - torch's name
    x, shifted = _prepare(input, dim, dtype, "log_softmax")
    if shifted is None:
        return x * 1 if x._data.dtype.kind == "f" else x.clone()
    return shifted - shifted.exp().sum(dim, keepdim=True).log()
