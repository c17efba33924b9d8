"""A JSON response written by the app's JSON codec, for the proxy's own API pages.

Compact UTF-8; a lone surrogate from a client's text goes out escaped instead
of failing the encoding, and a value JSON has no type for is written as its
`str`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import Response

from proxy.core import json_codec


def json_response(payload: Mapping[str, Any]) -> Response:
    return Response(json_codec.dumps(payload, default=str), media_type="application/json")
