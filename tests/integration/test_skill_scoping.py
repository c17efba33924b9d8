"""Which skills a request may use: config lists, X-Skills-* headers, invocation flags.

The real engine over the project's skills/ behind the real proxy; assertions
on what the fake upstream received.
"""

from __future__ import annotations

import httpx

from .engines import real_engine as engine_for

SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
RELEASE = "write release notes and a changelog entry for the commits since the last tag"


def chat(proxy, text: str, model: str = "json", **headers) -> httpx.Response:
    return httpx.post(proxy.base_url + "/chat/completions", headers=headers,
                      json={"model": model, "messages": [{"role": "user", "content": text}]})


def sent_text(upstream) -> str:
    return upstream.last().json["messages"][-1]["content"]


def test_deny_header_keeps_a_skill_out_of_routing_and_tools(running, upstream):
    assert chat(running, SQL).headers["x-skills-route"].startswith("sql-query-tuning=")
    denied = chat(running, SQL + " (second ask)", **{"X-Skills-Deny": "sql-*"})
    assert "sql-query-tuning" not in denied.headers["x-skills-route"]
    assert "<n>sql-query-tuning</n>" not in sent_text(upstream)


def test_allow_header_limits_routing_and_activation_to_the_names_given(running, upstream):
    response = chat(running, SQL, **{"X-Skills-Allow": "conventional-commits, code-review-*"})
    routed = {part.split("=")[0] for part in response.headers["x-skills-route"].split(";")}
    assert routed <= {"none", "conventional-commits", "code-review-checklist"}
    chat(running, "$sql-query-tuning why is this slow", **{"X-Skills-Allow": "conventional-commits"})
    assert "<skill_invocation_packet" not in sent_text(upstream), "out of scope: plain text, like any unknown $word"


def test_a_scoped_request_can_still_route_to_a_lower_ranked_allowed_skill(running, upstream):
    text = "review this pull request diff for bugs and security problems before merge"
    assert chat(running, text, **{"X-Skills-Allow": "code-review-checklist"}).headers["x-skills-route"].startswith(
        "code-review-checklist=")


def test_mode_off_forwards_the_request_untouched_and_adds_no_tools(running, upstream):
    body = {"model": "json", "messages": [{"role": "user", "content": SQL}]}
    response = httpx.post(running.base_url + "/chat/completions", json=body, headers={"X-Skills-Mode": "off"})
    assert response.status_code == 200 and response.headers["x-skills-route"] == "off"
    assert upstream.last().json == body


def test_mode_explicit_activates_but_never_routes(running, upstream):
    chat(running, SQL, **{"X-Skills-Mode": "explicit"})
    assert sent_text(upstream) == SQL
    chat(running, "$conventional-commits fix login expiry", **{"X-Skills-Mode": "explicit"})
    assert sent_text(upstream).startswith("<skill_invocation_packet")


def test_a_bad_mode_header_is_a_400_that_names_it(running, upstream):
    response = chat(running, SQL, **{"X-Skills-Mode": "sometimes"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_skills_header" and "X-Skills-Mode" in response.text
    assert upstream.received == []


def test_config_enabled_and_disabled_lists(start_proxy, upstream):
    engine = engine_for(disabled_skills=("sql-query-tuning",))
    proxy = start_proxy(engine=engine)
    assert not chat(proxy, SQL).headers["x-skills-route"].startswith("sql-query-tuning")
    chat(proxy, "$sql-query-tuning why is this slow")
    assert "<skill_invocation_packet" not in sent_text(upstream)
    engine.close()
    engine = engine_for(enabled_skills=("sql-*",))
    proxy = start_proxy(engine=engine)
    assert chat(proxy, SQL).headers["x-skills-route"].startswith("sql-query-tuning=")
    assert not chat(proxy, "$conventional-commits fix it").headers["x-skills-route"].startswith("explicit")
    engine.close()


def test_disable_model_invocation_keeps_a_skill_out_of_routing_but_not_activation(running, upstream):
    assert "release-notes" not in chat(running, RELEASE).headers["x-skills-route"]
    assert chat(running, "$release-notes v1.4.0..HEAD").headers["x-skills-route"] == "explicit:release-notes"
    listed = running.engine.skill_tools().call("list_skills", '{"query": "release notes changelog", "limit": 50}')
    assert "release-notes" not in listed.content


def test_user_invocable_false_keeps_a_skill_out_of_activation_but_not_routing(start_proxy, upstream, make_skill):
    folder = make_skill("pdf-forms", "---\nname: pdf-forms\ndescription: Fill in PDF forms and read PDF form fields. "
                        "Use when the user wants to fill a PDF form.\nuser-invocable: false\n---\n# PDF forms\n")
    engine = engine_for(roots=(str(folder.parent),))
    proxy = start_proxy(engine=engine)
    assert chat(proxy, "please fill in this PDF form for me").headers["x-skills-route"].startswith("pdf-forms=")
    assert not chat(proxy, "$pdf-forms fill it").headers["x-skills-route"].startswith("explicit")
    assert "<skill_invocation_packet" not in sent_text(upstream)
    engine.close()
