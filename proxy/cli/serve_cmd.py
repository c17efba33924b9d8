"""`skillproxy serve`: load settings and skills, print what a user needs, run the proxy.

Flags override `SKILLPROXY_*` variables, which override the config file. The
start banner goes to stderr so that stdout carries only log lines (pipe it to jq).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from proxy.core.tools.tool_mode import ToolMode
from proxy.settings import LOG_FORMATS, TOOL_MODES, Settings, SettingsError, load_settings
from proxy.tracing.config import export_target, tracing_on
from proxy.tracing.request_trace import missing_extra


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the proxy",
        description="Run the OpenAI-compatible proxy: point a client's base URL at it.",
    )
    parser.add_argument("--config", metavar="FILE", help="YAML config (default: config/skillproxy.yaml if present)")
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port to listen on (default 8787)")
    parser.add_argument("--upstream", metavar="URL", help="upstream base URL with /v1 (default LM Studio's)")
    parser.add_argument("--root", dest="roots", metavar="DIR", action="append",
                        help="a skill root; repeat for several (replaces the configured roots)")
    parser.add_argument("--log-format", choices=LOG_FORMATS, help="json or console (default: console on a terminal)")
    parser.add_argument("--log-events", action="store_true", default=None,
                        help="also log the step events of each request (prompt_route, upstream_request, ...)")
    parser.add_argument("--tool-mode", choices=TOOL_MODES,
                        help="server: the proxy runs the skill tools (default); inline: skill instructions in the "
                             "prompt, for models without tool calling; client: file locations for the client's tools")
    parser.add_argument("--max-tool-rounds", type=int, metavar="N",
                        help="rounds of skill tool calls the proxy runs per request (default 6)")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="worker processes (default 1); share replay records with state: redis://...")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        settings = load_settings(args.config, overrides=_overrides(args))
        if args.workers < 1:
            raise SettingsError(f"--workers: expected 1 or more worker processes, got {args.workers}")
        if tracing_on(settings.tracing, os.environ):
            missing_extra(settings.tracing)  # said now, not as a traceback from each worker
    except SettingsError as exc:
        print(f"skillproxy: {exc}", file=sys.stderr)
        return 2
    import uvicorn

    from proxy.app import create_app
    from proxy.engine.skill_engine import SkillEngine, startup_summary_without_engine
    from proxy.logs.setup import configure_logging

    configure_logging(settings)
    try:
        engine = SkillEngine.from_settings(settings) if args.workers == 1 else None
        summary = engine.startup_summary() if engine is not None else startup_summary_without_engine(settings)
    except SettingsError as exc:
        print(f"skillproxy: {exc}", file=sys.stderr)
        return 2
    print_banner(settings, summary, sys.stderr, args.workers)
    serve: dict[str, Any] = {"host": settings.host, "port": settings.port, "log_config": None, "access_log": False,
             "server_header": False}
    if engine is not None:
        uvicorn.run(create_app(settings, engine), **serve)  # its lifespan starts the engine and closes it
        return 0
    # Each worker builds its own engine (`proxy.worker_app`); this process only printed the banner.
    from proxy.worker_app import FACTORY, WORKER_ENV, worker_environment

    os.environ[WORKER_ENV] = worker_environment(args.config, _overrides(args))
    uvicorn.run(FACTORY, factory=True, workers=args.workers, **serve)
    return 0


def print_banner(settings: Settings, summary: dict[str, Any], out: IO[str], workers: int = 1) -> None:
    skills, warnings = summary.get("skills", 0), summary.get("warnings", 0)
    roots = summary.get("roots") or list(settings.roots)
    lines = [
        f"skillproxy: {skills} skill(s) loaded, {warnings} warning(s)"
        + (" (run `skillproxy lint` to see them)" if warnings else ""),
        "  roots:    " + (", ".join(str(r) for r in roots) or "(none)"),
        *upstream_lines(settings),
        f"  tools:    {settings.tool_mode} mode" + (" (the proxy runs list_skills, read_skill_file, list_skill_files)"
                                                    if settings.tool_mode == ToolMode.SERVER else ""),
        f"  state:    {state_line(summary, workers)}",
        f"  base URL: {client_base_url(settings)}   <- give this to your client (OPENAI_BASE_URL)",
        f"  metrics:  {client_base_url(settings).removesuffix('/v1')}/metrics (Prometheus)",
        f"  inspect:  {client_base_url(settings).removesuffix('/v1')}/_skillproxy/   <- skills, recent requests, "
        "try a prompt",
    ]
    if workers > 1:
        lines.insert(-1, f"  workers:  {workers} processes")
    if settings.api_keys:
        lines.append("  auth:     clients must send Authorization: Bearer <one of api_keys>")
    if tracing_on(settings.tracing, os.environ):
        lines.append(f"  traces:   {export_target(settings.tracing, os.environ)}"
                     + (", with prompt and answer text" if settings.tracing.capture_content else ""))
    print("\n".join(lines), file=out, flush=True)


def upstream_lines(settings: Settings) -> list[str]:
    """The single upstream, or each of `upstreams` with the models it serves (never a key)."""
    if not settings.upstreams:
        return [f"  upstream: {settings.upstream}"]
    lines = [f"  upstream: {u.name}  {u.base_url}  models: {', '.join(u.models)}" for u in settings.upstreams]
    lines.append("  routing:  by the request's model, first match wins; no model: "
                 f"{settings.upstreams[0].name}; no match: 404 model_not_found")
    if settings.upstream != Settings().upstream:
        lines.append(f"  note:     upstream {settings.upstream} is not used, because `upstreams` is set")
    return lines


def state_line(summary: dict[str, Any], workers: int) -> str:
    """Where replay records live, and what that means for several workers or an unreachable Redis."""
    state = summary.get("state", "memory")
    if state == "memory":
        return "memory" + (" (each worker keeps its own; a worker without a record recomputes it)"
                           if workers > 1 else "")
    if summary.get("state_reachable") is False:
        return f"{state} (not reachable now: requests go through and recompute replays until it answers)"
    return f"{state} (shared by every worker and replica)"


def client_base_url(settings: Settings) -> str:
    host = settings.host
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}/v1"


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "host": args.host,
        "port": args.port,
        "upstream": args.upstream,
        "roots": tuple(args.roots) if args.roots else None,
        "log_format": args.log_format,
        "log_events": args.log_events,
        "tool_mode": args.tool_mode,
        "max_tool_rounds": args.max_tool_rounds,
    }
