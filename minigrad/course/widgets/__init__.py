"""The course's widgets: one module per chapter widget, and the wiring they share.

Each module holds a widget's logic as a plain class (unit-tested against torch, no
ipywidgets needed) and the function that puts it behind controls; that function wires
them with :mod:`minigrad.course.widgets.controls` (sliders, readouts, step and reset
buttons, redraw on change, figure to PNG). By chapter:

- 01: :mod:`~.explorers` (``tangent_explorer``, ``torch_slope``), :mod:`~.secant`;
- 02: :mod:`~.slices`, :mod:`~.first_order`;
- 03: :mod:`~.topo_view`; 04: :mod:`~.stepper` (also ``minigrad.stepper_widget``),
  :mod:`~.backward_quiz`;
- 05: :mod:`~.broadcast_view`; 06: :mod:`~.vjp_view`; 07: :mod:`~.linear_layer_view`;
- 08: :mod:`~.accumulation_view`; 09: :mod:`~.grad_modes_view`; 10: :mod:`~.valley`;
- 11: :mod:`~.finite_differences`; 12: :mod:`~.step_order`; 13: ``break_widget`` lives in
  :mod:`minigrad.course.capstone`, with the capstone's code; 14: :mod:`~.jacobian_modes`;
- 15: :mod:`~.newton_view`; 16: :mod:`~.checkpoint_memory`.

The drawings they use (:mod:`minigrad.course.graph`, :mod:`minigrad.course.tensor_graph`)
stay in :mod:`minigrad.course`, beside the other helpers.
"""
