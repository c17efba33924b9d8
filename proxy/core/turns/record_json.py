"""Turn records as JSON bytes and back, for a store outside the process (Redis).

What lives here: `encode_record` and `decode_record`, exact inverses for
every record the preprocessor makes: message dicts keep their key order
(the forwarded bytes are rebuilt from them), tuples come back as tuples,
and a lone surrogate in a message (half an emoji sent as an escape) survives.
A payload that is not a record of this version is a `ValueError`, so a store
can treat it as a miss.

What must not: know where the bytes go, or log.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core.turns.records import MixedCall, TurnRecord
from proxy.core.turns.skills_state import ExplicitActivation, SkillsState

VERSION = 1


def encode_record(record: TurnRecord) -> bytes:
    data = {
        "v": VERSION,
        "forwarded": record.forwarded,
        "mode": record.mode,
        "fingerprint": record.fingerprint,
        "full_injection_at": record.full_injection_at,
        "tool_exchange": list(record.tool_exchange),
        "mixed_call": _mixed_to_json(record.mixed_call),
        "tool_mode": record.tool_mode,
        "context_mode": record.context_mode,
        "model": record.model,
        "skills": _skills_to_json(record.skills),
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8", "surrogatepass")


def decode_record(payload: bytes) -> TurnRecord:
    """The record in `payload`; ValueError when it is not one (another version, cut short, not JSON)."""
    try:
        data = json.loads(payload.decode("utf-8", "surrogatepass"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a turn record: {exc}") from None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        raise ValueError("not a turn record of version 1")
    try:
        return _record_from_json(data)
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed turn record: {type(exc).__name__}: {exc}") from None


def _record_from_json(data: dict[str, Any]) -> TurnRecord:
    return TurnRecord(
        forwarded=None if data["forwarded"] is None else _object(data["forwarded"]),  # a marker has none
        mode=_text(data["mode"]),
        fingerprint=_text(data["fingerprint"]),
        full_injection_at=_optional_number(data["full_injection_at"]),
        tool_exchange=tuple(_object(m) for m in data["tool_exchange"]),
        mixed_call=_mixed_from_json(data["mixed_call"]),
        tool_mode=_text(data["tool_mode"]),
        context_mode=_optional_text(data["context_mode"]),
        model=_optional_text(data["model"]),
        skills=_skills_from_json(data.get("skills")),  # a record written before skills were kept has none
    )


def _skills_to_json(skills: SkillsState | None) -> dict[str, Any] | None:
    if skills is None:
        return None
    return {"position": skills.position, "routed": list(skills.routed),
            "explicit": [{"names": list(a.names), "position": a.position, "packet_key": a.packet_key,
                          "packet_chars": a.packet_chars, "packet_sha256": a.packet_sha256}
                         for a in skills.explicit]}


def _skills_from_json(data: Any) -> SkillsState | None:
    if data is None:
        return None
    explicit = tuple(ExplicitActivation(tuple(_text(n) for n in a["names"]), _integer(a["position"]),
                                        _text(a["packet_key"]), _integer(a["packet_chars"]),
                                        _text(a["packet_sha256"])) for a in data["explicit"])
    return SkillsState(_integer(data["position"]), explicit, tuple(_text(n) for n in data["routed"]))


def _mixed_to_json(mixed: MixedCall | None) -> dict[str, Any] | None:
    if mixed is None:
        return None
    return {"assistant": mixed.assistant, "results": list(mixed.results),
            "client_call_ids": list(mixed.client_call_ids)}


def _mixed_from_json(data: Any) -> MixedCall | None:
    if data is None:
        return None
    return MixedCall(assistant=_object(data["assistant"]), results=tuple(_object(r) for r in data["results"]),
                     client_call_ids=tuple(data["client_call_ids"]))


def _object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _optional_text(value: Any) -> str | None:
    return None if value is None else _text(value)


def _integer(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _optional_number(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return float(value)
