"""The HTTP methods a catch-all route takes: every method a client may send to an API path."""

from __future__ import annotations

ALL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
