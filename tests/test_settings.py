import pytest

from proxy.settings import DEFAULT_ROOTS, Settings, SettingsError, load_settings
from tests.conftest import REPO


def test_defaults_without_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    settings = load_settings(env={})
    assert (settings.host, settings.port, settings.upstream) == ("127.0.0.1", 8787, "http://127.0.0.1:1234/v1")
    assert settings.roots == DEFAULT_ROOTS and settings.tool_mode == "server" and settings.scan_timeout == 3.0


def test_shipped_config_states_every_key_with_its_default():
    shipped_path = REPO / "config" / "skillproxy.yaml"
    assert load_settings(shipped_path, env={}) == Settings()
    text = shipped_path.read_text()
    for field in Settings.__dataclass_fields__:
        assert f"\n{field}:" in text, f"{field} is not in the shipped config"


def test_precedence_file_then_env_then_overrides(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("port: 9000\nupstream: http://a/v1\nroots: [x]\n")
    env = {"SKILLPROXY_UPSTREAM": "http://b/v1", "SKILLPROXY_ROOTS": "y, z", "SKILLPROXY_SLASH_ACTIVATION": "false"}
    settings = load_settings(config, env=env, overrides={"port": 9100, "host": None})
    assert settings.port == 9100 and settings.upstream == "http://b/v1"
    assert settings.roots == ("y", "z") and settings.slash_activation is False and settings.host == "127.0.0.1"


def test_nested_env_keys():
    settings = load_settings(env={"SKILLPROXY_MODEL_OVERRIDES__GEMMA": "gemma-3"})
    assert settings.model_overrides == {"gemma": "gemma-3"}


@pytest.mark.parametrize("content, needle", [
    ("bogus: 1\n", "unknown configuration key 'bogus'"),
    ("tool_mode: sideways\n", "tool_mode"),
    ("port: many\n", "port"),
    ("state: postgres://x\n", "state"),
    ("- a\n", "mapping"),
    ("api_keys: ['k1', '  ']\n", "'api_keys': entry 2 is blank"),
    ("api_keys: [12345]\n", "'api_keys': entry 1 is not text but int"),
])
def test_bad_config_names_the_key(tmp_path, content, needle):
    config = tmp_path / "c.yaml"
    config.write_text(content)
    with pytest.raises(SettingsError, match=needle):
        load_settings(config, env={})


def test_unknown_env_key_and_missing_file_are_errors(tmp_path):
    with pytest.raises(SettingsError, match="SKILLPROXY_NOPE"):
        load_settings(env={"SKILLPROXY_NOPE": "1"})
    with pytest.raises(SettingsError, match="not found"):
        load_settings(tmp_path / "missing.yaml", env={})


def test_max_messages_from_the_environment_and_it_must_be_positive():
    assert Settings().max_messages == 10_000
    assert load_settings(env={"SKILLPROXY_MAX_MESSAGES": "50"}).max_messages == 50
    with pytest.raises(SettingsError, match="max_messages"):
        load_settings(env={"SKILLPROXY_MAX_MESSAGES": "0"})
    with pytest.raises(SettingsError, match="max_messages"):
        load_settings(env={"SKILLPROXY_MAX_MESSAGES": "lots"})


def test_api_keys_from_the_environment_drop_empty_items():
    assert load_settings(env={"SKILLPROXY_API_KEYS": "a, ,b"}).api_keys == ("a", "b")
    assert load_settings(env={"SKILLPROXY_API_KEYS": ""}).api_keys == ()
