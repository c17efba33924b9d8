"""The real proxy app with a probe for load runs: `GET /_probe` says what the process holds.

The probe answers from inside the proxy's event loop: its asyncio task count, its
RSS, and its established TCP connections to a given port (`?port=`, the upstream's).
It wraps the app `skillproxy serve` builds and changes nothing else; it is bench
code, never part of the product.
"""

from __future__ import annotations

import asyncio
import gc
import json
from collections import Counter
from typing import Any

import psutil


def probe(port: int = 0) -> dict[str, Any]:
    gc.collect()
    process = psutil.Process()
    connections = [c for c in process.net_connections(kind="tcp")
                   if c.status == psutil.CONN_ESTABLISHED and c.raddr and c.raddr.port == port]
    return {"tasks": len(asyncio.all_tasks()), "rss": process.memory_info().rss, "connections": len(connections),
            "task_stacks": task_stacks()}


def task_stacks(top: int = 5) -> list[tuple[str, int]]:
    """Where the running tasks wait, most common first: what a leak of tasks is stuck in."""
    return Counter(" -> ".join(_await_chain(task.get_coro())) for task in asyncio.all_tasks()).most_common(top)


def _await_chain(awaitable: Any, depth: int = 40) -> list[str]:
    """`function:line` of each coroutine or async generator on the way down to what the task waits on."""
    chain = []
    while awaitable is not None and len(chain) < depth:
        frame = getattr(awaitable, "cr_frame", None) or getattr(awaitable, "ag_frame", None)
        if frame is None:
            chain.append(type(awaitable).__name__)
            break
        chain.append(f"{frame.f_code.co_name}:{frame.f_lineno}")
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "ag_await", None)
    return chain


class Probed:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != "/_probe":
            await self.app(scope, receive, send)
            return
        query = dict(p.split("=", 1) for p in scope["query_string"].decode().split("&") if "=" in p)
        body = json.dumps(probe(int(query.get("port", 0)))).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


def main() -> None:
    """`python -m bench.probed_proxy --upstream URL --port N [--roots DIR ...]`: serve like `skillproxy serve`."""
    import argparse

    import uvicorn

    from proxy.app import create_app
    from proxy.engine.skill_engine import SkillEngine
    from proxy.logs.setup import configure_logging
    from proxy.settings import load_settings

    parser = argparse.ArgumentParser(description="skillproxy with a /_probe endpoint, for load runs")
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--roots", nargs="*", default=["skills"])
    args = parser.parse_args()
    settings = load_settings(None, overrides={"upstream": args.upstream, "port": args.port, "roots": tuple(args.roots)})
    configure_logging(settings)
    app = create_app(settings, SkillEngine.from_settings(settings))
    uvicorn.run(Probed(app), host="127.0.0.1", port=args.port, log_config=None, access_log=False)


if __name__ == "__main__":
    main()
