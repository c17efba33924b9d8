"""Hot reload at real catalog size: a serving proxy after a change decides as a fresh one does.

The real engine watches a temporary root beside the 396 corpus skills; one skill is
edited, one added and one removed under the running proxy. Once the reload is logged,
its answers to `POST /v1/skills/route` (mode, route, selected skills, the decision's log
events with reasons and scores) and its skill listing must equal those of a second
proxy whose engine was built from scratch (parse and term caches cleared) on the same
files. Waits are generous; nothing here asserts how fast it was.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from proxy.core.catalog.loader import clear_parse_cache
from proxy.core.routing.terms import clear_term_cache
from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings
from tests.conftest import SHARED, corpus_roots

from .test_hot_reload import eventually, reloads_named, write_skill

pytestmark = pytest.mark.shared_corpus
PROMPTS = 60  # of the dev set, plus the ones below


def decisions(client: httpx.Client, prompts: list[str]) -> list[dict[str, Any]]:
    answers = [client.post("/v1/skills/route", json={"messages": [{"role": "user", "content": p}]}) for p in prompts]
    assert all(a.status_code == 200 for a in answers)
    return [{k: a.json()[k] for k in ("mode", "route", "selected", "events")} for a in answers]


def listing(client: httpx.Client) -> list[dict[str, Any]]:
    return client.get("/v1/skills").json()["data"]


def test_after_changes_a_serving_proxy_routes_as_a_fresh_one(start_proxy, upstream, logs, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "invoice-audit", "Audit supplier invoices for duplicate payments and wrong VAT")
    write_skill(root, "ledger-close", "Close the month in the general ledger")
    settings = Settings(roots=(str(root), *corpus_roots()))
    prompts = [json.loads(line)["text"] for line in (SHARED / "eval" / "dev.jsonl").read_text().splitlines()][:PROMPTS]
    prompts += ["audit these supplier invoices for duplicate payments", "reconcile card settlements with the ledger"]
    serving = SkillEngine.from_settings(settings)  # the proxy's lifespan starts its watcher
    try:
        with httpx.Client(base_url=start_proxy(engine=serving).url, timeout=30) as client:
            time.sleep(0.3)  # let the watcher register before the first change
            write_skill(root, "invoice-audit", "Audit supplier invoices and card settlements for duplicates",
                        body="Match card settlements to invoices first.")
            write_skill(root, "bank-reconcile", "Reconcile bank statement lines against the general ledger")
            (root / "ledger-close" / "SKILL.md").unlink()
            (root / "ledger-close").rmdir()
            eventually(lambda: reloads_named(logs, removed=["ledger-close"]) and
                       [s["name"] for s in listing(client)].count("bank-reconcile") and
                       "card settlements" in (client.get("/v1/skills/invoice-audit").json()["description"]))
            warm = decisions(client, prompts), listing(client)
    finally:
        serving.close()
    clear_parse_cache()
    clear_term_cache()
    fresh_engine = SkillEngine.from_settings(settings, watch=False)
    with httpx.Client(base_url=start_proxy(engine=fresh_engine).url, timeout=30) as client:
        fresh = decisions(client, prompts), listing(client)
    assert warm == fresh
    assert warm[0][-2]["route"].startswith("invoice-audit=")  # the edit reached routing
