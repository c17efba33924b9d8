"""The `skillproxy` command line: one module per sub-command.

Each command module has `register(subparsers)`, which adds its parser and sets
`func` to a callable taking the parsed arguments and returning an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from proxy import __version__

COMMANDS = ("list_cmd", "lint_cmd", "add_cmd", "update_cmd", "remove_cmd", "route_cmd", "eval_cmd", "serve_cmd")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="skillproxy",
        description="OpenAI-compatible proxy that gives any LLM client Agent Skills.",
    )
    parser.add_argument("--version", action="version", version=f"skillproxy {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"proxy.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
