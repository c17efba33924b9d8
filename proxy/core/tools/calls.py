"""Tool calls in a model's answer, in no wire format: which are the proxy's, and the usage they cost.

What lives here: `ToolCall` (one call the model made, its arguments as JSON
text), splitting calls into the proxy's and the client's, giving the proxy's
calls ids of its own, and summing `usage` over rounds.

What must not: read or write a wire format (a surface's tool format does),
run a tool (see `skill_tools`), or touch the network.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One call the model made: `arguments` as JSON text, `index` its place among the answer's calls."""

    id: str
    name: str
    arguments: str
    index: int = 0


def split_calls(calls: Iterable[ToolCall], ours: frozenset[str]) -> tuple[list[ToolCall], list[ToolCall]]:
    """(the proxy's calls, the client's calls), each in the model's order."""
    mine: list[ToolCall] = []
    theirs: list[ToolCall] = []
    for call in calls:
        (mine if call.name in ours else theirs).append(call)
    return mine, theirs


def with_own_ids(calls: Iterable[ToolCall], new_id: Callable[[], str]) -> list[ToolCall]:
    """The proxy's calls under ids of its own: upstreams reuse ids (`call_0`) or send none."""
    return [replace(call, id=new_id()) for call in calls]


def add_usage(total: Mapping[str, Any] | None, more: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Token counts summed field by field (nested details too); other values from the newer one."""
    if not isinstance(more, Mapping):
        return dict(total) if isinstance(total, Mapping) else None
    if not isinstance(total, Mapping):
        return copy.deepcopy(dict(more))
    summed = dict(total)
    for key, value in more.items():
        before = summed.get(key)
        if isinstance(value, bool) or value is None:
            summed[key] = value if before is None else before
        elif isinstance(value, (int, float)) and isinstance(before, (int, float)) and not isinstance(before, bool):
            summed[key] = before + value
        elif isinstance(value, Mapping) and isinstance(before, Mapping):
            summed[key] = add_usage(before, value)
        else:
            summed[key] = copy.deepcopy(value)
    return summed
