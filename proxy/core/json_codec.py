"""JSON on the hot path: orjson where it gives the same values, the standard library where it would not.

What lives here: `loads` and `dumps`, used for every chat request, every answer
the proxy reads and every log line. orjson is several times faster, but it
reads a whole number past 64 bits as a float (changing it) and refuses lone
surrogates and such numbers when writing; those inputs go to the standard
library, which carries them as they are. Both write compact JSON, so the two
paths give the same text for the same value (float spellings aside, which
parse back to the same number).

What must not: know what the JSON means.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import orjson

# A whole number of 19 digits or more may not fit 64 bits: orjson would read it as a float.
_LONG_DIGITS = re.compile(rb"\d{19}")


def has_long_digits(data: bytes) -> bool:
    """True when `data` may hold a whole number orjson would read as a float."""
    return _LONG_DIGITS.search(data) is not None


def loads(raw: bytes | str, fallback: Callable[[Any], Any] = json.loads) -> Any:
    """The value in `raw`. What orjson may read differently (a long whole number) or refuses goes to
    `fallback`, the standard library's reader unless a caller needs a stricter one; it raises ValueError
    (json.JSONDecodeError) as `json.loads` does."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    if not has_long_digits(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # the fallback's verdict, and its error message
    return fallback(raw)


def dumps(value: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """`value` as compact UTF-8 JSON; a lone surrogate (half an emoji sent as an escape) goes out escaped.

    `default` turns what JSON has no type for into something it has (`str` for log lines)."""
    try:
        return orjson.dumps(value, default=default)
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=default)
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return json.dumps(value, separators=(",", ":"), default=default).encode("ascii")
