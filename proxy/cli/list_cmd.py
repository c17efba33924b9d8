"""`skillproxy list`: the skills the proxy would serve, as a table or JSON.

Skills that `skillproxy add` installed also show where they came from and whether their files
still match the root's skills-lock.json (`MODIFIED` when they do not).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from typing import Any

from proxy.cli.common import add_catalog_arguments, catalog_from_args, run_reporting_usage_errors
from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.skill import Skill
from proxy.install.status import InstallStatus, Statuses, install_statuses


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("list", help="list the skills found under the roots")
    add_catalog_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON array, one object per skill")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(run, args))


def run(args: argparse.Namespace) -> int:
    catalog = catalog_from_args(args)
    statuses = install_statuses(catalog.roots)
    for problem in statuses.problems:
        print(f"skillproxy: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps([skill_record(catalog, s, statuses) for s in catalog.all_skills()], ensure_ascii=False,
                         indent=2))
    else:
        print(render_table(catalog, statuses))
    return 0


def skill_record(catalog: Catalog, skill: Skill, statuses: Statuses | None = None) -> dict[str, Any]:
    winner = catalog.shadowed_by(skill)
    status = statuses.of(skill.folder) if statuses else None
    return {
        "name": skill.name,
        "description": skill.description,
        "when_to_use": skill.when_to_use or None,
        "root": skill.root,
        "location": skill.location,
        "folder": str(skill.folder),
        "tags": list(skill.tags),
        "has_supporting_files": skill.has_supporting_files,
        "model_invocable": skill.model_invocable,
        "user_invocable": skill.user_invocable,
        "context": skill.context,
        "model": skill.model,
        "argument_hint": skill.argument_hint,
        "license": skill.license,
        "shadowed_by": winner.location if winner else None,
        "warnings": [{"rule": f.rule, "message": f.message} for f in skill.warnings],
        "installed": install_record(status) if status else None,
    }


def install_record(status: InstallStatus) -> dict[str, Any]:
    entry = status.entry
    return {"source": entry.source, "url": entry.url, "ref": entry.ref, "subpath": entry.subpath,
            "commit": entry.commit, "sha256": entry.sha256, "mode": entry.mode, "installed_at": entry.installed_at,
            "matches_lock": status.verdict == "ok", "change": status.state.change or None}


def render_table(catalog: Catalog, statuses: Statuses | None = None) -> str:
    statuses = statuses or Statuses({}, ())
    skills = catalog.all_skills()
    if not skills:
        roots = ", ".join(catalog.roots) or "(none)"
        return "\n".join([f"No skills found. Roots searched: {roots}", *_missing_lines(statuses)])
    width = shutil.get_terminal_size((120, 20)).columns
    name_w = min(40, max(len(s.name) for s in skills))
    source_w = _source_width(skills, statuses)
    source_head = f"{'LOCK':<8}  {'SOURCE':<{source_w}}  " if source_w else ""
    rows = [f"{'NAME':<{name_w}}  {'FLAGS':<5}  {'WARN':>4}  {source_head}DESCRIPTION"]
    for skill in skills:
        rows.append(_row(catalog, skill, name_w, width, _source_cell(statuses.of(skill.folder), source_w)))
    rows.append("")
    rows.append(_summary(catalog))
    rows.append("FLAGS: m = the router may pick it, u = $name/slash activation allowed, s = shadowed")
    if source_w:
        rows.append("LOCK: ok = its files match skills-lock.json, MODIFIED = they were edited since "
                    "`skillproxy add` installed them")
    rows.extend(_missing_lines(statuses))
    return "\n".join(rows)


MAX_SOURCE_CHARS = 48


def _source_width(skills: tuple[Skill, ...], statuses: Statuses) -> int:
    origins = [status.origin for skill in skills if (status := statuses.of(skill.folder))]
    return min(MAX_SOURCE_CHARS, max(map(len, origins))) if origins else 0


def _source_cell(status: InstallStatus | None, source_w: int) -> str:
    if not source_w:
        return ""
    if status is None:
        return f"{'-':<8}  {'-':<{source_w}}  "
    origin = status.origin if len(status.origin) <= source_w else "…" + status.origin[-(source_w - 1):]
    return f"{status.verdict:<8}  {origin:<{source_w}}  "


def _missing_lines(statuses: Statuses) -> list[str]:
    return [f"{status.root}/skills-lock.json lists {status.name}, but its folder is gone "
            f"(`skillproxy update {status.name}` installs it again, `skillproxy remove {status.name}` forgets it)"
            for status in statuses.missing]


def _row(catalog: Catalog, skill: Skill, name_w: int, width: int, source_cell: str = "") -> str:
    flags = ("m" if skill.model_invocable else "-") + ("u" if skill.user_invocable else "-")
    flags += "s" if catalog.shadowed_by(skill) else ""
    description = " ".join(skill.description.split())
    prefix = f"{skill.name:<{name_w}}  {flags:<5}  {len(skill.warnings):>4}  {source_cell}"
    room = max(20, width - len(prefix))
    if len(description) > room:
        description = description[: room - 1] + "…"
    return prefix + description


def _summary(catalog: Catalog) -> str:
    warnings = sum(len(s.warnings) for s in catalog.all_skills())
    return (f"{len(catalog.skills)} skills from {len(catalog.roots)} roots, "
            f"{len(catalog.shadowed)} shadowed, {len(catalog.skipped)} skipped, {warnings} warnings")
