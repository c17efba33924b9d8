"""`skillproxy remove NAME...`: delete skills that `add` installed, and their lock entries.

Only what skills-lock.json lists is removed; a skill whose files were edited since install is
kept unless --force. Exit 0 when every named skill was removed, 1 when one was not, 2 on bad usage.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from proxy.cli.common import run_reporting_usage_errors
from proxy.cli.install_common import add_root_arguments, installed_roots, reporting_lock_errors
from proxy.core.install.lock import LOCK_FILE_NAME
from proxy.install.placement import drop_unused_clones, installed, take_out
from proxy.install.workspace import held, read_lock


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("remove", help="delete installed skills and their lock entries",
                                   description="Delete skills installed by `skillproxy add` and drop them "
                                               "from skills-lock.json.")
    parser.add_argument("names", nargs="+", metavar="NAME", help="skills to remove")
    add_root_arguments(parser, "the root holding them (default: the configured root whose lock lists each)")
    parser.add_argument("--force", action="store_true", help="remove a skill even if its files were edited by hand")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(reporting_lock_errors(run), args))


def run(args: argparse.Namespace) -> int:
    roots = installed_roots(args)
    failed = False
    for name in dict.fromkeys(args.names):
        holders = [root for root in roots if name in read_lock(root).skills]
        if len(holders) == 1:
            failed |= not _remove(holders[0], name, args.force)
            continue
        failed = True
        if holders:
            print(f"  {'refused':<12}{name}  the locks of several roots list it "
                  f"({', '.join(map(str, holders))}); give --root DIR")
        else:
            print(f"  {'refused':<12}{name}  no {LOCK_FILE_NAME} lists it (skillproxy add did not install it)")
    return 1 if failed else 0


def _remove(root: Path, name: str, force: bool) -> bool:
    with held(root) as workspace:
        lock = workspace.read_lock()
        entry = lock.skills[name]
        state = installed(root, name, entry)
        if state.change and not force:
            print(f"  {'skipped':<12}{name}  {state.change} (edited by hand?); --force removes it anyway")
            return False
        take_out(workspace, name)
        lock = lock.without(name)
        workspace.write_lock(lock)
        drop_unused_clones(workspace, lock)
    print(f"  {'removed':<12}{name}  from {root} (installed from {entry.source} at {entry.short_commit})")
    return True
