"""One finished request as the inspect page shows it: a table row, and its detail.

What lives here: `KeptRequest` (the request's record, without the chat turn,
plus what only the chat handler knew: the newest user message as sent and as
forwarded, the route decision and the decision events), `record_of(request,
at)` which keeps references and cuts long text at `TEXT_CAP` characters (so
a kept request costs next to nothing when it is made), and `summary`/`detail`,
which do the work only when the page asks: the injected text is the
difference between the message as forwarded and as sent.

What must not: know about HTTP, the ring buffer, or keys. The log line never
holds an Authorization header; nothing here adds one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, TypedDict

from proxy.core.routing.router import Confidence, RouteCandidate, RouteDecision
from proxy.core.turns.conversation import Conversation, Turn
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.request_record import ChatTurn, RequestRecord

TEXT_CAP = 64_000  # characters of a message kept per record


@dataclass(frozen=True)
class TurnTexts:
    """The newest user message's text as the client sent it and as it was forwarded, each cut at the cap."""

    sent: str
    forwarded: str
    sent_chars: int
    forwarded_chars: int


@dataclass(frozen=True)
class Injected:
    """What the proxy did to the newest user message: `prepended` text, `replaced` it (a packet), or `none`."""

    how: str
    text: str
    chars: int
    truncated: bool


@dataclass(frozen=True)
class KeptRequest:
    at: float  # seconds since the epoch, when the request finished
    request: RequestRecord  # never holding the chat turn: the texts below are what is kept of it
    turn: TurnTexts | None = None
    decision: RouteDecision | None = None
    events: tuple[dict[str, Any], ...] = ()

    @property
    def line(self) -> dict[str, Any]:
        """The request's log line."""
        return self.request.log_line()


class CandidateRow(TypedDict):
    name: str
    score: int
    confidence: Confidence
    reasons: list[str]


class InjectedRow(TypedDict):
    how: str
    text: str
    chars: int
    truncated: bool


class RequestSummary(TypedDict):
    """A row of the page's request table."""

    request_id: str
    method: str | None
    path: str | None
    status: int | None
    total_ms: float | None
    upstream_ms: float | None
    model: str | None
    upstream_model: str | None
    mode: str | None
    route: str | None
    selected: list[str] | None
    stream: bool | None
    tool_mode: str | None
    surface: str | None
    tool_rounds: int | None
    error: str | None
    at: float
    injected_chars: int
    scores: dict[str, int]


class RequestDetail(RequestSummary):
    """One request as its detail view shows it: the row, the log line, the ranking and the injected text."""

    line: dict[str, Any]
    selected_detail: list[CandidateRow]
    candidates: list[CandidateRow]
    injected: InjectedRow
    sent_text: str | None
    sent_chars: int
    events: list[dict[str, Any]]


def record_of(request: RequestRecord, at: float, cap: int = TEXT_CAP) -> KeptRequest:
    """What the history keeps of a finished request: never the request's messages themselves (a
    conversation with images can be megabytes, and the history holds hundreds), only capped texts."""
    kept = replace(request, chat_turn=None)
    chat = request.chat_turn
    if chat is None:
        return KeptRequest(at, kept)
    result = chat.result
    turns = result.conversation.turns
    return KeptRequest(at, kept, turn_texts(chat.sent, turns[-1] if turns else None, cap), result.decision,
                       result.events)


def chat_turn(conversation: Conversation, result: Preprocessed) -> ChatTurn:
    """The request's chat turn: its newest turn as the client sent it (a reference) and the result."""
    return ChatTurn(conversation.turns[-1] if conversation.turns else None, result)


def turn_texts(sent: Turn | None, forwarded: Turn | None, cap: int = TEXT_CAP) -> TurnTexts:
    sent_text, forwarded_text = _text(sent), _text(forwarded)
    return TurnTexts(sent_text[:cap], forwarded_text[:cap], len(sent_text), len(forwarded_text))


def injected(turn: TurnTexts | None) -> Injected:
    """The text the proxy put before the message, or the whole forwarded message when it replaced it."""
    if turn is None or (turn.forwarded == turn.sent and turn.forwarded_chars == turn.sent_chars):
        return Injected("none", "", 0, False)
    added = turn.forwarded_chars - turn.sent_chars
    shown = len(turn.forwarded)
    if added > 0 and turn.forwarded[added:] == turn.sent[:max(0, shown - added)]:
        return Injected("prepended", turn.forwarded[:added], added, added > shown)
    return Injected("replaced", turn.forwarded, turn.forwarded_chars, turn.forwarded_chars > shown)


def summary(kept: KeptRequest) -> RequestSummary:
    request = kept.request
    return RequestSummary(
        request_id=request.request_id, method=request.method, path=request.path, status=request.status,
        total_ms=request.total_ms, upstream_ms=request.upstream_ms, model=request.model,
        upstream_model=request.upstream_model, mode=request.mode, route=request.route, selected=request.selected,
        stream=request.stream, surface=request.surface, tool_mode=request.tool_mode,
        tool_rounds=request.tool_rounds, error=request.error, at=kept.at, injected_chars=injected(kept.turn).chars,
        scores=_scores(kept))


def detail(kept: KeptRequest) -> RequestDetail:
    added = injected(kept.turn)
    decision = kept.decision
    return RequestDetail(
        **summary(kept),
        line=kept.line,
        selected_detail=[candidate_row(c) for c in decision.selected] if decision else [],
        candidates=[candidate_row(c) for c in decision.candidates] if decision else [],
        injected=InjectedRow(how=added.how, text=added.text, chars=added.chars, truncated=added.truncated),
        sent_text=kept.turn.sent if kept.turn else None,
        sent_chars=kept.turn.sent_chars if kept.turn else 0,
        events=list(kept.events),
    )


def _text(turn: Turn | None) -> str:
    return turn.text if turn is not None else ""


def candidate_row(candidate: RouteCandidate) -> CandidateRow:
    return CandidateRow(name=candidate.skill.name, score=candidate.score, confidence=candidate.confidence,
                        reasons=list(candidate.reasons))


def _scores(kept: KeptRequest) -> dict[str, int]:
    if kept.decision is None:
        return {}
    return {c.skill.name: c.score for c in kept.decision.selected}
