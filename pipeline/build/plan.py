"""Planning: a build's deterministic sequence of instances, written to the plan table by batch.

Instance ``index`` of a build depends only on (seed, subset, index) and the template set, never on
``n``: growing a build appends instances, and the same seed plans the same programs. The planners here
are construction methods' (a subset spec holds its own, ``SubsetSpec.plan_items``) and are handed the
spec; which spec plans a build is the driver's question (pipeline/build/steps.py).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline.build.records import BuildConfig, BuildItem, plan_table
from pipeline.errors import ConfigurationError
from pipeline.records import LabelProtocol, Language, Program, ProgramFile, SourceItem, content_id
from pipeline.templates import (
    ScriptTemplate,
    SnippetTemplate,
    instance_rng,
    library_scripts,
    library_snippets,
)
from pipeline.templates.released import released_templates
from pipeline.templates.snippet_files import released_snippets
from sources.surge_release import SURGE_SUBSETS, ReleasedRecord, load_release

if TYPE_CHECKING:  # the spec is handed in: a subset's file imports these planners
    from pipeline.store import Store
    from pipeline.subsets.base import SubsetSpec


def script_templates(spec: SubsetSpec, config: BuildConfig) -> tuple[ScriptTemplate, ...]:
    """The library's templates, or SURGE's own scripts (by fid) when --templates names the release."""
    if config.templates == "library":
        found = library_scripts(config.subset)
        if not found:
            raise ConfigurationError(
                f"no manual-implementation templates for subset {config.subset!r}",
                hint="add its scripts to pipeline/templates/scripts/<subset>/, their samplers to catalog.py",
            )
        return found
    records = _released_records(spec, config)
    found = tuple(released_templates(records, spec.to_program))
    if not found:
        raise ConfigurationError(
            f"no {config.subset} scripts found in {config.templates}",
            hint="pass SURGE's dataset/ folder (or sources/samples/surge-released), or --templates library",
        )
    return found


def _released_records(spec: SubsetSpec, config: BuildConfig) -> list[ReleasedRecord]:
    """The subset's records in the release --templates names, read knowing SURGE's eight and this spec."""
    known = {**SURGE_SUBSETS, spec.name: spec.release_entry()}
    return load_release(Path(config.templates), {spec.name}, known)[0]


def script_item(
    config: BuildConfig,
    templates: tuple[ScriptTemplate, ...],
    index: int,
    argv: tuple[str, ...] | None = None,
    planned: dict[str, str] | None = None,
) -> BuildItem:
    template = templates[index % len(templates)]  # round robin: every template equally often
    if argv is None:
        argv = template.sampler(instance_rng(config.seed, config.subset, index))
    text = template.script()
    origin = {"subset": config.subset, "template": template.fid, "index": str(index)} | (planned or {})
    program = Program(
        language=Language.PYTHON,
        files=(ProgramFile(path=template.fid, content=text),),
        entry=template.fid,
        argv=argv,
        origin=origin,
    )
    return _item(config, index, template.fid, template.domain, template.origin, text, program)


def spread_items(
    config: BuildConfig, templates: tuple[ScriptTemplate, ...], start: int, count: int
) -> list[BuildItem] | None:
    """tc instances drawn for the bins of the time mix (spread.py), sizes solved from the calibration the
    config carries; None when it has none (no sized template, or planned without a calibration)."""
    from pipeline.build import spread

    found = {times.template: times for times in config.calibration_times}
    usable = [t for t in templates if t.fid in found and found[t.fid].sizes]
    if not usable:
        return None
    bins = spread.bin_sequence(spread.parse_mix(config.time_mix), start + count)
    return [_spread_item(config, usable, found, bins, index) for index in range(start, start + count)]


def _spread_item(
    config: BuildConfig,
    templates: list[ScriptTemplate],
    found: dict[str, Any],
    bins: list[str],
    index: int,
) -> BuildItem:
    from pipeline.build import spread

    name = bins[index]
    template = _turn(templates, found, name, bins[:index].count(name))
    scale, points = template.scale, found[template.fid].points
    assert scale is not None
    rng = instance_rng(config.seed, config.subset, index)
    size = spread.draw_size(points, scale.growth, scale.low, scale.high, name, rng, scale.exponent)
    origin = {"target_bin": name, scale.name: str(size)}
    return script_item(config, (template,), index, scale.argv(rng, size), origin)


def _turn(
    templates: list[ScriptTemplate], found: dict[str, Any], name: str, occurrence: int
) -> ScriptTemplate:
    """The template whose turn it is in this bin: those that can reach it take turns; if none can, the
    three that reach the longest times (their rows land below the bin, and the summary shows it)."""
    from pipeline.build import spread

    def reaches(t: ScriptTemplate) -> bool:
        assert t.scale is not None
        scale = t.scale
        return spread.reaches(found[t.fid].points, scale.growth, scale.low, scale.high, name, scale.exponent)

    def longest(t: ScriptTemplate) -> float:
        assert t.scale is not None
        return spread.predict_s(found[t.fid].points, t.scale.growth, t.scale.high, t.scale.exponent)

    eligible = [t for t in templates if reaches(t)] or sorted(templates, key=longest, reverse=True)[:3]
    return eligible[occurrence % len(eligible)]


def snippet_templates(spec: SubsetSpec, config: BuildConfig) -> tuple[SnippetTemplate, ...]:
    """The library's dr snippets, or SURGE's own dr programs when --templates names the release."""
    if config.templates == "library":
        return library_snippets()
    records = _released_records(spec, config)
    found = tuple(released_snippets(records))
    if not found:
        raise ConfigurationError(
            f"no {config.subset} programs found in {config.templates}",
            hint="pass SURGE's dataset/ folder (or sources/samples/surge-released), or --templates library",
        )
    return found


def snippet_item(config: BuildConfig, templates: tuple[SnippetTemplate, ...], index: int) -> BuildItem:
    template = templates[index % len(templates)]  # round robin, as for scripts
    text = template.render(instance_rng(config.seed, config.subset, index))
    program = Program(
        language=Language.CPP,
        files=(ProgramFile(path="test.cpp", content=text),),
        protocol=LabelProtocol.COMPILE_THEN_RUN,
        origin={"subset": config.subset, "template": template.name, "index": str(index)}
        # a snippet without holes (SURGE's own) repeats unchanged: its round says which labels are left
        | ({} if template.holes else {"round": str(index // len(templates))}),
    )
    # a library item names its file, as a script's fid does: the row's upstream path is template_folder/file
    name = f"{template.name}.cpp" if template.origin == "library" else template.name
    return _item(config, index, name, template.note, template.origin, text, program)


def template_item(config: BuildConfig, index: int, name: str, program: Program, where: str) -> BuildItem:
    """A subset file's own template instance (pyver's ``plan_item``, its planner through ``per_index``):
    ``where`` names the template's code."""
    text = program.files[0].content
    return _item(config, index, name, where, "library", text, program)


def _item(
    config: BuildConfig, index: int, name: str, domain: str, origin: str, text: str, program: Program
) -> BuildItem:
    return BuildItem(
        build_key=config.build_key,
        subset=config.subset,
        index=index,
        batch=index // config.batch_size,
        template=name,
        domain=domain,
        template_origin=origin,
        template_digest=content_id("template", text),
        program_json=program.model_dump_json(exclude={"program_id"}),
    )


def upstream_items(spec: SubsetSpec, config: BuildConfig) -> list[SourceItem]:
    """Refactor and prover subsets: the sources' items, stratified by language (round robin over
    languages, each language's items in a seeded order), so any prefix is as balanced as it can be."""
    from pipeline.build.refactor import sample_items
    from pipeline.refactor.methods import method_for

    names = spec.upstream_sources
    if config.items == "samples":
        items = [item for name in names for item in sample_items(name)]
    else:
        from pipeline.refactor.items import load_items

        items = [item for item in load_items(Path(config.items))[0] if item.source in names]
    # --language picks among a refactor subset's languages; a prover's statements are all Lean
    refactored = spec.refactors
    wanted = {name.lower() for name in config.languages} if refactored else set()
    groups: dict[str, list[SourceItem]] = {}
    for item in sorted(items, key=lambda i: (i.source, i.key)):
        # a LeetCode write-up names no language: the solution the refactor will use decides
        language = (item.upstream_language or method_for(item).language(item).value).lower()
        if not wanted or language in wanted or (item.language and item.language.value in wanted):
            groups.setdefault(language, []).append(item)
    for language, group in groups.items():
        random.Random(f"{config.seed}:{language}").shuffle(group)
    ordered = []
    for round_ in range(max((len(g) for g in groups.values()), default=0)):
        ordered += [groups[lang][round_] for lang in sorted(groups) if round_ < len(groups[lang])]
    return ordered


def refactor_item(config: BuildConfig, index: int, item: SourceItem) -> BuildItem:
    return BuildItem(
        build_key=config.build_key,
        subset=config.subset,
        index=index,
        batch=index // config.batch_size,
        template=item.key,
        domain=item.upstream_language or "",
        template_origin=item.source,
        template_digest=item.upstream_commit,
        source_item_json=item.model_dump_json(exclude={"item_id"}),
    )


def repository_item(
    config: BuildConfig, index: int, task_json: str, input_path: str, digest: str
) -> BuildItem:
    return BuildItem(
        build_key=config.build_key,
        subset=config.subset,
        index=index,
        batch=index // config.batch_size,
        template=input_path,
        domain=input_path,
        template_origin="repository",
        template_digest=digest,
        source_item_json=task_json,
    )


def repository_items(spec: SubsetSpec, config: BuildConfig, start: int, count: int) -> list[BuildItem]:
    """rl: the manifest's (repository, input) pairs, in its order."""
    from pipeline.build.repository import SAMPLE_MANIFEST, read_manifest

    manifest = SAMPLE_MANIFEST if config.items == "samples" else Path(config.items)
    pairs = read_manifest(manifest)[start : start + count]
    return [
        repository_item(config, start + offset, task.model_dump_json(), path, content_id("repo-task", task))
        for offset, (task, path) in enumerate(pairs)
    ]


def plan_scripts(spec: SubsetSpec, config: BuildConfig, start: int, count: int) -> list[BuildItem]:
    """sc, tc: the library's scripts (or the release's, by fid), round robin, with sampled command lines;
    tc with a calibration: drawn for the time bins of its mix instead (spread_items)."""
    templates = script_templates(spec, config)
    spread = spread_items(config, templates, start, count)
    if spread is not None:
        return spread
    return [script_item(config, templates, index) for index in range(start, start + count)]


def plan_snippets(spec: SubsetSpec, config: BuildConfig, start: int, count: int) -> list[BuildItem]:
    """dr: the library's C++ snippets (or SURGE's dr programs, --templates), round robin, holes sampled."""
    snippets = snippet_templates(spec, config)
    return [snippet_item(config, snippets, index) for index in range(start, start + count)]


def plan_upstream(spec: SubsetSpec, config: BuildConfig, start: int, count: int) -> list[BuildItem]:
    """Refactor and prover subsets: the upstream sources' items, stratified by language."""
    chosen = upstream_items(spec, config)[start : start + count]
    return [refactor_item(config, start + offset, item) for offset, item in enumerate(chosen)]


def read_batch(store: Store, build_key: str, batch: int) -> list[BuildItem]:
    rows = plan_table(store).records(where={"build_key": build_key, "batch": batch})
    unique = {item.item_id: item for item in rows}
    return sorted(unique.values(), key=lambda item: item.index)
