"""Where a graded submission's kernel spends its CPU (issue 19, item 5): for each chapter,
the kernel's start-up, its first cell (the imports), and every other code cell, in CPU
seconds of the kernel process (``/proc/PID/stat``, so a busy machine changes little).

    python benchmarks/cell_costs.py [--chapters 01 07 13] [--top 5]

The chapter runs top to bottom in one fresh kernel, as ``nbgrader autograde`` runs a
submission (solutions in). Printed per chapter: start-up, imports, the demo cells (not an
exercise's solution or test) and the exercises' cells in total, then the costliest cells
with their first line, so a chapter's author knows which demo to make cheaper.
"""

import argparse
import os
import pathlib
import sys
import time

import nbformat

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.notebook_tools import NOTEBOOKS, Kernel, nbgrader_meta  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def kernel_cpu(pid):
    """CPU seconds of the process ``pid`` and of its waited-for children."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / TICKS  # utime stime cutime cstime


def chapter_costs(nb_path):
    """[(kind, seconds, first line)] for one chapter; kinds: start, cell, exercise."""
    nb = nbformat.read(nb_path, as_version=4)
    wall = time.perf_counter()
    kernel = Kernel(nb_path.parent)
    try:
        pid = kernel.km.provisioner.process.pid
        rows, before = [("start", kernel_cpu(pid), "(kernel start-up)")], kernel_cpu(pid)
        for cell in nb.cells:
            if cell.cell_type != "code" or not cell.source.strip():
                continue
            ok, error = kernel.run(cell.source)
            assert ok or "raises-exception" in cell.metadata.get("tags", []), error
            now = kernel_cpu(pid)
            meta = nbgrader_meta(cell)
            kind = "exercise" if meta.get("solution") or meta.get("grade") else "cell"
            rows.append((kind, now - before, cell.source.strip().splitlines()[0][:60]))
            before = now
    finally:
        kernel.close()
    return rows, time.perf_counter() - wall


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", nargs="*", default=None)
    parser.add_argument("--top", type=int, default=4)
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "agg")
    chosen = [nb for nb in NOTEBOOKS if args.chapters is None or nb.stem[:2] in args.chapters]
    print(f"{'chapter':24} {'start':>6} {'imports':>7} {'demos':>6} {'exercises':>9} "
          f"{'total':>6} (CPU s of the kernel)")
    lines, totals = [], []
    for nb_path in chosen:
        rows, _ = chapter_costs(nb_path)
        start, imports = rows[0][1], rows[1][1]
        demos = sum(s for k, s, _ in rows[2:] if k == "cell")
        exercises = sum(s for k, s, _ in rows[2:] if k == "exercise")
        total = start + imports + demos + exercises
        totals.append(total)
        print(f"{nb_path.stem[:24]:24} {start:6.2f} {imports:7.2f} {demos:6.2f} "
              f"{exercises:9.2f} {total:6.2f}", flush=True)
        costly = sorted(rows[2:], key=lambda r: -r[1])[:args.top]
        lines += [f"  {nb_path.stem[:2]} {s:5.2f} s {k:8} {first}" for k, s, first in costly]
    print(f"mean {sum(totals) / len(totals):.2f} s CPU a chapter's kernel")
    print("costliest cells:")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
