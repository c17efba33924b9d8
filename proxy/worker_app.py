"""The app for each uvicorn worker of `skillproxy serve --workers N`.

uvicorn starts workers as fresh processes and needs an import string, so the
parent cannot hand them its app. It puts what it was started with (the config
file and the flags; never secrets: those come from the same config file and
environment) in `WORKER_ENV`, and `create_worker_app` rebuilds the settings,
logging and skill engine from that in each worker. The app's lifespan starts
that worker's engine (its catalog watcher) and closes it when the worker
stops, sending its queued state writes.

What must not: differ from the single-process app in anything but where it
gets its settings.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI

WORKER_ENV = "_SKILLPROXY_SERVE_ARGS"  # not SKILLPROXY_*: that prefix is for configuration keys
FACTORY = "proxy.worker_app:create_worker_app"


def worker_environment(config: str | None, overrides: dict[str, Any]) -> str:
    """What a worker needs to load the same settings as the parent, as one environment value."""
    path = str(Path(config).resolve()) if config else None
    return json.dumps({"config": path, "cwd": os.getcwd(), "overrides": overrides})


def create_worker_app() -> FastAPI:
    from proxy.app import create_app
    from proxy.engine.skill_engine import SkillEngine
    from proxy.logs.setup import configure_logging
    from proxy.settings import load_settings

    args = json.loads(os.environ[WORKER_ENV])
    os.chdir(args["cwd"])  # relative roots and the default config mean what they meant to the parent
    settings = load_settings(args["config"], overrides=args["overrides"])
    configure_logging(settings)
    return create_app(settings, SkillEngine.from_settings(settings))
