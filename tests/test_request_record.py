"""proxy.request_record: one typed record per request, its `request` log line, and the headers it asks for."""

from __future__ import annotations

import asyncio
from typing import Any

from structlog.testing import capture_logs

from proxy.core.turns.preprocess_result import Preprocessed
from proxy.errors import BadRequest
from proxy.middleware import RequestContext
from proxy.request_record import RECORD_KEY, ChatTurn, RequestRecord, request_id_of, request_record
from proxy.surfaces.chat_messages import CHAT_MESSAGES


def chat_record() -> RequestRecord:
    result = Preprocessed([{"role": "user", "content": "hi"}], "routed", "pdf=80", selected=("pdf",))
    record = RequestRecord(request_id="r1", method="POST", path="/v1/chat/completions", status=200, total_ms=12.5)
    record.surface, record.model, record.stream = "chat_completions", "gpt-4o", True
    record.preprocess_ms, record.mode, record.selected, record.route = 1.5, "routed", ["pdf"], "pdf=80"
    record.tool_mode, record.skill_tools, record.upstream, record.upstream_ms = "server", True, "default", 9.0
    record.tool_rounds, record.tool_calls = 1, 2
    record.chat_turn = ChatTurn(CHAT_MESSAGES.read_turn({"role": "user", "content": "hi"}), result)
    record.response_headers["x-skills-route"] = "pdf=80"
    record.response_started = True
    return record


def test_a_chat_request_renders_every_field_it_wrote_and_nothing_else():
    assert chat_record().log_line() == {
        "request_id": "r1", "status": 200, "surface": "chat_completions", "model": "gpt-4o", "stream": True,
        "preprocess_ms": 1.5, "mode": "routed",
        "selected": ["pdf"], "route": "pdf=80", "tool_mode": "server", "skill_tools": True, "upstream": "default",
        "upstream_ms": 9.0, "tool_rounds": 1, "tool_calls": 2, "method": "POST", "path": "/v1/chat/completions",
        "total_ms": 12.5}


def test_a_fresh_record_logs_its_id_and_a_status_of_none():
    assert RequestRecord(request_id="r0").log_line() == {"request_id": "r0", "status": None}


def test_a_chat_request_without_a_model_logs_the_model_as_none():
    record = RequestRecord(request_id="r2", stream=False)
    assert record.log_line() == {"request_id": "r2", "status": None, "model": None, "stream": False}


def test_a_fallback_a_forwarded_model_an_error_and_a_client_that_left_are_logged_once_written():
    record = RequestRecord(request_id="r3")
    assert "client_disconnected" not in record.log_line()
    record.fallback, record.upstream_model, record.error, record.client_disconnected = "timeout", "m2", "x", True
    line = record.log_line()
    assert (line["fallback"], line["upstream_model"], line["error"], line["client_disconnected"]) == (
        "timeout", "m2", "x", True)


def test_the_chat_turn_and_the_answer_headers_never_reach_the_log_line():
    line = chat_record().log_line()
    assert not {"chat_turn", "response_headers", "response_started"} & set(line)


def test_a_scope_holds_one_record_made_on_first_use():
    scope: dict[str, Any] = {}
    record = request_record(scope)
    record.request_id = "abc"
    assert scope[RECORD_KEY] is record and request_record(scope) is record and request_id_of(scope) == "abc"
    assert request_id_of({}) == ""


def run(app: Any, observers: tuple[Any, ...] = ()) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages `app`, behind the middleware, sent for one GET, and what was logged."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/v1/x", "headers": [(b"x-request-id", b"req-1")]}
    with capture_logs() as logged:
        asyncio.run(RequestContext(app, observers=observers)(scope, receive, send))
    return sent, logged


def test_headers_a_handler_puts_in_the_record_go_on_its_answer():
    async def app(scope: Any, receive: Any, send: Any) -> None:
        request_record(scope).response_headers.update({"x-skills-route": "pdf=80", "x-empty": ""})
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        await send({"type": "http.response.body", "body": b"ok"})

    sent, _ = run(app)
    assert sent[0]["headers"] == [(b"content-type", b"text/plain"), (b"x-request-id", b"req-1"),
                                  (b"x-skills-route", b"pdf=80")]


def test_an_error_answer_after_the_handler_set_a_header_carries_it_too():
    async def app(scope: Any, receive: Any, send: Any) -> None:
        request_record(scope).response_headers["x-skills-route"] = "explicit:pdf\n  "
        raise BadRequest("no")

    sent, _ = run(app)
    assert sent[0]["status"] == 400 and (b"x-skills-route", b"explicit:pdf") in sent[0]["headers"]


def test_the_log_line_and_the_observers_get_the_finished_record():
    seen: list[RequestRecord] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        request_record(scope).upstream = "default"
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    _, logged = run(app, observers=(seen.append,))
    (record,) = seen
    assert (record.request_id, record.method, record.path, record.status) == ("req-1", "GET", "/v1/x", 204)
    assert record.total_ms is not None and record.total_ms >= 0
    (line,) = [entry for entry in logged if entry["event"] == "request"]
    assert {k: v for k, v in line.items() if k not in ("event", "log_level")} == record.log_line()
    assert line["upstream"] == "default" and "response_started" not in line
