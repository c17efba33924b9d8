"""`skillproxy route` and `skillproxy eval`, run as a subprocess on the project's own skills."""

import json

import pytest

from tests.cli.test_list_lint import root_args, skillproxy
from tests.conftest import REPO, SHARED, corpus_roots

OWN = ["--root", str(REPO / "skills")]


def route_json(*args):
    result = skillproxy("route", "--json", *OWN, *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_route_routed_with_reasons_and_injection():
    report = route_json("--show-injection", "my postgres query is slow, which index should I add?")
    assert report["mode"] == "routed"
    top = report["selected"][0]
    assert top["name"] == "sql-query-tuning" and top["confidence"] in ("high", "medium") and top["reasons"]
    assert report["candidates"][0]["name"] == "sql-query-tuning" and len(report["candidates"]) <= 10
    assert report["injection"].startswith("<skills_runtime_context>") and report["injection"].endswith("\n\n---\n\n")


def test_route_explicit_unresolved_and_none():
    explicit = route_json("$log-triage why did the pods restart")
    assert explicit["mode"] == "explicit" and explicit["selected"][0]["name"] == "log-triage"
    typo = route_json("$log-triag why")
    assert typo["unresolved"] == [{"token": "$log-triag", "closest": ["log-triage"]}]
    none = route_json("what is the capital of France?")
    assert none["mode"] == "none" and none["selected"] == []


def test_route_jsonl_one_decision_per_line(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"text": "write release notes"}\n{"text": "$sql-query-tuning EXPLAIN this"}\n')
    result = skillproxy("route", *OWN, "--jsonl", str(cases))
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line["mode"] for line in lines][1] == "explicit" and len(lines) == 2
    assert skillproxy("route", *OWN).returncode == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert skillproxy("route", *OWN, "--jsonl", str(bad)).returncode == 2


def test_eval_on_own_cases(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(c) for c in [
        {"text": "the EXPLAIN ANALYZE plan shows a sequential scan, add an index?", "expected": ["sql-query-tuning"],
         "lang": "en"},
        {"text": "review this pull request for security and test gaps", "expected": ["code-review-checklist"],
         "lang": "en"},
        {"text": "what's a good name for a cat?", "expected": [], "lang": "en"},
    ]))
    report = json.loads(skillproxy("eval", "--json", *OWN, str(cases)).stdout)
    assert report["cases"] == 3 and report["top1"] == 1.0 and report["false_route_rate"] == 0.0
    assert set(report) >= {"top1", "top3", "false_route_rate", "by_lang", "p50_ms", "p99_ms", "cases", "misses"}
    table = skillproxy("eval", *OWN, str(cases)).stdout
    assert "top-1 1.00" in table and "lang" in table


@pytest.mark.shared_corpus
def test_eval_on_the_dev_set_beats_the_seed_baseline():
    result = skillproxy("eval", "--json", *root_args(corpus_roots()), str(SHARED / "eval" / "dev.jsonl"))
    report = json.loads(result.stdout)
    assert report["cases"] == 320
    assert report["top1"] > 0.45 and report["top3"] > 0.6 and report["false_route_rate"] < 0.3


def test_eval_half_takes_one_half_of_the_cases(tmp_path):
    from proxy.core.routing.evaluation import half_of

    texts = [f"write release notes for version {i}" for i in range(12)]
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps({"text": t, "expected": [], "lang": "en"}) for t in texts))
    counts = {half: json.loads(skillproxy("eval", "--json", "--half", half, *OWN, str(cases)).stdout)["cases"]
              for half in ("tuning", "check")}
    assert counts == {half: sum(half_of({"text": t}) == half for t in texts) for half in ("tuning", "check")}
    assert skillproxy("eval", "--half", "train", *OWN, str(cases)).returncode == 2
