"""The functional core imports no web framework, HTTP client or logger."""

import subprocess
import sys
from pathlib import Path

import proxy.core

CORE = Path(proxy.core.__file__).parent


def test_importing_every_core_module_pulls_in_no_shell_library():
    modules = sorted(".".join(("proxy", "core", *p.relative_to(CORE).with_suffix("").parts)).removesuffix(".__init__")
                     for p in CORE.rglob("*.py"))
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module(m)\n"
        "bad = [m for m in ('fastapi', 'starlette', 'httpx', 'uvicorn', 'structlog', 'logging', 'redis')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "", f"core imports shell libraries: {result.stdout}"
    assert len(modules) >= 6
