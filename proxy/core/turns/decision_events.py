"""The log events that explain a preprocessing decision, as plain dicts.

Their names are fixed (`prompt_route`, `context_injection`,
`preprocess_activation`): users search the logs for them. The shell logs them
bound to the request id. They carry previews and short hashes of the text,
never whole prompts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from proxy.core.routing.router import RouteCandidate, RouteDecision
from proxy.core.turns.activation import ActivationRequest

PREVIEW_CHARS = 180
# A preview is made from this many times its length of the text's head, when that is enough.
_HEAD_SHARE = 4


def sha256_short(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The text with every run of whitespace squeezed to one space and stripped, cut to `limit` characters.

    Squeezing a head of the text gives a head of the squeezed text, so a long text (a routed
    block runs to kilobytes) is squeezed only as far as its preview needs when that head is
    long enough once squeezed; the result is the same either way.
    """
    compact = " ".join(text[: _HEAD_SHARE * limit].split())
    if len(compact) <= limit and len(text) > _HEAD_SHARE * limit:  # mostly whitespace: squeeze it all
        compact = " ".join(text.split())
    return compact if len(compact) <= limit else compact[: limit - 3] + "..."


def summarize(candidate: RouteCandidate) -> str:
    reasons = " ".join(candidate.reasons[:3]) or "score_only"
    return f"{candidate.skill.name}:{candidate.score}:{candidate.confidence}:{reasons}"


def route_events(mode: str, reason: str, text: str, decision: RouteDecision,
                 injection: str) -> tuple[dict[str, Any], ...]:
    top = decision.selected[0] if decision.selected else None
    best_rejected = decision.best_rejected
    text_preview = preview(text)
    route = {
        "event": "prompt_route",
        "mode": mode,
        "reason": reason,
        "input_preview": text_preview,
        "selected": [summarize(c) for c in decision.selected],
        "rejected_best": summarize(best_rejected) if best_rejected else None,
        "top_skill": top.skill.name if top else None,
        "top_score": top.score if top else 0,
        "top_confidence": top.confidence if top else "low",
        "candidates": [f"{c.skill.name}={c.score}" for c in decision.candidates[:5]],
        "injection_chars": len(injection),
    }
    kind = "routed" if mode == "routed" else "reminder"
    return route, injection_event(kind, reason, injection, text, payload_preview=text_preview)


def injection_event(kind: str, reason: str, injection: str, payload: str, payload_preview: str | None = None,
                    **extra: Any) -> dict[str, Any]:
    """The `context_injection` event; `payload_preview`, when given, is `preview(payload)` made already."""
    return {
        "event": "context_injection",
        "kind": kind,
        "reason": reason,
        "injection_chars": len(injection),
        "injection_sha256": sha256_short(injection),
        "injection_preview": preview(injection),
        "payload_chars": len(payload),
        "payload_sha256": sha256_short(payload) if payload else None,
        "payload_preview": (payload_preview if payload_preview is not None else preview(payload)) if payload else None,
        **extra,
    }


def activation_events(request: ActivationRequest, expansions: Mapping[str, Any],
                      packet: str) -> tuple[dict[str, Any], ...]:
    resolved = [a.resolved_skill.name for a in request.resolved]
    expanded = [name for name in resolved if expansions[name].text is not None]
    activation = {
        "event": "preprocess_activation",
        "activations": [a.token for a in request.activations],
        "resolved_skills": resolved,
        "unresolved_skills": [a.requested for a in request.unresolved],
        "suggestions": {a.requested: list(a.suggestions) for a in request.unresolved},
        "expanded_count": len(expanded),
        "expected_action": f"apply expanded skill(s) {','.join(expanded)}" if expanded
        else "find the intended skill among the suggestions",
    }
    proof = [f"{name}:{len(expansions[name].text)}B:sha256={sha256_short(expansions[name].text)}" for name in expanded]
    injection = injection_event("explicit_expanded", "explicit_activation", packet, request.payload,
                                packet="skill_invocation_packet", expanded_skills=proof)
    return activation, injection
