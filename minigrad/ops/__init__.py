"""The differentiable ops, one module per family (chapters 05-07).

``arithmetic`` (+ - * / ** and negation), ``matmul`` (``@``, ``mm``), ``reductions``
(``sum``, ``mean``, ``max``), ``activations`` (``exp``, ``log``, ``tanh``, ``sigmoid``,
``relu``), ``shape`` (``reshape``, ``transpose``, ``unsqueeze``, ``squeeze``, dtype
conversion), ``indexing`` (``t[...]``), ``linear`` (the fused layer of chapter 07) and
``losses`` (``mse_loss``, ``cross_entropy``). ``methods`` attaches them to ``Tensor``.

One op, one class (a ``Function``, see ``autograd/function.py``), holding its whole
derivative story: ``forward``; ``backward``, which runs on numpy arrays and, written with
operators, on tensors for ``create_graph=True`` (chapter 15); ``differentiable_backward``
only where ``backward`` needs numpy; ``jvp``, the tangent rule of forward mode (chapter 14).
Every op has a row in tests/op_cases.py, checked against torch in all four.

torch's everyday names, one module per family: ``trig`` (``sin``, ``cos``), ``pointwise``
(``abs``, ``sqrt``, ``sign``), ``clamping`` and ``clamp_tensor`` (``clamp``,
``clamp_min``, ``clamp_max``), ``selection`` (``where``), ``joining`` (``stack``,
``cat``), ``movement`` (``permute``, ``movedim``), ``norms`` (``dot``, ``norm``,
``linalg.vector_norm``) and ``comparison`` (``isclose``, ``allclose``, ``equal``);
``toplevel`` exports them as ``minigrad.sin`` and so on.
"""
