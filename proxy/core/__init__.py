"""The functional core of skillproxy.

What lives here: skills and the catalog, frontmatter parsing, validation, the
router, explicit activation, the blocks we inject, message rewriting and
conversation state. Values in, values out, including what the shell will log.

What must not: web frameworks, HTTP clients, loggers, global mutable state.
Only the standard library, pyyaml and rapidfuzz are imported here; a test
checks that importing the core pulls in none of fastapi, starlette, httpx,
uvicorn or structlog.
"""
