"""bench/big_catalog.py and bench/route_bench.py on the real corpus (the MiniLM row is optional)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.shared_corpus  # skipped only without ../shared, never in CI (tests/conftest.py)


def test_big_catalog_adds_renamed_reworded_copies_deterministically(tmp_path):
    from bench.big_catalog import write_big_catalog
    from bench.corpus_skills import load_corpus_skills
    from proxy.core.catalog.catalog import load_catalog

    corpus = {s.name: s for s in load_corpus_skills()}
    a = load_catalog(write_big_catalog(tmp_path / "a", size=450, seed=3))
    b = load_catalog(write_big_catalog(tmp_path / "b", size=450, seed=3))
    assert len(a.skills) == 450 and not a.shadowed and not a.skipped
    assert [(s.name, s.description) for s in a.skills] == [(s.name, s.description) for s in b.skills]
    copies = [s for s in a.skills if s.name not in corpus]
    assert len(copies) == 450 - len(corpus)
    assert all(s.name == s.folder_name and len(s.name) <= 64 for s in copies)
    assert all(s.description not in {c.description for c in corpus.values()} for s in copies)


def test_route_bench_json_without_minilm():
    command = [sys.executable, str(REPO / "bench" / "route_bench.py"), "--no-minilm", "--big-size", "0", "--json"]
    report = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout)
    assert report["cases"] == 320 and set(report["routers"]) == {"skillproxy", "seed003"}
    assert report["routers"]["skillproxy"]["top1"] > report["routers"]["seed003"]["top1"]
    assert report["minilm"] == {"skipped": "--no-minilm"}


def test_fastest_of_keeps_each_texts_fastest_route_and_varies_every_pass():
    from bench.route_bench import fastest_of

    seen: list[str] = []
    now = [0.0]
    costs = iter([0.004, 0.001, 0.003, 0.002, 0.005, 0.0005])  # seconds: pass 1 (a, b), pass 2, pass 3

    def route(text: str) -> None:  # a route costs its next cost on the clock below
        seen.append(text)
        now[0] += next(costs)

    p50, p99 = fastest_of(route, ["a", "b"], repeat=3, clock=lambda: now[0])
    assert seen == ["a (0)", "b (0)", "a (1)", "b (1)", "a (2)", "b (2)"]  # no cache answers a later pass
    assert p50 == pytest.approx(0.5)  # b's fastest: pass 3
    assert p99 == pytest.approx(3.0)  # a's fastest: pass 2
