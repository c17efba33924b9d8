"""The shared store's health: redacted URLs, one warning per outage (repeated at most every minute), a
pause before trying a failed Redis again, and one line when it recovers. Driven by a hand-moved clock."""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from proxy.state.health import StoreHealth, redacted_url, url_secrets


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize(("url", "shown"), [
    ("redis://:s3cret@10.0.0.5:6379/0", "redis://:***@10.0.0.5:6379/0"),
    ("rediss://app:s3cret@redis.internal/2", "rediss://app:***@redis.internal/2"),
    ("redis://10.0.0.5:6379/0?password=s3cret&socket_timeout=1",
     "redis://10.0.0.5:6379/0?password=***&socket_timeout=1"),
    ("redis://app@[::1]:7000", "redis://app@[::1]:7000"),
    ("redis://:p%40ss@host", "redis://:***@host"),
    ("redis://:s3cret@host:notaport", "redis://***"),
])
def test_a_redis_url_is_shown_without_its_password(url, shown):
    assert redacted_url(url) == shown
    assert "s3cret" not in redacted_url(url) and "p%40ss" not in redacted_url(url)


def test_the_secrets_of_a_url_include_the_decoded_password():
    assert set(url_secrets("redis://:p%40ss@host/0?password=other")) == {"p%40ss", "p@ss", "other"}
    assert url_secrets("redis://host:6379/0") == ()


def test_an_outage_warns_once_then_at_most_every_minute_and_recovery_is_logged():
    clock = Clock()
    health = StoreHealth("redis://:s3cret@host:6379/0", retry_after=2.0, repeat_after=60.0, clock=clock)
    with capture_logs() as logs:
        for _ in range(7):  # at 100, 110, ... 160: warned at 100 and, a minute on, at 160
            health.failed("get", ConnectionError("Error 111 connecting to host:6379 as :s3cret"))
            clock.now += 10
        health.failed("put", ConnectionError("still down"))  # at 170
        clock.now += 1
        health.succeeded()
        health.succeeded()
    warnings = [e for e in logs if e["event"] == "state_unavailable"]
    assert [w["failures"] for w in warnings] == [1, 7]
    assert warnings[0]["state"] == "redis://:***@host:6379/0"
    assert "s3cret" not in str(logs) and "***" in warnings[0]["error"]
    recovered = [e for e in logs if e["event"] == "state_recovered"]
    assert len(recovered) == 1 and recovered[0]["failures"] == 8 and recovered[0]["down_s"] == 71.0


def test_a_failed_store_is_left_alone_for_retry_after_seconds():
    clock = Clock()
    health = StoreHealth("redis://host", retry_after=2.0, clock=clock)
    assert health.should_try()
    with capture_logs():
        health.failed("get", TimeoutError("timed out"))
    assert not health.should_try() and health.is_down
    clock.now += 1.9
    assert not health.should_try()
    clock.now += 0.2
    assert health.should_try() and health.is_down, "tried again, still counted as down until it answers"
    with capture_logs():
        health.succeeded()
    assert not health.is_down
