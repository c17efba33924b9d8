"""One finished request as the inspect page shows it: a table row, and its detail.

What lives here: `RequestRecord` (the canonical log line of a request plus what
only the chat handler knew: the newest user message as sent and as forwarded,
the route decision and the decision events), `record_of(line, at)` which keeps
references and cuts long text at `TEXT_CAP` characters (so a record costs next
to nothing when it is made), and `summary`/`detail`, which do the work only
when the page asks: the injected text is the difference between the message as
forwarded and as sent.

What must not: know about HTTP, the ring buffer, or keys. The log line never
holds an Authorization header; nothing here adds one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from proxy.surfaces.chat_messages import message_text
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.routing.router import RouteCandidate, RouteDecision

CHAT_TURN = "_chat_turn"  # the request field the chat handler fills: (message as sent, Preprocessed)
TEXT_CAP = 64_000  # characters of a message kept per record
SUMMARY_FIELDS = ("request_id", "method", "path", "status", "total_ms", "upstream_ms", "model", "upstream_model",
                  "mode", "route", "selected", "stream", "tool_mode", "tool_rounds", "error")


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
class RequestRecord:
    at: float  # seconds since the epoch, when the request finished
    line: dict[str, Any]
    turn: TurnTexts | None = None
    decision: RouteDecision | None = None
    events: tuple[dict[str, Any], ...] = ()


def record_of(line: dict[str, Any], at: float, cap: int = TEXT_CAP) -> RequestRecord:
    """What the history keeps of a finished request: never the request's messages themselves (a
    conversation with images can be megabytes, and the history holds hundreds), only capped texts."""
    kept = {key: value for key, value in line.items() if not key.startswith("_")}
    chat = line.get(CHAT_TURN)
    if not chat:
        return RequestRecord(at, kept)
    sent, result = chat
    forwarded = result.messages[-1] if isinstance(result.messages, list) and result.messages else None
    return RequestRecord(at, kept, turn_texts(sent, forwarded, cap), result.decision, result.events)


def chat_turn(messages: Any, result: Preprocessed) -> tuple[Any, Preprocessed]:
    """The value for the CHAT_TURN field: the request's newest message (a reference) and the result."""
    return (messages[-1] if isinstance(messages, list) and messages else None), result


def turn_texts(sent: Any, forwarded: Any, cap: int = TEXT_CAP) -> TurnTexts:
    sent_text, forwarded_text = message_text(sent), message_text(forwarded)
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


def summary(record: RequestRecord) -> dict[str, Any]:
    row = {key: record.line.get(key) for key in SUMMARY_FIELDS}
    row.update(at=record.at, injected_chars=injected(record.turn).chars, scores=_scores(record))
    return row


def detail(record: RequestRecord) -> dict[str, Any]:
    added = injected(record.turn)
    decision = record.decision
    return {
        **summary(record),
        "line": {k: v for k, v in record.line.items() if not k.startswith("_")},
        "selected_detail": [candidate_row(c) for c in decision.selected] if decision else [],
        "candidates": [candidate_row(c) for c in decision.candidates] if decision else [],
        "injected": {"how": added.how, "text": added.text, "chars": added.chars, "truncated": added.truncated},
        "sent_text": record.turn.sent if record.turn else None,
        "sent_chars": record.turn.sent_chars if record.turn else 0,
        "events": list(record.events),
    }


def candidate_row(candidate: RouteCandidate) -> dict[str, Any]:
    return {"name": candidate.skill.name, "score": candidate.score, "confidence": candidate.confidence,
            "reasons": list(candidate.reasons)}


def _scores(record: RequestRecord) -> dict[str, int]:
    if record.decision is None:
        return {}
    return {c.skill.name: c.score for c in record.decision.selected}
