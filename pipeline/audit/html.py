"""The audit's HTML report: a self-contained page (inline CSS and SVG, no scripts, nothing fetched) that
opens offline, rendered from the typed figures (figures.py) and the rows; the facts it states first (the
dataset, the date, the tool's version and git commit, the toolchains the runs recorded)."""

from __future__ import annotations

import html
import platform
import subprocess
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from pipeline.audit.figures import (
    CPU_BIN_EDGES_S,
    AuditFigures,
    LabelFigures,
    RecordedTimes,
    best_class_counts,
    cpu_time_counts,
    headline,
    label_lines,
    recorded_times,
)
from pipeline.audit.rows import REPRODUCED, AuditClass, AuditRow
from pipeline.records import Frozen, RunResult
from sandboxes.core import pipeline_version

CLASS_ORDER = [c.value for c in AuditClass]
SVG_NS = "http://www.w3.org/2000/svg"  # a namespace name, never fetched
CLASS_COLOURS = {
    "reproduced_exact": "#2e7d32",
    "reproduced_normalised": "#81c784",
    "reproduced_after_reconstruction": "#a5d6a7",
    "toolchain_drift": "#1e88e5",
    "locale_drift": "#8e24aa",
    "non_deterministic": "#f9a825",
    "non_deterministic_code": "#fdd835",
    "cannot_build": "#6d4c41",
    "no_run_instruction": "#a1887f",
    "missing_dependency": "#90a4ae",
    "empty_label": "#00897b",
    "conflicting_duplicate": "#5e35b1",
    "vacuous_check": "#d81b60",
    "not_a_program": "#4e342e",
    "timeout": "#ef6c00",
    "resource_limit": "#ffb74d",
    "not_run": "#9e9e9e",
    "mismatch": "#c62828",
}


# Every class in words: the page is read by people who never saw the code.
CLASS_WORDS = {
    "reproduced_exact": ("reproduced exactly", "our output is the released label, byte for byte"),
    "reproduced_normalised": (
        "reproduced after normalising",
        "equal once whitespace, quote style and line wrapping are normalised",
    ),
    "toolchain_drift": ("toolchain drift", "only compiler or interpreter messages differ"),
    "locale_drift": ("locale drift", "only locale-dependent formatting differs"),
    "non_deterministic": ("not deterministic", "our own repeated runs printed different outputs"),
    "non_deterministic_code": (
        "reads clocks or randomness",
        "our repeats agree, but the program reads the clock, random numbers or similar",
    ),
    "reproduced_after_reconstruction": (
        "reproduced after reconstruction",
        "cannot build as released; the obvious repair (the reason says which) reproduces the label",
    ),
    "cannot_build": ("cannot build", "a file, make target or binary the run needs is not in the release"),
    "no_run_instruction": (
        "no run instruction",
        "nothing says how to run the program and nothing could be inferred",
    ),
    "missing_dependency": ("missing dependency", "a library the program imports is not installed"),
    "empty_label": ("empty label", "the released label is empty, our run printed something"),
    "conflicting_duplicate": (
        "conflicting duplicate",
        "the same program appears with other, different labels",
    ),
    "vacuous_check": (
        "vacuous check",
        "the program's check passed, and passed again with its expected value altered: it cannot fail",
    ),
    "not_a_program": ("not a program", "the record's code is no program of its language (prose, say)"),
    "timeout": ("time limit", "the run went past our CPU or wall-clock limit"),
    "resource_limit": ("memory or output limit", "the run went past our memory or output limit"),
    "not_run": ("not run", "the toolchain is missing under this profile (the reason names it)"),
    "mismatch": ("unexplained mismatch", "a real disagreement: the label is suspect"),
}

CSS = """
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;padding:0 1.5em;color:#222;max-width:1200px}
h1{margin:.2em 0 .4em}h2{margin:1.4em 0 .4em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:.6em 0;max-width:100%}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:right;vertical-align:top;overflow-wrap:anywhere}
th{background:#f3f3f3}th:first-child,td:first-child{text-align:left}
td.text{text-align:left}tr.total td{font-weight:bold;background:#fafafa}
pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 .8em}
dl.facts dt{font-weight:bold}dl.facts dd{margin:0;overflow-wrap:anywhere}
.side{display:flex;flex-wrap:wrap;gap:0 2.5em;align-items:flex-start}
.side h3{margin:.2em 0 0;font-size:1em}.side>div+div{max-width:24em}
.legend{list-style:none;padding:0}.legend li{margin:2px 0}
.swatch{display:inline-block;width:10px;height:10px;margin-right:6px}
details{margin:4px 0}summary{cursor:pointer}svg{max-width:100%;height:auto}
"""


class ReportFacts(Frozen):
    """What the page states before any number: which data, when, by which tool, under which toolchains."""

    dataset: str
    dataset_files: int = Field(description="released JSON files read")
    dataset_bytes: int
    generated_at: datetime
    version: str = Field(description="surge-pipeline's package version")
    commit: str | None = Field(default=None, description="git commit of the checkout, if it is one")
    host: str
    toolchains: dict[str, list[str]] = Field(
        default_factory=dict, description="profile -> backend, tool versions and image digests its runs used"
    )


def report_facts(dataset: Path, results: Iterable[RunResult], profiles: Sequence[str]) -> ReportFacts:
    files = sorted(dataset.glob("*.json")) if dataset.is_dir() else [dataset]
    return ReportFacts(
        dataset=str(dataset.resolve()),
        dataset_files=len(files),
        dataset_bytes=sum(f.stat().st_size for f in files if f.is_file()),
        generated_at=datetime.now(UTC),
        version=pipeline_version(),
        commit=git_commit(),
        host=platform.node(),
        toolchains=toolchains_of(results, profiles),
    )


def toolchains_of(results: Iterable[RunResult], profiles: Sequence[str]) -> dict[str, list[str]]:
    """Per profile, what its runs recorded in their provenance (never what we guess it would use)."""
    seen: dict[str, set[str]] = {p: set() for p in profiles}
    for result in results:
        provenance = result.provenance
        found = seen.setdefault(provenance.profile, set())
        found.add(f"backend {provenance.backend}")
        found.update(f"{tool} {version}" for tool, version in provenance.toolchain_versions.items())
        if provenance.image_digest:
            found.add(f"image {provenance.image_digest}")
    return {profile: sorted(found) for profile, found in sorted(seen.items())}


def git_commit() -> str | None:
    """The checkout's commit when surge runs from one; an installed wheel has none."""
    here = Path(__file__).resolve().parent
    try:
        done = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _esc(value: object) -> str:
    return html.escape(str(value))


def words(klass: str) -> str:
    return CLASS_WORDS[klass][0]


def bar_chart(
    title: str, bars: Sequence[tuple[str, float]], unit: str = "", max_value: float | None = None
) -> str:
    """Horizontal bars as inline SVG."""
    top = max_value if max_value is not None else max((v for _, v in bars), default=1.0) or 1.0
    row_px, label_px, width_px = 22, 150, 420
    height = row_px * len(bars) + 30
    parts = [
        f'<svg xmlns="{SVG_NS}" width="{label_px + width_px + 80}" height="{height}" role="img">',
        f'<text x="0" y="14" font-weight="bold">{_esc(title)}</text>',
    ]
    for i, (label, value) in enumerate(bars):
        y = 24 + i * row_px
        length = 0 if top == 0 else width_px * value / top
        parts.append(f'<text x="0" y="{y + 14}">{_esc(label)}</text>')
        parts.append(
            f'<rect x="{label_px}" y="{y}" width="{length:.1f}" height="{row_px - 6}" fill="#1e88e5"/>'
        )
        parts.append(f'<text x="{label_px + length + 4:.1f}" y="{y + 14}">{value:.3g}{_esc(unit)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def stacked_chart(title: str, groups: dict[str, dict[str, int]]) -> str:
    """One 100% bar per group, split by class."""
    row_px, label_px, width_px = 22, 150, 500
    parts = [
        f'<svg xmlns="{SVG_NS}" width="{label_px + width_px + 10}" '
        f'height="{row_px * len(groups) + 30}" role="img">'
        f'<text x="0" y="14" font-weight="bold">{_esc(title)}</text>'
    ]
    for i, (label, counts) in enumerate(groups.items()):
        y, x = 24 + i * row_px, float(label_px)
        total = sum(counts.values()) or 1
        parts.append(f'<text x="0" y="{y + 14}">{_esc(label)}</text>')
        for klass in CLASS_ORDER:
            share = width_px * counts.get(klass, 0) / total
            if share:
                parts.append(
                    f'<rect x="{x:.1f}" y="{y}" width="{share:.1f}" height="{row_px - 6}" '
                    f'fill="{CLASS_COLOURS[klass]}"><title>{words(klass)}: {counts[klass]}</title></rect>'
                )
                x += share
    parts.append("</svg>")
    return "".join(parts)


def cpu_histogram(counts: Sequence[int]) -> str:
    """Runs per CPU-time bin (``figures.cpu_time_counts``), the bins named by their edges."""
    edges = CPU_BIN_EDGES_S
    labels = ["< 1 ms"] + [f"{_fmt_s(lo)} - {_fmt_s(hi)}" for lo, hi in zip(edges, edges[1:], strict=False)]
    labels.append(f">= {_fmt_s(edges[-1])}")
    return bar_chart("CPU time per run (compile + run)", list(zip(labels, map(float, counts), strict=True)))


def recorded_time_table(times: Sequence[RecordedTimes]) -> str:
    """sc/tc: our CPU seconds against the time SURGE recorded for the same script and command."""
    if not times:
        return ""
    body = [[t.subset, t.runs, f"{t.median_cpu_s:.3f}", f"{t.median_recorded_s:.3f}"] for t in times]
    return _table(["subset", "runs", "median CPU seconds (ours)", "median recorded seconds (SURGE)"], body)


def _fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def _table(headers: Sequence[str], body: Iterable[Sequence[object]], table_id: str = "") -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    rows = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" for row in body)
    attribute = f' id="{table_id}"' if table_id else ""
    return f"<table{attribute}><tr>{head}</tr>{rows}</table>"


def _facts(facts: ReportFacts | None) -> str:
    if facts is None:
        return ""
    version = facts.version + (f" (git commit {facts.commit})" if facts.commit else "")
    size = (
        f"{facts.dataset_files} file{'s' if facts.dataset_files != 1 else ''}, {facts.dataset_bytes:,} bytes"
    )
    profiles = "".join(
        f"<li><b>{_esc(name)}</b>: {_esc(', '.join(tools) or 'no run recorded')}</li>"
        for name, tools in facts.toolchains.items()
    )
    items = [
        ("Dataset", f"{_esc(facts.dataset)} ({size})"),
        ("Date", _esc(facts.generated_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC"))),
        ("surge-pipeline", _esc(version)),
        ("Host", _esc(facts.host)),
        ("Profiles and toolchains", f'<ul style="margin:0;padding-left:1.2em">{profiles}</ul>'),
    ]
    body = "".join(f'<dt>{name}</dt><dd data-fact="{name}">{value}</dd>' for name, value in items)
    return f'<dl class="facts" id="facts">{body}</dl>'


def _headline_table(figures: AuditFigures) -> str:
    """One row per subset and a total, each label once at its best profile: the terminal's figures."""
    lines = headline(figures)
    causes = sorted({c for _, f in lines for c in f.explained}, key=CLASS_ORDER.index)
    columns = [
        ("labels", "labels"),
        ("reproduced", "reproduced"),
        *((f"explained:{c}", f"explained: {words(c)}") for c in causes),
        ("unexplained", "unexplained mismatch"),
        ("refused", "refused (not readable)"),
        ("not_run", "not run"),
    ]
    head = "<th>subset</th>" + "".join(f"<th>{_esc(title)}</th>" for _, title in columns)
    body = []
    for name, line in lines:
        subset = name.removeprefix("TOTAL").strip() or "all subsets"
        cells = "".join(f'<td data-field="{key}">{_headline_value(line, key)}</td>' for key, _ in columns)
        total = ' class="total"' if name == "TOTAL" else ""
        body.append(f'<tr data-subset="{_esc(subset)}"{total}><td>{_esc(subset)}</td>{cells}</tr>')
    return f'<table id="headline"><tr>{head}</tr>{"".join(body)}</table>'


def _headline_value(figures: LabelFigures, key: str) -> int:
    if key.startswith("explained:"):
        return figures.explained.get(key.split(":", 1)[1], 0)
    return int(getattr(figures, key))


def _profile_matrix(figures: AuditFigures) -> str:
    """Subset x profile: labels reproduced under that profile alone (a label can count under several)."""
    profiles = figures.profiles
    if not profiles:
        return ""
    body = [
        [s, *(f"{f.reproduced_per_profile.get(p, 0)} of {f.labels}" for p in profiles)]
        for s, f in figures.by_subset.items()
    ]
    body.append(
        ["all subsets", *(f"{figures.reproduced_per_profile[p]} of {figures.labels}" for p in profiles)]
    )
    return (
        "<div><h3>Per profile: labels reproduced under each profile</h3>"
        + _table(["subset", *profiles], body, "by-profile")
        + "<p>A label reproduced under two profiles counts in both columns.</p></div>"
    )


def _legend(rows: Sequence[AuditRow]) -> str:
    present = {r.audit_class.value for r in rows}
    items = "".join(
        f'<li><i class="swatch" style="background:{CLASS_COLOURS[k]}"></i><b>{_esc(words(k))}</b>: '
        f"{_esc(CLASS_WORDS[k][1])}</li>"
        for k in CLASS_ORDER
        if k in present
    )
    return f'<ul class="legend" id="legend">{items}</ul>'


def _label_tables(rows: Sequence[AuditRow], limit: int = 500) -> str:
    """Per subset, one line per label: its class under each profile, its best class, who reproduces it."""
    profiles = sorted({r.profile for r in rows})
    columns = ["label", "language", *(f"class under {p}" for p in profiles), "best class", "reproduced by"]
    parts = []
    for subset, lines in label_lines(rows).items():
        body = [
            [
                line.location,
                line.language,
                *(words(line.classes[p].value) if p in line.classes else "-" for p in profiles),
                words(line.best_class.value),
                ", ".join(line.reproduced_by) or "none",
            ]
            for line in lines[:limit]
        ]
        parts.append(
            f'<details id="labels-{_esc(subset)}"><summary>{_esc(subset)}: {len(lines)} labels</summary>'
            f"{_table(columns, body)}</details>"
        )
    return "".join(parts)


def _disagreements(rows: Sequence[AuditRow], limit: int = 200) -> str:
    shown = [r for r in rows if r.audit_class not in REPRODUCED][:limit]
    items = []
    for row in shown:
        leak = f"<p>leaks: {_esc('; '.join(row.leaks))}</p>" if row.leaks else ""
        score = "no score" if row.score is None else f"score {row.score:.3f}"
        items.append(
            f"<details><summary>{_esc(row.location)} ({_esc(row.language)}, profile {_esc(row.profile)}): "
            f"{_esc(words(row.audit_class.value))}, {score}. {_esc(row.reason)}</summary>"
            f"{leak}<pre>{_esc(row.evidence or '(no diff)')}</pre></details>"
        )
    return "".join(items) or "<p>none</p>"


def render_html(
    figures: AuditFigures,
    rows: Sequence[AuditRow],
    facts: ReportFacts | None = None,
    title: str = "SURGE label audit",
) -> str:
    leaks = "".join(f"<li>{_esc(r.location)}: {_esc('; '.join(r.leaks))}</li>" for r in _unique_leaks(rows))
    refusals = "".join(f"<li>{_esc(r.location)}: {_esc(r.reason)}</li>" for r in figures.refusals)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title><style>{CSS}</style></head>
<body><h1>{_esc(title)}</h1>
{_facts(facts)}
<p>{figures.labels} labels, {figures.rows} audited runs, {figures.refused} refused records.
{_skipped(figures)}</p>
<h2>Labels, each at its best profile</h2>
<div class="side"><div>{_headline_table(figures)}</div>
{_profile_matrix(figures)}</div>
<p>Each label is counted once, by its best class over the profiles: the figures the terminal and
<code>--json</code> print.</p>
<h2>Classes that occur</h2>
{_legend(rows)}
{stacked_chart("labels by best class, per subset", best_class_counts(rows))}
<h2>CPU time</h2>
{cpu_histogram(cpu_time_counts(rows))}
{recorded_time_table(recorded_times(rows))}
<h2>Every label</h2>
{_label_tables(rows)}
<h2>Answer leakage</h2><ul>{leaks or "<li>none</li>"}</ul>
<h2>Refused records</h2><ul>{refusals or "<li>none</li>"}</ul>
<h2>Disagreements (with evidence)</h2>
{_disagreements(rows)}
</body></html>
"""


def _skipped(figures: AuditFigures) -> str:
    return "".join(f" Skipped {_esc(name)}: {_esc(why)}." for name, why in figures.skipped_profiles.items())


def _unique_leaks(rows: Sequence[AuditRow]) -> list[AuditRow]:
    seen: dict[str, AuditRow] = {}
    for row in rows:
        if row.leaks:
            seen.setdefault(row.location, row)
    return list(seen.values())
