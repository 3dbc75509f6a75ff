"""Typed errors of the platform client.

Every error's `str()` is ONE sentence that says what happened and what to do next, and never
contains the API key. The raw facts stay on attributes (`status_code`, `detail`, `method`,
`path`) so screens can branch on the class and show details on demand.

The mapping mirrors the `prime` CLI (contract §1.4) with finer classes: 409, 422, 429, timeouts,
unreachable hosts and malformed replies each get their own type.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Iterable
from urllib.parse import urlsplit

from primetui.api.boundary import loads
from primetui.api.wire import LOG_NOT_STARTED_MARKERS

__all__ = [
    "APITimeoutError",
    "BadSettingError",
    "ConflictError",
    "ForbiddenError",
    "HTTPStatusError",
    "MalformedResponseError",
    "MissingApiKeyError",
    "NotFoundError",
    "PaymentRequiredError",
    "PrimeAPIError",
    "RateLimitedError",
    "RequestRejectedError",
    "ServerError",
    "TransportError",
    "UnauthorizedError",
    "UnreachableError",
    "ValidationError",
    "ValidationIssue",
    "error_from_response",
    "redact",
]

_MAX_DETAIL = 300
TOKENS_URL = "https://app.primeintellect.ai/dashboard/tokens"
BILLING_URL = "https://app.primeintellect.ai/dashboard/billing"


class PrimeAPIError(Exception):
    """Base of every client error; `str()` is one actionable sentence."""

    status_code: int | None = None

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        detail: Any = None,
        method: str | None = None,
        path: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        if status_code is not None:
            self.status_code = status_code
        self.detail = detail
        """The server's `detail` (a string, or structured for 422), or None."""
        self.method = method
        self.path = path

    def __str__(self) -> str:
        return self.message


# --- no HTTP reply ---------------------------------------------------------------------------


class MissingApiKeyError(PrimeAPIError):
    """No API key is configured, so no request was sent."""


class BadSettingError(PrimeAPIError):
    """The key or the base URL cannot work (a line break in the key, port 99999), so nothing was sent."""

    def __init__(self, message: str, *, setting: str = "", **kw: Any) -> None:
        super().__init__(message, **kw)
        self.setting = setting
        """Which setting: ``API key`` or ``base URL``."""


class TransportError(PrimeAPIError):
    """The request got no HTTP reply (timeout, refused connection, DNS failure)."""


class APITimeoutError(TransportError):
    """The platform did not answer in time."""


class UnreachableError(TransportError):
    """The platform could not be reached (connection refused, DNS, TLS, network down)."""


class MalformedResponseError(PrimeAPIError):
    """A 2xx reply that is not the JSON object the endpoint promises."""


# --- HTTP status errors ----------------------------------------------------------------------


class HTTPStatusError(PrimeAPIError):
    """The platform answered with an error status."""


class UnauthorizedError(HTTPStatusError):
    """401: the API key is missing, wrong or revoked."""

    status_code = 401


class PaymentRequiredError(HTTPStatusError):
    """402: billing needs attention."""

    status_code = 402


class ForbiddenError(HTTPStatusError):
    """403: the key may not do this (team scope, role)."""

    status_code = 403


class NotFoundError(HTTPStatusError):
    """404: no such object, or (`not_started`) a run whose logs do not exist yet."""

    status_code = 404

    @property
    def not_started(self) -> bool:
        """True when the detail carries one of the CLI's "run not started yet" markers."""
        return is_not_started_detail(self.detail)


class ConflictError(HTTPStatusError):
    """409: the object is busy (single-writer rule, a live read-write session, a name taken)."""

    status_code = 409


@dataclass(frozen=True)
class ValidationIssue:
    """One item of a 422 `detail` list."""

    loc: tuple[str | int, ...]
    """Where: e.g. ("body", "config", "data", "seq_len")."""
    msg: str
    """What is wrong."""
    type: str = ""
    """Pydantic error type, e.g. `int_parsing`."""

    @property
    def field(self) -> str:
        """The location as the CLI prints it: joined by '.', without "body" elements."""
        return ".".join(str(p) for p in self.loc if p != "body")

    def __str__(self) -> str:
        return f"{self.field}: {self.msg}" if self.field else self.msg


class ValidationError(HTTPStatusError):
    """422: the platform rejected the request body; `issues` holds the structured detail list."""

    status_code = 422

    def __init__(self, message: str, *, issues: Iterable[ValidationIssue] = (), **kw: Any) -> None:
        super().__init__(message, **kw)
        self.issues: list[ValidationIssue] = list(issues)

    def cli_text(self) -> str:
        """The multi-line form `prime` prints: `Validation failed:` then `  - loc: msg` lines."""
        return "\n".join(["Validation failed:", *(f"  - {i}" for i in self.issues)])


class RateLimitedError(HTTPStatusError):
    """429: too many requests; `retry_after` is the server's hint in seconds, if it gave one."""

    status_code = 429

    def __init__(self, message: str, *, retry_after: float | None = None, **kw: Any) -> None:
        super().__init__(message, **kw)
        self.retry_after = retry_after


class ServerError(HTTPStatusError):
    """5xx: the platform failed; retrying later usually helps."""


class RequestRejectedError(HTTPStatusError):
    """Any other 4xx (400, 405, ...): the detail is the platform's own explanation."""


# --- helpers ---------------------------------------------------------------------------------


def redact(text: str, secrets: Iterable[str | None]) -> str:
    """Replace every non-trivial secret in `text` with `***`, also as a `repr` or bytes value escapes it."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            for form in sorted(
                {secret, secret.encode("unicode_escape").decode("ascii"), repr(secret)[1:-1]}, key=len, reverse=True
            ):
                text = text.replace(form, "***")
    return text


def is_not_started_detail(detail: Any) -> bool:
    """True when a 404 detail says the run has no logs *yet* (the CLI's startup markers)."""
    if not isinstance(detail, str):
        return False
    low = detail.lower()
    return any(marker in low for marker in LOG_NOT_STARTED_MARKERS)


def _one_line(text: str) -> str:
    """Collapse whitespace and cut to a readable length."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > _MAX_DETAIL:
        text = text[: _MAX_DETAIL - 1].rstrip() + "…"
    return text


def _clause(text: str) -> str:
    """A detail made fit to sit inside a sentence: one line, no trailing full stop."""
    return _one_line(text).rstrip(" .")


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "…")) else text + "."


def _host(url: str | None) -> str:
    if not url:
        return "the platform"
    parts = urlsplit(url)
    return parts.netloc or url


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date); None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        from datetime import datetime, timezone
        from email.utils import parsedate_to_datetime  # rare: only HTTP-date Retry-After values

        when = parsedate_to_datetime(value)
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())
    except (TypeError, ValueError, IndexError):
        return None


def extract_detail(body: str, reason: str = "") -> Any:
    """The `detail` of an error body as the CLI reads it; raw text (or the reason) otherwise."""
    try:
        data = loads(body) if body else None
    except ValueError:  # also TooDeep: a broken body says nothing but its status
        data = None
    if isinstance(data, dict) and "detail" in data:
        return data["detail"]
    text = body.strip()
    # An HTML error page from a proxy says nothing useful in one line.
    if not text or text.startswith("<"):
        return reason or ""
    return text


def _detail_text(detail: Any) -> str:
    if isinstance(detail, str):
        return _clause(detail)
    try:
        return _clause(json.dumps(detail, ensure_ascii=False))
    except (TypeError, ValueError):
        return _clause(repr(detail))


def _issues(detail: list[Any]) -> list[ValidationIssue]:
    out: list[ValidationIssue] = []
    for item in detail:
        if isinstance(item, dict):
            loc = item.get("loc") or ()
            if not isinstance(loc, (list, tuple)):
                loc = (loc,)
            out.append(
                ValidationIssue(
                    loc=tuple(p if isinstance(p, int) else str(p) for p in loc),
                    msg=str(item.get("msg", "")),
                    type=str(item.get("type", "")),
                )
            )
        else:
            out.append(ValidationIssue(loc=(), msg=str(item)))
    return out


def error_from_response(
    status: int,
    body: str,
    *,
    method: str,
    url: str,
    reason: str = "",
    retry_after: str | None = None,
    secrets: Iterable[str | None] = (),
) -> HTTPStatusError:
    """Build the typed error for an HTTP error reply (`status` >= 400)."""
    secrets = list(secrets)
    body = redact(body, secrets)
    detail = extract_detail(body, reason)
    text = _detail_text(detail) or reason or f"HTTP {status}"
    host = _host(url)
    path = urlsplit(url).path or url
    kw: dict[str, Any] = {"status_code": status, "detail": detail, "method": method, "path": path}

    if status == 401:
        return UnauthorizedError(
            f"{host} rejected the API key (HTTP 401); run `prime login`, set PRIME_API_KEY, "
            f"or create a new key at {TOKENS_URL}.",
            **kw,
        )
    if status == 402:
        return PaymentRequiredError(
            f"{host} requires payment (HTTP 402); check your billing status at {BILLING_URL}.",
            **kw,
        )
    if status == 403:
        return ForbiddenError(
            f"This API key may not do that (HTTP 403: {text}); check the team setting "
            "(PRIME_TEAM_ID) or ask a team admin for access.",
            **kw,
        )
    if status == 404:
        if is_not_started_detail(detail):
            return NotFoundError(f"The run has not started yet ({text}); its logs appear once it is running.", **kw)
        return NotFoundError(
            f"Not found (HTTP 404: {text}); it may have been deleted, so refresh and check the name or id.",
            **kw,
        )
    if status == 409:
        # A 409 detail names the blocking state (a live read-write session, a run that is not
        # RUNNING, a name taken) and usually the way out, so it leads the sentence.
        return ConflictError(
            f"{text[:1].upper()}{text[1:]} (HTTP 409); refresh to see the current state and retry once it has changed.",
            **kw,
        )
    if status == 422:
        if isinstance(detail, list):
            issues = _issues(detail)
            listed = "; ".join(_clause(str(i)) for i in issues) or "no details given"
            return ValidationError(
                f"The platform rejected the request ({listed}); fix the listed fields and retry.",
                issues=issues,
                **kw,
            )
        return ValidationError(f"The platform rejected the request (HTTP 422: {text}); fix it and retry.", **kw)
    if status == 429:
        seconds = parse_retry_after(retry_after)
        wait = f"wait {seconds:.0f} s" if seconds is not None else "wait a moment"
        return RateLimitedError(
            f"{host} is rate limiting requests (HTTP 429); {wait} and retry.",
            retry_after=seconds,
            **kw,
        )
    if status >= 500:
        return ServerError(
            f"{host} had a server error (HTTP {status}: {text}); retry in a moment, and report it "
            "if it keeps happening.",
            **kw,
        )
    return RequestRejectedError(_sentence(f"{host} refused the request (HTTP {status}): {text}"), **kw)
