"""Bad input through the real proxy: the right 4xx, or forwarded for the upstream to judge; never a 500.

The rule every case follows: the proxy rejects only what it cannot parse or
act on (not JSON, not an object, no `messages` list, numbers or nesting it
cannot carry, over a limit), with an OpenAI-shaped 4xx that names the
problem. Everything else (odd roles, odd content, odd `model` or `stream`) is
the upstream's to judge: it is forwarded with every message it did not
rewrite unchanged. `/v1/skills/route` parses the same bodies and answers 200
where the chat endpoint would forward.

Plus the request limits: `max_messages` (413) and a user message longer than
the router's cap, forwarded whole and routed on its head. The body-size 413
is in test_errors.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proxy.app import create_app
from proxy.core.routing.query import HEAD_CHARS, TAIL_CHARS
from proxy.core.tools.calls import function_name
from proxy.core.turns.turn_text import SEPARATOR
from proxy.errors import ProxyError
from proxy.logs.setup import configure_logging
from proxy.request_body import parse_chat_body
from proxy.settings import Settings

from .conftest import RunningProxy, chat_body
from .engines import real_engine
from .servers import ServerThread

SYSTEM = {"role": "system", "content": "be brief"}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
AUDIO = {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}}
FORWARD = "forward"


def streamed(*messages: Any, **extra: Any) -> bytes:
    """A streamed request: the fake upstream's `sse` model answers without reading the messages."""
    return json.dumps({"model": "sse", "stream": True, "messages": list(messages), **extra}).encode()


def nested(depth: int) -> bytes:
    return b'{"model": "sse", "stream": true, "messages": [], "metadata": ' + b"[" * depth + b"]" * depth + b"}"


# (case id, raw body, expected: FORWARD or (status, error code)).
CASES: list[tuple[str, bytes, Any]] = [
    # The body itself
    ("json-number", b"42", (400, "invalid_body")),
    ("json-null", b"null", (400, "invalid_body")),
    ("json-true", b"true", (400, "invalid_body")),
    ("json-list-of-objects", b'[{"messages": []}]', (400, "invalid_body")),
    ("truncated-json", b'{"model": "m", "messages": [', (400, "invalid_json")),
    ("trailing-garbage", b'{"model": "m", "messages": []} x', (400, "invalid_json")),
    ("invalid-utf8", b'{"model": "m", "messages": [{"role": "user", "content": "\xff\xfe"}]}', (400, "invalid_json")),
    ("latin1-text", '{"model": "m", "messages": [{"role": "user", "content": "café"}]}'.encode("latin-1"),
     (400, "invalid_json")),
    ("utf8-bom", b"\xef\xbb\xbf" + streamed(SYSTEM, {"role": "user", "content": 7}), FORWARD),
    ("nested-10000", nested(10_000), (400, "json_too_deep")),
    ("nested-900", nested(900), (400, "json_too_deep")),
    ("nested-128", nested(127), FORWARD),
    ("nested-129", nested(128), (400, "json_too_deep")),
    ("nested-40", nested(40), FORWARD),
    ("number-1e400", b'{"model": "m", "messages": [], "temperature": 1e400}', (400, "number_out_of_range")),
    ("number-minus-1e400", b'{"model": "m", "messages": [], "seed": -1e400}', (400, "number_out_of_range")),
    ("literal-NaN", b'{"model": "m", "messages": [], "temperature": NaN}', (400, "invalid_json")),
    ("literal-Infinity", b'{"model": "m", "messages": [], "temperature": Infinity}', (400, "invalid_json")),
    ("int-5000-digits", b'{"model": "m", "messages": [], "seed": ' + b"9" * 5000 + b"}", (400, "number_out_of_range")),
    ("int-100-digits", streamed(SYSTEM, seed=int("9" * 100)), FORWARD),
    ("number-1e-400", b'{"model": "sse", "stream": true, "messages": [], "temperature": 1e-400}', FORWARD),
    ("duplicate-keys", b'{"model": "sse", "stream": true, "messages": "no", "messages": [{"role": "user", '
                       b'"content": 1}]}', FORWARD),
    # `messages`
    ("messages-null", b'{"model": "m", "messages": null}', (400, "invalid_messages")),
    ("messages-number", b'{"model": "m", "messages": 3}', (400, "invalid_messages")),
    ("messages-object", b'{"model": "m", "messages": {"role": "user", "content": "hi"}}', (400, "invalid_messages")),
    ("messages-empty", streamed(), FORWARD),
    ("messages-non-objects", streamed(1, "user: hi", None, [], True), FORWARD),
    ("messages-object-then-strings", streamed(SYSTEM, "hi"), FORWARD),
    # Roles
    ("role-unknown", streamed(SYSTEM, {"role": "wizard", "content": "cast a spell"}), FORWARD),
    ("role-missing", streamed(SYSTEM, {"content": "no role"}), FORWARD),
    ("role-number", streamed(SYSTEM, {"role": 5, "content": "hi"}), FORWARD),
    ("role-list", streamed(SYSTEM, {"role": ["user"], "content": "hi"}), FORWARD),
    # Content of unexpected types, on the newest user turn
    ("content-missing", streamed(SYSTEM, {"role": "user"}), FORWARD),
    ("content-number", streamed(SYSTEM, {"role": "user", "content": 42}), FORWARD),
    ("content-null", streamed(SYSTEM, {"role": "user", "content": None}), FORWARD),
    ("content-bool", streamed(SYSTEM, {"role": "user", "content": False}), FORWARD),
    ("content-object", streamed(SYSTEM, {"role": "user", "content": {"text": "hi"}}), FORWARD),
    ("content-list-of-non-objects", streamed(SYSTEM, {"role": "user", "content": [1, "hi", None, ["x"]]}), FORWARD),
    ("parts-unknown-type", streamed(SYSTEM, {"role": "user", "content": [
        {"type": "hologram", "data": "x"}, IMAGE, {"type": "text", "text": "slow SQL query, EXPLAIN plan"},
        AUDIO, {"no_type": True}]}), FORWARD),
    ("parts-missing-text", streamed(SYSTEM, {"role": "user", "content": [{"type": "text"}, IMAGE]}), FORWARD),
    ("parts-text-not-a-string", streamed(SYSTEM, {"role": "user", "content": [
        {"type": "text", "text": 5}, {"type": "text", "text": None}, {"type": "text", "text": ["a"]}]}), FORWARD),
    ("parts-10000", streamed(SYSTEM, {"role": "user", "content": [
        {"type": "text", "text": f"part {i}"} if i % 2 else IMAGE for i in range(10_000)]}), FORWARD),
    ("text-lone-surrogate", streamed(SYSTEM, {"role": "user", "content": "half an emoji \ud83d, then SQL"}), FORWARD),
    ("text-nul-and-controls", streamed(SYSTEM, {"role": "user", "content": "a\x00b\x01\x1b[31m $\x00pdf"}), FORWARD),
    ("content-on-earlier-turns", streamed({"role": "user", "content": {"odd": 1}}, {"role": "assistant", "content": 3},
                                          {"role": "user", "content": [None, IMAGE]}), FORWARD),
    # Other fields the upstream judges
    ("model-missing", json.dumps({"messages": [SYSTEM, {"role": "user", "content": "hi"}]}).encode(), FORWARD),
    ("model-number", json.dumps(chat_body(model=42)).encode(), FORWARD),
    ("model-object", json.dumps(chat_body(model={"id": "m"})).encode(), FORWARD),
    ("model-list", json.dumps(chat_body(model=["a", "b"])).encode(), FORWARD),
    ("model-nested-128", b'{"messages": [], "model": ' + b"[" * 127 + b"]" * 127 + b"}", FORWARD),
    ("model-1mb-string", json.dumps(chat_body(model="m" * 1_000_000)).encode(), FORWARD),
    ("stream-string", json.dumps(chat_body(stream="yes")).encode(), FORWARD),
    ("stream-number", json.dumps(chat_body(stream=1)).encode(), FORWARD),
    ("stream-null", json.dumps(chat_body(stream=None)).encode(), FORWARD),
    ("tools-not-a-list", streamed(SYSTEM, {"role": "user", "content": 1}, tools="none"), FORWARD),
    ("n-string", streamed(SYSTEM, {"role": "user", "content": 1}, n="2"), FORWARD),
]


@pytest.fixture(scope="module")
def engine() -> Iterator[Any]:
    engine = real_engine()
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def module_proxy(_fake_server: tuple[Any, str], engine: Any) -> Iterator[RunningProxy]:
    """One proxy with the real engine for every case here: a server per case would triple the run time."""
    settings = Settings(upstream=_fake_server[1] + "/v1", roots=(), connect_timeout=1.0, read_timeout=5.0,
                        log_format="json")
    with ServerThread(create_app(settings, engine)) as server:
        yield RunningProxy(server.url, settings, engine)


@pytest.fixture
def real_proxy(module_proxy: RunningProxy, upstream: Any, logs: Any) -> Iterator[httpx.Client]:
    """A client of the module's proxy; its log lines go to this test's `logs`, the upstream's record is cleared."""
    configure_logging(module_proxy.settings, stream=logs)
    with httpx.Client(base_url=module_proxy.base_url, timeout=30) as client:
        yield client


def _error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) >= {"message", "type", "code"}, body
    assert body["error"]["type"] == "invalid_request_error"
    return body["error"]


def _no_traceback(response: httpx.Response, logs: Any) -> None:
    assert response.status_code < 500, response.text
    assert "Traceback" not in response.text and 'File "' not in response.text
    assert logs.events("unhandled_error") == []


def _post(client: httpx.Client, path: str, raw: bytes) -> httpx.Response:
    return client.post(path, content=raw, headers={"content-type": "application/json"})


@pytest.mark.parametrize("raw, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_chat_completions(real_proxy, upstream, logs, raw, expected):
    response = _post(real_proxy, "/chat/completions", raw)
    _no_traceback(response, logs)
    if expected != FORWARD:
        assert (response.status_code, _error(response)["code"]) == expected, response.text
        assert upstream.received == []
        return
    assert response.status_code == 200, response.text
    received = upstream.wait_for_request()
    assert_forwarded_unchanged(json.loads(raw.decode("utf-8-sig")), received.json)


@pytest.mark.parametrize("raw, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_skills_route(real_proxy, upstream, logs, raw, expected):
    response = _post(real_proxy, "/skills/route", raw)
    _no_traceback(response, logs)
    if expected != FORWARD:
        assert (response.status_code, _error(response)["code"]) == expected, response.text
    else:
        assert response.status_code == 200, response.text
        assert response.json()["mode"] in ("explicit", "routed", "reminder", "none", "passthrough")
    assert upstream.received == []


JSON_TEXT = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
).map(lambda value: json.dumps({"messages": [value]}, allow_nan=True).encode())
MANGLED = st.tuples(JSON_TEXT, st.integers(0, 200), st.binary(max_size=4)).map(
    lambda t: t[0][:t[1]] + t[2] + t[0][t[1]:])


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(raw=st.one_of(st.binary(max_size=64), JSON_TEXT, MANGLED))
def test_any_bytes_parse_to_a_chat_request_or_a_4xx(raw):
    """The parser alone, on bytes of every kind: a request the proxy can carry, or a 4xx it can render."""
    try:
        body = parse_chat_body(raw, max_messages=3)
    except ProxyError as error:
        assert 400 <= error.status < 500 and error.message
        return
    assert isinstance(body["messages"], list)
    json.dumps(body, allow_nan=False)  # what is accepted can be forwarded as JSON


def assert_forwarded_unchanged(sent: dict[str, Any], received: dict[str, Any]) -> None:
    """Every field as sent (the proxy's tools aside); every message as sent but the newest user turn's text."""
    assert without_our_tools(received, sent) == {**sent, "messages": received["messages"]}
    before, after = sent["messages"], received["messages"]
    assert len(after) == len(before)
    for index, (original, forwarded) in enumerate(zip(before, after)):
        if forwarded != original:
            assert index == len(before) - 1 and original.get("role") == "user", (index, original, forwarded)
            assert_only_text_grew(original, forwarded)


def without_our_tools(received: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """The received body with the skill tools the proxy added after the client's taken out again."""
    theirs = sent.get("tools") if isinstance(sent.get("tools"), list) else []
    tools = received.get("tools")
    if not isinstance(tools, list) or tools == theirs:
        return received
    assert tools[:len(theirs)] == theirs
    assert {function_name(tool) for tool in tools[len(theirs):]} == {"list_skills", "read_skill_file",
                                                                    "list_skill_files"}
    rest = {k: v for k, v in received.items() if k != "tools"}
    return {**rest, "tools": sent["tools"]} if "tools" in sent else rest


def assert_only_text_grew(original: dict[str, Any], forwarded: dict[str, Any]) -> None:
    """A rewritten user turn: the same keys; its text ends with the original; other parts in place."""
    assert {k: v for k, v in forwarded.items() if k != "content"} == {k: v for k, v in original.items()
                                                                       if k != "content"}
    before, after = original.get("content"), forwarded["content"]
    if isinstance(before, str):
        assert after.endswith(SEPARATOR + before)
        return
    assert isinstance(before, list) and len(after) == len(before)
    for old, new in zip(before, after):
        assert new == old or (old.get("type") == "text" and new["text"].endswith(SEPARATOR + old["text"]))


@pytest.mark.parametrize("method, path", [("TRACE", "/chat/completions"), ("QUERY", "/models"), ("CONNECT", "/x")])
def test_a_method_no_route_takes_is_an_openai_shaped_405(real_proxy, upstream, logs, method, path):
    response = real_proxy.request(method, path)
    _no_traceback(response, logs)
    assert response.status_code == 405
    error = _error(response)
    assert error["code"] == "method_not_allowed" and method in error["message"] and "allowed: " in error["message"]
    assert "POST" in response.headers["allow"]
    assert upstream.received == []


# ---- request limits --------------------------------------------------------------------------------

def test_more_messages_than_max_messages_is_a_413_naming_the_setting(start_proxy, upstream):
    proxy = start_proxy(max_messages=5)
    five = [{"role": "user", "content": f"turn {i}"} for i in range(5)]
    response = httpx.post(proxy.base_url + "/chat/completions", json={"model": "json", "messages": [*five, SYSTEM]})
    assert response.status_code == 413
    error = _error(response)
    assert error["code"] == "too_many_messages"
    assert "6 messages" in error["message"] and "max_messages" in error["message"]
    assert "SKILLPROXY_MAX_MESSAGES" in error["message"]
    assert upstream.received == []
    response = httpx.post(proxy.base_url + "/chat/completions", json={"model": "json", "messages": five})
    assert response.status_code == 200
    assert len(upstream.last().json["messages"]) == 5
    dry_run = httpx.post(proxy.base_url + "/skills/route", json={"messages": [*five, SYSTEM]})
    assert dry_run.status_code == 413 and _error(dry_run)["code"] == "too_many_messages"


def test_the_default_max_messages_is_ten_thousand(proxy, upstream):
    many = [{"role": "assistant", "content": "ok"}] * 10_000 + [{"role": "user", "content": "hi"}]
    response = httpx.post(proxy.base_url + "/chat/completions", json={"model": "json", "messages": many}, timeout=30)
    assert response.status_code == 413 and "10001 messages" in _error(response)["message"]
    response = httpx.post(proxy.base_url + "/chat/completions", json={"model": "json", "messages": many[1:]},
                          timeout=30)
    assert response.status_code == 200
    assert len(upstream.last().json["messages"]) == 10_000


HEAD = "My SQL query is slow: how do I read the EXPLAIN plan and which index should I add? Plan follows. "
MIDDLE = "Triage these production logs: find the first error, the stack trace and which service failed. "
PLAN = "Seq Scan on orders (cost=0.00..4.1 rows=1 width=é日本) "
TAIL = " That was the whole plan, thank you."


def test_a_message_longer_than_the_routers_cap_is_forwarded_whole_and_routed_on_its_head(real_proxy, upstream):
    text = HEAD + PLAN * 80 + MIDDLE * 2500 + PLAN * 30 + TAIL
    assert len(text) > 40 * (HEAD_CHARS + TAIL_CHARS)  # about 200,000 characters: the router reads 5,000
    assert text.index(MIDDLE) > HEAD_CHARS and len(text) - text.rindex(MIDDLE) > TAIL_CHARS
    middle_alone = _post(real_proxy, "/skills/route", streamed({"role": "user", "content": MIDDLE * 3}))
    assert middle_alone.json()["selected"][0] == "log-triage"  # the middle would route elsewhere, were it read

    response = _post(real_proxy, "/chat/completions", json.dumps(chat_body(text=text)).encode())
    assert response.status_code == 200
    assert response.headers["x-skills-route"].startswith("sql-query-tuning=")
    assert "log-triage" not in response.headers["x-skills-route"]
    received = upstream.last()
    forwarded = received.json["messages"][-1]["content"]
    assert forwarded.endswith(SEPARATOR + text) and "<routed_skills>" in forwarded.split(SEPARATOR)[0]
    assert json.dumps(text, ensure_ascii=False).encode("utf-8")[1:-1] in received.body


@pytest.mark.parametrize("model, logged", [
    ("m" * 1_000_000, "m" * 200 + "…"),
    (["a", {"b": 1}], '["a", {"b": 1}]'),
    ("gemma-3", "gemma-3"),
], ids=["1mb-string", "list", "name"])
def test_the_request_log_line_keeps_the_model_short(real_proxy, upstream, logs, model, logged):
    response = _post(real_proxy, "/chat/completions", json.dumps(chat_body(model=model)).encode())
    assert response.status_code == 200
    assert upstream.last().json["model"] == model  # forwarded as sent
    line = logs.wait_for("request", request_id=response.headers["x-request-id"])
    assert line["model"] == logged
