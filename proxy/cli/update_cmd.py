"""`skillproxy update [NAME]...`: fetch installed skills' sources again and install what changed.

Each source is fetched once for all its skills. A skill whose files were edited since it was
installed is skipped (its files no longer match skills-lock.json) unless --force.
Exit 0 when every skill is up to date or updated, 1 when one was skipped or failed, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence

from proxy.cli.common import run_reporting_usage_errors
from proxy.cli.install_common import add_root_arguments, installed_roots, reporting_lock_errors
from proxy.cli.install_report import count_line, print_outcomes
from proxy.core.install.lock import LockEntry
from proxy.core.install.plan import Origin, plan_update
from proxy.core.install.source import Source
from proxy.install.apply import Outcome, carry_out
from proxy.install.fetch import Fetched, FetchError, fetch
from proxy.install.placement import drop_unused_clones, installed
from proxy.install.survey import look_at
from proxy.install.workspace import Workspace, held, read_lock


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("update", help="fetch installed skills again and install what changed",
                                   description="Fetch the source of each skill in skills-lock.json (or of "
                                               "those named) and show, per skill, the files changed.")
    parser.add_argument("names", nargs="*", metavar="NAME", help="skills to update (default: all installed)")
    add_root_arguments(parser, "only the skills installed in DIR (default: every configured root)")
    parser.add_argument("--force", action="store_true", help="overwrite skills whose files were edited by hand")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(reporting_lock_errors(run), args))


def run(args: argparse.Namespace) -> int:
    roots = installed_roots(args)
    missing = [name for name in args.names if not any(name in read_lock(root).skills for root in roots)]
    for name in missing:
        print(f"skillproxy: {name}: no skills-lock.json lists it ({', '.join(map(str, roots)) or 'no locks'})",
              file=sys.stderr)
    failed = bool(missing)
    if not roots:
        print("nothing to update: no root holds a skills-lock.json (skillproxy add writes one)")
    for root in roots:
        with held(root) as workspace:
            failed |= _update_root(workspace, args.names, args.force)
    return 1 if failed else 0


def _update_root(workspace: Workspace, names: Sequence[str], force: bool) -> bool:
    lock = workspace.read_lock()
    wanted = {name: entry for name, entry in lock.skills.items() if not names or name in names}
    groups: dict[tuple[str, str | None], list[str]] = defaultdict(list)
    for name, entry in sorted(wanted.items()):
        groups[(entry.url, entry.ref)].append(name)
    failed = False
    for group in groups.values():
        failed |= _update_source(workspace, [(name, wanted[name]) for name in group], force)
    drop_unused_clones(workspace, workspace.read_lock())
    return failed


def _update_source(workspace: Workspace, entries: list[tuple[str, LockEntry]], force: bool) -> bool:
    first = entries[0][1]
    source = Source("folder" if first.url.startswith("/") else "git", first.source, first.url, first.ref)
    try:
        fetched = fetch(source, workspace)
    except FetchError as exc:
        print(f"{source.label}: not fetched: {exc}")
        for name, _ in entries:
            print(f"  {'failed':<12}{name}  not updated: its source could not be fetched")
        return True
    at = f" at {fetched.short_commit}" if fetched.commit else ""
    print(f"{source.label}{at} ({workspace.root})")
    outcomes = [_update_one(workspace, fetched, name, entry, force) for name, entry in entries]
    print_outcomes(outcomes, fetched.commit)
    print(count_line(outcomes))
    return any(o.failed for o in outcomes)


def _update_one(workspace: Workspace, fetched: Fetched, name: str, entry: LockEntry, force: bool) -> Outcome:
    found = look_at(fetched, entry.subpath)
    held_now = installed(workspace.root, name, entry)
    step = plan_update(name, entry, found.candidate if found else None, fetched.commit, held_now, force)
    origin = Origin(entry.source, entry.url, entry.ref, fetched.commit, entry.mode)
    return carry_out(workspace, step, found, fetched, origin)
