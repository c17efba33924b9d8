import time

from proxy.core.catalog.frontmatter import (
    MAX_FRONTMATTER_LINES,
    first_paragraph,
    heading_text,
    headings,
    lenient_fields,
    parse_skill_text,
)


def rules(parsed):
    return [rule for rule, _ in parsed.problems]


def test_plain_frontmatter_and_body():
    parsed = parse_skill_text("---\nname: pdf\nDescription: Read PDFs\n---\n# PDF\nBody\n")
    assert parsed.fields == {"name": "pdf", "description": "Read PDFs"}
    assert parsed.raw_keys == ("name", "Description")
    assert parsed.body == "# PDF\nBody\n"
    assert parsed.has_frontmatter and parsed.problems == ()


def test_keys_are_case_insensitive_and_dash_equals_underscore():
    parsed = parse_skill_text("---\nWhen-To-Use: x\ndisable_model_invocation: true\n---\n")
    assert parsed.fields == {"when_to_use": "x", "disable_model_invocation": True}


def test_bom_and_crlf_are_tolerated():
    parsed = parse_skill_text("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nbody\r\n")
    assert parsed.fields == {"name": "a", "description": "b"}
    assert parsed.body == "body\n"
    assert rules(parsed) == ["utf8-bom"]


def test_unquoted_colon_is_read_leniently():
    text = ("---\nname: neo\ndescription: Use with Spring Data (SDN 7.x): entities,\n  relationships and queries\n"
            "version: 1\n---\n")
    parsed = parse_skill_text(text)
    assert rules(parsed) == ["yaml-invalid"]
    assert parsed.fields["description"] == "Use with Spring Data (SDN 7.x): entities, relationships and queries"
    assert parsed.fields["version"] == 1


def test_folded_scalar_with_unindented_lines_is_read_leniently():
    fields = lenient_fields(["name: x", "description: >", "First line", "second: part", "tags: [a, b]"])
    assert fields["name"] == "x"
    assert fields["tags"] == ["a", "b"]
    assert "second" in fields  # a `word:` line at column 0 starts a key, as YAML would


def test_no_frontmatter_when_first_line_is_not_dashes():
    parsed = parse_skill_text("# Title\n---\n**Name**: x\n---\n")
    assert not parsed.has_frontmatter
    assert rules(parsed) == ["no-frontmatter"]
    assert parsed.fields == {}


def test_frontmatter_in_code_fence_is_read_with_a_warning():
    parsed = parse_skill_text("```yaml\n---\nname: seo\ndescription: d\n---\n```\n# SEO\n")
    assert parsed.fields["name"] == "seo"
    assert parsed.body == "# SEO\n"
    assert rules(parsed) == ["frontmatter-in-code-fence"]


def test_unclosed_frontmatter_and_non_mapping():
    assert rules(parse_skill_text("---\nname: a\n")) == ["frontmatter-unclosed"]
    assert rules(parse_skill_text("---\n- a\n- b\n---\n")) == ["frontmatter-not-mapping"]


def test_first_paragraph_after_h1_skips_headings_and_rules():
    body = "Intro before\n\n# Title\n\n---\n## Sub\nFirst line\nsecond line.\n\nNext para"
    assert first_paragraph(body) == "First line second line."


def test_headings_ignore_code_fences():
    body = "# A\n```\n# not a heading\n```\n## B ##\ntext"
    assert headings(body) == ("A", "B")


def test_never_raises_on_garbage():
    for text in ["", "---", "---\n---", "---\n: :\n---", "\x00\x01", "---\n[unclosed\n---\n", "---\n{a: [\n---"]:
        parse_skill_text(text)


# ---- hostile input: bounded, never raises ----------------------------------

def test_yaml_that_cannot_be_built_is_read_leniently_not_raised():
    cases = {
        "bad date": ("---\nname: a\ndescription: d\nreleased: 2024-13-45\n---\n", "month must be in 1..12"),
        "huge number": ("---\nname: a\ndescription: d\nversion: " + "9" * 10_000 + "\n---\n", "4300 digits"),
        "deep brackets": ("---\nname: a\ndescription: d\nx: " + "[" * 75_000 + "\n---\n", "nested 75000 deep"),
        "deep indentation": ("---\nname: a\ndescription: d\n" + "".join(" " * i + f"k{i}:\n" for i in range(900))
                             + "---\n", "recursion"),
    }
    for label, (text, reason) in cases.items():
        started = time.perf_counter()
        parsed = parse_skill_text(text)
        print(f"{label}: parsed in {(time.perf_counter() - started) * 1000:.0f} ms")
        assert rules(parsed) == ["yaml-invalid"], label
        assert reason in parsed.problems[0][1], (label, parsed.problems)
        assert (parsed.fields["name"], parsed.fields["description"]) == ("a", "d"), label


def test_yaml_aliases_are_refused_so_a_billion_laughs_stays_small():
    laughs = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    laughs += [f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 10) + "]" for i in range(8)]
    parsed = parse_skill_text("---\nname: lol\ndescription: d\n" + "\n".join(laughs) + "\ntags: *i\n---\n")
    assert rules(parsed) == ["yaml-invalid"] and "aliases" in parsed.problems[0][1]
    assert parsed.fields["tags"] == "*i"  # the lenient reader keeps the text, never the expansion
    assert len(repr(parsed.fields)) < 2_000


def test_frontmatter_over_the_line_cap_is_cut_with_a_warning():
    keys = "".join(f"key{i}: value\n" for i in range(MAX_FRONTMATTER_LINES + 500))
    parsed = parse_skill_text("---\nname: many\ndescription: d\n" + keys + "---\n# Body\n")
    assert rules(parsed) == ["frontmatter-too-long"]
    assert len(parsed.fields) == MAX_FRONTMATTER_LINES and parsed.fields["name"] == "many"
    assert parsed.body == "# Body\n"


def test_long_lines_do_not_backtrack():
    """A heading or fence line padded with 50,000 spaces used to take minutes (a backtracking regex)."""
    padded = "# Title" + " " * 50_000 + "end"
    started = time.perf_counter()
    assert headings(padded + "\n## Next ##") == ("Title" + " " * 50_000 + "end", "Next")
    assert first_paragraph(padded + "\n\nText after.") == "Text after."
    assert rules(parse_skill_text("```" + " " * 50_000 + "x\n---\nname: a\n---\n")) == ["no-frontmatter"]
    print(f"padded lines: {(time.perf_counter() - started) * 1000:.1f} ms")


def test_heading_text_drops_closing_hashes():
    assert [heading_text(line) for line in ["## B ##", "# C#", "#x", "# ", "####### seven", "text"]] == \
        ["B", "C", None, None, None, None]


def test_first_paragraph_skips_the_size_cap_marker():
    body = "# Big\n\n[... 900 bytes omitted: the file is 2000 bytes, over the 1100-byte cap ...]\n\nReal text."
    assert first_paragraph(body) == "Real text."
