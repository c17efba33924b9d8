"""The no-op `async_pre_call_hook` LiteLLM runs in bench/perf_bench.py (bench/litellm_config.yaml).

A gateway user who wants what skillproxy does would write such a hook; this one
returns the request unchanged, so the LiteLLM figures are its floor. Imported by
LiteLLM from its own venv (the benchmark makes it), never by skillproxy.
"""

from __future__ import annotations

from typing import Any

from litellm.integrations.custom_logger import CustomLogger


class NoOpPreCallHook(CustomLogger):
    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict, call_type: Any) -> dict:
        return data


proxy_handler_instance = NoOpPreCallHook()
