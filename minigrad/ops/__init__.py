"""The differentiable ops, one module per family (chapters 05-07).

``arithmetic`` (+ - * / ** and negation), ``matmul`` (``@``, ``mm``), ``reductions``
(``sum``, ``mean``, ``max``), ``activations`` (``exp``, ``log``, ``tanh``, ``sigmoid``,
``relu``), ``shape`` (``reshape``, ``transpose``, ``unsqueeze``, ``squeeze``, dtype
conversion), ``indexing`` (``t[...]``), ``linear`` (the fused layer of chapter 07) and
``losses`` (``mse_loss``, ``cross_entropy``). ``methods`` attaches them to ``Tensor``.

torch's everyday names, one module per family: ``trig`` (``sin``, ``cos``), ``pointwise``
(``abs``, ``sqrt``, ``sign``), ``clamping`` and ``clamp_tensor`` (``clamp``,
``clamp_min``, ``clamp_max``), ``selection`` (``where``), ``joining`` (``stack``,
``cat``), ``movement`` (``permute``, ``movedim``), ``norms`` (``dot``, ``norm``,
``linalg.vector_norm``) and ``comparison`` (``isclose``, ``allclose``, ``equal``);
``toplevel`` exports them as ``minigrad.sin`` and so on.
"""
