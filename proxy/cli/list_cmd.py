"""`skillproxy list`: the skills the proxy would serve, as a table or JSON."""

from __future__ import annotations

import argparse
import json
import shutil
from typing import Any

from proxy.cli.common import add_catalog_arguments, catalog_from_args, run_reporting_usage_errors
from proxy.core.catalog.catalog import Catalog
from proxy.core.catalog.skill import Skill


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("list", help="list the skills found under the roots")
    add_catalog_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print a JSON array, one object per skill")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(run, args))


def run(args: argparse.Namespace) -> int:
    catalog = catalog_from_args(args)
    if args.json:
        print(json.dumps([skill_record(catalog, s) for s in catalog.all_skills()], ensure_ascii=False, indent=2))
    else:
        print(render_table(catalog))
    return 0


def skill_record(catalog: Catalog, skill: Skill) -> dict[str, Any]:
    winner = catalog.shadowed_by(skill)
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
    }


def render_table(catalog: Catalog) -> str:
    skills = catalog.all_skills()
    if not skills:
        roots = ", ".join(catalog.roots) or "(none)"
        return f"No skills found. Roots searched: {roots}"
    width = shutil.get_terminal_size((120, 20)).columns
    name_w = min(40, max(len(s.name) for s in skills))
    rows = [f"{'NAME':<{name_w}}  {'FLAGS':<5}  {'WARN':>4}  DESCRIPTION"]
    for skill in skills:
        rows.append(_row(catalog, skill, name_w, width))
    rows.append("")
    rows.append(_summary(catalog))
    rows.append("FLAGS: m = the router may pick it, u = $name/slash activation allowed, s = shadowed")
    return "\n".join(rows)


def _row(catalog: Catalog, skill: Skill, name_w: int, width: int) -> str:
    flags = ("m" if skill.model_invocable else "-") + ("u" if skill.user_invocable else "-")
    flags += "s" if catalog.shadowed_by(skill) else ""
    description = " ".join(skill.description.split())
    prefix = f"{skill.name:<{name_w}}  {flags:<5}  {len(skill.warnings):>4}  "
    room = max(20, width - len(prefix))
    if len(description) > room:
        description = description[: room - 1] + "…"
    return prefix + description


def _summary(catalog: Catalog) -> str:
    warnings = sum(len(s.warnings) for s in catalog.all_skills())
    return (f"{len(catalog.skills)} skills from {len(catalog.roots)} roots, "
            f"{len(catalog.shadowed)} shadowed, {len(catalog.skipped)} skipped, {warnings} warnings")
