#!/usr/bin/env python3
"""Build llama.cpp's C++ server (`llama-server`) once and print where the binary is.

    python3 scripts/build_llama_server.py          # builds on the first run (~5 min on 2 cores)
    python3 scripts/build_llama_server.py --path   # prints the binary's path, builds nothing;
                                                    # exit status 1 when it is not built yet

The source is the llama-cpp-python sdist from PyPI (the version the real-model extra installs),
which vendors llama.cpp in vendor/llama.cpp; pip downloads it, so the package registry is the
only network the build needs. The binary goes into a cache directory named by the version and a
digest of the cmake arguments (SKILLPROXY_CACHE_DIR, default ~/.cache/skillproxy), so a later
run, or a run with the same arguments in another checkout, reuses it. The build happens in a
temporary directory beside the cache entry and is renamed into place only when it is complete:
an interrupted build leaves nothing that looks finished. A lock file keeps two concurrent runs
from building twice.

Standard library only: it runs before anything else is installed.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

LLAMA_CPP_PYTHON_VERSION = "0.3.36"

# GGML_NATIVE=OFF: a -march=native build segfaults on CPUs with AMX (see .ci/run); the portable
# build runs everywhere. No curl, OpenSSL or web UI download: the build must not reach the network
# and the tests need none of them. A static binary can be moved into the cache as one file.
CMAKE_ARGS: tuple[str, ...] = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DGGML_NATIVE=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
)

BINARY_NAME = "llama-server"


def cache_root() -> Path:
    """Where built servers are kept: SKILLPROXY_CACHE_DIR, or ~/.cache/skillproxy."""
    configured = os.environ.get("SKILLPROXY_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "skillproxy"


def build_key() -> str:
    """The cache entry's name: the version and a digest of the cmake arguments."""
    digest = hashlib.sha256("\n".join(CMAKE_ARGS).encode()).hexdigest()[:12]
    return f"llama-server-{LLAMA_CPP_PYTHON_VERSION}-{digest}"


def binary_path() -> Path:
    """Where the binary of this version and these arguments is (or will be)."""
    return cache_root() / build_key() / "bin" / BINARY_NAME


def is_built(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def run(command: list[str], cwd: Path | None = None) -> None:
    """Run a build step with its output on stderr, so stdout carries only the binary's path."""
    print("+ " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, cwd=cwd, check=True, stdout=sys.stderr)


def download_sdist(into: Path) -> Path:
    """Fetch the llama-cpp-python sdist through pip (the registry's ordinary client)."""
    run([
        sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
        "--no-binary", ":all:", "--no-deps",
        "--dest", str(into), f"llama-cpp-python=={LLAMA_CPP_PYTHON_VERSION}",
    ])
    archives = sorted(into.glob("llama_cpp_python-*.tar.gz"))
    if not archives:
        raise SystemExit(f"pip downloaded no llama-cpp-python sdist into {into}")
    return archives[0]


def extract_llama_cpp(archive: Path, into: Path) -> Path:
    """Unpack the sdist and return its vendored llama.cpp source tree."""
    with tarfile.open(archive) as sdist:
        sdist.extractall(into, filter="data")
    sources = list(into.glob("llama_cpp_python-*/vendor/llama.cpp/CMakeLists.txt"))
    if not sources:
        raise SystemExit(f"{archive.name} has no vendor/llama.cpp")
    return sources[0].parent


def jobs() -> int:
    configured = os.environ.get("LLAMA_SERVER_BUILD_JOBS")
    if configured:
        return int(configured)
    return min(os.cpu_count() or 1, 2)


def build(target: Path) -> None:
    """Build into a temporary directory beside the cache entry, then rename it into place."""
    entry = target.parents[1]
    entry.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f".{entry.name}.", dir=entry.parent) as work_name:
        work = Path(work_name)
        source = extract_llama_cpp(download_sdist(work / "sdist"), work / "src")
        build_dir = work / "build"
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        run(["cmake", "-S", str(source), "-B", str(build_dir), *generator, *CMAKE_ARGS])
        run([
            "cmake", "--build", str(build_dir), "--target", BINARY_NAME, "--config", "Release",
            "-j", str(jobs()),
        ])
        built = build_dir / "bin" / BINARY_NAME
        if not is_built(built):
            raise SystemExit(f"the build finished but {built} is missing")
        staged = work / "entry"
        (staged / "bin").mkdir(parents=True)
        shutil.copy2(built, staged / "bin" / BINARY_NAME)
        (staged / "BUILD_INFO").write_text(
            f"llama-cpp-python {LLAMA_CPP_PYTHON_VERSION}\n" + "\n".join(CMAKE_ARGS) + "\n"
        )
        os.replace(staged, entry)
    print(f"built {BINARY_NAME} in {time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)


def ensure_built() -> Path:
    """Return the cached binary, building it first when it is not there yet."""
    target = binary_path()
    if is_built(target):
        return target
    target.parents[2].mkdir(parents=True, exist_ok=True)
    lock_path = target.parents[2] / f"{build_key()}.lock"
    with lock_path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not is_built(target):
            if target.parents[1].exists():
                # An entry without a working binary is not a build: start again.
                shutil.rmtree(target.parents[1])
            build(target)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--path", action="store_true",
        help="print the binary's path without building; exit 1 when it is not built",
    )
    arguments = parser.parse_args(argv)
    if arguments.path:
        target = binary_path()
        print(target)
        return 0 if is_built(target) else 1
    print(ensure_built())
    return 0


if __name__ == "__main__":
    sys.exit(main())
