"""One request's record: what each step of answering it found out, and the `request` log line it renders.

What lives here: `RequestRecord`, made by the middleware for each HTTP request
and kept in the ASGI scope (`request_record(scope)`); every step fills its own
attributes as it goes (the chat surface the model, mode and route; the
preprocess runner the time it took; the forwarder the upstream; the relay a
client that left mid-stream), `log_line()` renders the one canonical `request`
line from them, and the finished record goes to the request observers
(metrics, the inspect page). `response_headers` are headers a handler wants on
its answer, error answers included: the middleware adds them as the answer
starts.

An attribute left at None was never written and is not in the log line.

What must not: log, render an answer, or read a request.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core.turns.preprocess_result import Preprocessed

RECORD_KEY = "skillproxy.record"  # where the record sits in the ASGI scope


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """For the inspect page only, never logged: the request's newest message as the client sent it (a
    reference, not a copy) and what preprocessing made of the request."""

    sent: Any
    result: Preprocessed


@dataclass(slots=True)
class RequestRecord:
    request_id: str = ""
    method: str | None = None
    path: str | None = None
    status: int | None = None  # None until the answer starts; 499 when the client left before it did
    total_ms: float | None = None
    surface: str | None = None  # the chat surface that answered: chat_completions, responses, messages, ollama_chat
    model: str | None = None  # as sent (cut short for the log); written with `stream`, None when the body had none
    stream: bool | None = None
    preprocess_ms: float | None = None
    fallback: str | None = None  # why preprocessing fell back: `timeout` or `error`
    mode: str | None = None
    selected: list[str] | None = None
    scores: list[str] | None = None  # each selected skill as `name:score:confidence:reasons`
    rejected_best: str | None = None  # the best candidate not selected, the same way
    route: str | None = None
    injection_chars: int | None = None  # what preprocessing added to the request
    injection_sha256: str | None = None
    # the client rewrote the history (`compaction_detected`): turns dropped, skills put back, block size
    compaction: dict[str, Any] | None = None
    upstream_model: str | None = None  # the model forwarded instead of the client's (a skill's allowed model)
    tool_mode: str | None = None
    skill_tools: bool | None = None  # whether the proxy's skill tools went with the request
    upstream: str | None = None  # the upstream's name; several, comma-separated, for a merged model list
    upstream_ms: float | None = None
    tool_rounds: int | None = None
    tool_calls: int | None = None
    client_disconnected: bool = False
    error: str | None = None  # the code of the error the proxy answered with
    chat_turn: ChatTurn | None = None
    response_headers: dict[str, str] = field(default_factory=dict)  # lower-case name: value
    response_started: bool = False  # the answer's status line has gone out: an error can no longer replace it

    def log_line(self) -> dict[str, Any]:
        """The fields of the request's `request` log line (and of the inspect page's copy of it)."""
        line: dict[str, Any] = {"request_id": self.request_id, "status": self.status}
        if self.stream is not None:  # a chat request: its model is logged even when the body had none
            if self.surface is not None:
                line["surface"] = self.surface
            line.update(model=self.model, stream=self.stream)
        written = (("preprocess_ms", self.preprocess_ms), ("fallback", self.fallback), ("mode", self.mode),
                   ("selected", self.selected), ("scores", self.scores),
                   ("rejected_best", self.rejected_best), ("route", self.route),
                   ("injection_chars", self.injection_chars), ("injection_sha256", self.injection_sha256),
                   ("compaction_detected", self.compaction),
                   ("upstream_model", self.upstream_model),
                   ("tool_mode", self.tool_mode), ("skill_tools", self.skill_tools), ("upstream", self.upstream),
                   ("upstream_ms", self.upstream_ms), ("tool_rounds", self.tool_rounds),
                   ("tool_calls", self.tool_calls), ("client_disconnected", self.client_disconnected or None),
                   ("error", self.error), ("method", self.method), ("path", self.path), ("total_ms", self.total_ms))
        line.update((name, value) for name, value in written if value is not None)
        return line


def request_record(scope: MutableMapping[str, Any]) -> RequestRecord:
    """The request's record (a new one when the request did not pass the middleware, as in a unit test)."""
    record = scope.get(RECORD_KEY)
    if record is None:
        record = scope[RECORD_KEY] = RequestRecord()
    return record


def request_id_of(scope: MutableMapping[str, Any]) -> str:
    return request_record(scope).request_id
