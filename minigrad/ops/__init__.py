"""The differentiable ops, one module per family (chapters 05-07).

``arithmetic`` (+ - * / ** and negation), ``matmul`` (``@``, ``mm``), ``reductions``
(``sum``, ``mean``, ``max``), ``activations`` (``exp``, ``log``, ``tanh``, ``sigmoid``,
``relu``), ``shape`` (``reshape``, ``transpose``, ``unsqueeze``, ``squeeze``, dtype
conversion), ``indexing`` (``t[...]``), ``linear`` (the fused layer of chapter 07) and
``losses`` (``mse_loss``, ``cross_entropy``). ``methods`` attaches them to ``Tensor``.
"""
