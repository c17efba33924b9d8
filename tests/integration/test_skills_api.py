"""`/v1/skills`: listing, one skill, its files (contained, capped), and the route dry run."""

from __future__ import annotations

import httpx
import pytest

from tests.conftest import REPO

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"


def test_list_skills_sorted_with_their_flags_and_scoped_by_headers(running, upstream):
    data = httpx.get(running.base_url + "/skills").json()["data"]
    names = [s["name"] for s in data]
    assert names == sorted(names) and "sql-query-tuning" in names and len(names) == 7
    release = next(s for s in data if s["name"] == "release-notes")
    assert release["model_invocable"] is False and release["user_invocable"] is True
    scoped = httpx.get(running.base_url + "/skills", headers={"X-Skills-Allow": "sql-*,log-*"}).json()["data"]
    assert [s["name"] for s in scoped] == ["log-triage", "sql-query-tuning"]
    assert upstream.received == [], "answered by the proxy, not forwarded"


def test_one_skill_has_its_metadata_and_body(running):
    skill = httpx.get(running.base_url + "/skills/sql-query-tuning").json()
    assert skill["name"] == "sql-query-tuning" and skill["has_supporting_files"] is True
    assert skill["body"].startswith("#") and "---" not in skill["body"].splitlines()[0]
    assert skill["argument_hint"] and "sql" in skill["tags"]


def test_an_unknown_skill_is_an_openai_shaped_404_with_the_closest_names(running):
    response = httpx.get(running.base_url + "/skills/sql-query-tunning")
    assert response.status_code == 404
    error = response.json()["error"]
    assert error["code"] == "skill_not_found" and "sql-query-tuning" in error["message"]


def test_a_supporting_file_is_served_as_text(running):
    response = httpx.get(running.base_url + "/skills/sql-query-tuning/files/references/index-cheatsheet.md")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    assert response.text == (REPO / "skills/sql-query-tuning/references/index-cheatsheet.md").read_text()
    assert response.headers["x-skill-file-truncated"] == "false"


@pytest.mark.parametrize(("path", "status", "code"), [
    ("..%2Flog-triage%2FSKILL.md", 400, "path_refused"),
    ("%252e%252e/etc/passwd", 400, "path_refused"),
    ("scripts", 400, "is_directory"),
    ("nope.md", 404, "not_found"),
])
def test_file_paths_are_contained(running, path, status, code):
    response = httpx.get(running.base_url + f"/skills/sql-query-tuning/files/{path}")
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] == code


def test_route_dry_run_explains_and_forwards_nothing(running, upstream):
    body = {"messages": [{"role": "user", "content": SQL}]}
    decision = httpx.post(running.base_url + "/skills/route", json=body).json()
    assert decision["mode"] == "routed" and decision["selected"] == ["sql-query-tuning"]
    route = next(e for e in decision["events"] if e["event"] == "prompt_route")
    assert route["top_skill"] == "sql-query-tuning" and route["selected"]
    assert "<routed_skills>" in decision["messages"][-1]["content"]
    assert upstream.received == []
    again = httpx.post(running.base_url + "/skills/route", json=body).json()
    assert again["mode"] == "routed", "nothing was stored: the same message is still a first route"


def test_route_dry_run_rejects_a_body_without_messages(running):
    response = httpx.post(running.base_url + "/skills/route", json={"prompt": "x"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_messages"
