"""proxy.core.turns.modes: the turn, skills and skills-index modes are the words on the wire and in the README."""

import json
from pathlib import Path

import pytest

from proxy.core import json_codec
from proxy.core.turns.modes import SkillsIndexMode, SkillsMode, TurnMode
from proxy.core.turns.request_options import BadSkillsHeader, options_from_headers

README = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")


def test_the_turn_modes_are_the_log_modes_the_readme_lists():
    words = ["explicit", "routed", "reminder", "none", "fallback", "passthrough"]
    assert [mode.value for mode in TurnMode] == words
    listed = README.split("`mode` is ", 1)[1].split(". Status", 1)[0]
    assert [word for word in words if f"`{word}`" in listed] == words


def test_the_skills_modes_are_the_x_skills_mode_values_the_readme_lists():
    assert [mode.value for mode in SkillsMode] == ["auto", "explicit", "off"]
    for mode in SkillsMode:
        assert f"- `{mode}`: " in README, mode


def test_the_skills_index_modes_are_the_settings_values_the_readme_names():
    assert [mode.value for mode in SkillsIndexMode] == ["off", "system", "user"]
    assert "`skills_index: system | user`, off by default" in README


@pytest.mark.parametrize("mode", [*TurnMode, *SkillsMode, *SkillsIndexMode])
def test_a_mode_equals_and_serialises_as_its_word(mode):
    word = mode.value
    assert mode == word and str(mode) == word and f"{mode}" == word and hash(mode) == hash(word)
    assert json.dumps({"mode": mode}) == json.dumps({"mode": word})
    assert json_codec.dumps({"mode": mode}) == json_codec.dumps({"mode": word})


def test_the_x_skills_mode_header_reads_as_a_skills_mode():
    options = options_from_headers({"x-skills-mode": " Explicit "})
    assert options.skills_mode is SkillsMode.EXPLICIT
    assert options_from_headers({}).skills_mode is SkillsMode.AUTO
    with pytest.raises(BadSkillsHeader, match="one of auto, explicit, off, not 'sometimes'"):
        options_from_headers({"x-skills-mode": "sometimes"})
