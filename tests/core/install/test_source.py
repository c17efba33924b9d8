"""Parsing SOURCE: every accepted form to (kind, clone URL, ref, subpath), and what is refused before git runs."""

import pytest

from proxy.core.install.source import Source, SourceError, parse_source

GH = "https://github.com"


@pytest.mark.parametrize(("text", "expected"), [
    ("anthropics/skills", Source("git", "anthropics/skills", f"{GH}/anthropics/skills.git")),
    ("anthropics/skills.git", Source("git", "anthropics/skills", f"{GH}/anthropics/skills.git")),
    ("acme/team-skills/skills/pdf",
     Source("git", "acme/team-skills", f"{GH}/acme/team-skills.git", None, "skills/pdf")),
    ("acme/team-skills/skills/#v2", Source("git", "acme/team-skills", f"{GH}/acme/team-skills.git", "v2", "skills")),
    (f"{GH}/acme/s/tree/main/skills/pdf", Source("git", "acme/s", f"{GH}/acme/s.git", "main", "skills/pdf")),
    ("https://git.example.com/team/skills.git",
     Source("git", "https://git.example.com/team/skills.git", "https://git.example.com/team/skills.git")),
    ("https://git.example.com/team/skills.git//skills/pdf#release",
     Source("git", "https://git.example.com/team/skills.git", "https://git.example.com/team/skills.git", "release",
            "skills/pdf")),
    ("ssh://git@git.example.com/team/skills.git",
     Source("git", "ssh://git@git.example.com/team/skills.git", "ssh://git@git.example.com/team/skills.git")),
    ("git@github.com:acme/skills.git",
     Source("git", "git@github.com:acme/skills.git", "git@github.com:acme/skills.git")),
    ("file:///srv/git/skills.git", Source("git", "file:///srv/git/skills.git", "file:///srv/git/skills.git")),
    ("file:///srv/git/skills.git//nested/one/", Source("git", "file:///srv/git/skills.git",
                                                        "file:///srv/git/skills.git", None, "nested/one")),
    ("./my-skills", Source("folder", "./my-skills", "./my-skills")),
    ("/abs/skills", Source("folder", "/abs/skills", "/abs/skills")),
    ("~/skills", Source("folder", "~/skills", "~/skills")),
    (".", Source("folder", ".", ".")),
])
def test_each_form_names_a_clone_url_ref_and_subpath(text, expected):
    assert parse_source(text) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"),
    ("ext::sh -c touch% /tmp/pwned", "only https, http, ssh, git and file"),
    ("fd::3", "only https, http, ssh, git and file"),
    ("ftp://example.com/skills.git", "only https, http, ssh, git and file"),
    ("https://user:hunter2@git.example.com/skills.git", "password"),
    ("ssh://-oProxyCommand=touch%20x/skills", "may not begin with '-'"),
    ("acme/skills/../../etc", "'..' is not allowed"),
    ("file:///srv/skills.git//a/../../b", "'..' is not allowed"),
    ("acme/skills#--upload-pack=touch", "not a branch or tag"),
    ("acme/skills#a..b", "not a branch or tag"),
    ("./local#main", "has no #REF"),
    ("just-a-word", "not a git URL, owner/repo or a local folder"),
    ("acme/skills/sub\\dir", "not '\\'"),
])
def test_what_is_refused_says_why(text, reason):
    with pytest.raises(SourceError) as refused:
        parse_source(text)
    assert reason in str(refused.value)


def test_repo_name_is_the_last_part_without_dot_git():
    assert parse_source("acme/team-skills/skills").repo_name == "team-skills"
    assert parse_source("file:///srv/git/skills.git").repo_name == "skills"
    assert parse_source("git@host:team/tools.git").repo_name == "tools"
