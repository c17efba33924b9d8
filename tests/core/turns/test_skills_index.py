"""The skills index: complete when it fits, shortened, then the best-fitting skills; stable."""

from __future__ import annotations

from pathlib import Path

from proxy.core.catalog.skill import Skill
from proxy.core.turns.skills_index import render_index


def skill(name: str, description: str, invocable: bool = True) -> Skill:
    return Skill(name=name, description=description, folder=Path("/s") / name, root="r", location=name,
                 model_invocable=invocable)


SKILLS = [skill(f"skill-{i:02d}", f"Does task number {i} well. Use it when the user asks about topic {i} "
                                  "in any detail at all.") for i in range(30)]


def test_everything_fits_sorted_by_name_with_full_descriptions():
    text = render_index([*reversed(SKILLS[:3]), skill("hidden", "x", invocable=False)], 10_000, "server")
    lines = text.splitlines()
    assert lines[0] == '<available_skills count="3" listed="3">' and lines[-1] == "</available_skills>"
    assert [line.split(":")[0] for line in lines[2:-1]] == ["- skill-00", "- skill-01", "- skill-02"]
    assert "in any detail at all." in text and "read_skill_file" in text


def test_over_budget_descriptions_are_cut_to_the_first_sentence():
    full = render_index(SKILLS, 100_000, "server")
    short = render_index(SKILLS, len(full) - 1, "server")
    assert len(short) < len(full) and "in any detail" not in short and short.count("\n- ") == 30


def test_still_over_budget_keeps_the_preferred_skills_and_says_how_to_find_the_rest():
    text = render_index(SKILLS, 600, "server", lambda: ["skill-29", "skill-07"])
    assert len(text) <= 600
    assert "- skill-07:" in text and "- skill-29:" in text
    assert text.index("skill-07") < text.index("skill-29"), "listed by name, whatever the preference"
    assert "more not listed: call list_skills to search them" in text
    listed = int(text.split('listed="')[1].split('"')[0])
    assert listed == text.count("\n- ") and 2 <= listed < 30


def test_the_same_inputs_give_the_same_text_and_modes_say_how_to_read():
    assert render_index(SKILLS, 900, "client", lambda: ["skill-03"]) == render_index(SKILLS, 900, "client",
                                                                                   lambda: ["skill-03"])
    assert "file tools" in render_index(SKILLS[:2], 10_000, "client")
    assert "$skill-name" in render_index(SKILLS[:2], 10_000, "inline")
    assert render_index([], 1000, "server") == ""


def test_markup_in_descriptions_is_escaped():
    assert "&lt;b&gt;" in render_index([skill("a", "Makes <b> bold.")], 1000, "server")
