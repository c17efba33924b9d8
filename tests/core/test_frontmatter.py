from proxy.core.frontmatter import first_paragraph, headings, lenient_fields, parse_skill_text


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
    text = "---\nname: neo\ndescription: Use with Spring Data (SDN 7.x): entities,\n  relationships and queries\nversion: 1\n---\n"
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
