"""Properties of the core, checked with hypothesis on any input: the parsers and the message rewriting.

- Activation (`$name`, `/name`): never raises; whatever it resolves is in the catalog and named in the text.
- Frontmatter: never raises; whatever it reads can be served as JSON.
- The preprocessor on a request's messages: never raises or mutates the request; forwards every message
  but the user turns unchanged, and in user turns changes only text (image, audio and unknown parts keep
  their place); is idempotent under replay: the same conversation again, through the same state or a
  fresh one, or grown turn by turn, gives byte-identical forwarded messages.

Runs are derandomized (the same examples every run, no example database) and small enough for CI.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proxy.core.catalog.frontmatter import ParsedSkillFile, parse_skill_text
from proxy.core.turns.activation import extract_tokens, find_activations
from proxy.core.turns.turn_decision import PreprocessConfig, SkillContext
from proxy.core.turns.turn_text import SEPARATOR
from proxy.state.memory_store import MemoryTurnStore
from proxy.surfaces.chat_messages import is_user
from tests.core.skill_factory import context_for, write_catalog
from tests.core.turns.chat_wire import fallback, preprocess

CI_SETTINGS = settings(max_examples=200, derandomize=True, database=None, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow])
NOW = 1_000.0

WORDS = ["$pdf-tools", "$PDF-TOOLS", "$sql-query-tuning", "$sql-query-tunning", "$release-notes.", "$home", "$$",
         "/pdf-tools", "/release-notes", "/etc/hosts", "$", "/", "user:", "merge a.pdf and b.pdf",
         "my SQL query is slow, EXPLAIN plan, which index", "write release notes and a changelog", "\n", "\n\n\n",
         " ", "\t", "$ARGUMENTS", "<routed_skills>", "---", "日本語のPDF", "é", "\ud83d"]
TEXT = st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=12)), max_size=10).map(" ".join)


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> SkillContext:
    return context_for(write_catalog(tmp_path_factory.mktemp("skills")))


# ---- activation ------------------------------------------------------------------------------------

@CI_SETTINGS
@given(text=st.one_of(TEXT, st.text()), slash=st.booleans())
def test_activation_never_raises_and_resolves_only_named_skills(context, text, slash):
    for token in extract_tokens(text):
        assert f"${token}" in text
    request = find_activations(text, context.catalog, slash)
    if request is None:
        return
    assert request.activations and len(request.payload) <= len(text)
    for activation in request.resolved:
        assert context.catalog.get(activation.skill.name) is activation.skill
        assert activation.skill.name.casefold() in text.casefold()
    for activation in request.unresolved:
        assert activation.suggestions and all(context.catalog.get(name) for name in activation.suggestions)


# ---- frontmatter -----------------------------------------------------------------------------------

YAML_BITS = ["name", "description", "tags", "metadata", "when_to_use", ":", ": ", "- ", "  ", "\t", "[", "]", "{",
             "}", ",", "'", '"', "|", ">-", "#", "&a ", "*a", "!!str ", "!!binary ", "? ", "%YAML 1.2", "...",
             "---", "```yaml", "```", "2024-01-31", "12:30:00", "1e400", "0x1F", "~", "null", "yes", "\ufeff", "\r\n",
             "\x00", "é"]
LINE = st.lists(st.one_of(st.sampled_from(YAML_BITS), st.text(max_size=8)), max_size=8).map("".join)
SKILL_TEXT = st.one_of(
    st.text(),
    st.lists(LINE, max_size=12).map("\n".join),
    st.tuples(st.sampled_from(["---\n", "```yaml\n---\n", "\ufeff---\r\n", ""]), st.lists(LINE, max_size=10),
              st.sampled_from(["\n---\n", "\n...\n", "\n---\n```\n", ""]), st.text(max_size=40))
    .map(lambda t: t[0] + "\n".join(t[1]) + t[2] + t[3]),
)


@CI_SETTINGS
@given(text=SKILL_TEXT)
def test_frontmatter_never_raises_and_what_it_reads_can_be_served(text):
    parsed = parse_skill_text(text)
    assert_servable(parsed)


@pytest.mark.parametrize("frontmatter", [
    "updated: 2024-02-30",  # an impossible date: PyYAML raises ValueError, not YAMLError
    "released: 2024-13-01",
    "tags: " + "[" * 2000,  # nesting deeper than PyYAML can recurse
    "tags: &a [pdf, *a]",  # an alias that refers to itself: fields no JSON can hold
    "metadata: &m {author: me, self: *m}",
], ids=["impossible-day", "impossible-month", "nested-2000", "alias-loop-list", "alias-loop-map"])
def test_frontmatter_survives_yaml_that_breaks_pyyaml(frontmatter):
    parsed = parse_skill_text(f"---\nname: odd\ndescription: An odd skill.\n{frontmatter}\n---\n# Odd\n")
    assert_servable(parsed)
    assert parsed.fields["name"] == "odd" and parsed.body == "# Odd\n"


def assert_servable(parsed: ParsedSkillFile) -> None:
    assert all(isinstance(rule, str) and isinstance(message, str) for rule, message in parsed.problems)
    assert all(isinstance(key, str) for key in parsed.fields) and isinstance(parsed.body, str)
    json.dumps(parsed.fields, default=str)  # what GET /v1/skills and `skillproxy list --json` do with them


# ---- message rewriting -----------------------------------------------------------------------------

TEXT_PART = st.builds(lambda text: {"type": "text", "text": text}, TEXT)
OTHER_PART = st.one_of(
    st.builds(lambda url: {"type": "image_url", "image_url": {"url": url, "detail": "low"}}, st.text(max_size=20)),
    st.builds(lambda data: {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}},
              st.text(max_size=10)),
    st.builds(lambda kind, value: {"type": kind, "value": value}, st.text(max_size=8), st.integers()),
    st.just({"type": "text"}),
    st.builds(lambda value: {"type": "text", "text": value}, st.one_of(st.none(), st.integers(), st.lists(st.text()))),
    st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2),
)
CONTENT = st.one_of(TEXT, st.lists(st.one_of(TEXT_PART, OTHER_PART), max_size=6), st.none(), st.integers(),
                    st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=2))
ROLE = st.sampled_from(["user", "user", "user", "assistant", "system", "developer", "tool", "wizard", "", 7])
MESSAGE = st.one_of(
    st.builds(lambda text: {"role": "user", "content": text}, TEXT),  # most turns are well formed
    st.builds(lambda text: {"role": "assistant", "content": text}, st.text(max_size=20)),
    st.builds(lambda role, content, extra: {"role": role, "content": content, **extra}, ROLE, CONTENT,
              st.dictionaries(st.sampled_from(["name", "tool_call_id", "x-unknown"]), st.text(max_size=5),
                              max_size=2)),
    st.builds(lambda content: {"content": content}, CONTENT),
    st.none(), st.integers(), st.text(max_size=5),
)
CONVERSATION = st.lists(MESSAGE, max_size=6)
CONFIG = st.builds(PreprocessConfig, tool_mode=st.sampled_from(["server", "inline", "client"]),
                   slash_activation=st.booleans(), routing=st.sampled_from([True, True, False]))


def forwarded_for(messages: list[Any], context: SkillContext, store: MemoryTurnStore,
                  config: PreprocessConfig) -> bytes:
    """The forwarded messages as bytes, with the result's records kept as the engine keeps them."""
    result = preprocess(messages, context, store, config, NOW)
    for key, record in result.records:
        store.put(key, record, NOW)
    return json.dumps(result.messages).encode()


@CI_SETTINGS
@given(messages=CONVERSATION, config=CONFIG)
def test_rewriting_changes_only_the_text_of_user_turns(context, messages, config):
    sent = copy.deepcopy(messages)
    result = preprocess(messages, context, MemoryTurnStore(), config, NOW)
    assert messages == sent, "the request was mutated"
    assert len(result.messages) == len(messages)
    for original, forwarded in zip(messages, result.messages):
        if not is_user(original):
            assert forwarded == original
            continue
        assert {k: v for k, v in forwarded.items() if k != "content"} == {k: v for k, v in original.items()
                                                                          if k != "content"}
        assert_only_text_changed(original.get("content"), forwarded.get("content"))


@CI_SETTINGS
@given(messages=CONVERSATION)
def test_the_fallback_changes_only_the_text_of_the_newest_user_turn(messages):
    result = fallback(messages, MemoryTurnStore(), NOW, "scan timeout")
    if not messages:
        assert result.messages == messages
        return
    assert result.messages[:-1] == messages[:-1] and len(result.messages) == len(messages)
    if is_user(messages[-1]):
        assert_only_text_changed(messages[-1].get("content"), result.messages[-1].get("content"))
    else:
        assert result.messages[-1] == messages[-1]


def assert_only_text_changed(before: Any, after: Any) -> None:
    """Non-text parts in place; text kept whole after a block, or become an invocation packet."""
    if isinstance(before, list):
        assert isinstance(after, list) and non_text_parts(after) == non_text_parts(before)
    elif isinstance(before, str):
        assert after == before or after.endswith(SEPARATOR + before) or after.startswith("<skill_invocation_packet")
    else:
        assert after == before


def non_text_parts(content: list[Any]) -> list[Any]:
    return [part for part in content if not (isinstance(part, dict) and part.get("type") == "text"
                                             and isinstance(part.get("text"), str))]


@CI_SETTINGS
@given(messages=CONVERSATION.map(lambda m: [*m, {"role": "user", "content": "and the SQL EXPLAIN plan?"}]),
       config=CONFIG)
def test_rewriting_is_idempotent_under_replay(context, messages, config):
    store = MemoryTurnStore()
    first = forwarded_for(messages, context, store, config)
    assert forwarded_for(messages, context, store, config) == first  # the same state: replayed from records
    assert forwarded_for(messages, context, MemoryTurnStore(), config) == first  # a fresh state: recomputed
    grown, whole = MemoryTurnStore(), json.loads(first)
    for end in range(1, len(messages) + 1):  # the conversation as a client sends it, one request per message
        expected = json.dumps(whole[:end]).encode()  # key order kept: bytes, as a prompt cache sees them
        assert forwarded_for(messages[:end], context, grown, config) == expected, f"request {end} differs"
