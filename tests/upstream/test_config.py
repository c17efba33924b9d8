"""The `upstreams:` key: every entry checked at start, errors naming the entry and its key."""

from __future__ import annotations

import sys

import pytest

from proxy.cli.serve_cmd import print_banner
from proxy.settings import Settings, SettingsError, load_settings
from proxy.upstream.config import UpstreamConfig
from tests.conftest import REPO

EXAMPLE = REPO / "config" / "examples" / "lmstudio-and-ollama.yaml"
SECRET = "sk-config-test-ollama-key-0f3e"


def load(tmp_path, text: str, env: dict[str, str] | None = None) -> Settings:
    config = tmp_path / "c.yaml"
    config.write_text(text)
    return load_settings(config, env=env or {})


def test_the_example_config_loads_as_the_readme_describes():
    settings = load_settings(EXAMPLE, env={})
    assert settings.upstreams == (
        UpstreamConfig("lmstudio", "http://127.0.0.1:1234/v1", ("qwen*", "lmstudio-community/*")),
        UpstreamConfig("ollama", "http://127.0.0.1:11434/v1", ("llama3*", "gemma*:*")),
    )
    assert all(u.api_key is None for u in settings.upstreams)


def test_an_entry_with_everything(tmp_path):
    settings = load(tmp_path, """
upstreams:
  - name: remote
    base_url: https://models.example.com/v1/
    api_key: sk-inline
    models: gpt-*
""")
    (remote,) = settings.upstreams
    assert remote == UpstreamConfig("remote", "https://models.example.com/v1", ("gpt-*",), "sk-inline")
    assert "sk-inline" not in repr(settings), "keys stay out of reprs (and so out of tracebacks)"


def test_api_key_env_reads_the_key_from_the_environment(tmp_path):
    text = "upstreams:\n  - {name: ollama, base_url: 'http://h:11434/v1', models: ['*'], api_key_env: OLLAMA_KEY}\n"
    settings = load(tmp_path, text, env={"OLLAMA_KEY": f" {SECRET}\n"})
    assert settings.upstreams[0].api_key == SECRET
    with pytest.raises(SettingsError, match="entry 1 \\('ollama'\\): key 'api_key_env': environment variable "
                                            "OLLAMA_KEY is not set"):
        load(tmp_path, text)


def test_upstreams_from_the_environment_as_yaml():
    env = {"SKILLPROXY_UPSTREAMS": "[{name: a, base_url: 'http://a/v1', models: ['x*']}]"}
    assert load_settings(env=env).upstreams == (UpstreamConfig("a", "http://a/v1", ("x*",)),)


@pytest.mark.parametrize("entries, needle", [
    ("{name: a, base_url: 'http://a/v1', models: ['*']}", "expected a list, got dict"),
    ("['http://a/v1']", "entry 1 must be a mapping"),
    ("[{base_url: 'http://a/v1', models: ['*']}]", "entry 1: key 'name' must be non-empty text"),
    ("[{name: '  ', base_url: 'http://a/v1', models: ['*']}]", "entry 1: key 'name'"),
    ("[{name: a, base_url: 'ftp://a', models: ['*']}]", "entry 1 \\('a'\\): key 'base_url': expected an http"),
    ("[{name: a, models: ['*']}]", "entry 1 \\('a'\\): key 'base_url'"),
    ("[{name: a, base_url: 'http://a/v1'}]", "entry 1 \\('a'\\): key 'models': expected a list"),
    ("[{name: a, base_url: 'http://a/v1', models: []}]", "entry 1 \\('a'\\): key 'models'"),
    ("[{name: a, base_url: 'http://a/v1', models: ['ok', '']}]", "entry 1 \\('a'\\): key 'models': every pattern must"),
    ("[{name: a, base_url: 'http://a/v1', models: [7]}]", "key 'models': every pattern must be non-empty text"),
    ("[{name: a, base_url: 'http://a/v1', models: ['*'], url: 'http://b'}]", "entry 1 \\('a'\\): unknown key 'url'"),
    ("[{name: a, base_url: 'http://a/v1', models: ['*'], api_key: ''}]", "entry 1 \\('a'\\): key 'api_key' is blank"),
    ("[{name: a, base_url: 'http://a/v1', models: ['*'], api_key: 123}]", "key 'api_key' is not text but int"),
    ("[{name: a, base_url: 'http://a/v1', models: ['*'], api_key: k, api_key_env: K}]", "not both"),
    ("[{name: a, base_url: 'http://a/v1', models: ['*']}, {name: a, base_url: 'http://b/v1', models: ['*']}]",
     "two upstreams are named 'a'"),
])
def test_a_bad_entry_is_an_error_naming_the_entry_and_the_key(tmp_path, entries, needle):
    with pytest.raises(SettingsError, match=needle) as raised:
        load(tmp_path, f"upstreams: {entries}\n")
    assert str(raised.value).startswith("configuration key 'upstreams': ")


def test_upstream_api_key_beside_upstreams_is_refused_rather_than_silently_unused(tmp_path):
    with pytest.raises(SettingsError, match="'upstream_api_key' is not used when 'upstreams' is set"):
        load(tmp_path, "upstream_api_key: sk-x\nupstreams: [{name: a, base_url: 'http://a/v1', models: ['*']}]\n")


def test_the_banner_lists_each_upstream_and_its_models_never_its_key(capsys):
    settings = load_settings(EXAMPLE, env={}).replace(
        upstreams=(UpstreamConfig("lmstudio", "http://127.0.0.1:1234/v1", ("qwen*",), SECRET),
                   UpstreamConfig("ollama", "http://127.0.0.1:11434/v1", ("llama3*", "gemma*:*"))))
    print_banner(settings, {"skills": 2}, sys.stdout)
    out = capsys.readouterr().out
    assert "upstream: lmstudio  http://127.0.0.1:1234/v1  models: qwen*" in out
    assert "upstream: ollama  http://127.0.0.1:11434/v1  models: llama3*, gemma*:*" in out
    assert "no model: lmstudio" in out and "no match: 404" in out
    assert SECRET not in out


def test_the_banner_says_when_a_configured_single_upstream_is_not_used(capsys):
    settings = load_settings(EXAMPLE, env={"SKILLPROXY_UPSTREAM": "http://ollama:11434/v1"})
    print_banner(settings, {}, sys.stdout)
    assert "upstream http://ollama:11434/v1 is not used, because `upstreams` is set" in capsys.readouterr().out


def test_the_readme_shows_the_example_configs_upstreams(tmp_path):
    section = (REPO / "README.md").read_text().split("### Several upstreams", 1)[1]
    shown = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    assert load(tmp_path, shown).upstreams == load_settings(EXAMPLE, env={}).upstreams


def test_the_native_root_is_the_base_url_without_v1_unless_native_url_says_otherwise(tmp_path):
    from proxy.upstream.client import Upstream

    settings = load(tmp_path, "upstreams: [{name: a, base_url: 'http://a:11434/v1', models: ['x']},\n"
                              "  {name: b, base_url: 'http://gw/openai/v1', native_url: 'http://b:11434/', "
                              "models: ['*']}]\n")
    derived, explicit = (Upstream(settings, config=config) for config in settings.upstreams)
    assert derived.native_url_for("api/chat") == "http://a:11434/api/chat"
    assert explicit.native_url_for("api/tags", "q=1") == "http://b:11434/api/tags?q=1"
    single = Upstream(load_settings(None, env={"SKILLPROXY_UPSTREAM": "http://o/v1",
                                                "SKILLPROXY_UPSTREAM_NATIVE_URL": "http://n:11434"}))
    assert single.native_root == "http://n:11434" and single.url_for("models") == "http://o/v1/models"


def test_a_native_url_that_is_not_an_http_url_is_an_error_naming_the_key(tmp_path):
    with pytest.raises(SettingsError, match="entry 1 \\('a'\\): key 'native_url': expected an http"):
        load(tmp_path, "upstreams: [{name: a, base_url: 'http://a/v1', native_url: 'a:11434', models: ['*']}]\n")
    with pytest.raises(SettingsError, match="'upstream_native_url': expected an http"):
        load(tmp_path, "upstream_native_url: localhost:11434\n")
