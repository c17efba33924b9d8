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
