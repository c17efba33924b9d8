"""The servers bench/perf_bench.py and bench/perf_profile.py measure: started, made ready, stopped.

- the fast fake upstream (bench/load_upstream.py, no pause between stream
  events), which is also the `direct` target;
- bare: bench/bare_passthrough.py, the smallest Starlette + httpx proxy;
- skillproxy: `skillproxy serve` over the seven corpus roots of ../shared/corpus,
  routing on, the shipped config/skillproxy.yaml otherwise, one worker or
  `--workers N` (uvicorn's process manager and N worker processes);
- LiteLLM: its proxy with a no-op `async_pre_call_hook` (bench/litellm_hook.py,
  bench/litellm_config.yaml), installed from PyPI into its own venv under
  ~/.cache/skillproxy-bench the first time (about a minute).

Every server is a child process that the caller's ExitStack stops. What must not:
measure anything.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.load_bench import free_port, wait_ready

REPO = Path(__file__).resolve().parent.parent
LITELLM_VERSION = "1.82.6"  # a known-clean release: 1.82.7 and 1.82.8 were malicious uploads (BerriAI/litellm#24518)
CACHE = Path.home() / ".cache" / "skillproxy-bench"
STARTED = b"Application startup complete."  # uvicorn's line, once per worker


@dataclass(frozen=True)
class Target:
    name: str
    port: int
    pid: int
    soak: bool  # a proxy: its RSS is measured over the soak


def spawn(stack: ExitStack, argv: list[str], log: Path, cwd: Path = REPO,
          env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    out = stack.enter_context(open(log, "wb"))  # noqa: SIM115 - the ExitStack closes it
    process = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    stack.callback(_stop, process)
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def corpus_roots() -> list[str]:
    from bench.corpus_skills import corpus_roots as roots

    found = [str(root) for root in roots() if root.is_dir()]
    if len(found) != 7:
        raise SystemExit(f"the seven corpus roots are not all there ({len(found)} found under ../shared/corpus)")
    return found


def litellm_venv(cache: Path = CACHE, version: str = LITELLM_VERSION) -> Path:
    """The `litellm` command of the benchmark's own venv, made (and LiteLLM installed) when missing."""
    venv = cache / "litellm-venv"
    command = venv / "bin" / "litellm"
    if command.exists() and list(venv.glob(f"lib/python*/site-packages/litellm-{version}.dist-info")):
        return command
    print(f"installing litellm[proxy]=={version} into {venv} (once, about a minute)", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", f"litellm[proxy]=={version}"], check=True)
    return command


def start_target(stack: ExitStack, name: str, upstream: int, logs: Path, litellm: Path | None,
                 workers: int = 1) -> Target:
    """Start `name` (bare, skillproxy or litellm) in front of the upstream on port `upstream`; wait until ready.

    `workers` above 1 (skillproxy only) starts `skillproxy serve --workers N`: the returned pid is uvicorn's
    process manager, the workers are its children."""
    port, origin = free_port(), f"http://127.0.0.1:{upstream}"
    if name == "bare":
        process, ready = spawn(stack, [sys.executable, "-m", "bench.bare_passthrough", "--upstream", origin,
                                       "--port", str(port)], logs / "bare.log"), "/stats"
    elif name == "skillproxy":
        roots = [arg for root in corpus_roots() for arg in ("--root", root)]
        several = ["--workers", str(workers)] if workers > 1 else []
        process, ready = spawn(stack, [sys.executable, "-m", "proxy", "serve", "--upstream", origin + "/v1",
                                       "--port", str(port), "--log-format", "json", *several, *roots],
                               logs / f"skillproxy-w{workers}.log"), "/healthz"
    else:
        assert litellm is not None
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(Path.home()), "LANG": "C.UTF-8",
               "PERF_BENCH_UPSTREAM": origin + "/v1", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
        argv = [str(litellm), "--config", str(REPO / "bench" / "litellm_config.yaml"), "--host", "127.0.0.1",
                "--port", str(port), "--num_workers", "1", "--telemetry", "False"]
        process, ready = spawn(stack, argv, logs / "litellm.log", cwd=REPO / "bench", env=env), "/health/liveliness"
    wait_ready(f"http://127.0.0.1:{port}{ready}", timeout=180)
    if name == "skillproxy" and workers > 1:
        wait_for_workers(logs / f"skillproxy-w{workers}.log", workers)
    return Target(name, port, process.pid, soak=True)


def wait_for_workers(log: Path, workers: int, timeout: float = 180.0) -> None:
    """Until every worker has started its app (each builds its own engine; the first ready one already answers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.read_bytes().count(STARTED) >= workers:
            return
        time.sleep(0.2)
    raise RuntimeError(f"skillproxy --workers {workers}: not every worker started in {timeout:.0f} s (see {log})")


@contextmanager
def upstream_server(logs: Path) -> Iterator[Target]:
    """The fast fake upstream (no pause between stream events), as the `direct` target."""
    with ExitStack() as stack:
        port = free_port()
        process = spawn(stack, [sys.executable, "-m", "bench.load_upstream", "--port", str(port), "--gap", "0"],
                        logs / "upstream.log")
        wait_ready(f"http://127.0.0.1:{port}/stats")
        yield Target("direct", port, process.pid, soak=False)
