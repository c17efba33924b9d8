from pathlib import Path

from proxy.core.catalog.files import display_path, read_capped, read_skill_body


def test_small_file_read_whole(tmp_path):
    path = tmp_path / "f.md"
    path.write_text("héllo", encoding="utf-8")
    text = read_capped(path, 100)
    assert (text.text, text.truncated, text.had_invalid_utf8) == ("héllo", False, False)


def test_capped_file_keeps_head_and_tail_with_marker(tmp_path):
    path = tmp_path / "f.md"
    path.write_text("HEAD" + "é" * 10_000 + "TAIL", encoding="utf-8")
    text = read_capped(path, 1000)
    assert text.truncated and text.text.startswith("HEADé") and text.text.endswith("éTAIL")
    assert "bytes omitted" in text.text
    assert "\ufffd" not in text.text  # cuts inside a multi-byte character are clean
    assert len(text.text.encode()) < 1200


def test_invalid_utf8_is_replaced(tmp_path):
    path = tmp_path / "f.md"
    path.write_bytes(b"ok \xff\xfe end")
    text = read_capped(path)
    assert text.had_invalid_utf8 and text.text.startswith("ok ") and text.text.endswith(" end")


def test_display_path_uses_tilde():
    assert display_path(Path.home() / "skills" / "x") == "~/skills/x"
    assert display_path(Path("/opt/skills")) == "/opt/skills"


def test_body_is_cached_until_the_file_changes(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("---\nname: a\ndescription: d\n---\n# One\n")
    assert read_skill_body(path) == "# One"
    path.write_text("---\nname: a\ndescription: d\n---\n# Two, longer\n")
    assert read_skill_body(path) == "# Two, longer"
