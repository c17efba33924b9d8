"""Which upstream serves a model (glob patterns, first match in config order), and their merged model list.

What lives here: `ModelRoute` (an upstream's name and its model patterns,
compiled once) and `choose_upstream`, the pure decision the shell makes for
every request when several upstreams are configured. Patterns are shell globs
(`fnmatch`: `*`, `?`, `[abc]`; `*` also matches `/`), compared without regard
to case, since servers spell the same model `Qwen2.5-7B` and `qwen2.5-7b`.
A request without a model goes to the first upstream; a model no pattern
matches gets None, and the shell answers 404 with `describe_routes`.
And `merge_model_lists`, the one `GET /v1/models` answer made of several.

What must not: know URLs, keys, HTTP or logging.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ModelRoute:
    name: str
    patterns: tuple[str, ...]
    _compiled: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        compiled = tuple(re.compile(fnmatch.translate(p), re.IGNORECASE) for p in self.patterns)
        object.__setattr__(self, "_compiled", compiled)

    def serves(self, model: str) -> bool:
        return any(pattern.match(model) for pattern in self._compiled)


def choose_upstream(routes: Sequence[ModelRoute], model: object) -> str | None:
    """The name of the upstream for `model`: the first whose patterns match it.

    No model (absent, or not text) means the first upstream; a model nothing matches, None.
    """
    if not routes:
        return None
    if not isinstance(model, str):
        return routes[0].name
    return next((route.name for route in routes if route.serves(model)), None)


def describe_routes(routes: Sequence[ModelRoute]) -> str:
    """`lmstudio (qwen*, lmstudio-community/*); ollama (llama3*)`: for an error a person reads."""
    return "; ".join(f"{route.name} ({', '.join(route.patterns)})" for route in routes)


def merge_model_lists(lists: Sequence[Sequence[object]]) -> list[object]:
    """The `data` of every upstream's model list in config order, each `id` once (the first kept).

    Entries are passed on untouched (`owned_by` and all); one without a text `id` is kept as it is.
    """
    merged: list[object] = []
    seen: set[str] = set()
    for models in lists:
        for model in models:
            model_id = model.get("id") if isinstance(model, dict) else None
            if isinstance(model_id, str):
                if model_id in seen:
                    continue
                seen.add(model_id)
            merged.append(model)
    return merged
