"""The audit's summary: counts per class, agreement by subset and language, a terminal table, and a
self-contained HTML page (inline CSS and SVG, no scripts, nothing fetched) that opens offline."""

from __future__ import annotations

import html
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pipeline.audit.plan import best_profile, best_rows, reproducing_profiles
from pipeline.audit.rows import EXPLAINED, REPRODUCED, UNEXPLAINED, AuditClass, AuditRow, Refusal

CLASS_ORDER = [c.value for c in AuditClass]
SVG_NS = "http://www.w3.org/2000/svg"  # a namespace name, never fetched
CLASS_COLOURS = {
    "reproduced_exact": "#2e7d32",
    "reproduced_normalised": "#81c784",
    "toolchain_drift": "#1e88e5",
    "locale_drift": "#8e24aa",
    "non_deterministic": "#f9a825",
    "non_deterministic_code": "#fdd835",
    "cannot_build": "#6d4c41",
    "no_run_instruction": "#a1887f",
    "missing_dependency": "#90a4ae",
    "empty_label": "#00897b",
    "conflicting_duplicate": "#5e35b1",
    "timeout": "#ef6c00",
    "resource_limit": "#ffb74d",
    "not_run": "#9e9e9e",
    "mismatch": "#c62828",
}


# ---------------------------------------------------------------------------------------------
# Summary (what --json prints)
# ---------------------------------------------------------------------------------------------


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarise(
    rows: Sequence[AuditRow], refusals: Sequence[Refusal], skipped_profiles: dict[str, str] | None = None
) -> dict[str, Any]:
    """Per subset and in total: each label counted once, by its best class over profiles (issue 15:
    labels, reproduced, explained per named cause, unexplained, refused, not_run), plus per-run class
    counts and mean scores (not-run labels excluded from the mean)."""
    refused_by_subset = Counter(r.subset for r in refusals)
    groups = _group(rows, lambda r: r.subset)
    by_subset: dict[str, dict[str, Any]] = {}
    for subset in sorted(set(groups) | set(refused_by_subset)):
        by_subset[subset] = _figures(groups.get(subset, []), refused_by_subset[subset])
    by_language = {
        f"{subset}/{language}": _figures(group)
        for (subset, language), group in sorted(_group(rows, lambda r: (r.subset, r.language)).items())
    }
    profiles = sorted({r.profile for r in rows})
    return {
        **_label_figures(rows, len(refusals)),
        "rows": len(rows),
        "refusals": [{"location": f.location, "reason": f.reason} for f in refusals],
        "classes": dict(Counter(r.audit_class.value for r in rows)),
        "by_subset": by_subset,
        "by_language": by_language,
        "leaks": sorted({r.location for r in rows if r.leaks}),
        "profiles": profiles,
        "skipped_profiles": skipped_profiles or {},
        "best_profile": best_profile(rows) if len(profiles) > 1 else None,
        "reproduced_by": reproducing_profiles(rows) if len(profiles) > 1 else {},
    }


def _label_figures(rows: Sequence[AuditRow], refused: int) -> dict[str, Any]:
    """Each label once, by its best class: the figures issue 15 asks `--json` for."""
    best = [row.audit_class for row in best_rows(rows).values()]
    return {
        "labels": len(best) + refused,
        "reproduced": sum(c in REPRODUCED for c in best),
        "explained": dict(sorted(Counter(c.value for c in best if c in EXPLAINED).items())),
        "unexplained": sum(c in UNEXPLAINED for c in best),
        "refused": refused,
        "not_run": sum(c is AuditClass.NOT_RUN for c in best),
    }


def _group(rows: Iterable[AuditRow], key: Any) -> dict[Any, list[AuditRow]]:
    groups: dict[Any, list[AuditRow]] = defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    return dict(groups)


def _figures(rows: Sequence[AuditRow], refused: int = 0) -> dict[str, Any]:
    scores = [r.score for r in rows if r.score is not None]
    reproduced = sum(r.audit_class in REPRODUCED for r in rows)
    ran = sum(r.audit_class is not AuditClass.NOT_RUN for r in rows)
    ranking = best_profile(rows) if len({r.profile for r in rows}) > 1 else None
    return {
        **_label_figures(rows, refused),
        "counts": dict(Counter(r.audit_class.value for r in rows)),  # per run: one per label and profile
        "runs": len(rows),
        "mean_score": _mean(scores),
        # share of the runs that ran and reproduce: a missing toolchain says nothing of a label
        "agreement": round(reproduced / ran, 4) if ran else None,
        "best_profile": ranking["profile"] if ranking else None,
        "best_profile_tied_with": [n for n in ranking["tied"] if n != ranking["profile"]] if ranking else [],
    }


# ---------------------------------------------------------------------------------------------
# Terminal
# ---------------------------------------------------------------------------------------------

SHORT = {
    "reproduced_exact": "exact",
    "reproduced_normalised": "norm",
    "toolchain_drift": "tool",
    "locale_drift": "locale",
    "non_deterministic": "nondet",
    "non_deterministic_code": "nondet?",
    "cannot_build": "nobuild",
    "no_run_instruction": "norun-i",
    "missing_dependency": "nodep",
    "empty_label": "empty",
    "conflicting_duplicate": "dup",
    "timeout": "timeout",
    "resource_limit": "limit",
    "not_run": "notrun",
    "mismatch": "MISMATCH",
}


def render_text(summary: dict[str, Any]) -> str:
    """Each label once (its best class over profiles), per subset and language, then the causes."""
    header = f"{'subset/language':<18}{'labels':>7}{'reprod':>8}{'explain':>8}{'unexpl':>8}"
    header += f"{'refused':>8}{'notrun':>8}{'score':>7}  best profile"
    lines = [header]
    groups = [*summary["by_language"].items(), *(("TOTAL " + s, f) for s, f in summary["by_subset"].items())]
    for name, figures in [*groups, ("TOTAL", summary)]:
        score = "-" if figures.get("mean_score") is None else f"{figures['mean_score']:.3f}"
        explained = sum(figures["explained"].values())
        best = figures.get("best_profile")
        best_name = best.get("profile") if isinstance(best, dict) else best
        tied = (
            best.get("tied", [])[1:] if isinstance(best, dict) else figures.get("best_profile_tied_with", [])
        )
        best_name = f"{best_name} (tied: {', '.join(tied)})" if tied else best_name
        lines.append(
            f"{name:<18}{figures['labels']:>7}{figures['reproduced']:>8}{explained:>8}"
            f"{figures['unexplained']:>8}{figures['refused']:>8}{figures['not_run']:>8}{score:>7}"
            f"  {best_name or '-'}"
        )
    if summary["explained"]:
        lines.append("explained by: " + ", ".join(f"{k} {v}" for k, v in summary["explained"].items()))
    if summary["refusals"]:
        lines.append(f"refused records: {summary['refused']} (kept in the quarantine table)")
        lines.extend(f"  {r['location']}: {r['reason']}" for r in summary["refusals"][:20])
    if summary["leaks"]:
        lines.append(
            f"answer leakage: {len(summary['leaks'])} programs ({', '.join(summary['leaks'][:8])} ...)"
        )
    for name, reason in summary.get("skipped_profiles", {}).items():
        lines.append(f"profile {name} skipped: {reason}")
    if isinstance(summary.get("best_profile"), dict):
        ranking = summary["best_profile"]["ranking"]
        lines.append(
            "profiles: " + ", ".join(f"{r['profile']} {r['reproduced']}/{r['labels']}" for r in ranking)
        )
        lines.append(f"best profile: {summary['best_profile']['profile']}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1200px}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;font-size:12px}
.legend span{display:inline-block;margin-right:1em}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px}
details{margin:4px 0}
"""


def _esc(value: object) -> str:
    return html.escape(str(value))


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
                    f'fill="{CLASS_COLOURS[klass]}"><title>{klass}: {counts[klass]}</title></rect>'
                )
                x += share
    parts.append("</svg>")
    return "".join(parts)


def cpu_histogram(cpu_seconds: Sequence[float]) -> str:
    """CPU time per label on log-spaced bins (1 ms .. 100 s)."""
    edges = [10.0**e for e in range(-3, 3)]
    labels = ["< 1 ms"] + [f"{_fmt_s(lo)} - {_fmt_s(hi)}" for lo, hi in zip(edges, edges[1:], strict=False)]
    labels.append(f">= {_fmt_s(edges[-1])}")
    counts = [0] * len(labels)
    for value in cpu_seconds:
        index = 0 if value < edges[0] else min(len(labels) - 1, 1 + int(math.floor(math.log10(value) + 3)))
        counts[index] += 1
    return bar_chart("CPU time per label (compile + run)", list(zip(labels, map(float, counts), strict=True)))


def recorded_time_table(rows: Sequence[AuditRow]) -> str:
    """sc/tc: our CPU seconds against the time SURGE recorded for the same script and command."""
    timed = [r for r in rows if r.recorded_time_s is not None and r.audit_class is not AuditClass.NOT_RUN]
    if not timed:
        return ""
    body = []
    for subset, group in sorted(_group(timed, lambda r: r.subset).items()):
        ours = sorted(r.cpu_s for r in group)
        recorded = sorted(r.recorded_time_s or 0.0 for r in group)
        body.append(
            [subset, len(group), f"{ours[len(ours) // 2]:.3f}", f"{recorded[len(recorded) // 2]:.3f}"]
        )
    return _table(["subset", "runs", "median CPU s (ours)", "median recorded s (SURGE)"], body)


def _fmt_s(seconds: float) -> str:
    return f"{seconds * 1000:g} ms" if seconds < 1 else f"{seconds:g} s"


def _table(headers: Sequence[str], body: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{_esc(h)}</th>" for h in headers)
    rows = "".join("<tr>" + "".join(f"<td>{_esc(c)}</td>" for c in row) + "</tr>" for row in body)
    return f"<table><tr>{head}</tr>{rows}</table>"


def _class_table(groups: dict[str, dict[str, Any]]) -> str:
    body = [
        [
            name,
            f["labels"],
            f["runs"],
            *(f["counts"].get(c, 0) for c in CLASS_ORDER),
            f["refused"],
            "-" if f["mean_score"] is None else f"{f['mean_score']:.3f}",
        ]
        for name, f in groups.items()
    ]
    columns = ["group", "labels", "runs", *(SHORT[c] for c in CLASS_ORDER), "refused", "mean score"]
    return _table(columns, body)


def _disagreements(rows: Sequence[AuditRow], limit: int = 200) -> str:
    shown = [r for r in rows if r.audit_class not in REPRODUCED][:limit]
    items = []
    for row in shown:
        leak = f"<p>leaks: {_esc('; '.join(row.leaks))}</p>" if row.leaks else ""
        items.append(
            f"<details><summary>{_esc(row.location)} [{_esc(row.language)}, {_esc(row.profile)}] "
            f"{_esc(row.audit_class.value)} score={row.score} {_esc(row.reason)}</summary>"
            f"{leak}<pre>{_esc(row.evidence or '(no diff)')}</pre></details>"
        )
    return "".join(items) or "<p>none</p>"


def render_html(summary: dict[str, Any], rows: Sequence[AuditRow], title: str = "SURGE label audit") -> str:
    legend = "".join(
        f'<span><i class="swatch" style="background:{colour}"></i>{klass}</span>'
        for klass, colour in CLASS_COLOURS.items()
    )
    agreement_subset = [
        (s, f["agreement"]) for s, f in summary["by_subset"].items() if f["agreement"] is not None
    ]
    agreement_language = [
        (n, f["agreement"]) for n, f in summary["by_language"].items() if f["agreement"] is not None
    ]
    profile_section = ""
    if summary.get("profiles"):
        ranking = (summary.get("best_profile") or {}).get("ranking", [])
        best_name = (summary.get("best_profile") or {}).get("profile", summary["profiles"][0])
        profile_section = (
            "<h2>Profiles</h2>"
            + _table(
                ["profile", "reproduced", "labels", "mean score"],
                [[r["profile"], r["reproduced"], r["labels"], r["mean_score"]] for r in ranking],
            )
            + f"<p>best: <b>{_esc(best_name)}</b></p>"
            + _table(
                ["subset", "best profile", "as good"],
                [
                    [s, f["best_profile"] or "-", ", ".join(f["best_profile_tied_with"])]
                    for s, f in summary["by_subset"].items()
                ],
            )
            + profile_matrix(rows)
        )
    leaks = "".join(f"<li>{_esc(r.location)}: {_esc('; '.join(r.leaks))}</li>" for r in _unique_leaks(rows))
    refusals = "".join(f"<li>{_esc(r['location'])}: {_esc(r['reason'])}</li>" for r in summary["refusals"])
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{_esc(title)}</title><style>{CSS}</style></head>
<body><h1>{_esc(title)}</h1>
<p>{summary["labels"]} labels, {summary["rows"]} audited runs, {summary["refused"]} refused records,
profiles: {_esc(", ".join(summary["profiles"]) or "-")}.{_skipped(summary)}</p>
<div class="legend">{legend}</div>
<h2>Agreement</h2>
<p>Share of the labels that ran (not-run labels excluded) reproduced exactly or after normalisation.
Table columns: {_esc(", ".join(f"{SHORT[c]} = {c}" for c in CLASS_ORDER))}.</p>
{bar_chart("share of labels reproduced, by subset", agreement_subset, max_value=1.0)}
{bar_chart("share of labels reproduced, by subset/language", agreement_language, max_value=1.0)}
<h2>Classes</h2>
{stacked_chart("classes by subset", {s: f["counts"] for s, f in summary["by_subset"].items()})}
{_class_table(summary["by_subset"])}
{_class_table(summary["by_language"])}
<h2>CPU time</h2>
{cpu_histogram([r.cpu_s for r in rows if r.audit_class is not AuditClass.NOT_RUN])}
{recorded_time_table(rows)}
{profile_section}
<h2>Answer leakage</h2><ul>{leaks or "<li>none</li>"}</ul>
<h2>Refused records</h2><ul>{refusals or "<li>none</li>"}</ul>
<h2>Disagreements (with evidence)</h2>
{_disagreements(rows)}
</body></html>
"""


def _skipped(summary: dict[str, Any]) -> str:
    skipped = summary.get("skipped_profiles") or {}
    return "".join(f" Skipped {_esc(name)}: {_esc(why)}." for name, why in skipped.items())


def profile_matrix(rows: Sequence[AuditRow], limit: int = 500) -> str:
    """One line per label, one column per profile, then the label's best class and the profiles that
    reproduce it: which environment made which label."""
    profiles = sorted({r.profile for r in rows})
    cells: dict[str, dict[str, str]] = defaultdict(dict)
    for row in rows:
        cells[row.location][row.profile] = SHORT[row.audit_class.value]
    best = {row.location: row.audit_class.value for row in best_rows(rows).values()}
    reproducing = reproducing_profiles(rows)
    body = [
        [
            location,
            *(by_profile.get(p, "-") for p in profiles),
            best[location],
            ", ".join(reproducing[location]),
        ]
        for location, by_profile in sorted(cells.items())[:limit]
    ]
    return _table(["label", *profiles, "best class", "reproduced by"], body)


def _unique_leaks(rows: Sequence[AuditRow]) -> list[AuditRow]:
    seen: dict[str, AuditRow] = {}
    for row in rows:
        if row.leaks:
            seen.setdefault(row.location, row)
    return list(seen.values())
