"""skillproxy: an OpenAI-compatible reverse proxy that gives any client Agent Skills.

`proxy.core` is the functional core (catalog, frontmatter, router, activation,
packets, conversation state): values in, values out, no web framework, HTTP
client or logger. Everything else in this package is the thin shell around it.
"""

__version__ = "0.1.0"
