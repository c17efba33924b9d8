"""skills-lock.json: the same lock is always the same bytes; bad files are named with the reason."""

import json

import pytest

from proxy.core.install.lock import Lock, LockEntry, LockError, parse_lock, render_lock

ENTRY = LockEntry(source="acme/skills", url="https://github.com/acme/skills.git", subpath="skills/pdf",
                  sha256="ab" * 32, commit="c0ffee" * 6 + "c0ff", installed_at="2025-01-31T09:12:03Z")


def test_rendering_is_sorted_versioned_and_reads_back_the_same():
    lock = Lock().with_entry("zeta", ENTRY).with_entry("alpha", ENTRY)
    text = render_lock(lock)
    data = json.loads(text)
    assert list(data) == ["version", "skills"] and data["version"] == 1 and list(data["skills"]) == ["alpha", "zeta"]
    assert list(data["skills"]["alpha"]) == sorted(data["skills"]["alpha"])
    assert data["skills"]["alpha"] == {"source": "acme/skills", "url": "https://github.com/acme/skills.git",
                                       "ref": None, "subpath": "skills/pdf", "commit": ENTRY.commit,
                                       "sha256": "ab" * 32, "mode": "copy", "installed_at": "2025-01-31T09:12:03Z"}
    assert text.endswith("}\n")
    assert parse_lock(text, "x") == lock
    assert render_lock(parse_lock(text, "x")) == text
    assert render_lock(Lock().with_entry("alpha", ENTRY).with_entry("zeta", ENTRY)) == text


def test_keys_a_newer_version_added_are_kept():
    data = json.loads(render_lock(Lock().with_entry("pdf", ENTRY)))
    data["skills"]["pdf"]["pinned"] = True
    lock = parse_lock(json.dumps(data), "x")
    assert json.loads(render_lock(lock))["skills"]["pdf"]["pinned"] is True


def test_without_drops_one_entry():
    assert Lock().with_entry("a", ENTRY).with_entry("b", ENTRY).without("a").skills.keys() == {"b"}


@pytest.mark.parametrize(("text", "reason"), [
    ("{not json", "not valid JSON"),
    ("[]", "expected a JSON object"),
    ('{"version": 2, "skills": {}}', "written by a newer skillproxy"),
    ('{"skills": {}}', "version None"),
    ('{"version": 1, "skills": []}', "\"skills\" must be an object"),
    ('{"version": 1, "skills": {"pdf": {"source": "a"}}}', "url, subpath, sha256 missing"),
    ('{"version": 1, "skills": {"pdf": {"source": "a", "url": "u", "subpath": "", "sha256": "s", "mode": "move"}}}',
     "mode must be"),
    ('{"version": 1, "skills": {"pdf": {"source": "a", "url": "u", "subpath": "", "sha256": "s", "commit": 7}}}',
     "commit must be text or null"),
])
def test_a_bad_lock_is_refused_naming_the_file_and_reason(text, reason):
    with pytest.raises(LockError) as refused:
        parse_lock(text, "/r/skills-lock.json")
    assert str(refused.value).startswith("/r/skills-lock.json") and reason in str(refused.value)
