"""Each failure the platform client can meet becomes one typed error with one actionable sentence."""

from __future__ import annotations

import socket

import httpx
import pytest
import respx

from primetui.api import errors as e
from primetui.api.client import PrimeClient

BASE = "http://127.0.0.1:9"
API = BASE + "/api/v1"
KEY = "pk-live-SECRET-abcdef123456"


async def _fail(reply: httpx.Response | Exception, call=lambda c: c.get_run("r1")) -> e.PrimeAPIError:
    with respx.mock() as mock:
        if isinstance(reply, Exception):
            mock.route().mock(side_effect=reply)
        else:
            mock.route().mock(return_value=reply)
        async with PrimeClient(BASE, KEY) as client:
            with pytest.raises(e.PrimeAPIError) as info:
                await call(client)
    return info.value


def _one_sentence(text: str) -> None:
    assert KEY not in text
    assert "\n" not in text
    assert text.endswith(".")
    assert text[0].isupper() or text[0].isdigit() or text.startswith("127.")


@pytest.mark.parametrize(
    "status,body,cls,needle",
    [
        (401, {"detail": "bad key " + KEY}, e.UnauthorizedError, "prime login"),
        (402, {"detail": "x"}, e.PaymentRequiredError, "dashboard/billing"),
        (403, {"detail": "Team scope required"}, e.ForbiddenError, "Team scope required"),
        (404, {"detail": "Run not found"}, e.NotFoundError, "HTTP 404: Run not found"),
        (409, {"detail": "volume has an active read-write session"}, e.ConflictError, "active read-write session"),
        (
            400,
            {
                "detail": "Model 'PrimeIntellect/Qwen3-0.6B' is not available on this cluster. "
                "Reach out to Prime support to get it added."
            },
            e.RequestRejectedError,
            "Reach out to Prime support to get it added.",
        ),
        (405, {"detail": "Method Not Allowed"}, e.RequestRejectedError, "HTTP 405"),
        (500, {"detail": "boom"}, e.ServerError, "HTTP 500: boom"),
        (503, "upstream connect error", e.ServerError, "HTTP 503: upstream connect error"),
        (422, {"detail": "config is not a table"}, e.ValidationError, "config is not a table"),
    ],
)
async def test_status_classes_and_messages(status, body, cls, needle):
    reply = httpx.Response(status, json=body) if isinstance(body, dict) else httpx.Response(status, text=body)
    err = await _fail(reply)
    assert type(err) is cls
    assert err.status_code == status
    assert needle in str(err)
    _one_sentence(str(err))


async def test_401_never_echoes_the_key_even_if_the_server_does():
    err = await _fail(httpx.Response(401, json={"detail": f"key {KEY} revoked"}))
    assert KEY not in str(err) and KEY not in str(err.detail)


async def test_500_detail_redacts_key_and_collapses_html_pages():
    err = await _fail(httpx.Response(502, text="<html><body>Bad gateway</body></html>"))
    assert str(err).startswith("127.0.0.1:9 had a server error (HTTP 502: Bad Gateway)")
    err = await _fail(httpx.Response(500, json={"detail": "traceback\n  line " + KEY}))
    assert KEY not in str(err) and "\n" not in str(err)


async def test_422_list_is_kept_structured_and_rendered_like_the_cli():
    detail = [
        {"loc": ["body", "config", "data", "seq_len"], "msg": "Input should be a valid integer", "type": "int_parsing"},
        {"loc": ["body", "name"], "msg": "Field required", "type": "missing"},
    ]
    err = await _fail(httpx.Response(422, json={"detail": detail}))
    assert isinstance(err, e.ValidationError)
    assert [(i.field, i.msg, i.type) for i in err.issues] == [
        ("config.data.seq_len", "Input should be a valid integer", "int_parsing"),
        ("name", "Field required", "missing"),
    ]
    assert err.issues[0].loc == ("body", "config", "data", "seq_len")
    assert err.cli_text() == (
        "Validation failed:\n  - config.data.seq_len: Input should be a valid integer\n  - name: Field required"
    )
    assert str(err) == (
        "The platform rejected the request (config.data.seq_len: Input should be a valid integer; "
        "name: Field required); fix the listed fields and retry."
    )


@pytest.mark.parametrize(
    "detail",
    ["Logs are not available yet (run is PENDING)", "Run is queued", "Pod is starting", "logs not available"],
)
async def test_404_not_started_markers(detail):
    err = await _fail(httpx.Response(404, json={"detail": detail}))
    assert isinstance(err, e.NotFoundError) and err.not_started
    assert "has not started yet" in str(err)


async def test_plain_404_is_not_not_started():
    err = await _fail(httpx.Response(404, json={"detail": "Run not found"}))
    assert isinstance(err, e.NotFoundError) and not err.not_started


@pytest.mark.parametrize("header,seconds", [("7", 7.0), ("0", 0.0), (None, None), ("soon", None)])
async def test_429_retry_after(header, seconds):
    headers = {"Retry-After": header} if header is not None else {}
    err = await _fail(httpx.Response(429, json={"detail": "slow down"}, headers=headers))
    assert isinstance(err, e.RateLimitedError) and err.retry_after == seconds
    assert ("wait 7 s" in str(err)) == (seconds == 7.0)
    _one_sentence(str(err))


def test_retry_after_http_date():
    assert e.parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


async def test_timeout():
    err = await _fail(httpx.ReadTimeout("timed out"))
    assert isinstance(err, e.APITimeoutError) and isinstance(err, e.TransportError)
    assert str(err) == "http://127.0.0.1:9 did not answer GET /rft/runs/r1 within 30 s; check your network and retry."


async def test_connect_errors_are_unreachable():
    err = await _fail(httpx.ConnectError("[Errno 111] Connection refused"))
    assert isinstance(err, e.UnreachableError)
    assert "(connection refused)" in str(err) and "PRIME_BASE_URL" in str(err)
    err = await _fail(httpx.ConnectError("[Errno -2] Name or service not known"))
    assert "(host name not found)" in str(err)
    err = await _fail(httpx.ConnectTimeout("slow"))
    assert isinstance(err, e.UnreachableError) and "within 10 s" in str(err)


async def test_real_refused_connection_on_loopback():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The port is closed now: a real connect fails with "refused".
    async with PrimeClient(f"http://127.0.0.1:{port}", KEY) as client:
        with pytest.raises(e.UnreachableError) as info:
            await client.list_volumes()
    assert f"Cannot reach http://127.0.0.1:{port} (connection refused)" in str(info.value)


async def test_bad_base_url():
    async with PrimeClient("127.0.0.1:9", KEY) as client:
        with pytest.raises(e.BadSettingError) as info:  # a mistake in a setting, not an unreachable platform
            await client.list_volumes()
    assert "is not an http:// or https:// URL" in str(info.value) and "PRIME_BASE_URL" in str(info.value)


@pytest.mark.parametrize(
    "reply,why",
    [
        (httpx.Response(200, json=[1, 2]), "the reply is a JSON list, not an object"),
        (httpx.Response(200, text="<html>login</html>"), "the reply is not JSON"),
        (httpx.Response(200, json={"run": {"id": "r1"}}), "run.userId: Field required"),
        (httpx.Response(200, json={"volumes": "nope"}), "volumes: Input should be a valid list"),
    ],
)
async def test_malformed_replies(reply, why):
    call = (lambda c: c.list_volumes()) if "volumes" in why else (lambda c: c.get_run("r1"))
    err = await _fail(reply, call)
    assert isinstance(err, e.MalformedResponseError)
    assert why in str(err)
    _one_sentence(str(err))


async def test_204_and_empty_bodies_are_empty_objects():
    with respx.mock() as mock:
        mock.route().mock(return_value=httpx.Response(200, text=""))
        async with PrimeClient(BASE, KEY) as client:
            assert await client.request("DELETE", "/rft/runs/r1") == {}


async def test_missing_key_fails_before_any_request():
    with respx.mock(assert_all_called=False) as mock:
        route = mock.route().respond(json={})
        async with PrimeClient(BASE, "") as client:
            with pytest.raises(e.MissingApiKeyError) as info:
                await client.list_runs()
    assert not route.called
    assert "prime login" in str(info.value)
