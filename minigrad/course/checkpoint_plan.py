r"""Measure a checkpointing plan with segments of any lengths (chapter 16, Exercise 16.4).

A plan is a list of segment lengths covering the blocks of section 6's network in order,
each segment run through ``checkpoint(..., use_reentrant=True)``; the empty list runs the
network without checkpointing. :func:`measure_plan` runs it (minigrad, as
:class:`~minigrad.course.widgets.checkpoint_memory.CheckpointMemory` does) and counts, in
arrays of one activation (``batch x width`` float64), what is kept from forward to
backward, the peak during backward, and the block forwards that backward runs again.
Only minigrad runs (section 6 compared each count with torch's); a measurement is
deterministic, so each plan is measured once per process.
"""


from minigrad.course.widgets.checkpoint_memory import CheckpointMemory

__all__ = ["PlanMemory", "measure_plan"]


class PlanMemory(CheckpointMemory):
    """:class:`CheckpointMemory` with segments of the given lengths (``[]``: none)."""

    def __init__(self, depth, lengths, **kwargs):
        lengths = [int(k) for k in lengths]
        if lengths and (min(lengths) < 1 or sum(lengths) != depth):
            raise ValueError(f"segment lengths {lengths} must be positive and add up to "
                             f"the depth, {depth}")
        self.lengths = lengths
        super().__init__(depth=depth, every=1 if lengths else 0, **kwargs)

    def segments(self):
        if not self.every:
            return [list(range(self.depth))]
        found, start = [], 0
        for k in self.lengths:
            found.append(list(range(start, start + k)))
            start += k
        return found


def measure_plan(depth, lengths):
    """{"kept", "peak", "recomputed"} of the plan, measured: arrays, arrays, block forwards."""
    key = (int(depth), tuple(int(k) for k in lengths))
    if key not in _MEASURED:
        memory = PlanMemory(depth, lengths, compare=False)
        unit = memory.batch * memory.width * 8
        r = memory.results
        assert r["kept"] % unit == 0 and r["peak"] % unit == 0
        _MEASURED[key] = {"kept": r["kept"] // unit, "peak": r["peak"] // unit,
                          "recomputed": r["recomputed"]}
    return dict(_MEASURED[key])


_MEASURED = {}  # (depth, lengths) -> counts: one measurement per plan and process
