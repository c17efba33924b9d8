"""Turn records to JSON bytes and back (what the Redis store keeps).

- Any record, with any JSON-shaped messages (lone surrogates, key order, nested parts, big
  ints, floats), decodes to an equal record whose messages serialise to the same bytes.
- Records the real preprocessor made round-trip, and a conversation replayed from decoded
  records forwards byte-identical messages.
- Anything that is not a record of this version is a ValueError (a store treats it as a miss).
- A marker (no forwarded turn: a chain record, an exchange's skills) round-trips, and a record
  written before skills were kept still decodes, with none.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.turns.record_json import decode_record, encode_record
from proxy.core.turns.records import MixedCall, TurnRecord
from proxy.core.turns.skills_state import ExplicitActivation, SkillsState
from proxy.core.turns.turn_decision import PreprocessConfig
from proxy.state.memory_store import MemoryTurnStore
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns.chat_wire import preprocess

CI_SETTINGS = settings(max_examples=200, derandomize=True, database=None, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])

TEXT = st.one_of(st.text(max_size=20), st.sampled_from(["\ud83d", "日本語", "<routed_skills>", "", "\x00"]))
SCALAR = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2**80), max_value=2**80),
                   st.floats(allow_nan=False, allow_infinity=False), TEXT)
JSON = st.recursive(SCALAR, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                    st.dictionaries(TEXT, inner, max_size=4)), max_leaves=12)
MESSAGE = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "tool", "system"])},
                                optional={"content": JSON, "tool_calls": JSON, "tool_call_id": TEXT, "x": JSON})
MIXED = st.builds(MixedCall, assistant=MESSAGE, results=st.lists(MESSAGE, max_size=3).map(tuple),
                  client_call_ids=st.lists(st.one_of(TEXT, st.none()), max_size=3).map(tuple))
NAMES = st.lists(TEXT, max_size=3).map(tuple)
ACTIVATION = st.builds(ExplicitActivation, names=NAMES, position=st.integers(-50, 50), packet_key=TEXT,
                       packet_chars=st.integers(0, 10**6), packet_sha256=TEXT)
SKILLS = st.builds(SkillsState, position=st.integers(-1, 500), explicit=st.lists(ACTIVATION, max_size=3).map(tuple),
                   routed=NAMES)
RECORD = st.builds(
    TurnRecord, forwarded=MESSAGE, mode=st.sampled_from(["routed", "reminder", "none", "explicit", "fallback"]),
    fingerprint=TEXT, full_injection_at=st.one_of(st.none(), st.floats(min_value=0, max_value=4e9)),
    tool_exchange=st.lists(MESSAGE, max_size=3).map(tuple), mixed_call=st.one_of(st.none(), MIXED),
    tool_mode=st.sampled_from(["", "server", "inline", "client"]), context_mode=st.one_of(st.none(), TEXT),
    model=st.one_of(st.none(), TEXT), skills=st.one_of(st.none(), SKILLS))


def forwarded_bytes(record: TurnRecord) -> bytes:
    """The bytes the shell would send for the record's messages (json.dumps of dicts, in key order)."""
    messages = [record.forwarded, *record.tool_exchange]
    if record.mixed_call:
        messages += [record.mixed_call.assistant, *record.mixed_call.results]
    return json.dumps(messages, ensure_ascii=True).encode()


@CI_SETTINGS
@given(RECORD)
def test_any_record_comes_back_equal_and_serialises_to_the_same_bytes(record):
    decoded = decode_record(encode_record(record))
    assert decoded == record
    assert forwarded_bytes(decoded) == forwarded_bytes(record)
    assert isinstance(decoded.tool_exchange, tuple)
    assert decoded.mixed_call is None or isinstance(decoded.mixed_call.results, tuple)


def test_key_order_of_a_message_is_kept():
    record = TurnRecord({"z": 1, "role": "user", "a": [{"type": "text", "text": "hi"}]}, "none")
    assert list(decode_record(encode_record(record)).forwarded) == ["z", "role", "a"]


def test_records_the_preprocessor_made_replay_byte_identically_after_a_round_trip(tmp_path):
    context = context_for(write_catalog(tmp_path))
    config = PreprocessConfig()
    messages = [{"role": "system", "content": "be brief"},
                {"role": "user", "content": "my SQL query is slow, EXPLAIN plan, which index"},
                {"role": "assistant", "content": "add an index"},
                {"role": "user", "content": "$pdf-tools merge a.pdf and b.pdf"},
                {"role": "assistant", "content": "done"},
                {"role": "user", "content": "and the query again, which index?"}]
    direct = MemoryTurnStore()
    first = preprocess(messages, context, direct, config, 1_000.0)
    for key, record in first.records:
        direct.put(key, record, 1_000.0)
    through_json = MemoryTurnStore()
    for key, record in first.records:
        through_json.put(key, decode_record(encode_record(record)), 1_000.0)
    grown = [*messages, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "thanks"}]
    a = preprocess(grown, context, direct, config, 1_010.0)
    b = preprocess(grown, context, through_json, config, 1_010.0)
    assert {r.mode for _, r in first.records} >= {"routed", "explicit"}
    assert json.dumps(a.messages) == json.dumps(b.messages)
    assert not any(e["event"] == "replay_recomputed" for e in b.events)


@pytest.mark.parametrize("payload", [
    b"", b"not json", b"[1, 2]", b'{"v": 2, "forwarded": {}}', b'{"v": 1}', b"\xff\xfe",
    b'{"v":1,"forwarded":"text","mode":"none","fingerprint":"","full_injection_at":null,"tool_exchange":[],'
    b'"mixed_call":null,"tool_mode":"","context_mode":null,"model":null}',
    b'{"v":1,"forwarded":{},"mode":"none","fingerprint":"","full_injection_at":"soon","tool_exchange":[],'
    b'"mixed_call":null,"tool_mode":"","context_mode":null,"model":null}',
])
def test_anything_but_a_record_of_this_version_is_a_value_error(payload):
    with pytest.raises(ValueError):
        decode_record(payload)


def test_a_record_cut_short_is_a_value_error():
    whole = encode_record(TurnRecord({"role": "user", "content": "hello"}, "none"))
    with pytest.raises(ValueError):
        decode_record(whole[: len(whole) // 2])


def test_a_marker_without_a_forwarded_turn_round_trips():
    marker = TurnRecord(None, "passthrough", skills=SkillsState(4, (ExplicitActivation(("pdf-tools",), -2, "k", 10,
                                                                                        "ab"),), ("sql",)))
    assert decode_record(encode_record(marker)) == marker
    chain = TurnRecord(None, "routed", "root:sql:loc", 12.5, tool_mode="server")
    assert decode_record(encode_record(chain)) == chain


def test_a_record_written_before_skills_were_kept_decodes_with_none():
    old = (b'{"v":1,"forwarded":{"role":"user","content":"hi"},"mode":"none","fingerprint":"",'
           b'"full_injection_at":null,"tool_exchange":[],"mixed_call":null,"tool_mode":"","context_mode":null,'
           b'"model":null}')
    assert decode_record(old) == TurnRecord({"role": "user", "content": "hi"}, "none")


def test_a_skills_state_that_is_not_one_is_a_value_error():
    bad = encode_record(TurnRecord({"role": "user"}, "none")).replace(b'"skills":null', b'"skills":{"position":"x"}')
    with pytest.raises(ValueError):
        decode_record(bad)
