"""Errors as Ollama's clients read them: `{"error": "message"}`, with the answer's HTTP status.

What lives here: `OllamaErrors`, the `ErrorShape` of `/api/chat` and every
other `/api/*` path. The proxy's own errors are `{"error": "..."}`; an
upstream's error answer that is already in that shape passes on as it came,
and any other (OpenAI's object, an HTML page, plain text) is reduced to its
message; a failure after an NDJSON stream began is one more line,
`{"error": "..."}`, which the official clients raise as an error.

What must not: any web framework or HTTP client.
"""

from __future__ import annotations

import json
from typing import Any

from proxy.core import json_codec
from proxy.errors import ProxyError, normalise_error


def ollama_error(message: str) -> dict[str, str]:
    return {"error": message}


class OllamaErrors:
    def answer(self, error: ProxyError) -> bytes:
        return json.dumps(ollama_error(error.message), ensure_ascii=False).encode("utf-8")

    def upstream_answer(self, status: int, raw: bytes, upstream: str) -> Any:
        try:
            data = json_codec.loads(raw)
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("error"), str) and data["error"]:
            return data
        return ollama_error(str(normalise_error(status, raw, upstream)["error"]["message"]))

    def stream_frame(self, error: ProxyError) -> bytes:
        return self.answer(error) + b"\n"


OLLAMA_ERRORS = OllamaErrors()
