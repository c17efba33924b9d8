"""docker-compose.yml and the Dockerfile: valid, and wired so that the proxy's upstream is Ollama's /v1."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import yaml

REPO = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
DOCKERFILE = (REPO / "Dockerfile").read_text(encoding="utf-8")
SERVICES = COMPOSE["services"]


def _env(service: dict) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def _volumes(service: dict) -> dict[str, str]:
    return {v.split(":")[1]: v.split(":")[0] for v in service.get("volumes", []) if isinstance(v, str)}


def _container_ports(service: dict) -> set[int]:
    return {int(str(p).split(":")[-1].split("/")[0]) for p in service.get("ports", [])}


def test_two_services_skillproxy_built_from_the_repo_and_ollama():
    assert set(SERVICES) == {"skillproxy", "ollama"}
    build = SERVICES["skillproxy"]["build"]
    assert (REPO / build["context"] / build.get("dockerfile", "Dockerfile")).is_file()
    assert SERVICES["ollama"]["image"].startswith("ollama/ollama")
    assert "ollama" in SERVICES["skillproxy"]["depends_on"]


def test_the_proxy_upstream_is_the_ollama_service_v1():
    upstream = urlparse(_env(SERVICES["skillproxy"])["SKILLPROXY_UPSTREAM"])
    assert upstream.hostname == "ollama" and upstream.path == "/v1"
    assert upstream.port == 11434 and 11434 in _container_ports(SERVICES["ollama"])


def test_skills_and_config_are_mounted_where_the_proxy_reads_them():
    volumes = _volumes(SERVICES["skillproxy"])
    workdir = re.search(r"^WORKDIR\s+(\S+)", DOCKERFILE, re.MULTILINE).group(1)
    assert volumes[f"{workdir}/skills"] == "./skills" and (REPO / "skills").is_dir()
    assert volumes[f"{workdir}/config"] == "./config" and (REPO / "config" / "skillproxy.yaml").is_file()
    assert f"{workdir}/config/skillproxy.yaml" in DOCKERFILE


def test_the_proxy_listens_on_all_interfaces_on_the_published_port():
    env = _env(SERVICES["skillproxy"])
    assert env["SKILLPROXY_HOST"] == "0.0.0.0"
    assert int(env["SKILLPROXY_PORT"]) in _container_ports(SERVICES["skillproxy"])
    assert f"EXPOSE {env['SKILLPROXY_PORT']}" in DOCKERFILE


def test_every_environment_key_is_a_known_setting():
    from proxy.settings import load_settings

    env = _env(SERVICES["skillproxy"])
    settings = load_settings(REPO / "config" / "skillproxy.yaml", env=env)
    assert settings.upstream == "http://ollama:11434/v1" and settings.host == "0.0.0.0"


def test_the_dockerfile_runs_skillproxy_serve_and_copies_only_what_exists():
    assert re.search(r'^CMD \["skillproxy", "serve"', DOCKERFILE, re.MULTILINE)
    sources = [part for line in re.findall(r"^COPY\s+(.+)$", DOCKERFILE, re.MULTILINE) for part in line.split()[:-1]]
    missing = [s for s in sources if not (REPO / s).exists()]
    assert missing == []

