"""`skillproxy add SOURCE`: install skills from a git repository or a local folder into a root.

Exit 0 when every chosen skill is installed (or already was), 1 when one was refused or skipped
or the source could not be fetched, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys

from proxy.cli.common import UsageError, run_reporting_usage_errors
from proxy.cli.install_common import add_root_arguments, configured_roots, reporting_lock_errors
from proxy.cli.install_report import count_line, print_outcomes
from proxy.core.install.lock import LOCK_FILE_NAME
from proxy.core.install.plan import WRITES, Candidate, Origin, chosen, folder_name_for, plan_add, unmatched
from proxy.core.install.source import Source, SourceError, parse_source
from proxy.install.apply import Outcome, carry_out
from proxy.install.fetch import FetchError, absolute_folder, fetch
from proxy.install.placement import drop_unused_clones, installed
from proxy.install.roots import RootError, install_root, is_configured
from proxy.install.survey import survey
from proxy.install.workspace import Workspace, held

SOURCE_HELP = ("a git URL (https, ssh, file; URL//path for a folder in it), owner/repo[/path] on GitHub, "
               "or a local folder (./dir, /dir); #REF picks a branch or tag")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("add", help="install skills from a git repository or a local folder",
                                   description="Install every skill (folder with a SKILL.md) found in SOURCE, "
                                               "or those --skill names, and record them in ROOT/skills-lock.json.")
    parser.add_argument("source", metavar="SOURCE", help=SOURCE_HELP)
    parser.add_argument("--skill", action="append", default=[], metavar="NAME",
                        help="install only this skill (repeatable; default: all)")
    add_root_arguments(parser, "install into DIR (default: the first configured root that is a writable "
                                       "folder)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--copy", dest="mode", action="store_const", const="copy", help="copy the files (default)")
    mode.add_argument("--link", dest="mode", action="store_const", const="link",
                      help="symlink to a clone kept in ROOT/.skillproxy/sources/")
    parser.add_argument("--force", action="store_true",
                        help="replace a skill of the same name from elsewhere, or one edited since install")
    parser.set_defaults(mode="copy", func=lambda args: run_reporting_usage_errors(reporting_lock_errors(run), args))


def run(args: argparse.Namespace) -> int:
    source = _source(args)
    configured = configured_roots(args)
    try:
        root = install_root(args.root, configured)
    except RootError as exc:
        raise UsageError(str(exc)) from None
    with held(root) as workspace:
        outcomes = _add(workspace, source, args)
    if any(o.step.action in WRITES and not o.error for o in outcomes) and not is_configured(root, configured):
        print(f"note: {root} is not one of the configured roots; the proxy serves it only with --root {root}")
    return 1 if not outcomes or any(o.failed for o in outcomes) else 0


def _source(args: argparse.Namespace) -> Source:
    try:
        source = parse_source(args.source)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    if args.mode == "link" and source.kind == "folder":
        raise UsageError("--link needs a git source; a local folder is copied (or make the symlink yourself)")
    return absolute_folder(source)


def _add(workspace: Workspace, source: Source, args: argparse.Namespace) -> list[Outcome]:
    """What became of each chosen skill; [] when nothing could be chosen (the reason printed)."""
    try:
        fetched = fetch(source, workspace)
    except FetchError as exc:
        print(f"skillproxy: {exc}", file=sys.stderr)
        return []
    found = survey(fetched)
    candidates = [item.candidate for item in found.values()]
    where = f"{source.label}" + (f" at {fetched.short_commit}" if fetched.commit else "")
    problem = _no_match(candidates, args.skill, where, source)
    if problem:
        print(f"skillproxy: {problem}", file=sys.stderr)
        return []
    print(f"{where}: {len(candidates)} skill(s) found" + (f" under {source.subpath}" if source.subpath else ""))
    lock = workspace.read_lock()
    picked = chosen(candidates, args.skill)
    names = {name for candidate in picked if (name := folder_name_for(candidate))}
    held_now = {name: installed(workspace.root, name, lock.skills.get(name)) for name in names}
    origin = Origin(source.label, source.url, source.ref, fetched.commit, args.mode)
    steps = plan_add(picked, origin, held_now, args.force)
    outcomes = [carry_out(workspace, step, found[step.candidate.subpath], fetched, origin) for step in steps]
    drop_unused_clones(workspace, workspace.read_lock())
    print_outcomes(outcomes, fetched.commit)
    print(f"{count_line(outcomes)} in {workspace.root} ({LOCK_FILE_NAME})")
    return outcomes


def _no_match(candidates: list[Candidate], wanted: list[str], where: str, source: Source) -> str:
    if not candidates:
        return f"{where}: no folder with a SKILL.md" + (f" under {source.subpath}" if source.subpath else "")
    missing = unmatched(candidates, wanted)
    if missing:
        names = ", ".join(sorted(c.shown_name for c in candidates))
        return f"{where}: no skill named {', '.join(missing)}; it has: {names}"
    return ""
