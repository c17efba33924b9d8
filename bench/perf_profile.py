"""Where skillproxy spends its time under wrk: py-spy's samples summed by function and by package.

    python -m bench.perf_profile                       # c32 non-stream chat, 10 s
    python -m bench.perf_profile --stream --concurrency 1 --seconds 5 --top 30
    python -m bench.perf_profile --surface ollama --workers 2
    python -m bench.perf_profile --preprocess          # engine.preprocess at 1,000 skills, no server

Starts the fake upstream and `skillproxy serve` over the corpus roots as
bench/perf_bench.py does, loads the proxy with wrk and records it with py-spy
(`py-spy record --gil -f raw`: pip's `py-spy`, and the right to ptrace the
process; with several workers, `--subprocesses` records them all). Only samples
of a thread holding the GIL count, so waiting threads (the preprocessing pool,
the skill watcher) do not pose as busy: the lists are Python's CPU time. Three
lists, each a share of the samples: own time (the innermost frame), inclusive
time (the function is anywhere on the stack), and own time by package
(`proxy/<module>` for ours, the top-level package otherwise).

`profile_under_load` and `profile_preprocess` are what bench/perf_bench.py
calls for each goal it missed.
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
from dataclasses import dataclass
from pathlib import Path

from bench.perf_load import ALWAYS, NEVER, SURFACE_BY_NAME, Surface, lua_script, run_wrk
from bench.perf_servers import REPO, Target, spawn, start_target, upstream_server

_LINE = re.compile(r":\d+\)$")
_PROCESSES = re.compile(r'^(?:process \d+:".*?";)+')
DEFAULT_RATE = 500


class PySpyMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class Profile:
    """py-spy's samples of one recording, summed."""

    own: Counter[str]
    inclusive: Counter[str]
    packages: Counter[str]
    samples: int
    raw: str = ""  # py-spy's own output, for --raw

    def top(self, which: str, count: int) -> list[tuple[float, str]]:
        """(share of the samples, name) of the `count` biggest in `own`, `inclusive` or `packages`."""
        counts: Counter[str] = getattr(self, which)
        return [(found / self.samples, name) for name, found in counts.most_common(count)] if self.samples else []

    def text(self, top: int) -> str:
        return "\n".join(shares(title, getattr(self, which), self.samples, top)
                         for title, which in (("own time by function", "own"),
                                              ("inclusive time by function", "inclusive"),
                                              ("own time by package", "packages")))


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
        stack = _PROCESSES.sub("", stack)  # --subprocesses puts each `process <pid>:"<command>"` first
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


def profile_of(raw: str) -> Profile:
    own, inclusive, packages, total = aggregate(raw)
    return Profile(own, inclusive, packages, total, raw)


def shares(title: str, counts: Counter[str], total: int, top: int) -> str:
    rows = [f"{count / total:6.1%}  {name}" for name, count in counts.most_common(top)] if total else []
    return "\n".join([f"## {title}", *rows, ""])


def py_spy() -> str:
    path = shutil.which("py-spy")
    if path is None:
        raise PySpyMissing("py-spy is not installed (pip install py-spy)")
    return path


def record(pid: int, seconds: float, out: Path, rate: int = DEFAULT_RATE, subprocesses: bool = False) -> str:
    """py-spy's raw samples of process `pid` (and its children with `subprocesses`) for `seconds`."""
    command = [py_spy(), "record", "--gil", "-r", str(rate), "-p", str(pid), "-d", str(max(1, round(seconds))),
               "-f", "raw", "-o", str(out), *(["--subprocesses"] if subprocesses else [])]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0 or not out.exists():
        raise RuntimeError(f"py-spy failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return out.read_text(encoding="utf-8")


def profile_under_load(target: Target, surface: Surface, concurrency: int, stream: bool, seconds: float,
                       folder: Path, rate: int = DEFAULT_RATE, subprocesses: bool = False,
                       warmup: float = 1.0) -> Profile:
    """py-spy on `target` while wrk loads it: `concurrency` connections of `surface`'s requests."""
    url = f"http://127.0.0.1:{target.port}{surface.path}"
    tag = f"profile-{target.name}-{surface.name}-c{concurrency}-{'s' if stream else 'n'}"
    mode = ALWAYS if stream else NEVER
    run_wrk(url, lua_script(folder, f"{tag}-warm", mode, surface=surface), concurrency, warmup)
    load = threading.Thread(target=run_wrk, args=(url, lua_script(folder, tag, mode, surface=surface),
                                                  concurrency, seconds + 2))
    load.start()
    try:
        raw = record(target.pid, seconds, folder / f"{tag}.raw", rate, subprocesses)
    finally:
        load.join()
    return profile_of(raw)


def profile_preprocess(size: int, seconds: float, folder: Path, rate: int = DEFAULT_RATE) -> Profile:
    """py-spy on bench/preprocess_timing.py's loop: engine.preprocess at `size` skills, the catalog loaded."""
    with ExitStack() as stack:
        log = folder / "preprocess-loop.log"
        argv = [sys.executable, "-m", "bench.preprocess_timing", "--size", str(size), "--seconds", str(seconds + 5)]
        process = spawn(stack, argv, log, cwd=REPO)
        _wait_for_line(log, b"ready", process, timeout=300)
        return profile_of(record(process.pid, seconds, folder / "preprocess.raw", rate))


def _wait_for_line(log: Path, line: bytes, process: subprocess.Popen[bytes], timeout: float) -> None:
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if line in log.read_bytes():
            return
        if process.poll() is not None:
            raise RuntimeError(f"{log.name}: the process ended before it was {line.decode()}")
        time.sleep(0.1)
    raise RuntimeError(f"{log.name}: not {line.decode()} after {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds recorded (wrk runs 2 s longer)")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--stream", action="store_true", help="streamed requests (default: non-stream)")
    parser.add_argument("--surface", choices=sorted(SURFACE_BY_NAME), default="chat",
                        help="the wire format loaded (default chat: /v1/chat/completions)")
    parser.add_argument("--workers", type=int, default=1, help="skillproxy's worker processes (all recorded)")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--target", choices=("skillproxy", "bare"), default="skillproxy",
                        help="the proxy to profile (bare: bench/bare_passthrough.py, for comparison)")
    parser.add_argument("--preprocess", action="store_true",
                        help="profile engine.preprocess at --catalog-size skills instead of a server")
    parser.add_argument("--catalog-size", type=int, default=1000)
    parser.add_argument("--rate", type=int, default=DEFAULT_RATE, help="samples a second (py-spy -r)")
    parser.add_argument("--raw", type=Path, help="also keep py-spy's raw samples in this file")
    args = parser.parse_args(argv)
    try:
        py_spy()
    except PySpyMissing as missing:
        print(f"perf_profile: {missing}", file=sys.stderr)
        return 2
    surface = SURFACE_BY_NAME[args.surface]
    with tempfile.TemporaryDirectory(prefix="skillproxy-profile-") as tmp, ExitStack() as stack:
        folder = Path(tmp)
        if args.preprocess:
            found = profile_preprocess(args.catalog_size, args.seconds, folder, args.rate)
            title = f"engine.preprocess at {args.catalog_size:,} skills"
        else:
            direct = stack.enter_context(upstream_server(folder))
            proxy = start_target(stack, args.target, direct.port, folder, None, workers=args.workers)
            found = profile_under_load(proxy, surface, args.concurrency, args.stream, args.seconds, folder,
                                       args.rate, subprocesses=args.workers > 1, warmup=2.0)
            title = (f"{args.target}{f' --workers {args.workers}' if args.workers > 1 else ''} under wrk, "
                     f"{surface.label} c{args.concurrency} {'stream' if args.stream else 'non-stream'}")
    if args.raw:
        args.raw.write_text(found.raw, encoding="utf-8")
    print(f"# {title}: {found.samples} samples\n")
    print(found.text(args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
