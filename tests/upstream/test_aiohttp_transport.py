"""aiohttp's exceptions as the httpx kinds the upstream client maps to its error messages."""

from __future__ import annotations

import aiohttp
import httpx
import pytest
from aiohttp.client_reqrep import ConnectionKey
from multidict import CIMultiDict, CIMultiDictProxy
from yarl import URL

from proxy.upstream.aiohttp_transport import httpx_error

REQUEST = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
KEY = ConnectionKey("127.0.0.1", 9, False, True, None, None, None)


def _response_error(message: str) -> aiohttp.ClientResponseError:
    url = URL(str(REQUEST.url))
    info = aiohttp.RequestInfo(url, "POST", CIMultiDictProxy(CIMultiDict()), url)
    return aiohttp.ClientResponseError(info, (), status=400, message=message)


@pytest.mark.parametrize("exc, kind, words", [
    (aiohttp.ClientConnectorError(KEY, ConnectionRefusedError(111, "Connect call failed")), httpx.ConnectError,
     "Connect call failed"),
    (aiohttp.ConnectionTimeoutError("Connection timeout to host"), httpx.ConnectTimeout, "Connection timeout"),
    (aiohttp.SocketTimeoutError("Timeout on reading data from socket"), httpx.ReadTimeout, "reading data"),
    (TimeoutError(), httpx.ReadTimeout, "TimeoutError"),
    (aiohttp.ServerDisconnectedError(), httpx.RemoteProtocolError, "disconnected"),  # a stale pooled connection
    (aiohttp.ClientPayloadError("Response payload is not completed"), httpx.RemoteProtocolError,
     "peer closed connection"),
    (aiohttp.ClientOSError(104, "Connection reset by peer"), httpx.ReadError, "reset"),
    (_response_error("Bad status line:\n  Invalid status code:\n\n  b'HTTP/1.1 abc'\n  ^"),
     httpx.RemoteProtocolError, "illegal status line"),
    (_response_error("Bad status line:\n  Expected HTTP/, RTSP/ or ICE/:\n\n  b'SSH-2.0-OpenSSH_9.6'\n    ^"),
     httpx.ReadError, "the answer is not HTTP: it began b'SSH-2.0-OpenSSH_9.6'"),
    (aiohttp.NonHttpUrlClientError("ftp://x"), httpx.UnsupportedProtocol, "ftp://x"),
])
def test_each_aiohttp_failure_becomes_the_httpx_kind_that_says_what_happened(exc, kind, words):
    mapped = httpx_error(exc, REQUEST)
    assert type(mapped) is kind and words in str(mapped), str(mapped)
    assert mapped.request is REQUEST
