"""Preprocess a chat request's messages: replay the history, decide the new turn.

Every earlier user turn is restored to exactly what was forwarded for it
(from the turn store, or recomputed in order when the record is gone), its
internal tool exchange replayed right after it; then the newest user turn,
if the request ends with one, is decided. Nothing is written to the store
here: the records come back in `Preprocessed.records` for the shell to keep
once the result is actually used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from proxy.core.turns.records import MixedCall, TurnRecord, TurnStore, prefetched, prefix_keys
from proxy.core.turns.messages import is_user, prepend_block
from proxy.core.turns.packets import REASON_FALLBACK, reminder
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.context_modes import FORK, forked_messages
from proxy.core.turns.modes import TurnMode
from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.skills_index import IndexPlacement
from proxy.core.turns.turn_decision import LastFullInjection, PreprocessConfig, SkillContext, TurnOutcome, decide_turn


def preprocess(messages: Any, context: SkillContext, store: TurnStore, config: PreprocessConfig,
               now: float) -> Preprocessed:
    if not isinstance(messages, list) or not messages:
        return Preprocessed(messages, TurnMode.PASSTHROUGH, TurnMode.PASSTHROUGH)
    keys = prefix_keys(messages)
    new_turn = len(messages) - 1 if is_user(messages[-1]) else None
    store = _snapshot(store, messages, keys, now)
    index = IndexPlacement(messages, context, config)

    def decide(message: Any, last_full: LastFullInjection | None, first_user: bool) -> TurnOutcome:
        outcome = decide_turn(message, context, config, last_full, now)
        return index.on_first_user_turn(outcome) if first_user else outcome

    replay = _replay(messages, keys, store, now, lambda *args: decide(*args).record)
    if new_turn is None:
        return Preprocessed(index.on_forwarded([*replay.forwarded, messages[-1]]), TurnMode.PASSTHROUGH,
                            TurnMode.PASSTHROUGH, events=tuple(replay.events), records=tuple(replay.records),
                            anchor=_tool_anchor(messages, keys))
    outcome = _replayed_turn(store.get(keys[new_turn], now), config) or decide(
        messages[new_turn], replay.last_full, not any(is_user(m) for m in messages[:new_turn]))
    forwarded, fork_events = _with_context_mode(replay.forwarded, outcome, config)
    if outcome.record.context_mode != FORK:
        forwarded = index.on_forwarded(forwarded)
    return Preprocessed(
        messages=forwarded,
        mode=_mode(outcome.record.mode),
        route_header=outcome.route_header,
        selected=outcome.selected,
        injected_chars=len(outcome.injection),
        events=(*replay.events, *outcome.events, *fork_events),
        turn_key=keys[new_turn],
        records=(*replay.records, (keys[new_turn], outcome.record)),
        anchor=(keys[new_turn], outcome.record),
        model=outcome.record.model,
        decision=outcome.decision,
    )


def _with_context_mode(history: list[Any], outcome: TurnOutcome,
                       config: PreprocessConfig) -> tuple[list[Any], tuple[dict[str, Any], ...]]:
    """The conversation to forward: the whole history, or for a `context: fork` skill, the packet alone."""
    if outcome.record.context_mode != FORK:
        return [*history, outcome.forwarded], ()
    forked = forked_messages(history, outcome.forwarded, config.fork_keep_system)
    event = {"event": "context_fork", "skills": list(outcome.selected), "kept_messages": len(forked) - 1,
             "dropped_messages": len(history) - (len(forked) - 1)}
    return forked, (event,)


@dataclass
class _Replay:
    forwarded: list[Any] = field(default_factory=list)
    records: list[tuple[str, TurnRecord]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    last_full: LastFullInjection | None = None


Recompute = Callable[[Any, "LastFullInjection | None", bool], TurnRecord]


def _replay(messages: list[Any], keys: list[str], store: TurnStore | None, now: float,
            recompute: Recompute | None) -> _Replay:
    """Every message before the newest one as it was forwarded.

    A user turn comes back as forwarded (recomputed when its record is gone
    and `recompute` is given); after it, and after client tool results the
    model went on from, the proxy's own tool rounds are put back; an answer
    that mixed the proxy's calls and the client's comes back whole.
    """
    replay = _Replay()
    pending: MixedCall | None = None
    for index, message in enumerate(messages[:-1]):
        mixed, pending = pending, None
        if mixed is not None and mixed.answered_by(message):
            replay.forwarded.extend([mixed.assistant, *mixed.results])
            continue
        record = _record_for(messages, index, keys, store, now)
        if record is None and is_user(message) and recompute is not None:
            record = recompute(message, replay.last_full, not any(is_user(m) for m in messages[:index]))
            replay.records.append((keys[index], record))
            replay.events.append({"event": "replay_recomputed", "turn_index": index, "mode": record.mode})
        if record is None:
            replay.forwarded.append(message)
            continue
        replay.forwarded.extend([record.forwarded, *record.tool_exchange])
        pending = record.mixed_call
        replay.last_full = _newer_full(replay.last_full, record)
    return replay


def _record_for(messages: list[Any], index: int, keys: list[str], store: TurnStore | None,
                now: float) -> TurnRecord | None:
    if store is None or not (is_user(messages[index]) or _ends_tool_results(messages, index)):
        return None
    return store.get(keys[index], now)


def _snapshot(store: Any, messages: list[Any], keys: list[str], now: float) -> Any:
    """For a store across a network, every record this request may read, fetched at once."""
    if not hasattr(store, "get_many"):
        return store  # in memory: nothing to save, nothing to compute
    return prefetched(store, _stored_keys(messages, keys), now)


def _stored_keys(messages: list[Any], keys: list[str]) -> list[str]:
    """The keys a record may be kept under: user turns, and the ends of runs of tool results."""
    return [keys[i] for i, m in enumerate(messages) if is_user(m) or _ends_tool_results(messages, i)]


def _ends_tool_results(messages: list[Any], index: int) -> bool:
    """The last of a run of tool results: the model answered from here."""
    if not _is_tool(messages[index]):
        return False
    return index + 1 >= len(messages) or not _is_tool(messages[index + 1])


def _is_tool(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "tool"


def _tool_anchor(messages: list[Any], keys: list[str]) -> tuple[str, TurnRecord] | None:
    """Where the proxy's tool rounds after client tool results are kept."""
    if not _ends_tool_results(messages, len(messages) - 1):
        return None
    return keys[-1], TurnRecord(messages[-1], TurnMode.PASSTHROUGH)


def _replayed_turn(previous: TurnRecord | None, config: PreprocessConfig) -> TurnOutcome | None:
    """A resent identical request (a retry, "regenerate") gets exactly what was forwarded before.

    Not when the tool mode changed since (an upstream that refused tools): the blocks must say so.
    """
    if previous is None or previous.mode == TurnMode.FALLBACK or previous.tool_mode != config.tool_mode:
        return None
    event = {"event": "turn_replayed", "mode": previous.mode, "reason": "identical request seen before"}
    return TurnOutcome(previous.forwarded, previous, _header_for(previous), events=(event,))


def _newer_full(last_full: LastFullInjection | None, record: TurnRecord) -> LastFullInjection | None:
    if record.mode == TurnMode.ROUTED and record.full_injection_at is not None:
        return LastFullInjection(record.fingerprint, record.full_injection_at)
    return last_full


def _header_for(record: TurnRecord) -> str:
    replayed: dict[str, str] = {TurnMode.ROUTED: "replayed", TurnMode.EXPLICIT: "explicit:replayed"}
    return replayed.get(record.mode, record.mode)


def _mode(record_mode: str) -> TurnMode:
    kept = (TurnMode.EXPLICIT, TurnMode.ROUTED, TurnMode.REMINDER, TurnMode.NONE, TurnMode.PASSTHROUGH)
    return TurnMode(record_mode) if record_mode in kept else TurnMode.PASSTHROUGH


def fallback(messages: Any, store: TurnStore | None, now: float, reason: str = "",
             tool_mode: str = ToolMode.SERVER) -> Preprocessed:
    """The fallback reminder on the newest user turn; earlier turns replayed from the store where known.

    Never raises: if even the replay fails, only the reminder is added.
    """
    if not isinstance(messages, list) or not messages:
        return Preprocessed(messages, TurnMode.FALLBACK, TurnMode.FALLBACK, events=(_fallback_event(reason),))
    try:
        keys: list[str] | None = prefix_keys(messages)
        known = _snapshot(store, messages, keys, now)
        forwarded = _replay(messages, keys, known, now, recompute=None).forwarded
    except Exception:  # noqa: BLE001 - the fallback must always produce a request
        forwarded, keys = list(messages[:-1]), None
    if not is_user(messages[-1]):
        anchor = _tool_anchor(messages, keys) if keys else None
        return Preprocessed([*forwarded, messages[-1]], TurnMode.FALLBACK, TurnMode.FALLBACK,
                            events=(_fallback_event(reason),), anchor=anchor)
    text = reminder(REASON_FALLBACK, tool_mode)
    last = prepend_block(messages[-1], text)
    record = TurnRecord(last, TurnMode.FALLBACK)
    records = ((keys[-1], record),) if keys else ()
    return Preprocessed([*forwarded, last], TurnMode.FALLBACK, TurnMode.FALLBACK, injected_chars=len(text),
                        events=(_fallback_event(reason),), turn_key=keys[-1] if keys else None, records=records,
                        anchor=records[0] if records else None)


def _fallback_event(reason: str) -> dict[str, Any]:
    return {"event": "preprocess_fallback", "reason": reason or "unknown"}
