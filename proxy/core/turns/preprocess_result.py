"""What preprocessing one chat request produces: the value the shell forwards and logs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from proxy.core.routing.router import RouteDecision
from proxy.core.turns.conversation import Conversation
from proxy.core.turns.modes import TurnMode
from proxy.core.turns.records import TurnRecord


@dataclass(frozen=True)
class Preprocessed:
    """The rewritten conversation plus everything the shell needs to explain it.

    `conversation` is the conversation to forward; the request's own is never
    changed. `messages` is that conversation written in the wire form it came
    in (for Chat Completions, the `messages` list).
    `mode`: `explicit` ($skill packet), `routed` (routed_skills block),
    `reminder` (route unchanged), `none` (no confident route: reminder block),
    `fallback` (timeout or error: fallback reminder), `passthrough` (nothing
    to preprocess: no user turn, or empty text).
    `route_header` is the `X-Skills-Route` value (`pdf=82;docx=40`,
    `explicit:pdf`, `reminder`, `none`, `fallback`, `passthrough`).
    `events` are the decision events for the log, each a dict with an
    `event` key (`prompt_route`, `context_injection`, `preprocess_activation`, ...).
    `turn_key` is the state key of the new user turn (None when there is none);
    `records` the turn records to store once this result is actually used, so
    a result computed too late (after a fallback went out) never overwrites
    what was really forwarded. `anchor` is the key and record under which the
    proxy's own tool rounds for this request are kept (the new user turn, or
    the client tool results the request ends with), None when there is none.
    `model` replaces the request's model (an activated skill's allowed `model:`).
    `decision` is the router's ranking for the new turn (scores, confidences,
    reasons), None when nothing was routed (explicit, passthrough, fallback).
    `chain_record` is what the answer to this request carries to a request that continues it by the
    answer's id alone (a Responses `previous_response_id`): kept under `chain_key(id)` by the shell.
    """

    conversation: Conversation
    mode: TurnMode
    route_header: str
    selected: tuple[str, ...] = ()
    injected_chars: int = 0
    events: tuple[dict[str, Any], ...] = ()
    turn_key: str | None = None
    records: tuple[tuple[str, TurnRecord], ...] = ()
    anchor: tuple[str, TurnRecord] | None = None
    model: str | None = None
    decision: RouteDecision | None = None
    chain_record: TurnRecord | None = None

    @cached_property
    def messages(self) -> Any:
        return self.conversation.written()
