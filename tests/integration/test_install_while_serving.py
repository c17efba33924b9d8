"""`skillproxy add`, `update` and `remove` under a running `python -m proxy serve`: hot reload picks each up.

The proxy runs as a real process over an empty root; the CLI runs as another, fetching a real
git repository over `file://`. Each change must show in `GET /v1/skills` without a restart,
and the clone and copies made in the root's `.skillproxy/tmp/` must never be served as skills.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO
from tests.git_skill_repo import GOOD, SkillRepo

from .eventually import eventually
from .test_serve_metrics import logged, serving_proxy


def cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLPROXY_")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "proxy", *args], env=env, capture_output=True, text=True,
                          timeout=120, cwd=home)


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[tuple[str, Path, Path]]:
    """(proxy URL, its one root, its stdout log) of a running `python -m proxy serve`."""
    root, out, err = tmp_path / "root", tmp_path / "stdout.log", tmp_path / "stderr.log"
    root.mkdir()
    with serving_proxy(root, "http://127.0.0.1:9/v1", out, err) as url:
        yield url, root, out


def served_names(url: str) -> list[str]:
    return [skill["name"] for skill in httpx.get(url + "/v1/skills").json()["data"]]


def body_of(url: str, name: str) -> str | None:
    answer = httpx.get(f"{url}/v1/skills/{name}")
    return answer.json()["body"] if answer.status_code == 200 else None


def test_add_update_remove_while_the_proxy_serves(serving, tmp_path):
    url, root, out = serving
    home = tmp_path / "home"
    home.mkdir()
    repo = SkillRepo(tmp_path / "src")
    assert served_names(url) == []
    time.sleep(0.5)  # the watcher starts with the server

    added = cli("add", repo.url, "--skill", "invoice-audit", "--skill", "pdf-forms", "--root", str(root), home=home)
    assert added.returncode == 0, added.stdout + added.stderr
    eventually(lambda: served_names(url) == ["invoice-audit", "pdf-forms"], seconds=20)
    assert "Read references/checks.md" in body_of(url, "invoice-audit")

    repo.commit({"invoice-audit/SKILL.md": GOOD + "2. Check the VAT rate per country.\n"})
    updated = cli("update", "invoice-audit", "--root", str(root), home=home)
    assert updated.returncode == 0 and "1 changed (SKILL.md)" in updated.stdout
    eventually(lambda: "VAT rate per country" in (body_of(url, "invoice-audit") or ""), seconds=20)

    removed = cli("remove", "pdf-forms", "--root", str(root), home=home)
    assert removed.returncode == 0, removed.stdout
    eventually(lambda: served_names(url) == ["invoice-audit"], seconds=20)

    reloads = logged(out, "catalog_reloaded")
    seen = {name for event in reloads for name in event["added"] + event["changed"] + event["removed"]}
    assert seen == {"invoice-audit", "pdf-forms"}, "only installed skills ever came and went"
    assert all(event["skipped"] == 0 for event in reloads)
