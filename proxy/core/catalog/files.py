"""Reading skill files with a size cap, and showing their paths to people.

A file over the cap keeps its head and tail with an "omitted" marker between
them, without reading the middle. Bytes that are not UTF-8 are replaced,
never fatal; a UTF-16 file (one with its byte order mark) is decoded as such.
Only regular files are read: a FIFO, a device or a folder is refused at once,
never waited on. A file rewritten while it is read, or empty, is read again.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import BinaryIO

from proxy.core.catalog.frontmatter import parse_skill_text

DEFAULT_MAX_FILE_BYTES = 100 * 1024
BINARY_PROBE_CHARS = 8192
_READ_ATTEMPTS = 4
_REREAD_PAUSE_SECONDS = 0.002
_UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
# undecodable bytes and control characters text does not use (tab, newlines, form feed, backspace, escape do)
_NOT_TEXT = re.compile("[\x00-\x07\x0b\x0e-\x1a\x1c-\x1f\ufffd]")


@dataclass(frozen=True)
class FileText:
    text: str
    size: int
    truncated: bool
    had_invalid_utf8: bool
    encoding: str = "utf-8"


@dataclass(frozen=True)
class _RawRead:
    head: bytes
    tail: bytes | None  # None: the whole file is in head
    size: int


def read_capped(path: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> FileText:
    """Read `path` as text, at most `max_bytes` of it: head + marker + tail past the cap.

    Raises OSError when the file cannot be opened or is not a regular file.
    """
    return _decode_read(_read_stable(path, max_bytes), max_bytes)


def _read_stable(path: Path, max_bytes: int) -> _RawRead:
    """The raw bytes, read again (a few times, a moment apart) while the file changes under the read
    or is empty: an editor that truncates and then writes leaves it empty for an instant."""
    for attempt in range(_READ_ATTEMPTS):
        if attempt:
            time.sleep(_REREAD_PAUSE_SECONDS)
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens without waiting for a writer
        with open(fd, "rb") as handle:
            before = os.fstat(fd)
            if not stat.S_ISREG(before.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", str(path))
            raw = _read_raw(handle, before.st_size, max_bytes)
            after = os.fstat(fd)
        if (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns) and raw.head:
            break
    return raw


def _read_raw(handle: BinaryIO, size: int, max_bytes: int) -> _RawRead:
    if size <= max_bytes:
        return _RawRead(handle.read(max_bytes), None, size)  # never more than the cap, even if it grew
    tail_bytes = max_bytes // 4
    head = handle.read(max_bytes - tail_bytes)
    handle.seek(size - tail_bytes)
    return _RawRead(head, handle.read(tail_bytes), size)


def _decode_read(raw: _RawRead, max_bytes: int) -> FileText:
    codec, start = _encoding_of(raw.head)
    if raw.tail is None:
        text, bad = _decode(raw.head[start:], codec)
        return FileText(text, raw.size, False, bad, codec)
    head, head_bad = _decode_head(raw.head[start:], codec)
    tail, tail_bad = _decode_tail(raw.tail, codec, (raw.size - len(raw.tail) - start) % 2)
    omitted = raw.size - max_bytes
    marker = f"\n\n[... {omitted} bytes omitted: the file is {raw.size} bytes, over the {max_bytes}-byte cap ...]\n\n"
    return FileText(head + marker + tail, raw.size, True, head_bad or tail_bad, codec)


def _encoding_of(head: bytes) -> tuple[str, int]:
    """The codec and where the text starts: UTF-16 only with its byte order mark (dropped), else UTF-8."""
    for bom, codec in _UTF16_BOMS:
        if head.startswith(bom):
            return codec, len(bom)
    return "utf-8", 0


def _decode(data: bytes, codec: str = "utf-8") -> tuple[str, bool]:
    try:
        return data.decode(codec), False
    except UnicodeDecodeError:
        return data.decode(codec, errors="replace"), True


def _decode_head(data: bytes, codec: str) -> tuple[str, bool]:
    """Decode a head cut at an arbitrary byte: an incomplete last character is dropped."""
    decoder = codecs.getincrementaldecoder(codec)(errors="strict")
    try:
        return decoder.decode(data, final=False), False
    except UnicodeDecodeError:
        return data.decode(codec, errors="replace"), True


def _decode_tail(data: bytes, codec: str, odd_start: int) -> tuple[str, bool]:
    """Decode a tail cut at an arbitrary byte: a partial first character is dropped."""
    if codec != "utf-8":
        return _decode(data[odd_start:], codec)
    start = 0
    while start < min(4, len(data)) and data[start] & 0xC0 == 0x80:
        start += 1
    return _decode(data[start:])


def looks_binary(text: str) -> bool:
    """True for decoded text that is really binary data: a NUL, or mostly undecodable bytes and
    control characters, in its first `BINARY_PROBE_CHARS` characters."""
    sample = text[:BINARY_PROBE_CHARS]
    if "\x00" in sample:
        return True
    return bool(sample) and len(_NOT_TEXT.findall(sample)) * 10 > len(sample) * 3


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
