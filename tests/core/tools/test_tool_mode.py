"""proxy.core.tools.tool_mode: the tool modes are the words config, logs and the README use."""

import json
from pathlib import Path

from proxy.core import json_codec
from proxy.core.tools.tool_mode import ToolMode, tool_mode_for

README = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")


def test_the_tool_modes_are_the_three_the_readme_documents():
    assert [mode.value for mode in ToolMode] == ["server", "inline", "client"]
    for mode in ToolMode:
        assert f"- **`{mode}`**" in README, mode


def test_a_tool_mode_equals_and_serialises_as_its_word():
    assert ToolMode.SERVER == "server" and f"{ToolMode.INLINE}" == "inline" and str(ToolMode.CLIENT) == "client"
    assert json.dumps({"tool_mode": ToolMode.INLINE}) == json.dumps({"tool_mode": "inline"})
    assert json_codec.dumps({"tool_mode": ToolMode.INLINE}) == b'{"tool_mode":"inline"}'


def test_a_request_that_cannot_take_tools_falls_back_to_inline():
    assert tool_mode_for("server", {"n": 2}, ()) == (ToolMode.INLINE, "n > 1: the tool loop follows one choice only")
    assert tool_mode_for("server", {}, ()) == ("server", None)
    assert tool_mode_for("client", {"n": 2}, ()) == ("client", None)
