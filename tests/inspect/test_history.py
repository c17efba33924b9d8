"""RequestHistory: the last N requests, newest first; the page's own calls and health probes are not kept."""

from __future__ import annotations

from proxy.inspect.history import RequestHistory
from proxy.request_record import RequestRecord


def line(request_id: str, path: str = "/v1/chat/completions", status: int = 200) -> RequestRecord:
    return RequestRecord(request_id=request_id, method="POST", path=path, status=status)


def test_keeps_the_last_n_newest_first():
    history = RequestHistory(3, clock=lambda: 7.0)
    for n in range(5):
        history.observe(line(f"r{n}"))
    assert [r.line["request_id"] for r in history.recent()] == ["r4", "r3", "r2"]
    assert [r.line["request_id"] for r in history.recent(1)] == ["r4"] and history.recent()[0].at == 7.0
    assert history.find("r1") is None and history.find("r3").line["request_id"] == "r3"


def test_the_newest_of_two_requests_with_one_id_is_found():
    history = RequestHistory(5)
    history.observe(line("same", status=500))
    history.observe(line("same", status=200))
    assert history.find("same").line["status"] == 200


def test_page_calls_and_probes_are_not_kept():
    history = RequestHistory(5)
    for path in ("/_skillproxy/api/requests", "/_skillproxy/", "/healthz", "/readyz"):
        history.observe(line("x", path))
    history.observe(line("kept", "/v1/models"))
    assert [r.line["request_id"] for r in history.recent()] == ["kept"]


def test_size_zero_keeps_nothing():
    history = RequestHistory(0)
    history.observe(line("r"))
    assert not history.enabled and history.recent() == [] and history.find("r") is None
