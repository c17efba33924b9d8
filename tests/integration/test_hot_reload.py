"""Hot reload you can see: a SKILL.md added, edited and removed under a running proxy.

The real skill engine watches a temporary root; the real proxy serves it. Each
change must show in `GET /v1/skills` and in routing without a restart, be
logged as exactly one `catalog_reloaded` line saying what changed, and be
counted in `GET /metrics`. Waits are generous (10 s); nothing here asserts how
fast it was (bench/reload_latency.py measures that).
"""

from __future__ import annotations

import itertools
import shutil
import time
from pathlib import Path
from typing import Any

import httpx

from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings

from .conftest import chat_body
from .eventually import eventually
from .scrape import Scrape

SKILL = "---\nname: {name}\ndescription: {desc}\n---\n# {name}\n\n## Steps\n{body}\n"
INVOICES = "audit these supplier invoices for duplicate payments and wrong VAT"
BANK = "reconcile the bank statement lines against the general ledger"
BATCHES = itertools.count(1)


def write_skill(root: Path, name: str, desc: str, body: str = "Follow the steps.") -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(SKILL.format(name=name, desc=desc, body=body), encoding="utf-8")


def route_of(client: httpx.Client, text: str) -> str:
    """The route of a new conversation (an identical request would be replayed as first forwarded)."""
    answer = client.post("/v1/chat/completions", json=chat_body(text=f"{text}, batch {next(BATCHES)}"))
    return answer.headers["x-skills-route"]


def description_of(client: httpx.Client, name: str) -> str | None:
    answer = client.get(f"/v1/skills/{name}")
    return answer.json()["description"] if answer.status_code == 200 else None


def reloads_named(logs: Any, **match: Any) -> list[dict[str, Any]]:
    return [e for e in logs.events("catalog_reloaded") if all(e.get(k) == v for k, v in match.items())]


def test_add_edit_remove_a_skill_while_serving(start_proxy, upstream, logs, tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "photo-resize", "Resize holiday photos for the family album")
    engine = SkillEngine.from_settings(Settings(roots=(str(root),)))  # the proxy's lifespan starts its watcher
    proxy = start_proxy(engine=engine)
    try:
        with httpx.Client(base_url=proxy.url, timeout=30) as client:
            assert not route_of(client, INVOICES).startswith("invoice-audit")
            time.sleep(0.3)  # let the watcher register before the first change

            write_skill(root, "invoice-audit", "Audit supplier invoices for duplicate payments and wrong VAT")
            eventually(lambda: description_of(client, "invoice-audit"))
            assert [s["name"] for s in client.get("/v1/skills").json()["data"]] == ["invoice-audit", "photo-resize"]
            assert route_of(client, INVOICES).startswith("invoice-audit=")
            [added] = eventually(lambda: reloads_named(logs, added=["invoice-audit"]))
            assert added["removed"] == [] and added["changed"] == []
            assert added["counts"] == {"added": 1, "removed": 0, "changed": 0}
            assert (added["skills_before"], added["skills"]) == (1, 2) and added["level"] == "info"

            write_skill(root, "invoice-audit", "Reconcile bank statement lines against the general ledger")
            eventually(lambda: description_of(client, "invoice-audit") != "Audit supplier invoices for "
                                                                          "duplicate payments and wrong VAT")
            assert route_of(client, BANK).startswith("invoice-audit=")
            [changed] = eventually(lambda: reloads_named(logs, changed=["invoice-audit"]))
            assert changed["added"] == [] and changed["removed"] == [] and changed["skills"] == 2

            shutil.rmtree(root / "invoice-audit")
            eventually(lambda: client.get("/v1/skills/invoice-audit").status_code == 404)
            assert not route_of(client, BANK).startswith("invoice-audit")
            [removed] = eventually(lambda: reloads_named(logs, removed=["invoice-audit"]))
            assert removed["counts"] == {"added": 0, "removed": 1, "changed": 0} and removed["skills"] == 1

            metrics = eventually(lambda: _reloads_counted(client, len(logs.events("catalog_reloaded"))))
    finally:
        engine.close()
    assert metrics.value("skillproxy_catalog_skill_changes_total", change="added") == 1
    assert metrics.value("skillproxy_catalog_skill_changes_total", change="changed") == 1
    assert metrics.value("skillproxy_catalog_skill_changes_total", change="removed") == 1
    assert metrics.value("skillproxy_skills_loaded") == 1
    assert metrics.value("skillproxy_catalog_last_reload_timestamp_seconds") > 0


def _reloads_counted(client: httpx.Client, logged: int) -> Scrape | None:
    """The scrape once it counts as many reloads as were logged (one line per reload), at least three."""
    metrics = Scrape(client.get("/metrics").text)
    return metrics if metrics.value("skillproxy_catalog_reloads_total") == logged >= 3 else None


def test_an_edit_to_the_body_alone_is_reported_as_changed(start_proxy, upstream, logs, tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "release-notes", "Write release notes from commits", body="Group by type.")
    engine = SkillEngine.from_settings(Settings(roots=(str(root),)))  # the proxy's lifespan starts its watcher
    start_proxy(engine=engine)
    try:
        time.sleep(0.3)
        write_skill(root, "release-notes", "Write release notes from commits", body="Group by type, then by scope.")
        [changed] = eventually(lambda: reloads_named(logs, changed=["release-notes"]))
    finally:
        engine.close()
    assert changed["counts"] == {"added": 0, "removed": 0, "changed": 1}
