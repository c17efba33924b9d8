"""`skillproxy lint`: every spec problem, one line each, and a summary.

Exit 0 when every skill loaded (warnings allowed), 1 when a skill could not be
loaded at all, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import json

from proxy.cli.common import add_catalog_arguments, catalog_from_args, run_reporting_usage_errors


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("lint", help="check skills against the Agent Skills spec")
    add_catalog_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print findings and the summary as JSON")
    parser.set_defaults(func=lambda args: run_reporting_usage_errors(run, args))


def run(args: argparse.Namespace) -> int:
    catalog = catalog_from_args(args)
    findings = catalog.findings()
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = len(findings) - errors
    skills = len(catalog.all_skills()) + len(catalog.skipped)
    if args.json:
        print(json.dumps({
            "skills": skills, "errors": errors, "warnings": warnings,
            "findings": [{"location": f.location, "rule": f.rule, "message": f.message,
                          "severity": f.severity} for f in findings],
        }, ensure_ascii=False, indent=2))
    else:
        for finding in findings:
            print(finding.line())
        print(f"{skills} skills, {errors} errors, {warnings} warnings")
    return 1 if errors else 0
