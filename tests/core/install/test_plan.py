"""What an add or update decides for each skill, given what the root already holds."""

from proxy.core.install.lock import LockEntry
from proxy.core.install.plan import NOTHING, Candidate, Installed, Origin, chosen, plan_add, plan_update, unmatched

URL = "file:///srv/skills.git"
ORIGIN = Origin(URL, URL, None, "c2" * 20, "copy")


def candidate(name="pdf", subpath="skills/pdf", sha="new", **kw):
    return Candidate(subpath, subpath.rsplit("/", 1)[-1] or "repo", name, sha, **kw)


def entry(subpath="skills/pdf", sha="old", url=URL, commit="c1" * 20, mode="copy"):
    return LockEntry(source=url, url=url, subpath=subpath, sha256=sha, commit=commit, mode=mode)


def step_for(held, force=False, cand=None):
    [step] = plan_add([cand or candidate()], ORIGIN, {"pdf": held}, force)
    return step.action, step.name, step.reason


def test_a_free_name_is_installed_and_a_gone_folder_installed_again():
    assert step_for(NOTHING) == ("install", "pdf", "")
    assert step_for(Installed(entry(), False))[0] == "install"
    assert "installed again" in step_for(Installed(entry(), False))[2]


def test_a_folder_the_lock_does_not_list_is_refused_unless_forced():
    action, _, reason = step_for(Installed(None, True))
    assert action == "refuse" and "does not list" in reason and "--force" in reason
    assert step_for(Installed(None, True), force=True)[0] == "replace"


def test_another_source_is_refused_unless_forced():
    other = Installed(entry(url="https://github.com/other/skills.git"), True)
    action, _, reason = step_for(other)
    assert action == "refuse" and "already installed from https://github.com/other/skills.git" in reason
    assert step_for(other, force=True)[0] == "replace"
    moved = Installed(entry(subpath="pdf"), True)  # same repository, another folder in it
    assert step_for(moved)[0] == "refuse"


def test_the_same_source_is_an_update_and_hand_edits_are_skipped_unless_forced():
    assert step_for(Installed(entry(), True)) == ("replace", "pdf", "")
    edited = Installed(entry(), True, "its files no longer match skills-lock.json")
    action, _, reason = step_for(edited)
    assert action == "skip" and "(edited by hand?); --force overwrites them" in reason
    assert step_for(edited, force=True)[0] == "replace"


def test_the_same_files_are_unchanged_or_relocked_to_the_new_commit():
    assert step_for(Installed(entry(sha="new", commit=ORIGIN.commit), True))[0] == "unchanged"
    assert step_for(Installed(entry(sha="new"), True))[0] == "relock"
    assert step_for(Installed(entry(sha="new", commit=ORIGIN.commit, mode="link"), True))[0] == "replace"


def test_problems_names_and_duplicates_are_refused():
    assert step_for(NOTHING, cand=candidate(problem="lint error: description-missing: x"))[:2] == ("refuse", "pdf")
    bad = Candidate("x/Bad Name", "Bad Name", "Bad Name", "s")
    [refused] = plan_add([bad], ORIGIN, {}, False)
    assert refused.action == "refuse" and "name rules" in refused.reason
    fallback = Candidate("x/pdf", "pdf", "PDF Tools", "s")  # an unusable name: its folder's name is used
    assert plan_add([fallback], ORIGIN, {}, False)[0].name == "pdf"
    twice = plan_add([candidate(), candidate(subpath="other/pdf")], ORIGIN, {}, False)
    assert [s.action for s in twice] == ["install", "refuse"]
    assert twice[1].reason == "skills/pdf in this source has the same name"


def test_chosen_and_unmatched_follow_skill_and_folder_names():
    found = [candidate("pdf"), candidate("xlsx-tools", "skills/xlsx")]
    assert chosen(found, []) == tuple(found)
    assert [c.skill_name for c in chosen(found, ["xlsx"])] == ["xlsx-tools"]
    assert unmatched(found, ["pdf", "docx"]) == ("docx",)


def test_update_of_a_skill_gone_from_the_source_or_now_broken_keeps_it():
    gone = plan_update("pdf", entry(), None, "c3" * 20, Installed(entry(), True), False)
    assert gone.action == "refuse" and "no SKILL.md at skills/pdf any more" in gone.reason
    broken = plan_update("pdf", entry(), candidate(problem="lint error: x"), "c3" * 20, Installed(entry(), True), False)
    assert broken.action == "refuse" and broken.reason == "lint error: x; kept as it is"
    fine = plan_update("pdf", entry(), candidate(), "c3" * 20, Installed(entry(), True), False)
    assert (fine.action, fine.name) == ("replace", "pdf")
