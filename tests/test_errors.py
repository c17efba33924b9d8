"""proxy.errors: every upstream error shape becomes OpenAI's, HTML pages are summarised, errors framed for SSE."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from proxy.errors import (
    MAX_PAGE_BYTES,
    MAX_PAGE_CHARS,
    MAX_TEXT_CHARS,
    BadRequest,
    BodyTooLarge,
    NotFound,
    ProxyError,
    Unauthorized,
    UpstreamError,
    UpstreamTimeout,
    empty_stream_error,
    error_bytes,
    html_summary,
    invalid_answer_error,
    is_html,
    normalise_error,
    readable_text,
    sse_error_frame,
)
from proxy.relay.streaming import EventBuffer

URL = "http://model.test:8080/v1"


def normalised(status: int, raw: bytes | str) -> dict:
    body = normalise_error(status, raw.encode() if isinstance(raw, str) else raw, URL)
    assert set(body) == {"error"} and {"message", "type", "code"} <= set(body["error"]), "always OpenAI's shape"
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], "with a message to read"
    json.dumps(body)  # and it can be sent as JSON
    return body["error"]


# ------------------------------------------------------------------ JSON errors of each server's shape

def test_an_openai_shaped_error_passes_through_unchanged_with_its_extra_fields():
    raw = {"error": {"message": "model `gpt-x` does not exist", "type": "invalid_request_error",
                     "param": "model", "code": "model_not_found"}}
    assert normalised(404, json.dumps(raw)) == raw["error"]


def test_an_openai_shaped_error_without_type_or_code_gets_them_by_status():
    assert normalised(400, '{"error": {"message": "bad"}}') == {
        "message": "bad", "type": "invalid_request_error", "code": None}
    assert normalised(500, '{"error": {"message": "boom"}}') == {
        "message": "boom", "type": "upstream_error", "code": None}


def test_llama_cpp_errors_keep_their_numeric_code_and_type():
    raw = {"error": {"code": 400, "message": "the request exceeds the available context size",
                     "type": "exceed_context_size_error", "n_prompt_tokens": 9000, "n_ctx": 4096}}
    assert normalised(400, json.dumps(raw)) == raw["error"]


def test_ollama_and_lm_studio_text_errors_become_the_message_typed_by_status():
    assert normalised(404, '{"error": "model \\"llama9\\" not found, try pulling it first"}') == {
        "message": 'model "llama9" not found, try pulling it first', "type": "invalid_request_error", "code": None}
    assert normalised(500, '{"error": "llama runner process has terminated"}')["type"] == "upstream_error"


def test_vllm_legacy_errors_keep_their_message_type_and_code():
    raw = {"object": "error", "message": "This model's maximum context length is 4096 tokens.",
           "type": "BadRequestError", "param": None, "code": 400}
    assert normalised(400, json.dumps(raw)) == {"message": raw["message"], "type": "BadRequestError", "code": 400}


def test_fastapi_detail_text_becomes_the_message():
    assert normalised(404, '{"detail": "Not Found"}') == {
        "message": "Not Found", "type": "invalid_request_error", "code": None}


def test_fastapi_validation_details_become_a_json_message():
    detail = [{"loc": ["body", "messages"], "msg": "field required", "type": "value_error.missing"}]
    error = normalised(422, json.dumps({"detail": detail}))
    assert json.loads(error["message"]) == detail and error["type"] == "invalid_request_error"


def test_an_error_message_field_is_read_too():
    assert normalised(503, '{"error_message": "overloaded", "code": "busy"}') == {
        "message": "overloaded", "type": "upstream_error", "code": "busy"}


@pytest.mark.parametrize("raw", ['{"error": {"code": 7}}', '{"error": ""}', '{"status": "failed"}', "[1, 2]",
                                 '"just a string"', "42", "null"])
def test_json_of_no_known_shape_is_shown_as_its_own_text(raw):
    error = normalised(500, raw)
    assert error["message"] == raw and error["type"] == "upstream_error" and error["code"] is None


# ------------------------------------------------------------------ bodies that are not JSON

def test_a_plain_text_body_is_the_message_stripped():
    assert normalised(502, "  Bad Gateway\n") == {"message": "Bad Gateway", "type": "upstream_error", "code": None}


def test_a_long_text_body_is_cut_to_a_readable_length():
    error = normalised(500, "x" * (MAX_TEXT_CHARS * 3))
    assert error["message"] == "x" * MAX_TEXT_CHARS


@pytest.mark.parametrize("raw", [b"", b"   \n\t"])
def test_an_empty_body_says_which_upstream_answered_which_status_with_nothing(raw):
    error = normalised(503, raw)
    assert error["message"] == f"upstream {URL} answered HTTP 503 with an empty body"
    assert error["type"] == "upstream_error"


def test_bytes_that_are_not_utf8_are_shown_with_replacement_characters_not_an_exception():
    error = normalised(500, b"caf\xe9 \xff\xfe broke")
    assert error["message"] == "caf\ufffd \ufffd\ufffd broke"


@given(st.integers(400, 599), st.binary(max_size=300))
def test_any_status_and_any_bytes_give_an_openai_shaped_error_typed_by_status(status, raw):
    error = normalised(status, raw)
    if not raw.lstrip().startswith(b"{"):
        assert error["type"] == ("invalid_request_error" if status < 500 else "upstream_error")


# ------------------------------------------------------------------ HTML pages

NGINX_502 = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
             b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx/1.25.3</center>\r\n"
             b"</body>\r\n</html>\r\n")
CLOUDFLARE = (b"<!DOCTYPE html>\n<!--[if lt IE 7]> <html class=\"ie6\"> <![endif]-->\n<html><head>"
              b"<title>example.com | 524: A timeout occurred</title>"
              b"<style>body{font-family:sans-serif} .cf-error{color:red}</style>"
              b"<script>window._cf_chl_opt={cvId:'3'};</script></head><body><noscript>Enable JavaScript</noscript>"
              b"<h1>A timeout occurred</h1><p>The origin web server timed out &amp; did not respond.</p></body></html>")


def test_an_nginx_page_is_summarised_by_its_heading_and_visible_text_without_repeating_the_title():
    assert html_summary(NGINX_502) == "502 Bad Gateway nginx/1.25.3"


def test_a_page_summary_is_its_title_then_its_visible_text_without_scripts_styles_or_comments():
    summary = html_summary(CLOUDFLARE)
    assert summary == ("example.com | 524: A timeout occurred: A timeout occurred "
                       "The origin web server timed out & did not respond.")
    for hidden in ("font-family", "_cf_chl_opt", "Enable JavaScript", "[if lt IE 7]"):
        assert hidden not in summary


def test_a_page_without_a_title_is_summarised_by_its_text_and_one_without_text_by_its_title():
    assert html_summary(b"<html><body><h1>Service  Unavailable</h1>\n<p>Try later.</p></body></html>") == (
        "Service Unavailable Try later.")
    assert html_summary(b"<html><head><title>Gateway Timeout</title></head><body></body></html>") == "Gateway Timeout"


def test_a_long_page_summary_is_cut_to_its_cap_with_an_ellipsis():
    page = b"<html><title>Error</title><body>" + b"word " * 2000 + b"</body></html>"
    summary = html_summary(page)
    assert len(summary) <= MAX_PAGE_CHARS and summary.endswith("\u2026") and summary.startswith("Error: word word")


def test_only_the_start_of_a_huge_page_is_read():
    page = b"<html><title>Big</title><body>" + b" " * MAX_PAGE_BYTES + b"<p>beyond the cap</p></body></html>"
    assert html_summary(page) == "Big"


def test_a_page_in_another_encoding_is_summarised_with_replacement_characters():
    assert html_summary(b"<html><title>Erreur \xe9chec</title></html>") == "Erreur \ufffdchec"


@pytest.mark.parametrize("raw", [b"<!DOCTYPE html><html></html>", b"<!doctype HTML>", b"  \n<html lang=en>",
                                 b"<head><title>x</title></head>", b"<BODY>x</BODY>",
                                 b"<!-- served by nginx -->\n<html>", "\ufeff<html>".encode()])
def test_pages_are_recognised_as_html_whatever_their_case_leading_space_comment_or_bom(raw):
    assert is_html(raw)


@pytest.mark.parametrize("raw", [b"", b'{"error": "<html>"}', b"Bad Gateway", b"<?xml version='1.0'?><error/>",
                                 b"<htmlish>", b"error: <html> in the text"])
def test_json_text_xml_and_markup_later_in_the_body_are_not_html(raw):
    assert not is_html(raw)


def test_an_html_page_on_a_5xx_says_a_proxy_in_front_answered_and_the_model_server_may_be_down():
    error = normalised(502, NGINX_502)
    assert error["code"] == "upstream_html_error" and error["type"] == "upstream_error"
    assert error["message"].startswith(f'upstream {URL} answered HTTP 502 with an HTML page, not an API error: '
                                       '"502 Bad Gateway nginx/1.25.3"')
    assert "reverse proxy" in error["message"] and "may be down" in error["message"]


def test_an_html_page_on_a_4xx_asks_whether_upstream_is_the_api_base_url():
    error = normalised(404, b"<!DOCTYPE html><html><title>Not Found</title><body><h1>Not Found</h1></body></html>")
    assert error["code"] == "upstream_html_error" and error["type"] == "invalid_request_error"
    assert '"Not Found"' in error["message"] and "`upstream`" in error["message"] and "/v1" in error["message"]


def test_readable_text_summarises_html_and_cuts_anything_else():
    assert readable_text(NGINX_502) == "502 Bad Gateway nginx/1.25.3"
    assert readable_text(b" plain \xff ") == "plain \ufffd"
    assert len(readable_text(b"y" * (MAX_TEXT_CHARS + 5))) == MAX_TEXT_CHARS


# ------------------------------------------------------------------ the proxy's own errors

@pytest.mark.parametrize(("kind", "status", "type_", "code"), [
    (ProxyError, 500, "server_error", "internal_error"),
    (BadRequest, 400, "invalid_request_error", "invalid_request"),
    (Unauthorized, 401, "invalid_request_error", "invalid_api_key"),
    (NotFound, 404, "invalid_request_error", "not_found"),
    (BodyTooLarge, 413, "invalid_request_error", "request_too_large"),
    (UpstreamError, 502, "upstream_error", "upstream_unreachable"),
    (UpstreamTimeout, 504, "upstream_error", "upstream_timeout"),
])
def test_each_error_kind_has_its_status_and_renders_as_openais_shape(kind, status, type_, code):
    error = kind("what went wrong")
    assert error.status == status and str(error) == "what went wrong"
    assert error.body() == {"error": {"message": "what went wrong", "type": type_, "code": code}}
    assert json.loads(error_bytes(error)) == error.body()


def test_a_code_given_to_an_error_replaces_its_kinds_default_for_that_error_only():
    assert BadRequest("x", code="path_refused").code == "path_refused"
    assert BadRequest("y").code == "invalid_request"


def test_error_bytes_are_utf8_json_with_text_kept_readable():
    assert error_bytes(BadRequest("café ☕")) == (
        '{"error": {"message": "café ☕", "type": "invalid_request_error", "code": "invalid_request"}}'.encode())


def test_an_sse_error_frame_is_one_error_event_then_done():
    error = UpstreamError("upstream broke off")
    assert sse_error_frame(error) == b"data: " + error_bytes(error) + b"\n\ndata: [DONE]\n\n"


@given(st.text())
def test_an_sse_error_frame_stays_two_whole_events_whatever_the_message_holds(message):
    error = UpstreamError(message)
    buffer = EventBuffer()
    frame = sse_error_frame(error)
    assert buffer.feed(frame) == frame and buffer.rest == b""
    first, done, end = frame.split(b"\n\n")
    assert json.loads(first.removeprefix(b"data: ")) == error.body() and done == b"data: [DONE]" and end == b""
    assert b"\r" not in frame[:-len(b"\n\ndata: [DONE]\n\n")], "a CR in the message would end the line early"


def test_an_empty_stream_error_names_the_upstream_and_the_likely_cause():
    error = empty_stream_error(URL)
    assert isinstance(error, UpstreamError) and error.status == 502 and error.code == "upstream_empty_stream"
    assert URL in error.message and "its own log" in error.message and "context" in error.message


# ------------------------------------------------------------------ an answer that is not a chat completion

def test_an_html_page_instead_of_a_completion_shows_the_page_and_asks_about_the_base_url():
    error = invalid_answer_error(URL, 200, "text/html; charset=utf-8", NGINX_502)
    assert isinstance(error, UpstreamError) and error.status == 502 and error.code == "upstream_invalid_response"
    assert error.message.startswith(f"upstream {URL} answered HTTP 200 (text/html) instead of a chat completion, "
                                    'with an HTML page: "502 Bad Gateway nginx/1.25.3"')
    assert "base URL" in error.message and "/v1" in error.message


def test_plain_text_instead_of_a_completion_is_quoted_and_asks_about_the_base_url():
    error = invalid_answer_error(URL, 200, "text/plain", b"Ollama is running")
    assert "(text/plain) instead of a chat completion, with 'Ollama is running'; " in error.message
    assert "base URL" in error.message


def test_an_empty_answer_without_a_content_type_says_so():
    error = invalid_answer_error(URL, 204, "", b"")
    assert "HTTP 204 (no content type)" in error.message and "with an empty body;" in error.message


def test_json_that_does_not_parse_says_how_long_it_was_and_that_it_may_be_cut_off():
    raw = b'{"id": "chatcmpl-1", "choices": [{"mess'
    error = invalid_answer_error(URL, 200, "application/json", raw)
    assert f"{len(raw)} bytes that do not parse as a JSON object" in error.message
    assert "cut off" in error.message and "model server's log" in error.message
    assert "base URL" not in error.message, "the URL was right: a JSON answer came back"


def test_an_html_page_labelled_json_is_still_shown_as_a_page():
    error = invalid_answer_error(URL, 200, "application/json", NGINX_502)
    assert 'with an HTML page: "502 Bad Gateway nginx/1.25.3"' in error.message
