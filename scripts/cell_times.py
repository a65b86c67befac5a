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
import time

import nbformat
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]


class TimedClient(NotebookClient):
    """nbclient, with each code cell's wall time kept in ``times``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.times = []

    async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
        start = time.perf_counter()
        result = await super().async_execute_cell(cell, cell_index, *args, **kwargs)
        if cell.cell_type == "code":
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            self.times.append((time.perf_counter() - start, cell_index, first[:60]))
        return result


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
        client = TimedClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                             resources={"metadata": {"path": str(path.parent)}})
        client.execute()
        rows += [(seconds, path.name[:2], index, first) for seconds, index, first in client.times]
        print(f"{path.name}: {sum(t for t, *_ in client.times):.1f} s in "
              f"{len(client.times)} code cells", file=sys.stderr)
    print(f"{'seconds':>8}  ch  cell  first line")
    for seconds, chapter, index, first in sorted(rows, reverse=True)[:args.top]:
        print(f"{seconds:8.2f}  {chapter}  {index:4d}  {first}")


if __name__ == "__main__":
    main()
