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
from typing import Any

import psutil


def probe(port: int = 0) -> dict[str, Any]:
    gc.collect()
    process = psutil.Process()
    connections = [c for c in process.net_connections(kind="tcp")
                   if c.status == psutil.CONN_ESTABLISHED and c.raddr and c.raddr.port == port]
    return {"tasks": len(asyncio.all_tasks()), "rss": process.memory_info().rss, "connections": len(connections)}


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
    from proxy.engine import SkillEngine
    from proxy.logging_setup import configure_logging
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
