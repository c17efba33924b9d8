"""The bare passthrough of bench/perf_bench.py: the smallest Starlette + httpx proxy.

    python -m bench.bare_passthrough --upstream http://127.0.0.1:PORT --port N

Every request goes to the upstream at the same path, body read whole, answer
streamed back as it arrives (httpx's documented pattern: `send(stream=True)`,
`StreamingResponse(aiter_raw())`, close in a background task). No parsing, no
preprocessing, no logging: the practical limit for a Starlette + httpx proxy,
the line skillproxy is measured against. One uvicorn process, like the others.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from starlette.applications import Starlette
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

HOP_BY_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host",
                        "content-length", "accept-encoding"})
METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def create_app(upstream: str) -> Starlette:
    client = httpx.AsyncClient(base_url=upstream.rstrip("/"), timeout=httpx.Timeout(600.0, connect=5.0),
                               limits=httpx.Limits(max_connections=None, max_keepalive_connections=64))

    async def forward(request: Request) -> StreamingResponse:
        headers = [(k, v) for k, v in request.headers.items() if k not in HOP_BY_HOP]
        outgoing = client.build_request(request.method, request.url.path, params=request.query_params,
                                        headers=headers, content=await request.body())
        answer = await client.send(outgoing, stream=True)
        kept = {k: v for k, v in answer.headers.items() if k not in HOP_BY_HOP}
        return StreamingResponse(answer.aiter_raw(), status_code=answer.status_code, headers=kept,
                                 background=BackgroundTask(answer.aclose))

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        await client.aclose()

    return Starlette(routes=[Route("/{path:path}", forward, methods=METHODS)], lifespan=lifespan)


def main() -> None:
    import argparse

    import uvicorn

    parser = argparse.ArgumentParser(description="the bare Starlette + httpx passthrough, for bench/perf_bench.py")
    parser.add_argument("--upstream", required=True, help="the upstream's origin, e.g. http://127.0.0.1:9000")
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(create_app(args.upstream), host="127.0.0.1", port=args.port, log_level="warning",
                access_log=False, server_header=False)


if __name__ == "__main__":
    main()
