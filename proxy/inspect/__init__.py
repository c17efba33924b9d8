"""The operator's inspect page at `/_skillproxy/`: the catalog, recent requests, a route try-out.

What lives here: `history` (the in-memory ring buffer of the last N requests,
fed by the request observers seam) and `routes` (the page, its static files
and the small JSON endpoints under `/_skillproxy/api/`). The page is plain
HTML, CSS and JavaScript in `static/`: no build step.

What must not: decide anything about skills (the engine does), or keep a key.
"""
