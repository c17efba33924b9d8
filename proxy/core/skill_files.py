"""Reading skill files with a size cap, and showing their paths to people.

A file over the cap keeps its head and tail with an "omitted" marker between
them, without reading the middle. Bytes that are not UTF-8 are replaced,
never fatal.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from proxy.core.frontmatter import parse_skill_text

DEFAULT_MAX_FILE_BYTES = 100 * 1024


@dataclass(frozen=True)
class FileText:
    text: str
    size: int
    truncated: bool
    had_invalid_utf8: bool


def read_capped(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> FileText:
    """Read `path` as text, at most `max_bytes` of it: head + marker + tail past the cap."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size <= max_bytes:
            text, bad = _decode(handle.read())
            return FileText(text, size, False, bad)
        tail_bytes = max_bytes // 4
        head, head_bad = _decode_head(handle.read(max_bytes - tail_bytes))
        handle.seek(size - tail_bytes)
        tail, tail_bad = _decode_tail(handle.read(tail_bytes))
    omitted = size - max_bytes
    marker = f"\n\n[... {omitted} bytes omitted: the file is {size} bytes, over the {max_bytes}-byte cap ...]\n\n"
    return FileText(head + marker + tail, size, True, head_bad or tail_bad)


def _decode(data: bytes) -> tuple[str, bool]:
    try:
        return data.decode("utf-8"), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def _decode_head(data: bytes) -> tuple[str, bool]:
    """Decode a head cut at an arbitrary byte: an incomplete last character is dropped."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
    try:
        return decoder.decode(data, final=False), False
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), True


def _decode_tail(data: bytes) -> tuple[str, bool]:
    """Decode a tail cut at an arbitrary byte: leading continuation bytes are dropped."""
    start = 0
    while start < min(4, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return _decode(data[start:])


def display_path(path: Path) -> str:
    """The path as a person would write it: the home directory shown as `~`."""
    text = str(path)
    home = str(Path.home())
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home):]
    return text


def has_supporting_files(folder: Path) -> bool:
    """True when the folder holds anything besides SKILL.md (hidden entries aside)."""
    try:
        with os.scandir(folder) as entries:
            return any(e.name != "SKILL.md" and not e.name.startswith(".") for e in entries)
    except OSError:
        return False


def read_skill_body(skill_file: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str:
    """The Markdown body of a SKILL.md (frontmatter removed), capped; cached until the file changes."""
    stat = skill_file.stat()
    return _cached_body(str(skill_file), stat.st_mtime_ns, stat.st_size, max_bytes)


@lru_cache(maxsize=256)
def _cached_body(path: str, mtime_ns: int, size: int, max_bytes: int) -> str:
    del mtime_ns, size  # part of the cache key only
    parsed = parse_skill_text(read_capped(Path(path), max_bytes).text)
    return parsed.body.strip("\n")
