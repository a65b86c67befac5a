"""Write the course's figures into ``figures/`` (``make figures``).

One small function per figure, named like its file (``graph_chain_rule`` writes
``figures/graph_chain_rule.png``), each returning a matplotlib figure; ``main()``
writes them all. Fixed size, dpi and metadata, so running it again gives the same bytes.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from minigrad import Value  # noqa: E402
from minigrad.graph import draw_graph  # noqa: E402

FIGURES = Path(__file__).resolve().parent.parent / "figures"
DPI = 100


def graph_chain_rule():
    """Chapter 03: z = (x + 1) ** 2 at x = 3 after backward; x.grad is 8."""
    x = Value(3.0, label="x")
    y = x + 1
    y.label = "y"
    z = y ** 2
    z.label = "z"
    z.backward()
    return draw_graph(z, title="z = (x + 1) ** 2 at x = 3, after z.backward()")


ALL_FIGURES = [graph_chain_rule]


def save(fig, path):
    """Save without the matplotlib version in the metadata, then close the figure."""
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)  # a no-op for a figure pyplot does not manage


def main(out_dir=FIGURES):
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for make in ALL_FIGURES:
        path = out_dir / f"{make.__name__}.png"
        save(make(), path)
        written.append(path)
    return written


if __name__ == "__main__":
    for path in main(Path(sys.argv[1]) if len(sys.argv) > 1 else FIGURES):
        print(path)
