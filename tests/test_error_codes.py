"""proxy.errors.ErrorCode: every code the proxy answers with, spelled as clients see it."""

import json
from pathlib import Path

from proxy.core import json_codec
from proxy.errors import BadRequest, ErrorCode, NotFound, UpstreamTimeout, error_bytes, sse_error_frame

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")

WIRE_CODES = {
    "internal_error", "invalid_request", "invalid_api_key", "not_found", "method_not_allowed", "path_refused",
    "request_too_large", "invalid_body", "invalid_json", "json_too_deep", "number_out_of_range",
    "invalid_messages", "too_many_messages", "invalid_skills_header", "model_not_found", "skill_not_found",
    "request_not_found", "invalid_limit", "upstream_error", "upstream_unreachable", "upstream_timeout",
    "upstream_protocol_error", "upstream_connection_closed", "upstream_misconfigured", "upstream_empty_stream",
    "upstream_bad_stream", "upstream_invalid_response", "upstream_html_error", "tool_rounds_exceeded",
}


def test_the_error_codes_are_the_wire_strings_clients_match_on():
    assert {code.value for code in ErrorCode} == WIRE_CODES
    assert all(code.name.lower() == code.value for code in ErrorCode)


def test_the_codes_the_readme_names_are_error_codes():
    for word in ("model_not_found", "tool_rounds_exceeded", "upstream_empty_stream"):
        assert word in README and ErrorCode(word) == word


def test_an_error_body_is_the_same_text_with_the_enum_as_with_its_string():
    for error in (BadRequest("bad"), NotFound("gone", code=ErrorCode.SKILL_NOT_FOUND), UpstreamTimeout("slow")):
        plain = {"error": {**error.body()["error"], "code": str(error.code)}}
        assert type(plain["error"]["code"]) is str
        assert json.dumps(error.body()) == json.dumps(plain)
        assert error_bytes(error) == json.dumps(plain, ensure_ascii=False).encode("utf-8")
        assert json_codec.dumps(error.body()) == json_codec.dumps(plain)
    assert json.loads(error_bytes(UpstreamTimeout("slow")))["error"]["code"] == "upstream_timeout"


def test_a_mid_stream_error_is_one_error_event_then_done():
    frame = sse_error_frame(BadRequest("bad"))
    assert frame == (b'data: {"error": {"message": "bad", "type": "invalid_request_error", "code": "invalid_request"}}'
                     b"\n\ndata: [DONE]\n\n")
