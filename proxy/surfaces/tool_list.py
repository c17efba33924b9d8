"""The proxy's tools in a request's `tools` list, whatever the wire format of a tool.

What lives here: `add_tools` and `remove_tools`, which every surface's tool
format uses, each given how a tool's name is read in its format. Our tools
go after the client's, and a client tool of the same name wins: ours is left
out, and calls to that name belong to the client. Removing them leaves
every other tool as it was, and takes `tool_choice` away with the last tool
(a choice among no tools is an error upstream).

What must not: know a format's tool shape (the caller writes the
definitions and reads the names), or decide when tools are added or removed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

NameOf = Callable[[Any], str | None]  # a tool definition's name in one format; None when it has none


def add_tools(body: Mapping[str, Any], definitions: Sequence[Mapping[str, Any]],
              name_of: NameOf) -> tuple[dict[str, Any], frozenset[str]]:
    """The request with our tools after the client's, and the names actually added."""
    tools = body.get("tools")
    client_tools: list[Any] = tools if isinstance(tools, list) else []
    taken = {name_of(tool) for tool in client_tools}
    ours = [dict(d) for d in definitions if name_of(d) not in taken]  # shared below: never changed
    if not ours:
        return dict(body), frozenset()
    return {**body, "tools": [*client_tools, *ours]}, frozenset(name for d in ours if (name := name_of(d)))


def remove_tools(body: Mapping[str, Any], names: frozenset[str], name_of: NameOf) -> dict[str, Any]:
    """The request without the tools named (and without `tools` and `tool_choice` when none is left)."""
    kept = [t for t in body.get("tools") or [] if name_of(t) not in names]
    result = {k: v for k, v in body.items() if k != "tools"}
    if kept:
        result["tools"] = kept
    elif "tool_choice" in result:
        del result["tool_choice"]
    return result
