"""`skillproxy serve` as a user runs it: a real process, then /metrics and a skill added while it serves.

The proxy runs as `python -m proxy serve` from this checkout (so the code under
test is this tree's, here and in CI), on a free port, over a temporary root.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO
from tests.real_model.pair import free_port

from .eventually import eventually
from .scrape import Scrape

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\nSteps.\n"


def answers(url: str) -> bool:
    try:
        return httpx.get(url).status_code == 200
    except httpx.TransportError:
        return False


@contextmanager
def serving_proxy(root: Path, upstream_url: str, out: Path, err: Path) -> Iterator[str]:
    """The URL of a `python -m proxy serve` over `root`, its stdout in `out`, stderr in `err`; stopped after."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLPROXY_")}
    env["PYTHONPATH"] = str(REPO)
    command = [sys.executable, "-m", "proxy", "serve", "--root", str(root), "--port", str(port),
               "--upstream", upstream_url, "--log-format", "json"]
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=stdout, stderr=stderr)
        url = f"http://127.0.0.1:{port}"
        try:
            eventually(lambda: answers(url + "/healthz") or process.poll() is not None, seconds=20)
            assert process.poll() is None, err.read_text()
            yield url
        finally:
            process.terminate()
            process.wait(10)


@pytest.fixture
def served(tmp_path: Path, upstream: Any) -> Iterator[tuple[str, Path, Path, Path]]:
    """(proxy URL, skill root, stdout log, stderr) of a running `python -m proxy serve`."""
    root, out, err = tmp_path / "skills", tmp_path / "stdout.log", tmp_path / "stderr.log"
    (root / "photo-resize").mkdir(parents=True)
    (root / "photo-resize" / "SKILL.md").write_text(SKILL.format(name="photo-resize", desc="Resize photos"))
    with serving_proxy(root, upstream.url + "/v1", out, err) as url:
        yield url, root, out, err


def logged(out: Path, event: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("{")]
    return [line for line in lines if line.get("event") == event]


def test_serve_shows_metrics_and_a_skill_added_while_it_runs(served):
    url, root, out, err = served
    assert f"metrics:  {url}/metrics" in err.read_text()
    first = httpx.get(url + "/metrics")
    assert first.headers["content-type"].startswith("text/plain; version=0.0.4")
    assert Scrape(first.text).value("skillproxy_skills_loaded") == 1
    time.sleep(0.5)  # the watcher starts with the server
    (root / "invoice-audit").mkdir()
    (root / "invoice-audit" / "SKILL.md").write_text(SKILL.format(name="invoice-audit", desc="Audit invoices"))
    eventually(lambda: httpx.get(url + "/v1/skills/invoice-audit").status_code == 200, seconds=20)
    [reloaded] = eventually(lambda: [e for e in logged(out, "catalog_reloaded") if e["added"] == ["invoice-audit"]],
                            seconds=20)
    assert reloaded["skills"] == 2 and reloaded["counts"]["added"] == 1
    chat = httpx.post(url + "/v1/chat/completions", json={"model": "json", "messages": [
        {"role": "user", "content": "$invoice-audit check the March invoices"}]})
    assert chat.status_code == 200 and chat.headers["x-skills-route"] == "explicit:invoice-audit"
    metrics = Scrape(httpx.get(url + "/metrics").text)
    assert metrics.value("skillproxy_skills_loaded") == 2
    assert metrics.value("skillproxy_catalog_reloads_total") == len(logged(out, "catalog_reloaded")) >= 1
    assert metrics.value("skillproxy_catalog_skill_changes_total", change="added") == 1
    assert metrics.value("skillproxy_chat_requests_total", mode="explicit", status="200", stream="false") == 1
