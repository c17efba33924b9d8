#!/usr/bin/env python3
"""How long a SKILL.md change takes to show in a running `skillproxy serve`, as a user would see it.

    python3 bench/reload_latency.py              # 5 rounds of add, edit, remove
    python3 bench/reload_latency.py --rounds 20 --json
    python3 bench/reload_latency.py --extra-root ../shared/corpus/skills/anthropics ...   # a bigger catalog

It starts `python -m proxy serve` on a temporary skill root (this checkout's
code), then for each round writes a new skill folder, edits its description and
deletes it (`--extra-root` adds roots of other skills, to see how the
size of the catalog counts: every reload re-reads it and re-weighs the router, though
only changed skills are parsed and analysed again). After each change it polls
`GET /v1/skills/{name}` every 5 ms until the
change shows, and reports the time from the write to the first answer that
shows it (milliseconds; median and max per kind). It also counts the
`catalog_reloaded` lines the proxy logged: one per change is expected.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
POLL_SECONDS = 0.005
GIVE_UP_SECONDS = 10.0
SKILL = "---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps.\n"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(check: Callable[[], bool]) -> float:
    """Milliseconds until `check()` is true; raises after GIVE_UP_SECONDS."""
    started = time.perf_counter()
    while time.perf_counter() - started < GIVE_UP_SECONDS:
        if check():
            return (time.perf_counter() - started) * 1000
        time.sleep(POLL_SECONDS)
    raise SystemExit(f"the change did not show within {GIVE_UP_SECONDS} s")


def description(client: httpx.Client, name: str) -> str | None:
    """The skill's description as the proxy serves it, None while it has no such skill (a cheap poll)."""
    answer = client.get(f"/v1/skills/{name}")
    return answer.json()["description"] if answer.status_code == 200 else None


def one_round(client: httpx.Client, root: Path, i: int) -> dict[str, float]:
    name, folder = f"latency-probe-{i}", root / f"latency-probe-{i}"
    folder.mkdir()
    (folder / "SKILL.md").write_text(SKILL.format(name=name, description="First description"))
    added = wait_until(lambda: description(client, name) is not None)
    time.sleep(0.3)  # let the watcher settle, so each change is measured on its own
    (folder / "SKILL.md").write_text(SKILL.format(name=name, description="Edited description"))
    edited = wait_until(lambda: description(client, name) == "Edited description")
    time.sleep(0.3)
    shutil.rmtree(folder)
    removed = wait_until(lambda: description(client, name) is None)
    time.sleep(0.3)
    return {"add": added, "edit": edited, "remove": removed}


def summary(rounds: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    return {kind: {"median_ms": round(statistics.median(r[kind] for r in rounds), 1),
                   "max_ms": round(max(r[kind] for r in rounds), 1)} for kind in ("add", "edit", "remove")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--extra-root", action="append", default=[], metavar="DIR",
                        help="another skill root served beside the probe's (repeatable)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        root, log = Path(tmp) / "skills", Path(tmp) / "proxy.log"
        root.mkdir()
        port = free_port()
        command = [sys.executable, "-m", "proxy", "serve", "--root", str(root), "--port", str(port),
                   "--log-format", "json", *(arg for extra in args.extra_root for arg in ("--root", extra))]
        with log.open("w") as out:
            server = subprocess.Popen(command, cwd=REPO, stdout=out, stderr=subprocess.DEVNULL)
            try:
                with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=5) as client:
                    wait_until(lambda: _up(client))
                    time.sleep(0.5)  # the watcher starts with the server
                    skills = len(client.get("/v1/skills").json()["data"])
                    rounds = [one_round(client, root, i) for i in range(args.rounds)]
            finally:
                server.terminate()
                server.wait(10)
        reloads = sum(1 for line in log.read_text().splitlines() if '"catalog_reloaded"' in line)
    result = {"rounds": args.rounds, **summary(rounds), "catalog_reloaded_lines": reloads,
              "changes": 3 * args.rounds, "skills_besides_the_probe": skills}
    if args.json:
        print(json.dumps(result))
    else:
        for kind in ("add", "edit", "remove"):
            print(f"{kind:7} median {result[kind]['median_ms']:7.1f} ms   max {result[kind]['max_ms']:7.1f} ms")
        print(f"{reloads} catalog_reloaded lines for {3 * args.rounds} changes; {skills} other skills loaded")
    return 0


def _up(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
