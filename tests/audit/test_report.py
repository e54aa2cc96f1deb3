from __future__ import annotations

from html.parser import HTMLParser

from pipeline.audit.figures import cpu_time_counts, headline_rows, label_lines, recorded_times, summarise
from pipeline.audit.html import render_html
from pipeline.audit.ranking import best_profile, reproducing_profiles
from pipeline.audit.rows import AuditClass, Conversion, Refusal
from pipeline.audit.verdicts import audit_row
from pipeline.commands.audit import render_notes, render_table
from pipeline.records import EnvironmentProfile, Program, RunRequest, Verdict
from pipeline.subsets import ProgramPlan
from sources.surge_release import ReleasedRecord
from tests.audit.fakes import result_for


def _conversion(index: int, gt: str, question: str = "print(4)  # Output: 4") -> Conversion:
    record = ReleasedRecord(
        subset="cl",
        index=index,
        location=f"cl.json[{index}]",
        question=question,
        gt=gt,
        custom_features={"language": "Python", "difficulty": 1},
    )
    plan = ProgramPlan(language="python", program=Program.single("python", question))
    return Conversion(record=record, plan=plan)


def _rows():
    old, new = EnvironmentProfile(name="old"), EnvironmentProfile(name="new")
    rows = []
    for profile, label in ((old, "4\n"), (new, "5\n")):
        for conversion in (_conversion(0, "4"), _conversion(1, "4", "print(2+2)")):
            request = RunRequest(program=conversion.program, profile=profile)
            rows.append(audit_row(conversion, profile, result_for(request, label, Verdict.OK)))
    return rows


def test_rows_carry_class_score_leaks_and_cpu() -> None:
    rows = _rows()
    first = rows[0]
    assert (first.profile, first.audit_class, first.score, first.metric) == (
        "old",
        AuditClass.EXACT,
        1.0,
        "exact_match",
    )
    assert first.leaks == ("comment line 1: # Output: 4",)
    assert first.cpu_s == 0.03
    assert rows[2].audit_class is AuditClass.MISMATCH and rows[2].score == 0.0


def test_best_profile_and_who_reproduces_what() -> None:
    rows = _rows()
    best = best_profile(rows)
    assert best is not None and (best.profile, best.tied, best.tied_with) == ("old", ["old"], [])
    assert [(p.profile, p.reproduced, p.unexplained, p.labels) for p in best.ranking] == [
        ("old", 2, 0, 2),
        ("new", 0, 2, 2),
    ]
    assert reproducing_profiles(rows) == {"cl.json[0]": ["old"], "cl.json[1]": ["old"]}


def test_summary_counts_per_subset_and_refusals() -> None:
    refusal = Refusal(subset="sc", location="sc.json[0]", reason="no blocks")
    summary = summarise(_rows(), [refusal])
    cl = summary.by_subset["cl"]
    assert cl.counts == {"reproduced_exact": 2, "mismatch": 2}  # per run: 2 labels x 2 profiles
    assert cl.mean_score == 0.5
    # each label once, by its best class over the profiles
    assert (cl.labels, cl.reproduced, cl.unexplained, cl.explained) == (2, 2, 0, {})
    assert cl.best_profile == "old"
    assert summary.by_subset["sc"].refused == 1 and summary.by_subset["sc"].labels == 1
    assert (summary.labels, summary.reproduced, summary.refused, summary.not_run) == (3, 2, 1, 0)
    assert summary.best_profile is not None and summary.best_profile.profile == "old"
    text = "\n".join([*render_table(summary), *render_notes(summary)])
    assert "cl/python" in text and "best profile: old" in text and "sc.json[0]: no blocks" in text


def test_headline_rows_per_language_subset_and_total() -> None:
    rows = headline_rows(summarise(_rows(), [Refusal(subset="sc", location="sc.json[0]", reason="x")]))
    assert [r.name for r in rows] == ["cl/python", "TOTAL cl", "TOTAL sc", "TOTAL"]
    total = rows[-1]
    assert (total.labels, total.reproduced, total.refused, total.mean_score) == (3, 2, 1, None)
    assert (total.best_profile, total.tied_with) == ("old", [])
    assert (rows[1].mean_score, rows[1].best_profile) == (0.5, "old")


def test_label_lines_cpu_bins_and_recorded_times() -> None:
    rows = _rows()
    lines = label_lines(rows)["cl"]
    assert [line.location for line in lines] == ["cl.json[0]", "cl.json[1]"]
    assert lines[0].classes == {"old": AuditClass.EXACT, "new": AuditClass.MISMATCH}
    assert (lines[0].best_class, lines[0].reproduced_by) == (AuditClass.EXACT, ["old"])
    # 0.03 CPU seconds each: the bin 10 ms - 100 ms, the third of seven
    assert cpu_time_counts(rows) == [0, 0, 4, 0, 0, 0, 0]
    timed = [
        rows[0].model_copy(update={"recorded_time_s": t, "cpu_s": c}) for t, c in ((1.0, 0.5), (3.0, 2.5))
    ]
    assert [(t.subset, t.runs, t.median_cpu_s, t.median_recorded_s) for t in recorded_times(timed)] == [
        ("cl", 2, 2.5, 3.0)
    ]
    assert recorded_times(rows) == []  # no recorded time: no table


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.links += [v or "" for k, v in attrs if k in ("src", "href")]


def test_html_report_is_self_contained() -> None:
    page = render_html(summarise(_rows(), []), _rows())
    parser = _Collector()
    parser.feed(page)
    assert "script" not in parser.tags and "link" not in parser.tags and "img" not in parser.tags
    assert parser.links == []
    assert parser.tags.count("svg") >= 2  # best classes by subset, CPU time
    assert "cl.json[0]" in page and "# Output: 4" in page  # leak listed with its evidence
    # several profiles: each label's class under each profile, in words
    assert "<th>label</th><th>language</th><th>class under new</th><th>class under old</th>" in page
    assert (
        "<td>cl.json[1]</td><td>python</td><td>unexplained mismatch</td><td>reproduced exactly</td>"
        "<td>reproduced exactly</td><td>old</td>"
    ) in page


def test_recorded_time_is_parsed_from_both_spellings() -> None:
    from pipeline.subsets.programs import recorded_time_s as recorded_time

    assert recorded_time("1.1037 seconds") == 1.1037
    assert recorded_time(0.25) == 0.25
    assert recorded_time(None) is None and recorded_time("n/a") is None


def test_html_report_says_which_profiles_were_skipped() -> None:
    summary = summarise(_rows(), [], {"current": "docker: the Docker engine is not reachable"})
    assert "Skipped current: docker: the Docker engine is not reachable." in render_html(summary, _rows())


class HeadlineReader(HTMLParser):
    """The headline table's figures, subset -> field -> count, read back from the page."""

    def __init__(self) -> None:
        super().__init__()
        self.figures: dict[str, dict[str, int]] = {}
        self._subset: str | None = None
        self._field: str | None = None
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "table":
            self._inside = found.get("id") == "headline"
        elif self._inside and tag == "tr" and found.get("data-subset"):
            self._subset = found["data-subset"]
            self.figures[self._subset or ""] = {}
        elif self._inside and tag == "td":
            self._field = found.get("data-field")

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self._inside = False
        self._field = None if tag == "td" else self._field

    def handle_data(self, data: str) -> None:
        if self._inside and self._subset and self._field:
            self.figures[self._subset][self._field] = int(data)


def headline_of(page: str) -> dict[str, dict[str, int]]:
    reader = HeadlineReader()
    reader.feed(page)
    return reader.figures


def expected_headline(figures: dict) -> dict[str, int]:
    keys = ("labels", "reproduced", "unexplained", "refused", "not_run")
    explained = {f"explained:{cause}": count for cause, count in figures["explained"].items()}
    return {**{key: figures[key] for key in keys}, **explained}


def test_html_counts_each_label_at_its_best_like_the_terminal() -> None:
    """Two labels, both reproduced under `old`, both mismatched under `new`: 2 of 2 reproduced, the
    per-profile matrix beside it says 2 under old and 0 under new."""
    summary = summarise(_rows(), [])
    page = render_html(summary, _rows())
    figures = headline_of(page)
    assert figures["cl"] == {"labels": 2, "reproduced": 2, "unexplained": 0, "refused": 0, "not_run": 0}
    assert figures["all subsets"] == expected_headline(summary.model_dump())
    assert "Per profile: labels reproduced under each profile" in page
    assert "<td>cl</td><td>0 of 2</td><td>2 of 2</td>" in page  # columns new, old


def test_html_names_only_the_classes_that_occur_in_words() -> None:
    page = render_html(summarise(_rows(), []), _rows())
    legend = page[page.index('id="legend"') : page.index("</ul>", page.index('id="legend"'))]
    assert "reproduced exactly" in legend and "unexplained mismatch" in legend
    assert legend.count("<li>") == 2  # two classes occur, not all fifteen
    for abbreviation in ("norun-i", "nondet?", "MISMATCH", "reprod ", "notrun"):
        assert abbreviation not in page


def test_html_states_dataset_date_version_and_toolchains(tmp_path) -> None:
    from datetime import UTC, datetime

    from pipeline.audit.html import ReportFacts

    facts = ReportFacts(
        dataset="/data/surge/dataset",
        dataset_files=3,
        dataset_bytes=1234,
        generated_at=datetime(2026, 11, 25, 11, 30, tzinfo=UTC),
        version="1.2.3",
        commit="abc123def456",
        host="bench-1",
        toolchains={"old": ["backend bwrap", "python3 3.11.2"], "new": ["image sha256:feed"]},
    )
    page = render_html(summarise(_rows(), []), _rows(), facts)
    for fact in (
        "/data/surge/dataset (3 files, 1,234 bytes)",
        "2026-11-25 11:30 UTC",
        "1.2.3 (git commit abc123def456)",
        "bench-1",
        "<b>old</b>: backend bwrap, python3 3.11.2",
        "<b>new</b>: image sha256:feed",
    ):
        assert fact in page


def test_every_audit_class_has_words_and_a_colour_in_the_report() -> None:
    # the HTML report names and colours each class it counts; a class without either crashed `surge audit`
    from pipeline.audit.html import CLASS_COLOURS, CLASS_WORDS

    classes = sorted(c.value for c in AuditClass)
    assert sorted(CLASS_WORDS) == classes and sorted(CLASS_COLOURS) == classes


def test_the_text_ends_with_the_runs_and_where_the_outputs_went() -> None:
    from pipeline.audit.summary import AuditRuns, AuditSummary, Failure
    from pipeline.commands.audit import render, screen

    runs = AuditRuns(
        plan="adaptive", first_profiles={"cl": "old"}, runs_planned=4, runs_reused=1, runs_executed=3,
        executions_planned=6, executions_exhaustive=8, executions_saved=2, not_audited=1, sandbox_errors=1,
        failed_batches=0, failures=[Failure(reason="1 runs ended on a sandbox error", fix="run again")],
        report="r.html", audit_table="store/audit",
    )  # fmt: skip
    summary = AuditSummary.of(summarise(_rows(), []), runs).model_copy(update={"errata": "errata/"})
    lines = render(summary).splitlines()
    assert lines[-2:] == [
        "1 labels not audited (sandbox errors, quarantined): run again",
        "runs (adaptive plan): 4 planned (6 program executions, 2 fewer than every label under every "
        "profile), 1 reused from the store, 3 executed; report: r.html; errata: errata/",
    ]
    assert lines[0].startswith("subset/language") and lines[1].startswith("cl/python")
    [table] = screen(summary)
    assert table.notes[-2:] == lines[-2:] and table.rows[-1][0] == "TOTAL"
    assert summary.model_dump(mode="json")["failures"] == [
        {"reason": "1 runs ended on a sandbox error", "fix": "run again"}
    ]


def test_a_release_holding_one_record_twice_gets_a_line_per_location() -> None:
    """Two locations with the same program and label are one record id (a release's duplicate): the
    report once lost the second location's best row and crashed on it."""
    profile = EnvironmentProfile(name="old")
    twins = [_conversion(0, "4"), _conversion(1, "4")]
    assert twins[0].record.record_id == twins[1].record.record_id
    request = RunRequest(program=twins[0].program, profile=profile)
    rows = [audit_row(c, profile, result_for(request, "4\n", Verdict.OK)) for c in twins]
    lines = label_lines(rows)["cl"]
    assert [(line.location, line.best_class) for line in lines] == [
        ("cl.json[0]", AuditClass.EXACT),
        ("cl.json[1]", AuditClass.EXACT),
    ]
