"""What `add`, `update` and `remove` share: the --root/--config options, the roots with a lock, lock errors."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from proxy.cli.common import settings_from_args
from proxy.core.install.lock import LockError
from proxy.install.roots import lock_roots
from proxy.install.workspace import read_lock


def add_root_arguments(parser: argparse.ArgumentParser, root_help: str) -> None:
    parser.add_argument("--root", metavar="DIR", help=root_help)
    parser.add_argument("--config", metavar="FILE", help="configuration file (default: config/skillproxy.yaml)")


def configured_roots(args: argparse.Namespace) -> tuple[str, ...]:
    return settings_from_args(argparse.Namespace(config=args.config)).roots


def installed_roots(args: argparse.Namespace) -> list[Path]:
    """The roots (--root, else the configured ones) holding a skills-lock.json; LockError if one cannot be read."""
    roots = lock_roots([args.root] if args.root else list(configured_roots(args)))
    for root in roots:
        read_lock(root)
    return roots


def reporting_lock_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """`command`, exiting 1 with the file and the reason when a skills-lock.json cannot be read."""
    def run(args: argparse.Namespace) -> int:
        try:
            return command(args)
        except LockError as exc:
            print(f"skillproxy: {exc}", file=sys.stderr)
            return 1
    return run
