"""What several commands share: choosing the roots and loading the catalog."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from proxy.core.catalog.catalog import Catalog, load_catalog
from proxy.settings import Settings, SettingsError, load_settings


class UsageError(Exception):
    """Bad usage: printed and the command exits 2."""


def add_catalog_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", action="append", metavar="DIR", dest="roots",
                        help="a skills root (repeatable); replaces the configured roots")
    parser.add_argument("--config", metavar="FILE", help="configuration file (default: config/skillproxy.yaml)")


def settings_from_args(args: argparse.Namespace) -> Settings:
    overrides = {"roots": tuple(args.roots)} if getattr(args, "roots", None) else {}
    try:
        return load_settings(getattr(args, "config", None), overrides=overrides)
    except SettingsError as exc:
        raise UsageError(str(exc)) from None


def catalog_from_args(args: argparse.Namespace) -> Catalog:
    settings = settings_from_args(args)
    return load_catalog(settings.roots, settings.max_skill_file_bytes)


def run_reporting_usage_errors(command: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    try:
        return command(args)
    except UsageError as exc:
        print(f"skillproxy: {exc}", file=sys.stderr)
        return 2
