"""The functional core of skillproxy.

What lives here: skills and the catalog (`catalog`), the router and its lexicon
(`routing`), deciding and replaying a conversation's turns and the blocks injected
into them (`turns`), the skill tools and their rounds (`tools`); beside them, which
upstream serves a model (`upstream_choice`) and JSON on the hot path (`json_codec`).
Values in, values out, including what the shell will log: the core returns events,
the shell writes them.

What must not: web frameworks, HTTP clients, loggers, Redis. Besides the standard
library the core imports pyyaml (frontmatter), rapidfuzz (typo repair, near names)
and orjson (`json_codec`, with the standard library where orjson would read a
value differently). tests/core/test_core_purity.py checks that importing every core
module pulls in none of fastapi, starlette, httpx, uvicorn, structlog, logging or
redis.

Not pure, and on purpose:
- Process-wide caches. Parsed SKILL.md texts by their digest (`catalog.loader`,
  under a lock: the catalog watcher and a CLI command may load at once), skill
  bodies by path, mtime and size (`catalog.files`), each skill's term analysis
  (`routing.terms`), stems, lexicon expansions and evidence texts (`routing.tokens`,
  `routing.query`, `routing.evidence`), and a routing index's typo repairs (held on
  the index). Each is keyed by everything its answer depends on, so a hit returns
  what computing afresh would. `clear_parse_cache` and `clear_term_cache` exist only
  so that tests can compare against a from-scratch build; the parse and term caches
  could instead be objects the engine owns and passes in, which would remove both
  hooks.
- The file system. Loading the catalog reads the skills' folders; deciding a turn
  reads the chosen skills' SKILL.md bodies (`turns.turn_decision`, cached until the
  file changes), routing reads a skill's body the first time it analyses that skill,
  and the skill tools read the files a model asks for. `catalog.files` reads a file
  again, after a short `time.sleep`, while it changes under the read.
- The lexicon's tables are read from package data once, when `routing.lexicon` is
  imported.
"""
