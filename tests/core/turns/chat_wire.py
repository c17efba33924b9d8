"""The preprocessor driven with Chat Completions `messages`, read and written by the shell's adapter."""

from __future__ import annotations

from typing import Any

from proxy.core.turns import preprocessor
from proxy.core.turns.preprocess_result import Preprocessed
from proxy.surfaces.chat_messages import read_messages


def preprocess(messages: Any, *args: Any, **kwargs: Any) -> Preprocessed:
    return preprocessor.preprocess(read_messages(messages), *args, **kwargs)


def fallback(messages: Any, *args: Any, **kwargs: Any) -> Preprocessed:
    return preprocessor.fallback(read_messages(messages), *args, **kwargs)


def run(messages: Any, context: Any, store: Any, now: float, config: Any) -> Preprocessed:
    """One request preprocessed and its records kept, as the engine does once a result is used."""
    result = preprocess(messages, context, store, config, now)
    for key, record in result.records:
        store.put(key, record, now)
    return result


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}
