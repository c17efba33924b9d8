"""One request's rounds of the proxy's own skill tool calls.

`ToolRounds` holds what the loop has done so far: the messages of the
exchange (each round's assistant tool calls and the tool results), how many
rounds ran, and an answer that mixed the proxy's calls with the client's.
`request` gives the next round's body: the forwarded request plus the
exchange, and once `max_rounds` have run, without the proxy's tools, so the
model has to answer. `run` executes one round's calls and returns the log
events the shell writes.

What must not: talk to the upstream or log.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from proxy.core.turns.records import MixedCall
from proxy.core.tools.calls import ToolCall, assistant_message, remove_tools, tool_message, with_own_ids


class ToolRunner(Protocol):
    def call(self, name: str, arguments: Any) -> Any:
        """A result with `.content` (the tool message text) and `.event` (log fields)."""
        ...


@dataclass
class ToolRounds:
    tools: ToolRunner
    ours: frozenset[str]
    max_rounds: int
    new_id: Callable[[], str]
    exchange: list[dict[str, Any]] = field(default_factory=list)
    rounds: int = 0
    calls: int = 0
    mixed: MixedCall | None = None

    @property
    def capped(self) -> bool:
        """True once `max_rounds` rounds ran: the next request goes without the proxy's tools."""
        return self.rounds >= self.max_rounds

    def request(self, base: dict[str, Any]) -> dict[str, Any]:
        body = {**base, "messages": [*base["messages"], *self.exchange]}
        return remove_tools(body, self.ours) if self.capped else body

    def run(self, content: str | None, calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        """Execute the proxy's calls of one answer; their messages join the exchange."""
        own, results, events = self._execute(calls)
        self.exchange += [assistant_message(content, own), *results]
        return events

    def run_mixed(self, content: str | None, mine: Sequence[ToolCall],
                  theirs: Sequence[ToolCall]) -> list[dict[str, Any]]:
        """The answer also called client tools: it goes to the client; ours run and are kept for replay."""
        own, results, events = self._execute(mine)
        every_call = sorted([*own, *theirs], key=lambda call: call.index)
        self.mixed = MixedCall(assistant_message(content, every_call), tuple(results),
                               tuple(call.id for call in theirs))
        return events

    def _execute(self, calls: Sequence[ToolCall]) -> tuple[list[ToolCall], list[dict[str, Any]],
                                                           list[dict[str, Any]]]:
        own = with_own_ids(calls, self.new_id)
        self.rounds += 1
        results, events = [], []
        for call in own:
            result = self.tools.call(call.name, call.arguments)
            results.append(tool_message(call, result.content))
            events.append({"event": "skill_tool_call", "round": self.rounds, "call_id": call.id, **result.event})
        self.calls += len(own)
        return own, results, events
