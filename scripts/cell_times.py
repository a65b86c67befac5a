"""The slowest cells of the course: run every chapter (or the ones named) top to bottom in
a fresh kernel, time each code cell, print the slowest.

    .venv/bin/python scripts/cell_times.py [NN ...] [--top 15]

What it measures backs the README's sentence on nbgrader's per-cell timeout (60 s against
the slowest legitimate cell). Wall-clock times on this machine, so read them as a scale,
never as a test.
"""

import argparse
import pathlib
import sys
from datetime import datetime

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cell_seconds(cell):
    """A code cell's run time from the timestamps nbclient records (busy to idle)."""
    times = cell.metadata["execution"]
    busy, idle = (datetime.fromisoformat(times[k].replace("Z", "+00:00"))
                  for k in ("iopub.status.busy", "iopub.status.idle"))
    return (idle - busy).total_seconds()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", help="two-digit chapter numbers (default: all)")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    if args.chapters:
        paths = [p for p in paths if p.name[:2] in args.chapters]
    rows = []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                       record_timing=True,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
        timed = [(cell_seconds(cell), path.name[:2], index,
                  next((line for line in cell.source.splitlines() if line.strip()), "")[:60])
                 for index, cell in enumerate(nb.cells) if cell.cell_type == "code"]
        rows += timed
        print(f"{path.name}: {sum(t for t, *_ in timed):.1f} s in {len(timed)} code cells",
              file=sys.stderr)
    print(f"{'seconds':>8}  ch  cell  first line")
    for seconds, chapter, index, first in sorted(rows, reverse=True)[:args.top]:
        print(f"{seconds:8.2f}  {chapter}  {index:4d}  {first}")


if __name__ == "__main__":
    main()
