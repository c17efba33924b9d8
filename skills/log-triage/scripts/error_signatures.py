#!/usr/bin/env python3
"""Group error lines in application logs by normalised signature.

Variable parts of each error line - timestamps, UUIDs, request ids, IP
addresses, ports, numbers, hex values, quoted strings, paths - are replaced by
placeholders, so thousands of lines collapse into a handful of signatures.
For each signature the script prints the count, where it was first and last
seen, a known-failure category (oom, connection-refused, timeout, deadlock,
...) and one raw example line. It also prints the very first error line, which
is usually closer to the root cause than the most frequent one.

Reads plain or gzip-compressed files, or stdin. Standard library only.

Exit status: 0 on success (also when no errors are found), 2 on bad input.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TextIO

# A line counts as an error if it matches this (case-insensitive), unless
# --pattern overrides it.
DEFAULT_ERROR_RE = (
    r"\b(ERROR|ERR|FATAL|CRITICAL|CRIT|SEVERE|PANIC|EMERG|ALERT)\b"
    r"|(?i:\blevel\"?\s*[=:]\s*\"?(error|fatal|critical|panic)\b)"
    r"|(?i:\[(error|crit|alert|emerg)\])"
    r"|\b[A-Z]\w*(Error|Exception)\b"
    r"|\bpanic:"
    r"|(?i:\b(killed process|out of memory|oom-?kill))"
)

TRACEBACK_RE = re.compile(r"^Traceback \(most recent call last\):")

# Stack-trace continuation lines are folded into the error above them.
CONTINUATION_RE = re.compile(r"^\s+(at |File \"|\.\.\. \d+ more|Caused by:)|^\s*\^+\s*$")

TIMESTAMP_RES = [
    re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
    re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2}\b"),
    re.compile(r"\d{2}/(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4}"),
]

# (category, regex) - first match wins, so more specific ones come first.
CATEGORIES: list[tuple[str, re.Pattern[str]]] = [
    ("oom", re.compile(r"out ?of ?memory|OutOfMemoryError|MemoryError|oom-?kill|killed process|exit code 137"
                       r"|Cannot allocate memory|ENOMEM", re.I)),
    ("disk-full", re.compile(r"no space left on device|ENOSPC|disk full|quota exceeded", re.I)),
    ("too-many-open-files", re.compile(r"too many open files|EMFILE|ENFILE", re.I)),
    ("deadlock", re.compile(r"deadlock", re.I)),
    ("lock-timeout", re.compile(r"lock wait timeout|could not obtain lock|lock timeout|LockNotAvailable", re.I)),
    ("pool-exhausted", re.compile(r"pool (is )?exhausted|QueuePool limit|too many (clients|connections)"
                                  r"|remaining connection slots", re.I)),
    ("connection-refused", re.compile(r"connection refused|ECONNREFUSED|actively refused", re.I)),
    ("connection-reset", re.compile(r"connection reset|ECONNRESET|broken pipe|EPIPE|connection (was )?closed"
                                    r"|server closed the connection", re.I)),
    ("dns", re.compile(r"name or service not known|ENOTFOUND|getaddrinfo|NXDOMAIN"
                       r"|temporary failure in name resolution|no such host", re.I)),
    ("tls", re.compile(r"certificate|SSL|TLS handshake|x509", re.I)),
    ("timeout", re.compile(r"timed? ?out|timeout|ETIMEDOUT|deadline exceeded|\b504\b", re.I)),
    ("auth", re.compile(r"permission denied|access denied|unauthori[sz]ed|forbidden|\b40[13]\b|EACCES"
                        r"|authentication failed", re.I)),
    ("http-5xx", re.compile(r"\b5\d\d\b.*\b(status|HTTP)|\b(status|HTTP)\S*\s*[=:]?\s*5\d\d\b", re.I)),
    ("null-reference", re.compile(r"NullPointerException|NoneType|undefined is not|nil pointer|null reference", re.I)),
]

NORMALISERS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.-]+\b"), "<email>"),
    (re.compile(r"\bhttps?://[^\s\"']+"), "<url>"),
    (re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b"), "<ip>"),
    (re.compile(r"\b0x[0-9a-f]+\b", re.I), "<hex>"),
    (re.compile(r"\b[0-9a-f]{12,}\b", re.I), "<hex>"),
    (re.compile(r"\"[^\"]*\"|'[^']*'"), "<str>"),
    (re.compile(r"(?<![\w<])(?:/[\w.@-]+){2,}/?"), "<path>"),
    # sizes and durations: 250ms, 4194304kB, 1.5GiB
    (re.compile(r"\b\d+(?:\.\d+)?(?:ns|us|ms|s|m|h|b|kb|mb|gb|kib|mib|gib)\b", re.I), "<n>"),
    # ids mixing letters and at least two digits: req-7f3a9c, user_12345, abc123def
    (re.compile(r"\b(?=(?:[\w-]*?\d){2})(?=[\w-]*[A-Za-z])[\w-]{6,}\b"), "<id>"),
    (re.compile(r"\b\d+(?:\.\d+)?\b"), "<n>"),
]


@dataclass
class Group:
    signature: str
    category: str
    order: int
    count: int = 0
    first_where: str = ""
    first_ts: str = ""
    last_where: str = ""
    last_ts: str = ""
    example: str = ""
    sources: set[str] = field(default_factory=set)


class InputError(Exception):
    pass


def find_timestamp(line: str) -> str:
    for rx in TIMESTAMP_RES:
        m = rx.search(line)
        if m:
            return m.group(0)
    return ""


def normalise(line: str) -> str:
    """Return the signature of an error line: variable parts replaced by placeholders."""
    s = line.strip()
    for rx in TIMESTAMP_RES:
        s = rx.sub("", s, count=1)
    for rx, repl in NORMALISERS:
        s = rx.sub(repl, s)
    s = re.sub(r"\s+", " ", s).strip(" -|:[]")
    return s[:200]


def categorise(line: str) -> str:
    for name, rx in CATEGORIES:
        if rx.search(line):
            return name
    return "other"


def open_input(path: str) -> tuple[str, TextIO]:
    if path == "-":
        if sys.stdin.isatty():
            raise InputError("no input: pass log files or pipe a log on stdin (see --help)")
        return "stdin", sys.stdin
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except IsADirectoryError:
        raise InputError(f"{path} is a directory; pass files (e.g. {path.rstrip('/')}/*.log)") from None
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if head[:2] == b"\x1f\x8b":
        return path, io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    if b"\x00" in head:
        raise InputError(f"{path} looks like a binary file, not a text log")
    return path, open(path, encoding="utf-8", errors="replace")


def iter_lines(paths: Iterable[str]) -> Iterator[tuple[str, int, str]]:
    for path in paths:
        name, fh = open_input(path)
        try:
            for lineno, line in enumerate(fh, 1):
                yield name, lineno, line.rstrip("\n")
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise InputError(f"error reading {name}: {exc}") from None
        finally:
            if fh is not sys.stdin:
                fh.close()


def analyse(paths: list[str], error_re: re.Pattern[str]) -> dict:
    groups: dict[str, Group] = {}
    total = errors = 0
    first_error = None
    last_ts = ""
    multi = len(paths) > 1
    tb_start: tuple[str, int, str] | None = None  # open Python traceback: (file, line, timestamp)
    for name, lineno, line in iter_lines(paths):
        total += 1
        ts = find_timestamp(line)
        if ts:
            last_ts = ts
        if tb_start is not None:
            # Inside a Python traceback: skip frames; the first unindented line
            # is the exception ("ValueError: ...") and stands for the whole trace.
            if not line.strip() or line[:1].isspace():
                continue
            if tb_start[0] == name:
                name, lineno, ts = tb_start
            tb_start = None
        elif TRACEBACK_RE.search(line):
            tb_start = (name, lineno, ts or last_ts)
            continue
        elif CONTINUATION_RE.match(line) or not error_re.search(line):
            continue
        errors += 1
        where = f"{name}:{lineno}" if multi or name != "stdin" else f"line {lineno}"
        ts = ts or last_ts  # lines without a timestamp inherit the previous one
        sig = normalise(line)
        g = groups.get(sig)
        if g is None:
            g = groups[sig] = Group(sig, categorise(line), len(groups), first_where=where, first_ts=ts,
                                    example=line.strip()[:300])
        g.count += 1
        g.last_where, g.last_ts = where, ts
        g.sources.add(name)
        if first_error is None:
            first_error = {"where": where, "timestamp": ts, "line": line.strip()[:300], "category": g.category}
    if total == 0:
        raise InputError("input is empty")
    ordered = sorted(groups.values(), key=lambda g: (-g.count, g.order))
    categories: dict[str, int] = {}
    for g in ordered:
        categories[g.category] = categories.get(g.category, 0) + g.count
    return {
        "lines": total,
        "error_lines": errors,
        "signature_count": len(groups),
        "first_error": first_error,
        "categories": dict(sorted(categories.items(), key=lambda kv: -kv[1])),
        "signatures": [
            {
                "count": g.count,
                "category": g.category,
                "signature": g.signature,
                "first_seen": g.first_where,
                "first_timestamp": g.first_ts,
                "last_seen": g.last_where,
                "last_timestamp": g.last_ts,
                "example": g.example,
            }
            for g in ordered
        ],
    }


def print_text(r: dict, top: int) -> None:
    w = sys.stdout.write
    w(f"Scanned {r['lines']:,} lines: {r['error_lines']:,} error lines, {r['signature_count']} distinct signatures.\n")
    if not r["first_error"]:
        w("No error lines found. Try --pattern to widen the match (e.g. --pattern 'WARN|ERROR').\n")
        return
    fe = r["first_error"]
    w(f"\nFirst error ({fe['where']}{', ' + fe['timestamp'] if fe['timestamp'] else ''}) [{fe['category']}]:\n")
    w(f"  {fe['line']}\n")
    w("\nBy category: " + ", ".join(f"{k} {v}" for k, v in r["categories"].items()) + "\n")
    w(f"\nTop signatures (of {r['signature_count']}):\n")
    for s in r["signatures"][:top]:
        span = s["first_timestamp"] or s["first_seen"]
        if s["last_timestamp"] and s["last_timestamp"] != s["first_timestamp"]:
            span += f" .. {s['last_timestamp']}"
        w(f"\n  {s['count']:>6}x  [{s['category']}]  first {s['first_seen']}  ({span})\n")
        w(f"          {s['signature']}\n")
        w(f"          e.g. {s['example'][:160]}\n")
    hidden = len(r["signatures"]) - top
    if hidden > 0:
        w(f"\n  ... {hidden} more signature(s); use --top {len(r['signatures'])} to see all\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="error_signatures.py",
        description="Group error lines from log files by normalised signature, show the first error, "
        "counts, first/last occurrence and a known-failure category (oom, timeout, deadlock, ...).",
        epilog="Examples: %(prog)s app.log app.log.1.gz | kubectl logs pod/api-0 | %(prog)s --top 5",
    )
    p.add_argument("files", nargs="*", default=["-"], help="log files (plain or .gz); '-' or none reads stdin")
    p.add_argument("--top", type=int, default=10, help="signatures to show (default 10)")
    p.add_argument("--pattern", help="regex (case-insensitive) selecting error lines instead of the built-in one; "
                   "Python tracebacks are always included")
    p.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = p.parse_args(argv)
    if args.top < 1:
        p.error("--top must be at least 1")
    try:
        error_re = re.compile(args.pattern or DEFAULT_ERROR_RE, 0 if args.pattern is None else re.I)
    except re.error as exc:
        p.error(f"invalid --pattern: {exc}")
    try:
        result = analyse(args.files, error_re)
    except InputError as exc:
        print(f"error_signatures: {exc}", file=sys.stderr)
        return 2
    try:
        if args.json:
            json.dump(result, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print_text(result, args.top)
        sys.stdout.flush()
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
