"""What a SOURCE argument of `skillproxy add` names: a git repository or a local folder.

Forms, each optionally ending in `#REF` (a branch or tag) when it is a git repository:

- a git URL: `https://`, `http://`, `ssh://`, `git://`, `file://`, or scp-like `git@host:owner/repo.git`;
  `URL//path/to/skills` names a folder inside the repository;
- GitHub shorthand `owner/repo`, or `owner/repo/path/to/skills`;
- a GitHub folder URL `https://github.com/owner/repo/tree/REF/path/to/skills`;
- a local folder, written so that it cannot be read as shorthand: `/abs`, `./rel`, `../rel`, `~/rel`, `.`.

Refused before anything runs: any other transport (`ext::`, `fd::`: git would run a program),
a password in the URL (it would be written to skills-lock.json), a subpath with `..`, and a URL,
host or ref that begins with `-` (git would read it as an option).

What it must not know: the disk, git or the network. Values in, values out.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal
from urllib.parse import urlsplit

SourceKind = Literal["git", "folder"]
GITHUB = "https://github.com"
_URL_SCHEMES = ("https", "http", "ssh", "git", "file")
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_SCP = re.compile(r"^(?:[A-Za-z0-9][A-Za-z0-9._-]*@)?[A-Za-z0-9][A-Za-z0-9.-]*:(?!//)[^\s]+$")
_NAME = r"[A-Za-z0-9][A-Za-z0-9._-]*"
_SHORTHAND = re.compile(rf"^(?P<owner>{_NAME})/(?P<repo>{_NAME})(?:/(?P<sub>.+))?$")
_GITHUB_TREE = re.compile(rf"^{GITHUB}/(?P<owner>{_NAME})/(?P<repo>{_NAME})/tree/(?P<ref>[^/]+)(?:/(?P<sub>.*))?$")
_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/+-]*$")
_FOLDER_STARTS = ("/", "./", "../", "~")


class SourceError(ValueError):
    """A SOURCE that names nothing installable; the message says why and what to write instead."""


@dataclass(frozen=True)
class Source:
    kind: SourceKind
    label: str  # how a person names it, kept in the lock: `owner/repo`, the URL, or the folder
    url: str  # what git clones, or the folder as written (the shell makes it absolute)
    ref: str | None = None
    subpath: str = ""  # a folder inside the repository or folder, POSIX, "" for its top

    @property
    def repo_name(self) -> str:
        return repo_name(self.url)


def repo_name(url: str) -> str:
    """A repository's (or folder's) own name: the last part of its path, without `.git`."""
    tail = re.split(r"[/:]", url.rstrip("/"))[-1]
    return tail.removesuffix(".git") or "source"


def parse_source(text: str) -> Source:
    text = text.strip()
    if not text:
        raise SourceError("SOURCE is empty; give a git URL, owner/repo, or a local folder such as ./my-skills")
    if any(unicodedata.category(ch) == "Cc" for ch in text):
        raise SourceError("SOURCE holds a control character")
    if text in (".", "..") or text.startswith(_FOLDER_STARTS):
        if "#" in text:
            raise SourceError(f"{text!r} is a local folder, which has no #REF; give a git URL to pick a branch")
        return Source("folder", text, text)
    body, ref = _split_ref(text)
    if _SCHEME.match(body) or "::" in body:
        return _from_url(body, ref)
    if _SCP.match(body) and not _SHORTHAND.match(body):
        return _from_scp(body, ref)
    return _from_shorthand(body, ref, text)


def _split_ref(text: str) -> tuple[str, str | None]:
    body, mark, ref = text.rpartition("#")
    if not mark:
        return text, None
    if not _REF.match(ref) or ".." in ref or "//" in ref or ref.endswith(("/", ".lock")):
        raise SourceError(f"{ref!r} is not a branch or tag name (after '#' in SOURCE)")
    return body, ref


def _from_url(body: str, ref: str | None) -> Source:
    scheme = _SCHEME.match(body)
    if scheme is None or scheme.group(1).lower() not in _URL_SCHEMES:
        raise SourceError(f"{body!r}: only https, http, ssh, git and file URLs are fetched "
                          "(other git transports can run programs)")
    tree = _GITHUB_TREE.match(body.rstrip("/"))
    if tree:
        if ref is not None:
            raise SourceError(f"{body!r} already names a branch (after /tree/); drop the #{ref}")
        return _github(tree["owner"], tree["repo"], tree["ref"], tree["sub"] or "")
    url, subpath = _split_subpath(body, scheme.end())
    _check_url_parts(url)
    return Source("git", url, url, ref, subpath)


def _from_scp(body: str, ref: str | None) -> Source:
    url, subpath = _split_subpath(body, 0)
    return Source("git", url, url, ref, subpath)


def _from_shorthand(body: str, ref: str | None, text: str) -> Source:
    match = _SHORTHAND.match(body)
    if match is None:
        raise SourceError(f"{text!r} is not a git URL, owner/repo or a local folder "
                          "(write a local folder as ./NAME or /path/to/NAME)")
    return _github(match["owner"], match["repo"], ref, match["sub"] or "")


def _github(owner: str, repo: str, ref: str | None, subpath: str) -> Source:
    repo = repo.removesuffix(".git")
    if ref is not None and not _REF.match(ref):
        raise SourceError(f"{ref!r} is not a branch or tag name")
    return Source("git", f"{owner}/{repo}", f"{GITHUB}/{owner}/{repo}.git", ref, clean_subpath(subpath))


def _split_subpath(body: str, start: int) -> tuple[str, str]:
    """`URL//sub/path` → (URL, "sub/path"); the `//` of `scheme://` is not a separator."""
    cut = body.find("//", start)
    if cut < 0:
        return body, ""
    return body[:cut], clean_subpath(body[cut + 2:])


def _check_url_parts(url: str) -> None:
    try:
        parts = urlsplit(url)
        password, user, host = parts.password, parts.username or "", parts.hostname or ""
    except ValueError as exc:
        raise SourceError(f"{url!r} is not a valid URL ({exc})") from None
    if parts.netloc.startswith("-") or user.startswith("-") or host.startswith("-"):
        raise SourceError(f"{url!r}: a user or host name may not begin with '-'")
    if password:
        raise SourceError("the URL holds a password, which would be written to skills-lock.json; "
                          "let git's credential helper supply it instead")


def clean_subpath(subpath: str) -> str:
    """A folder path inside a repository, as POSIX parts joined by `/`; `..`, backslashes and the like refused."""
    if "\\" in subpath:
        raise SourceError(f"subpath {subpath!r}: separate folders with '/', not '\\'")
    parts = [part for part in subpath.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise SourceError(f"subpath {subpath!r}: '..' is not allowed; name a folder inside the repository")
    if any(part.startswith("-") for part in parts):
        raise SourceError(f"subpath {subpath!r}: a folder name may not begin with '-'")
    return "/".join(parts)


def join_subpath(*parts: str) -> str:
    return "/".join(part for part in parts if part)
