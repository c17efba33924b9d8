"""Preprocess a conversation: replay the history, decide the new turn.

Every earlier user turn is restored to exactly what was forwarded for it
(from the turn store, or recomputed in order when the record is gone), its
internal tool exchange replayed right after it; then the newest user turn,
if the request ends with one, is decided. A history the client rewrote
(old turns dropped or summarised, `compaction`) gets the skills it lost put
back once, in front of the turn where it resumes. Nothing is written to the store
here: the records come back in `Preprocessed.records` for the shell to keep
once the result is actually used. The conversation is the neutral form; the
records hold the wire objects that went out, written and read back with the
conversation's own wire.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from proxy.core.tools.tool_mode import ToolMode
from proxy.core.turns.compaction import find_compaction, recent_exchanges
from proxy.core.turns.compaction_block import ResumePoint
from proxy.core.turns.context_modes import FORK, forked
from proxy.core.turns.conversation import Conversation, Turn
from proxy.core.turns.modes import TurnMode
from proxy.core.turns.packets import REASON_FALLBACK, reminder
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.core.turns.records import MixedCall, TurnRecord, TurnRecordReader, chain_key, turn_keys
from proxy.core.turns.skills_index import IndexPlacement
from proxy.core.turns.skills_state import NO_SKILLS, SkillsState, advance
from proxy.core.turns.turn_decision import LastFullInjection, PreprocessConfig, SkillContext, TurnOutcome, decide_turn
from proxy.core.turns.turn_text import prepend_block


def preprocess(conversation: Conversation, context: SkillContext, store: TurnRecordReader, config: PreprocessConfig,
               now: float) -> Preprocessed:
    if conversation.is_empty:
        return Preprocessed(conversation, TurnMode.PASSTHROUGH, TurnMode.PASSTHROUGH)
    turns, keys = conversation.turns, turn_keys(conversation)
    new_turn = len(turns) - 1 if turns and turns[-1].is_user else None
    exchanges = recent_exchanges(conversation)
    known = _known_records(store, turns, keys, now, conversation.chain, exchanges.values())
    index = IndexPlacement(conversation, context, config)
    compaction = find_compaction(conversation, keys, known, exchanges, store, now)
    resume = None if compaction is None else ResumePoint(compaction, context.catalog, config.compaction_reinject_chars,
                                                         config.tool_mode)

    def decide(at: int, turn: Turn, last_full: LastFullInjection | None, skills: SkillsState,
               first_user: bool) -> TurnOutcome:
        outcome = decide_turn(turn, context, config, last_full, now, conversation.wire)
        outcome = index.on_first_user_turn(outcome) if first_user else outcome
        after = advance(skills, at, keys[at], outcome.record.mode, outcome.selected, outcome.injection)
        return outcome.with_record(outcome.record.with_skills(after))

    replay = _replay(conversation, keys, known, lambda *args: decide(*args).record, resume)
    if new_turn is None:
        forwarded = conversation.with_turns([*replay.forwarded, *turns[-1:]])
        return Preprocessed(index.on_forwarded(forwarded), TurnMode.PASSTHROUGH, TurnMode.PASSTHROUGH,
                            events=tuple(replay.events), records=tuple(replay.records),
                            anchor=_tool_anchor(turns, keys), chain_record=_chain_record(replay.last_full))
    outcome = _replayed_turn(known.get(keys[new_turn]), config, conversation) or decide(
        new_turn, turns[new_turn], replay.last_full, replay.skills, not any(t.is_user for t in turns[:new_turn]))
    forwarded, fork_events = _with_context_mode(conversation.with_turns(replay.forwarded), outcome, config)
    if outcome.record.context_mode != FORK:
        forwarded = index.on_forwarded(forwarded)
    return Preprocessed(
        conversation=forwarded,
        mode=_mode(outcome.record.mode),
        route_header=outcome.route_header,
        selected=outcome.selected,
        injected_chars=len(outcome.injection),
        events=(*replay.events, *outcome.events, *fork_events),
        turn_key=keys[new_turn],
        records=(*replay.records, (keys[new_turn], outcome.record), *_exchange_record(exchanges, replay.skills)),
        anchor=(keys[new_turn], outcome.record),
        model=outcome.record.model,
        decision=outcome.decision,
        chain_record=_chain_record(_newer_full(replay.last_full, outcome.record), outcome.record),
    )


def _exchange_record(exchanges: Mapping[int, str], skills: SkillsState) -> tuple[tuple[str, TurnRecord], ...]:
    """The skills active after the newest earlier user turn, kept under its exchange's own key (with the turn
    that answered it), so a request whose client dropped the turns before it still finds them. Nothing for a
    conversation no skill was active in yet, nor for a held history (no exchanges: the upstream keeps it)."""
    if not exchanges or skills.is_empty:
        return ()
    newest = max(exchanges)
    return ((exchanges[newest], TurnRecord(None, TurnMode.PASSTHROUGH, skills=skills.at(newest))),)


def _chain_record(last_full: LastFullInjection | None, newest: TurnRecord | None = None) -> TurnRecord:
    """What a response that ends a held history carries to the request that continues it: the newest full
    routed injection in it (so the next turn gets the reminder while the route holds)."""
    mode = newest.mode if newest is not None else TurnMode.PASSTHROUGH
    if last_full is None:
        return TurnRecord(None, mode, tool_mode=newest.tool_mode if newest else "")
    return TurnRecord(None, TurnMode.ROUTED, last_full.fingerprint, last_full.at,
                      tool_mode=newest.tool_mode if newest else "")


def _with_context_mode(history: Conversation, outcome: TurnOutcome,
                       config: PreprocessConfig) -> tuple[Conversation, tuple[dict[str, Any], ...]]:
    """The conversation to forward: the whole history, or for a `context: fork` skill, the packet alone."""
    if outcome.record.context_mode != FORK:
        return history.with_turns((*history.turns, outcome.forwarded)), ()
    isolated = forked(history, outcome.forwarded, config.fork_keep_system)
    kept = isolated.size - 1
    event = {"event": "context_fork", "skills": list(outcome.selected), "kept_messages": kept,
             "dropped_messages": history.size - kept}
    return isolated, (event,)


_NO_RECORD = TurnRecord(None, TurnMode.PASSTHROUGH)


@dataclass
class _Replay:
    forwarded: list[Turn] = field(default_factory=list)
    records: list[tuple[str, TurnRecord]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    last_full: LastFullInjection | None = None
    skills: SkillsState = NO_SKILLS  # active after the newest user turn replayed so far


Recompute = Callable[[int, Turn, "LastFullInjection | None", SkillsState, bool], TurnRecord]


def _replay(conversation: Conversation, keys: list[str], known: Mapping[str, TurnRecord],
            recompute: Recompute | None, resume: ResumePoint | None = None) -> _Replay:
    """Every turn before the newest one as it was forwarded.

    A user turn comes back as forwarded (recomputed when its record is gone
    and `recompute` is given); after it, and after client tool results the
    model went on from, the proxy's own tool rounds are put back; an answer
    that mixed the proxy's calls and the client's comes back whole. Records
    hold wire objects, read back with the conversation's own wire. At the
    `resume` point of a rewritten history, the recomputed turn gets the
    skills the dropped turns had in front of it.
    """
    replay, read = _Replay(), conversation.wire.read_turn
    if conversation.chain:  # the history the upstream holds: what the proxy decided last in it
        replay.last_full = _newer_full(None, known.get(chain_key(conversation.chain)) or _NO_RECORD)
    turns = conversation.turns
    pending: MixedCall | None = None
    for index, turn in enumerate(turns[:-1]):
        mixed, pending = pending, None
        if mixed is not None and mixed.answered_by(turn):
            replay.forwarded.extend(map(read, [mixed.assistant, *mixed.results]))
            continue
        record = _record_for(turns, index, keys, known)
        if record is None and turn.is_user and recompute is not None:
            record = _recomputed(replay, conversation, index, keys[index], recompute, resume)
        if record is None:
            replay.forwarded.append(turn)
            continue
        replay.forwarded.append(_forwarded_turn(record, conversation))
        replay.forwarded.extend(map(read, record.tool_exchange))
        pending = record.mixed_call
        replay.last_full = _newer_full(replay.last_full, record)
        if record.skills is not None:
            replay.skills = record.skills
    return replay


def _recomputed(replay: _Replay, conversation: Conversation, index: int, key: str, recompute: Recompute,
                resume: ResumePoint | None) -> TurnRecord:
    """A user turn whose record is gone, decided again (and kept); at the resume point, with the block."""
    turn, turns = conversation.turns[index], conversation.turns
    here = resume if resume is not None and index == resume.index else None
    if here is not None:
        replay.skills = here.seeded(replay.skills, turn, key)
    record = recompute(index, turn, replay.last_full, replay.skills, not any(t.is_user for t in turns[:index]))
    if here is not None:
        record = here.placed(record, conversation.wire)
        replay.events.append(here.event())
    replay.records.append((key, record))
    replay.events.append({"event": "replay_recomputed", "turn_index": index + _offset(conversation),
                          "mode": record.mode})
    return record


def _offset(conversation: Conversation) -> int:
    """Where the turns start in the wire's list: after the system turn, when there is one."""
    return 0 if conversation.system is None else 1


def _record_for(turns: tuple[Turn, ...], index: int, keys: list[str],
                known: Mapping[str, TurnRecord]) -> TurnRecord | None:
    if not (turns[index].is_user or _ends_tool_results(turns, index)):
        return None
    return known.get(keys[index])


def _known_records(store: TurnRecordReader | None, turns: tuple[Turn, ...], keys: list[str],
                   now: float, chain: str = "", exchanges: Iterable[str] = ()) -> Mapping[str, TurnRecord]:
    """Every record this request may read, in one call (one round trip to a store across a network): its
    turns', its held history's, and what its newest exchanges were kept with (`recent_exchanges`)."""
    if store is None:
        return {}
    return store.get_many([*_stored_keys(turns, keys), *([chain_key(chain)] if chain else []), *exchanges], now)


def _stored_keys(turns: tuple[Turn, ...], keys: list[str]) -> list[str]:
    """The keys a record may be kept under: user turns, and the ends of runs of tool results."""
    return [keys[i] for i, t in enumerate(turns) if t.is_user or _ends_tool_results(turns, i)]


def _ends_tool_results(turns: tuple[Turn, ...], index: int) -> bool:
    """The last of a run of tool results: the model answered from here."""
    if not turns[index].answers_tools:
        return False
    return index + 1 >= len(turns) or not turns[index + 1].answers_tools


def _tool_anchor(turns: tuple[Turn, ...], keys: list[str]) -> tuple[str, TurnRecord] | None:
    """Where the proxy's tool rounds after client tool results are kept."""
    if not turns or not _ends_tool_results(turns, len(turns) - 1):
        return None
    return keys[-1], TurnRecord(turns[-1].raw, TurnMode.PASSTHROUGH)


def _replayed_turn(previous: TurnRecord | None, config: PreprocessConfig,
                   conversation: Conversation) -> TurnOutcome | None:
    """A resent identical request (a retry, "regenerate") gets exactly what was forwarded before.

    Not when the tool mode changed since (an upstream that refused tools): the blocks must say so.
    """
    if previous is None or previous.mode == TurnMode.FALLBACK or previous.tool_mode != config.tool_mode:
        return None
    event = {"event": "turn_replayed", "mode": previous.mode, "reason": "identical request seen before"}
    return TurnOutcome(_forwarded_turn(previous, conversation), previous, _header_for(previous), events=(event,))


def _forwarded_turn(record: TurnRecord, conversation: Conversation) -> Turn:
    return record.turn if record.turn is not None else conversation.wire.read_turn(record.forwarded)


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


def fallback(conversation: Conversation, store: TurnRecordReader | None, now: float, reason: str = "",
             tool_mode: str = ToolMode.SERVER) -> Preprocessed:
    """The fallback reminder on the newest user turn; earlier turns replayed from the store where known.

    Never raises: if even the replay fails, only the reminder is added, and the failure (its
    exception type and message) comes back as a `fallback_replay_failed` event.
    """
    if conversation.is_empty:
        return Preprocessed(conversation, TurnMode.FALLBACK, TurnMode.FALLBACK, events=(_fallback_event(reason),))
    turns = conversation.turns
    events: tuple[dict[str, Any], ...] = (_fallback_event(reason),)
    keys: list[str] | None = None
    try:
        computed_keys = turn_keys(conversation)
        known = _known_records(store, turns, computed_keys, now)
        forwarded = _replay(conversation, computed_keys, known, recompute=None).forwarded
        keys = computed_keys
    except Exception as exc:  # noqa: BLE001 - the fallback must always produce a request; the failure is an event
        forwarded, keys = list(turns[:-1]), None
        events = (*events, {"event": "fallback_replay_failed", "error_type": type(exc).__name__,
                            "error_message": str(exc)})
    if not turns or not turns[-1].is_user:
        anchor = _tool_anchor(turns, keys) if keys else None
        return Preprocessed(conversation.with_turns([*forwarded, *turns[-1:]]), TurnMode.FALLBACK, TurnMode.FALLBACK,
                            events=events, anchor=anchor)
    text = reminder(REASON_FALLBACK, tool_mode)
    last = prepend_block(turns[-1], text)
    record = TurnRecord(conversation.wire.write_turn(last), TurnMode.FALLBACK)
    records = ((keys[-1], record),) if keys else ()
    return Preprocessed(conversation.with_turns([*forwarded, last]), TurnMode.FALLBACK, TurnMode.FALLBACK,
                        injected_chars=len(text), events=events, turn_key=keys[-1] if keys else None, records=records,
                        anchor=records[0] if records else None)


def _fallback_event(reason: str) -> dict[str, Any]:
    return {"event": "preprocess_fallback", "reason": reason or "unknown"}
