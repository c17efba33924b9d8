"""One request's rounds of the proxy's own skill tool calls, in no wire format.

`ToolRounds` holds what the loop has done so far: each round's answer (the
model's text, its calls, what the proxy's calls returned) as `ToolRound`
values, how many rounds and calls ran, and an answer that mixed the proxy's
calls with the client's (`MixedRound`). `run` executes one answer's calls and
returns the log events the shell writes; once `max_rounds` have run the loop
is `capped` and the next request goes without the proxy's tools. A surface's
tool format turns the rounds into its wire: the next request's body, and the
records kept for replay.

What must not: read or write a wire format, talk to the upstream, or log.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from proxy.core.tools.calls import ToolCall, with_own_ids


class ToolOutcome(Protocol):
    """What a tool returned: `content` for the model, `event` (log fields) for the shell."""

    @property
    def content(self) -> str: ...

    @property
    def event(self) -> Mapping[str, Any]: ...


class ToolRunner(Protocol):
    def call(self, name: str, arguments: str) -> ToolOutcome:
        """Run one call by name, its arguments as the model's JSON text; never raises."""
        ...


@dataclass(frozen=True)
class CallResult:
    """What one of the proxy's calls returned: the text the model gets back for `call`."""

    call: ToolCall
    content: str


@dataclass(frozen=True)
class ToolRound:
    """One answer that called the proxy's tools, and what they returned.

    `content` is the answer's text (None or empty when it had none); `calls` are its calls in the
    model's order, the proxy's under the proxy's own ids; `results` answer the proxy's calls, in order.
    """

    content: str | None
    calls: tuple[ToolCall, ...]
    results: tuple[CallResult, ...]


@dataclass(frozen=True)
class MixedRound:
    """An answer that called the proxy's tools and the client's at once.

    The client got the answer with only its own calls (ids `client_call_ids`); `answer` is the whole
    answer, every call in the model's order, with the results of the proxy's calls.
    """

    answer: ToolRound
    client_call_ids: tuple[str, ...]


@dataclass
class ToolRounds:
    tools: ToolRunner
    ours: frozenset[str]
    max_rounds: int
    new_id: Callable[[], str]
    exchange: list[ToolRound] = field(default_factory=list)
    rounds: int = 0
    calls: int = 0
    mixed: MixedRound | None = None

    @property
    def capped(self) -> bool:
        """True once `max_rounds` rounds ran: the next request goes without the proxy's tools."""
        return self.rounds >= self.max_rounds

    def run(self, content: str | None, calls: Sequence[ToolCall]) -> list[dict[str, Any]]:
        """Execute the proxy's calls of one answer; the round joins the exchange."""
        own, results, events = self._execute(calls)
        self.exchange.append(ToolRound(content, tuple(own), results))
        return events

    def run_mixed(self, content: str | None, mine: Sequence[ToolCall],
                  theirs: Sequence[ToolCall]) -> list[dict[str, Any]]:
        """The answer also called client tools: it goes to the client; ours run and are kept for replay."""
        own, results, events = self._execute(mine)
        every_call = sorted([*own, *theirs], key=lambda call: call.index)
        self.mixed = MixedRound(ToolRound(content, tuple(every_call), results), tuple(call.id for call in theirs))
        return events

    def _execute(self, calls: Sequence[ToolCall]) -> tuple[list[ToolCall], tuple[CallResult, ...],
                                                           list[dict[str, Any]]]:
        own = with_own_ids(calls, self.new_id)
        self.rounds += 1
        results: list[CallResult] = []
        events: list[dict[str, Any]] = []
        for call in own:
            outcome = self.tools.call(call.name, call.arguments)
            results.append(CallResult(call, outcome.content))
            events.append({"event": "skill_tool_call", "round": self.rounds, "call_id": call.id, **outcome.event})
        self.calls += len(own)
        return own, tuple(results), events
