"""Make the static figures in figures/ that the notebooks and the README show.

Usage: ``python scripts/make_figures.py`` (or ``make figures``). Each figure is one
small function below; ``main()`` writes them all. Output is deterministic: fixed
size, dpi and no timestamp in the PNG metadata.
"""

import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from minigrad import Value, draw_graph  # noqa: E402

FIGURES = pathlib.Path(__file__).resolve().parent.parent / "figures"
PNG = {"dpi": 110, "metadata": {"Software": None}}


def secants_to_tangent(path):
    """Chapter 01: secants of y = x**2 through x = 3 turn into the tangent (slope 6)."""
    xs = np.linspace(0.5, 5.5, 200)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(xs, xs ** 2, color="black", label="$y = x^2$")
    for h, alpha in [(2.0, 0.35), (1.0, 0.55), (0.5, 0.75)]:
        slope = ((3 + h) ** 2 - 9) / h
        ax.plot(xs, 9 + slope * (xs - 3), alpha=alpha, label=f"secant, h = {h:g}: slope {slope:g}")
        ax.plot([3 + h], [(3 + h) ** 2], "o", color="gray", markersize=4)
    ax.plot(xs, 9 + 6 * (xs - 3), "--", color="crimson", label="tangent: slope 6")
    ax.plot([3], [9], "o", color="black")
    ax.set_xlim(0.5, 5.5)
    ax.set_ylim(-2, 30)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("Secants through x = 3 approach the tangent as h shrinks")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, **PNG)
    plt.close(fig)


def graph_chain_rule(path):
    """Chapter 03: the graph of z = (x + 1) ** 2 at x = 3 after backward; x.grad is 8."""
    x = Value(3.0, label="x")
    y = x + 1
    y.label = "y"
    z = y ** 2
    z.label = "z"
    z.backward()
    fig = draw_graph(z, title="z = (x + 1) ** 2 at x = 3, after z.backward()")
    fig.savefig(path, **PNG)  # a bare Figure, not pyplot's: nothing to close


FIGURE_MAKERS = {
    "secants_to_tangent.png": secants_to_tangent,
    "graph_chain_rule.png": graph_chain_rule,
}


def main(out_dir=FIGURES):
    """Write every figure into ``out_dir`` (``figures/``); return the paths written."""
    out_dir = pathlib.Path(out_dir)
    out_dir.mkdir(exist_ok=True)
    written = []
    for name, make in FIGURE_MAKERS.items():
        make(out_dir / name)
        written.append(out_dir / name)
    return written


if __name__ == "__main__":
    for path in main():
        print(f"wrote figures/{path.name}")
