"""The inspect page's JSON under `/_skillproxy/api/` and its files, against a real proxy and upstream.

The page itself is driven in Chromium in test_inspect_browser.py; here: what the
endpoints answer, the ring buffer's cap, auth, and that no key reaches them.
"""

from __future__ import annotations

import time

import httpx
import pytest

from proxy.settings import SettingsError, load_settings

from .conftest import TEST_API_KEY, TEST_CLIENT_KEY, TEST_UPSTREAM_KEY, chat_body, secrets_in
from .engines import real_engine

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
API = "/_skillproxy/api"


@pytest.fixture
def inspected(start_proxy):
    """The real engine over skills/, with the inspect history at its default size."""
    engine = real_engine()
    yield start_proxy(engine=engine)
    engine.close()


def chat(proxy, text: str, headers: dict[str, str] | None = None, **extra) -> httpx.Response:
    return httpx.post(proxy.base_url + "/chat/completions", json=chat_body(text=text, **extra), headers=headers)


def kept_requests(proxy, until, headers: dict[str, str] | None = None, timeout: float = 5.0) -> list[dict]:
    """The history once `until(rows)` holds: a request is kept just after its answer has gone out."""
    deadline = time.monotonic() + timeout
    while True:
        rows = httpx.get(proxy.url + API + "/requests", headers=headers).json()["data"]
        if until(rows) or time.monotonic() > deadline:
            return rows
        time.sleep(0.02)


def test_the_page_and_its_files_are_served_from_the_package(inspected):
    page = httpx.get(inspected.url + "/_skillproxy/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert '<script src="/_skillproxy/static/inspect.js"' in page.text
    script = httpx.get(inspected.url + "/_skillproxy/static/inspect.js")
    assert script.headers["content-type"].startswith("text/javascript") and "/v1/skills/route" in script.text
    assert "innerHTML" not in script.text, "request text is rendered as text, never as markup"
    css = httpx.get(inspected.url + "/_skillproxy/static/inspect.css")
    assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
    redirect = httpx.get(inspected.url + "/_skillproxy")
    assert redirect.status_code == 308 and redirect.headers["location"] == "/_skillproxy/"


def test_unknown_inspect_paths_are_openai_shaped_404s(inspected, upstream):
    for path in ("/_skillproxy/static/secrets.txt", "/_skillproxy/api/nope"):
        response = httpx.get(inspected.url + path)
        assert response.status_code == 404, path
        assert set(response.json()["error"]) == {"message", "type", "code"}
    assert upstream.received == []


def test_catalog_lists_skills_with_warnings_shadowed_and_roots(start_proxy, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    for root, description in ((first, "Formats invoices as tables."), (second, "An older copy.")):
        (root / "invoice-format").mkdir(parents=True)
        (root / "invoice-format" / "SKILL.md").write_text(
            f"---\nname: invoice-format\ndescription: {description}\nversion: 2\n---\n# Invoices\n")
    engine = real_engine(roots=(str(first), str(second)))
    proxy = start_proxy(engine=engine)
    catalog = httpx.get(proxy.url + API + "/catalog").json()
    engine.close()
    assert catalog["roots"] == [str(first), str(second)]
    [skill] = catalog["skills"]
    assert skill["name"] == "invoice-format" and skill["root"] == str(first)
    assert [w["rule"] for w in skill["warnings"]] == ["unknown-key"]
    [shadowed] = catalog["shadowed"]
    assert shadowed["root"] == str(second) and shadowed["shadowed_by"] == skill["location"]
    assert skill["shadows"] == [shadowed["location"]]
    assert catalog["counts"] == {"skills": 1, "shadowed": 1, "skipped": 0, "warnings": 2}


def test_a_routed_chat_request_is_listed_with_scores_and_its_detail_has_the_injected_text(inspected, logs):
    answer = chat(inspected, SQL)
    assert answer.status_code == 200
    request_id = answer.headers["x-request-id"]
    [row] = kept_requests(inspected, lambda rows: rows)
    assert row["request_id"] == request_id and row["path"] == "/v1/chat/completions"
    assert row["mode"] == "routed" and row["selected"] == ["sql-query-tuning"] and row["status"] == 200
    assert row["scores"]["sql-query-tuning"] >= 70 and row["model"] == "json"
    assert row["upstream_ms"] is not None and row["total_ms"] >= row["upstream_ms"]
    detail = httpx.get(inspected.url + API + f"/requests/{request_id}").json()
    injected = detail["injected"]
    assert injected["how"] == "prepended" and injected["text"].startswith("<skills_runtime_context")
    assert "<routed_skills>" in injected["text"] and injected["chars"] == row["injected_chars"] > 0
    assert detail["sent_text"] == SQL
    [selected] = detail["selected_detail"]
    assert selected["name"] == "sql-query-tuning" and selected["confidence"] == "high" and selected["reasons"]
    assert any(e["event"] == "prompt_route" for e in detail["events"])
    assert "_chat_turn" not in detail["line"] and detail["line"]["route"] == row["route"]
    [line] = [e for e in logs.events("request") if e["request_id"] == request_id]
    assert not [key for key in line if key.startswith("_")], "what is kept for the page never reaches the log"


def test_an_explicit_activation_shows_the_packet_that_replaced_the_message(inspected):
    request_id = chat(inspected, "$sql-query-tuning why is this slow?").headers["x-request-id"]
    kept_requests(inspected, lambda rows: rows)
    detail = httpx.get(inspected.url + API + f"/requests/{request_id}").json()
    assert detail["mode"] == "explicit" and detail["selected"] == ["sql-query-tuning"]
    assert detail["injected"]["how"] == "replaced"
    assert detail["injected"]["text"].startswith("<skill_invocation_packet")
    assert "why is this slow?" in detail["injected"]["text"]


def test_the_ring_buffer_keeps_only_the_last_n_newest_first(start_proxy):
    proxy = start_proxy(engine=real_engine(), inspect_history=3)
    ids = [chat(proxy, f"question number {n}").headers["x-request-id"] for n in range(5)]
    httpx.get(proxy.base_url + "/models")
    kept_requests(proxy, lambda rows: rows and rows[0]["path"] == "/v1/models")
    answer = httpx.get(proxy.url + API + "/requests").json()
    assert answer["history"] == {"enabled": True, "size": 3}
    rows = answer["data"]
    assert [r["path"] for r in rows] == ["/v1/models", "/v1/chat/completions", "/v1/chat/completions"]
    assert [r["request_id"] for r in rows[1:]] == [ids[4], ids[3]]
    assert httpx.get(proxy.url + API + "/requests?limit=1").json()["data"][0]["path"] == "/v1/models"
    gone = httpx.get(proxy.url + API + f"/requests/{ids[0]}")
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "request_not_found"
    assert "last 3 requests" in gone.json()["error"]["message"]
    proxy.engine.close()


def test_the_page_and_health_probes_do_not_fill_the_history(inspected):
    httpx.get(inspected.url + "/healthz")
    httpx.get(inspected.url + "/_skillproxy/")
    httpx.get(inspected.url + API + "/catalog")
    httpx.get(inspected.base_url + "/models")
    rows = kept_requests(inspected, lambda rows: rows)
    assert [r["path"] for r in rows] == ["/v1/models"]


def test_an_unknown_request_id_is_a_404_and_a_bad_limit_a_400(inspected):
    missing = httpx.get(inspected.url + API + "/requests/no-such-id")
    assert missing.status_code == 404
    assert missing.json()["error"] == {"message": missing.json()["error"]["message"],
                                       "type": "invalid_request_error", "code": "request_not_found"}
    bad = httpx.get(inspected.url + API + "/requests?limit=lots")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid_limit"


def test_history_off_keeps_nothing_and_says_so(start_proxy):
    proxy = start_proxy(engine=real_engine(), inspect_history=0)
    request_id = chat(proxy, SQL).headers["x-request-id"]
    answer = httpx.get(proxy.url + API + "/requests").json()
    assert answer == {"history": {"enabled": False, "size": 0}, "data": []}
    missing = httpx.get(proxy.url + API + f"/requests/{request_id}")
    assert missing.status_code == 404 and "inspect_history: 0" in missing.json()["error"]["message"]
    assert httpx.get(proxy.url + API + "/catalog").json()["counts"]["skills"] == 7
    proxy.engine.close()


def test_with_api_keys_the_data_needs_the_key_but_the_page_opens(start_proxy):
    proxy = start_proxy(engine=real_engine(), api_keys=(TEST_API_KEY,))
    for path in ("/catalog", "/requests", "/requests/anything"):
        refused = httpx.get(proxy.url + API + path)
        assert refused.status_code == 401, path
        assert refused.json()["error"]["code"] == "invalid_api_key"
        wrong = httpx.get(proxy.url + API + path, headers={"Authorization": "Bearer not-the-key"})
        assert wrong.status_code == 401, path
    for path in ("/_skillproxy/", "/_skillproxy/static/inspect.js", "/_skillproxy/static/inspect.css"):
        assert httpx.get(proxy.url + path).status_code == 200, path
    assert httpx.get(proxy.url + "/_skillproxy/static/other.js").status_code == 401
    key = {"Authorization": f"Bearer {TEST_API_KEY}"}
    assert httpx.get(proxy.url + API + "/catalog", headers=key).status_code == 200
    proxy.engine.close()


def test_no_key_or_authorization_header_reaches_the_history(start_proxy, upstream, logs):
    proxy = start_proxy(engine=real_engine(), api_keys=(TEST_API_KEY,), upstream_api_key=TEST_UPSTREAM_KEY)
    key = {"Authorization": f"Bearer {TEST_API_KEY}"}
    chat(proxy, SQL, headers=key)
    chat(proxy, "hello", headers={"Authorization": f"Bearer {TEST_CLIENT_KEY}"})  # refused: a wrong key
    kept_requests(proxy, lambda rows: len(rows) == 2, headers=key)
    rows = httpx.get(proxy.url + API + "/requests", headers=key)
    assert [r["status"] for r in rows.json()["data"]] == [401, 200]
    shown = rows.text + "".join(httpx.get(proxy.url + API + f"/requests/{r['request_id']}", headers=key).text
                                for r in rows.json()["data"])
    assert secrets_in(shown) == [] and "authorization" not in shown.lower()
    proxy.engine.close()


def test_route_dry_run_gives_scores_and_reasons_for_the_try_box(inspected):
    body = {"messages": [{"role": "user", "content": SQL}]}
    decision = httpx.post(inspected.base_url + "/skills/route", json=body).json()
    [top] = decision["selected_detail"]
    assert top["name"] == "sql-query-tuning" and top["score"] >= 70 and top["reasons"]
    assert decision["candidates"][0] == top and len(decision["candidates"]) > 1


@pytest.mark.parametrize("value", ["-1", "10001", "many"])
def test_a_bad_inspect_history_is_a_settings_error_naming_the_key(value):
    with pytest.raises(SettingsError, match="inspect_history"):
        load_settings(env={"SKILLPROXY_INSPECT_HISTORY": value})
