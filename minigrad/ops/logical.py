"""``torch.all`` and ``torch.any`` (the makemore chapters' gradient checks compare with
``torch.all(dt == t.grad)``): the methods of ``Tensor`` as functions; bool results."""

__all__ = ["all", "any"]


def all(input, dim=None, keepdim=False):  # noqa: A001, A002 - torch's names
    return input.all(dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001, A002 - torch's names
    return input.any(dim, keepdim)
