"""Where skillproxy spends its time under wrk: py-spy's samples summed by function and by package.

    python -m bench.perf_profile                       # c32 non-stream, 10 s
    python -m bench.perf_profile --stream --concurrency 1 --seconds 5 --top 30

Starts the fake upstream and `skillproxy serve` over the corpus roots as
bench/perf_bench.py does, loads the proxy with wrk and records it with py-spy
(`py-spy record --gil -f raw`: pip's `py-spy`, and the right to ptrace the
process). Only samples of a thread holding the GIL count, so waiting threads
(the preprocessing pool, the skill watcher) do not pose as busy: the lists are
Python's CPU time. Three lists, each a share of the samples: own time (the
innermost frame), inclusive time (the function is anywhere on the stack), and
own time by package (`proxy/<module>` for ours, the top-level package otherwise).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

from bench.perf_bench import start_target, upstream_server
from bench.perf_load import ALWAYS, NEVER, lua_script, run_wrk

_LINE = re.compile(r":\d+\)$")


def function_of(frame: str) -> str:
    """`name (path/file.py:12)` without its line: one entry per function."""
    return _LINE.sub(")", frame)


def package_of(frame: str) -> str:
    path = frame.rpartition("(")[2].rstrip(")").split(":")[0]
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if "site-packages" in parts:
        parts = parts[parts.index("site-packages") + 1:]
    if parts and parts[0] == "proxy":
        return "/".join(parts[:3] if len(parts) > 2 and parts[1] in ("core", "cli") else parts[:2])
    return parts[0] if len(parts) > 1 else "(stdlib) " + (parts[0] if parts else path)


def aggregate(raw: str) -> tuple[Counter[str], Counter[str], Counter[str], int]:
    """(own by function, inclusive by function, own by package, samples) from py-spy's raw output."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    packages: Counter[str] = Counter()
    total = 0
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = [function_of(f) for f in stack.split(";")]
        samples = int(count)
        total += samples
        own[frames[-1]] += samples
        packages[package_of(frames[-1])] += samples
        for frame in set(frames):
            inclusive[frame] += samples
    return own, inclusive, packages, total


def shares(title: str, counts: Counter[str], total: int, top: int) -> str:
    rows = [f"{count / total:6.1%}  {name}" for name, count in counts.most_common(top)]
    return "\n".join([f"## {title}", *rows, ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds recorded (wrk runs 2 s longer)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--stream", action="store_true", help="streamed requests (default: non-stream)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--target", choices=("skillproxy", "bare"), default="skillproxy",
                        help="the proxy to profile (bare: bench/bare_passthrough.py, for comparison)")
    parser.add_argument("--rate", type=int, default=500, help="samples a second (py-spy -r)")
    parser.add_argument("--raw", type=Path, help="also keep py-spy's raw samples in this file")
    args = parser.parse_args(argv)
    if shutil.which("py-spy") is None:
        print("perf_profile: py-spy is not installed (pip install py-spy)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="skillproxy-profile-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        direct = stack.enter_context(upstream_server(folder))
        proxy = start_target(stack, args.target, direct.port, folder, None)
        url = f"http://127.0.0.1:{proxy.port}/v1/chat/completions"
        run_wrk(url, lua_script(folder, "warm", ALWAYS if args.stream else NEVER), args.concurrency, 2)
        script = lua_script(folder, "profiled", ALWAYS if args.stream else NEVER)
        load = threading.Thread(target=run_wrk, args=(url, script, args.concurrency, args.seconds + 2))
        load.start()
        raw = folder / "profile.raw"
        record = ["py-spy", "record", "--gil", "-r", str(args.rate), "-p", str(proxy.pid),
                  "-d", str(round(args.seconds)), "-f", "raw", "-o", str(raw)]
        subprocess.run(record, check=True, capture_output=True)
        load.join()
        text = raw.read_text(encoding="utf-8")
        if args.raw:
            args.raw.write_text(text, encoding="utf-8")
    own, inclusive, packages, total = aggregate(text)
    mode = "stream" if args.stream else "non-stream"
    print(f"# {args.target} under wrk, c{args.concurrency} {mode}: {total} samples\n")
    print(shares("own time by function", own, total, args.top))
    print(shares("inclusive time by function", inclusive, total, args.top))
    print(shares("own time by package", packages, total, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
