"""The framing of a server-sent event stream, as chat completions use it.

An event ends with a blank line: two line ends, each `\r\n`, `\n` or `\r`.
A chat completion stream ends with the `data: [DONE]` event.
"""

from __future__ import annotations

import re

EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
LONGEST_EVENT_END = 4  # bytes in the longest terminator, `\r\n\r\n`: one may straddle two reads
DONE_FRAME = b"data: [DONE]\n\n"
