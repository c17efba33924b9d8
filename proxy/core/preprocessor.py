"""Preprocess a chat request's messages: replay the history, decide the new turn.

Every earlier user turn is restored to exactly what was forwarded for it
(from the turn store, or recomputed in order when the record is gone), its
internal tool exchange replayed right after it; then the newest user turn,
if the request ends with one, is decided. Nothing is written to the store
here: the records come back in `Preprocessed.records` for the shell to keep
once the result is actually used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from proxy.core.conversation import TurnRecord, TurnStore, prefix_keys
from proxy.core.messages import is_user, prepend_block
from proxy.core.packets import REASON_FALLBACK, reminder
from proxy.core.preprocessed import Preprocessed
from proxy.core.turn import LastFullInjection, PreprocessConfig, SkillContext, TurnOutcome, decide_turn


def preprocess(messages: Any, context: SkillContext, store: TurnStore, config: PreprocessConfig,
               now: float) -> Preprocessed:
    if not isinstance(messages, list) or not messages:
        return Preprocessed(messages, "passthrough", "passthrough")
    keys = prefix_keys(messages)
    new_turn = len(messages) - 1 if is_user(messages[-1]) else None
    forwarded, records, events, last_full = _replay(messages, keys, new_turn, context, store, config, now)
    if new_turn is None:
        return Preprocessed(forwarded, "passthrough", "passthrough", events=tuple(events), records=tuple(records))
    outcome = _decide_new_turn(messages[new_turn], keys[new_turn], context, store, config, last_full, now)
    forwarded.append(outcome.forwarded)
    records.append((keys[new_turn], outcome.record))
    return Preprocessed(
        messages=forwarded,
        mode=_mode(outcome.record.mode),
        route_header=outcome.route_header,
        selected=outcome.selected,
        injected_chars=len(outcome.injection),
        events=(*events, *outcome.events),
        turn_key=keys[new_turn],
        records=tuple(records),
    )


def _replay(messages: list[Any], keys: list[str], new_turn: int | None, context: SkillContext, store: TurnStore,
            config: PreprocessConfig, now: float):
    forwarded: list[Any] = []
    records: list[tuple[str, TurnRecord]] = []
    events: list[dict[str, Any]] = []
    last_full: LastFullInjection | None = None
    for index, message in enumerate(messages[:new_turn] if new_turn is not None else messages):
        if not is_user(message):
            forwarded.append(message)
            continue
        record = store.get(keys[index], now)
        if record is None:
            record = decide_turn(message, context, config, last_full, now).record
            records.append((keys[index], record))
            events.append({"event": "replay_recomputed", "turn_index": index, "mode": record.mode})
        forwarded.append(record.forwarded)
        forwarded.extend(record.tool_exchange)
        last_full = _newer_full(last_full, record)
    return forwarded, records, events, last_full


def _decide_new_turn(message: Any, key: str, context: SkillContext, store: TurnStore, config: PreprocessConfig,
                     last_full: LastFullInjection | None, now: float) -> TurnOutcome:
    """A resent identical request (a retry, "regenerate") gets exactly what was forwarded before."""
    previous = store.get(key, now)
    if previous is not None and previous.mode != "fallback":
        event = {"event": "turn_replayed", "mode": previous.mode, "reason": "identical request seen before"}
        return TurnOutcome(previous.forwarded, previous, _header_for(previous), events=(event,))
    return decide_turn(message, context, config, last_full, now)


def _newer_full(last_full: LastFullInjection | None, record: TurnRecord) -> LastFullInjection | None:
    if record.mode == "routed" and record.full_injection_at is not None:
        return LastFullInjection(record.fingerprint, record.full_injection_at)
    return last_full


def _header_for(record: TurnRecord) -> str:
    return {"routed": "replayed", "explicit": "explicit:replayed"}.get(record.mode, record.mode)


def _mode(record_mode: str) -> str:
    return record_mode if record_mode in ("explicit", "routed", "reminder", "none", "passthrough") else "passthrough"


def fallback(messages: Any, store: TurnStore | None, now: float, reason: str = "") -> Preprocessed:
    """The fallback reminder on the newest user turn; earlier turns replayed from the store where known.

    Never raises: if even the replay fails, only the reminder is added.
    """
    if not isinstance(messages, list) or not messages or not is_user(messages[-1]):
        return Preprocessed(messages, "fallback", "fallback", events=(_fallback_event(reason),))
    try:
        keys = prefix_keys(messages)
        forwarded = _replay_known(messages, keys, store, now)
    except Exception:  # noqa: BLE001 - the fallback must always produce a request
        forwarded, keys = list(messages[:-1]), None
    last = prepend_block(messages[-1], reminder(REASON_FALLBACK))
    records = ((keys[-1], TurnRecord(last, "fallback")),) if keys else ()
    return Preprocessed([*forwarded, last], "fallback", "fallback", injected_chars=len(reminder(REASON_FALLBACK)),
                        events=(_fallback_event(reason),), turn_key=keys[-1] if keys else None, records=records)


def _replay_known(messages: Sequence[Any], keys: list[str], store: TurnStore | None, now: float) -> list[Any]:
    forwarded: list[Any] = []
    for index, message in enumerate(messages[:-1]):
        record = store.get(keys[index], now) if store is not None and is_user(message) else None
        forwarded.extend([message] if record is None else [record.forwarded, *record.tool_exchange])
    return forwarded


def _fallback_event(reason: str) -> dict[str, Any]:
    return {"event": "preprocess_fallback", "reason": reason or "unknown"}
