"""`skillproxy serve`: precedence of flags, env and config; the start banner; config errors exit 2."""

from __future__ import annotations

import sys
import types

import pytest
import uvicorn
from starlette.testclient import TestClient

from proxy.cli import main

from .engines import MarkerEngine


@pytest.fixture
def served(monkeypatch, tmp_path):
    """Runs `skillproxy serve` with a stand-in engine and uvicorn.run captured: an app is started and
    stopped at once."""
    calls: dict = {}

    def run(app, **kw):
        calls.update(app=app, **kw)
        if not isinstance(app, str):  # a worker factory's import string is only recorded
            with TestClient(app):  # the app's lifespan: started, then stopped as a server would at shutdown
                pass

    class FakeSkillEngine(MarkerEngine):
        @classmethod
        def from_settings(cls, settings):
            calls["settings"] = settings
            return cls()

        def close(self):
            calls["closed"] = True

    try:
        import proxy.engine.skill_engine as module
    except ImportError:  # the real engine is not there yet: stand in for the whole module
        module = types.ModuleType("proxy.engine.skill_engine")
        monkeypatch.setitem(sys.modules, "proxy.engine.skill_engine", module)
    monkeypatch.setattr(module, "SkillEngine", FakeSkillEngine, raising=False)
    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.chdir(tmp_path)
    for name in [n for n in __import__("os").environ if n.startswith("SKILLPROXY_")]:
        monkeypatch.delenv(name)
    return calls


def test_flags_override_env_which_overrides_config(served, tmp_path, monkeypatch, capsys):
    config = tmp_path / "c.yaml"
    config.write_text("port: 9001\nupstream: http://config:1/v1\nhost: 10.0.0.1\n")
    monkeypatch.setenv("SKILLPROXY_UPSTREAM", "http://env:2/v1")
    monkeypatch.setenv("SKILLPROXY_PORT", "9002")
    code = main(["serve", "--config", str(config), "--port", "9003", "--root", "a", "--root", "b",
                 "--log-format", "json"])
    assert code == 0
    settings = served["settings"]
    assert (settings.host, settings.port, settings.upstream) == ("10.0.0.1", 9003, "http://env:2/v1")
    assert served["closed"], "the engine is closed when the server stops (queued state writes sent)"
    assert settings.roots == ("a", "b") and settings.log_format == "json"
    assert (served["host"], served["port"]) == ("10.0.0.1", 9003)


def test_the_banner_says_what_a_user_needs(served, capsys):
    main(["serve", "--upstream", "http://127.0.0.1:11434/v1", "--host", "0.0.0.0", "--port", "8788"])
    err = capsys.readouterr().err
    assert "1 skill(s) loaded, 0 warning(s)" in err
    assert "roots:    skills" in err
    assert "upstream: http://127.0.0.1:11434/v1" in err
    assert "base URL: http://127.0.0.1:8788/v1" in err
    assert "inspect:  http://127.0.0.1:8788/_skillproxy/" in err


def test_a_settings_error_prints_the_message_and_exits_2(served, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("no_such_key: 1\n")
    assert main(["serve", "--config", str(bad)]) == 2
    assert "no_such_key" in capsys.readouterr().err
    assert main(["serve", "--upstream", "ftp://x"]) == 2
    assert "upstream" in capsys.readouterr().err
    assert "app" not in served


def test_tool_mode_comes_from_the_flag_or_the_environment(served, monkeypatch, capsys):
    monkeypatch.setenv("SKILLPROXY_TOOL_MODE", "client")
    assert main(["serve"]) == 0
    assert served["settings"].tool_mode == "client"
    assert "tools:    client mode" in capsys.readouterr().err
    assert main(["serve", "--tool-mode", "inline", "--max-tool-rounds", "2"]) == 0
    assert (served["settings"].tool_mode, served["settings"].max_tool_rounds) == ("inline", 2)
    monkeypatch.delenv("SKILLPROXY_TOOL_MODE")
    main(["serve"])
    assert "tools:    server mode (the proxy runs list_skills" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--tool-mode", "sideways"])


def test_workers_run_an_app_factory_that_rebuilds_the_same_settings(served, tmp_path, monkeypatch, capsys):
    from proxy.worker_app import FACTORY, WORKER_ENV

    monkeypatch.setenv(WORKER_ENV, "")  # so the value serve sets is undone after the test
    config = tmp_path / "c.yaml"
    config.write_text("port: 9001\n")
    assert main(["serve", "--config", str(config), "--workers", "3", "--upstream", "http://127.0.0.1:9/v1"]) == 0
    assert (served["app"], served["factory"], served["workers"], served["port"]) == (FACTORY, True, 3, 9001)
    passed = __import__("json").loads(__import__("os").environ[WORKER_ENV])
    assert passed["config"] == str(config.resolve()) and passed["overrides"]["upstream"] == "http://127.0.0.1:9/v1"
    err = capsys.readouterr().err
    assert "workers:  3 processes" in err
    assert "state:    memory (each worker keeps its own" in err


def test_workers_below_one_is_a_usage_error(served, capsys):
    assert main(["serve", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert "app" not in served


def test_with_workers_the_parent_builds_no_engine_and_still_counts_the_skills(served, tmp_path, monkeypatch, capsys):
    from proxy.worker_app import WORKER_ENV

    monkeypatch.setenv(WORKER_ENV, "")  # so the value serve sets is undone after the test
    (tmp_path / "skills" / "photo-resize").mkdir(parents=True)
    (tmp_path / "skills" / "photo-resize" / "SKILL.md").write_text(
        "---\nname: photo-resize\ndescription: Resize holiday photos for the family album\n---\n# Steps\n")
    assert main(["serve", "--workers", "2", "--root", "skills"]) == 0
    assert "settings" not in served and "closed" not in served, "each worker builds its own engine, not the parent"
    err = capsys.readouterr().err
    assert "1 skill(s) loaded, 0 warning(s)" in err and "roots:    skills" in err
