"""A skill-tool runner for tests: every call succeeds and answers with its name and arguments."""

from __future__ import annotations

from typing import Any, ClassVar


class EchoTools:
    def call(self, name: str, arguments: Any) -> Any:
        class Result:
            content = f"{name}:{arguments}"
            event: ClassVar[dict[str, object]] = {"tool": name, "ok": True}

        return Result()
