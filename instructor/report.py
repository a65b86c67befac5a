"""The class report: one self-contained HTML page from the gradebook (issue 19, item 4).

    python instructor/report.py course [--out course/report.html]

Reads the rows of ``classroom.py export`` (one per student, chapter and exercise, from
nbgrader's gradebook and the autograded notebooks) and draws, for the class and for each
chapter's exercises: the score distribution, the pass rate, the statuses (passed, partial,
scored 0, not submitted, timed out, crashed, tampered) and, where the export carries a
``mistake`` column (the named mistake a check recognised), the mistakes by frequency. The
plots are inline SVG drawn here: the page needs no network and no other file. The
instructor's guide in README.md ("For instructors") shows where it fits.
"""

import argparse
import html
import importlib.util
import pathlib
import sys
import tempfile
from collections import Counter, defaultdict

HERE = pathlib.Path(__file__).resolve().parent
STATUSES = ("passed", "partial", "scored 0", "not submitted", "timed out", "crashed",
            "tampered")
COLORS = {"passed": "#2e7d32", "partial": "#9ccc65", "scored 0": "#ef6c00",
          "not submitted": "#9e9e9e", "timed out": "#6a1b9a", "crashed": "#c62828",
          "tampered": "#000000"}
STYLE = """body{font-family:system-ui,sans-serif;margin:2em;max-width:70em;color:#222}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .6em;
text-align:right}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
section.exercise{border-top:2px solid #ddd;margin-top:1.5em;padding-top:.5em}
.plots{display:flex;gap:2em;flex-wrap:wrap;align-items:flex-start}svg text{font-size:11px}"""


def _classroom():
    spec = importlib.util.spec_from_file_location("classroom", HERE / "classroom.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows_of(course):
    """The export's rows (written to a temporary CSV, the course folder is left alone)."""
    with tempfile.TemporaryDirectory() as tmp:
        return _classroom().export(course, pathlib.Path(tmp) / "rows.csv")


def kind(status):
    """A status's family: "crashed in cell 7" is "crashed"."""
    return "crashed" if status.startswith("crashed") else status


def summarize(rows):
    """{(chapter, grade_id): stats} and the class summary, as plain numbers."""
    groups = defaultdict(list)
    for row in rows:
        groups[row["chapter"], row["grade_id"]].append(row)
    exercises = {}
    for key, group in sorted(groups.items()):
        statuses = Counter(kind(r["status"]) for r in group)
        n = len(group)
        exercises[key] = {
            "chapter": key[0], "grade_id": key[1],
            "exercise": next((r["exercise"] for r in group if r["exercise"] != key[1]), key[1]),
            "max": float(group[0]["max"]), "students": n,
            "submitted": n - statuses["not submitted"],
            "mean": sum(float(r["score"]) for r in group) / n,
            "pass_rate": 100.0 * statuses["passed"] / n,
            "statuses": {s: statuses[s] for s in STATUSES},
            "scores": Counter(float(r["score"]) for r in group),
            "mistakes": Counter(r["mistake"] for r in group if r.get("mistake")),
            "has_mistakes": any("mistake" in r for r in group)}
    totals = Counter(kind(r["status"]) for r in rows)
    summary = {"students": len({r["student"] for r in rows}),
               "chapters": len({r["chapter"] for r in rows}),
               "exercises": len(exercises), "rows": len(rows),
               "pass_rate": 100.0 * totals["passed"] / len(rows) if rows else 0.0,
               "mean_percent": 100.0 * sum(float(r["score"]) for r in rows)
               / max(sum(float(r["max"]) for r in rows), 1e-300) if rows else 0.0,
               "statuses": {s: totals[s] for s in STATUSES}}
    return exercises, summary


def bars(items, title, plot_id, horizontal=False, unit="", colors=None, vmax=None):
    """A bar chart as an inline SVG: ``items`` is [(label, value)]."""
    e = html.escape
    vmax = vmax or max([v for _, v in items] + [1e-300])
    if horizontal:
        width, row, left = 520, 18, 220
        height = 24 + row * len(items)
        parts = [f'<text x="4" y="14" font-weight="bold">{e(title)}</text>']
        for i, (label, value) in enumerate(items):
            y, w = 22 + i * row, (width - left - 60) * value / vmax
            color = (colors or {}).get(label, "#1565c0")
            parts.append(f'<text x="{left - 6}" y="{y + 12}" text-anchor="end">'
                         f'{e(str(label))[:40]}</text><rect class="bar" x="{left}" y="{y}" '
                         f'width="{w:.1f}" height="{row - 4}" fill="{color}"><title>'
                         f'{e(str(label))}: {value:g}{unit}</title></rect><text x="'
                         f'{left + w + 4:.1f}" y="{y + 12}">{value:g}{unit}</text>')
    else:
        step = max(46, 7 * max([len(str(label)) for label, _ in items] + [0]) + 10)
        base = 150
        width, height = 40 + step * max(len(items), 1), base + 40
        parts = [f'<text x="4" y="14" font-weight="bold">{e(title)}</text>',
                 f'<line x1="30" y1="{base}" x2="{width}" y2="{base}" stroke="#444"/>']
        for i, (label, value) in enumerate(items):
            x, h = 36 + i * step, (base - 30) * value / vmax
            color = (colors or {}).get(label, "#1565c0")
            parts.append(f'<rect class="bar" x="{x}" y="{base - h:.1f}" width="{step - 10}" '
                         f'height="{h:.1f}" fill="{color}"><title>{e(str(label))}: '
                         f'{value:g}{unit}</title></rect><text x="{x + (step - 10) / 2}" '
                         f'y="{base - h - 3:.1f}" text-anchor="middle">{value:g}{unit}</text>'
                         f'<text x="{x + (step - 10) / 2}" y="{base + 14}" '
                         f'text-anchor="middle">{e(str(label))}</text>')
    return (f'<svg class="plot" id="{e(plot_id)}" xmlns="http://www.w3.org/2000/svg" '
            f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
            f'<title>{e(title)}</title>{"".join(parts)}</svg>')


def _cell(name, value, fmt="{}"):
    return f'<td data-stat="{name}">{html.escape(fmt.format(value))}</td>'


def _status_cells(statuses):
    return "".join(_cell(s.replace(" ", "-"), statuses[s]) for s in STATUSES)


def render(exercises, summary, title):
    e = html.escape
    head = "".join(f"<th>{s}</th>" for s in STATUSES)
    out = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}"
           f"</title><style>{STYLE}</style></head><body><h1>{e(title)}</h1>",
           "<h2>Class summary</h2><table id='summary'><tr><th>students</th><th>chapters</th>"
           f"<th>exercises</th><th>pass rate</th><th>mean score</th>{head}</tr><tr>"
           + _cell("students", summary["students"]) + _cell("chapters", summary["chapters"])
           + _cell("exercises", summary["exercises"])
           + _cell("pass-rate", summary["pass_rate"], "{:.1f}%")
           + _cell("mean-percent", summary["mean_percent"], "{:.1f}%")
           + _status_cells(summary["statuses"]) + "</tr></table>",
           "<div class='plots'>"
           + bars([(f"{x['chapter']} {x['exercise']}", x["pass_rate"])
                   for x in exercises.values()], "Pass rate per exercise", "plot-pass-rate",
                  horizontal=True, unit="%", vmax=100)
           + bars([(s, n) for s, n in summary["statuses"].items()], "Statuses, whole class",
                  "plot-statuses", colors=COLORS) + "</div>",
           "<h2>Exercises</h2><table id='exercises'><tr><th>chapter</th><th>exercise</th>"
           f"<th>max</th><th>submitted</th><th>mean</th><th>pass rate</th>{head}</tr>"]
    for x in exercises.values():
        out.append(f"<tr data-grade-id='{e(x['grade_id'])}'><td>{e(x['chapter'])}</td>"
                   f"<td>{e(x['exercise'])}</td>" + _cell("max", x["max"], "{:g}")
                   + _cell("submitted", x["submitted"]) + _cell("mean", x["mean"], "{:.2f}")
                   + _cell("pass-rate", x["pass_rate"], "{:.1f}%")
                   + _status_cells(x["statuses"]) + "</tr>")
    out.append("</table>")
    for chapter in sorted({x["chapter"] for x in exercises.values()}):
        out.append(f"<h2 id='{e(chapter)}'>Chapter {e(chapter)}</h2>")
        for x in (x for x in exercises.values() if x["chapter"] == chapter):
            gid = x["grade_id"]
            scores = [(f"{s:g}", x["scores"][s]) for s in sorted(x["scores"])]
            plots = [bars(scores, f"Scores (of {x['max']:g})", f"plot-scores-{gid}"),
                     bars([(s, n) for s, n in x["statuses"].items()], "Statuses",
                          f"plot-statuses-{gid}", colors=COLORS)]
            mistakes = x["mistakes"].most_common()
            if mistakes:
                plots.append(bars(mistakes, "Named mistakes", f"plot-mistakes-{gid}",
                                  horizontal=True))
            note = ("" if mistakes else "<p class='no-mistakes'>"
                    + ("No named mistake recognised." if x["has_mistakes"] else
                       "The export has no mistake column.") + "</p>")
            rows = "".join(f"<tr><td>{e(m)}</td><td data-stat='count'>{n}</td></tr>"
                           for m, n in mistakes)
            table = (f"<table class='mistakes'><tr><th>named mistake</th><th>students</th>"
                     f"</tr>{rows}</table>" if mistakes else "")
            out.append(f"<section class='exercise' data-grade-id='{e(gid)}'><h3>"
                       f"{e(x['exercise'])} <small>({e(gid)})</small></h3><p>pass rate "
                       f"<b data-stat='pass-rate'>{x['pass_rate']:.1f}%</b> of "
                       f"<span data-stat='students'>{x['students']}</span> students, mean "
                       f"{x['mean']:.2f} / {x['max']:g}</p><div class='plots'>"
                       f"{''.join(plots)}</div>{note}{table}</section>")
    out.append("</body></html>")
    return "\n".join(out)


def report(course, out=None):
    """Write the report; returns its path."""
    course = pathlib.Path(course)
    out = pathlib.Path(out) if out else course / "report.html"
    exercises, summary = summarize(rows_of(course))
    out.write_text(render(exercises, summary, f"Class report: {course.resolve().name}"))
    print(f"wrote {out} ({summary['students']} students, {summary['exercises']} exercises)")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("course")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    report(args.course, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
