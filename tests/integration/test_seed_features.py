"""Slash activation, context fork modes, model override and the skills index, through the proxy.

The real engine over skills written for each test, the real proxy, and the
fake upstream's record of what it received.
"""

from __future__ import annotations

import httpx
import pytest

from proxy.engine.skill_engine import SkillEngine
from proxy.settings import Settings

SYSTEM = {"role": "system", "content": "You are terse."}


def skill_text(name: str, description: str, extra: str = "", body: str = "# Steps\nDo the thing.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}\n"


@pytest.fixture
def skills_root(make_skill, tmp_path):
    make_skill("summarise-isolated", skill_text(
        "summarise-isolated", "Summarise a pasted document in five bullet points.", "context: fork\nmodel: small\n"))
    make_skill("deep-review", skill_text(
        "deep-review", "Review a design document against the conversation so far.", "context: fork_with_context\n"))
    make_skill("translate", skill_text("translate", "Translate text between languages.", "model: huge-model\n"))
    make_skill("pdf-forms", skill_text("pdf-forms", "Fill in PDF forms and read PDF form fields."))
    return tmp_path / "skills"


@pytest.fixture
def start(start_proxy, skills_root):
    engines = []

    def run(**settings):
        engine = SkillEngine.from_settings(Settings(roots=(str(skills_root),), **settings), watch=False)
        engines.append(engine)
        return start_proxy(engine=engine, **settings)

    yield run
    for engine in engines:
        engine.close()


def chat(proxy, messages, model="json", **headers) -> httpx.Response:
    return httpx.post(proxy.base_url + "/chat/completions", json={"model": model, "messages": messages},
                      headers=headers)


def user(text):
    return {"role": "user", "content": text}


HISTORY = [SYSTEM, user("hello"), {"role": "assistant", "content": "hi"}]


# ---- slash activation ------------------------------------------------------------------

def test_slash_at_the_start_activates_a_skill_with_its_arguments(start, upstream):
    proxy = start()
    response = chat(proxy, [user("/pdf-forms fill the tax form")])
    assert response.headers["x-skills-route"] == "explicit:pdf-forms"
    sent = upstream.last().json["messages"][-1]["content"]
    assert sent.startswith("<skill_invocation_packet") and sent.endswith("fill the tax form\n</task_payload>")


@pytest.mark.parametrize("text", ["/etc/hosts is missing a line", "/unknown-thing do it",
                                  "please open /pdf-forms later"])
def test_paths_and_unknown_slash_words_are_plain_text(start, upstream, text):
    proxy = start()
    assert not chat(proxy, [user(text)]).headers["x-skills-route"].startswith("explicit")
    assert upstream.last().json["messages"][-1]["content"].endswith(text)


def test_slash_activation_can_be_switched_off(start, upstream):
    proxy = start(slash_activation=False)
    assert not chat(proxy, [user("/pdf-forms fill it")]).headers["x-skills-route"].startswith("explicit")


# ---- context modes and model override ---------------------------------------------------

def test_fork_sends_only_the_packet(start, upstream, logs):
    proxy = start()
    chat(proxy, [*HISTORY, user("$summarise-isolated the long report text")])
    sent = upstream.last().json["messages"]
    assert len(sent) == 1 and sent[0]["content"].startswith("<skill_invocation_packet")
    event = logs.wait_for("context_fork")
    assert event["dropped_messages"] == 3 and event["kept_messages"] == 0


def test_fork_can_keep_the_system_message(start, upstream):
    proxy = start(fork_keep_system=True)
    chat(proxy, [*HISTORY, user("$summarise-isolated the long report text")])
    sent = upstream.last().json["messages"]
    assert [m["role"] for m in sent] == ["system", "user"] and sent[0] == SYSTEM


def test_fork_with_context_keeps_the_history(start, upstream):
    proxy = start()
    chat(proxy, [*HISTORY, user("$deep-review the design doc")])
    sent = upstream.last().json["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0] == SYSTEM and sent[2] == HISTORY[2] and sent[1]["content"].endswith("hello")
    assert sent[3]["content"].startswith("<skill_invocation_packet")


def test_an_allowed_model_override_replaces_the_model(start, upstream, logs):
    proxy = start(model_overrides={"small": "qwen2.5-0.5b-instruct"})
    chat(proxy, [user("$summarise-isolated the report")], model="json")
    assert upstream.last().json["model"] == "qwen2.5-0.5b-instruct"
    assert logs.wait_for("model_override")["upstream_model"] == "qwen2.5-0.5b-instruct"
    assert logs.wait_for("request", path="/v1/chat/completions")["upstream_model"] == "qwen2.5-0.5b-instruct"


def test_a_model_override_not_allowed_is_ignored_and_logged(start, upstream, logs):
    proxy = start(model_overrides=["small"])
    chat(proxy, [user("$translate bonjour")], model="json")
    assert upstream.last().json["model"] == "json"
    ignored = logs.wait_for("model_override_ignored")
    assert ignored["skill_model"] == "huge-model" and "not allowed" in ignored["reason"]
    chat(proxy, [user("$summarise-isolated the report")], model="json")
    assert upstream.last().json["model"] == "small", "a list allows each name as itself"


def test_routed_skills_never_change_the_model(start, upstream):
    proxy = start(model_overrides={"huge-model": "huge-model"})
    chat(proxy, [user("please translate this text between languages: bonjour")])
    assert upstream.last().json["model"] == "json"


# ---- the skills index --------------------------------------------------------------------

def test_index_in_the_system_message_is_the_same_on_every_turn(start, upstream):
    proxy = start(skills_index="system")
    chat(proxy, [SYSTEM, user("hello")])
    first = upstream.last().json["messages"][0]["content"]
    assert first.startswith("You are terse.\n\n<available_skills count=\"4\" listed=\"4\">")
    assert "- translate: Translate text between languages." in first
    chat(proxy, [SYSTEM, user("hello"), {"role": "assistant", "content": "hi"}, user("and now?")])
    assert upstream.last().json["messages"][0]["content"] == first


def test_index_gets_a_system_message_when_the_client_sent_none(start, upstream):
    proxy = start(skills_index="system")
    chat(proxy, [user("hello")])
    sent = upstream.last().json["messages"]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith("<available_skills")


def test_index_for_models_without_a_system_prompt_goes_before_the_first_user_turn_only(start, upstream):
    proxy = start(skills_index="user")
    chat(proxy, [user("hello")])
    first = upstream.last().json["messages"]
    assert first[0]["content"].startswith("<available_skills") and first[0]["content"].endswith("hello")
    chat(proxy, [user("hello"), {"role": "assistant", "content": "hi"}, user("more")])
    second = upstream.last().json["messages"]
    assert second[0] == first[0], "replayed byte for byte"
    assert "<available_skills" not in second[2]["content"]


def test_an_index_over_budget_keeps_the_skills_closest_to_the_conversation(start, upstream):
    proxy = start(skills_index="system", skills_index_max_chars=330)
    chat(proxy, [user("fill in my PDF form fields please")])
    index = upstream.last().json["messages"][0]["content"]
    assert len(index) <= 330 and "- pdf-forms:" in index and "more not listed" in index
