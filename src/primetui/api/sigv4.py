"""AWS Signature Version 4 for S3 requests: one implementation for the client that signs and the
local platform's storage endpoint that verifies (so the two cannot disagree).

Only header signing is covered (what boto3 sends, and what primetui's own transfers send);
presigned query strings are not. https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from urllib.parse import quote, unquote

ALGORITHM = "AWS4-HMAC-SHA256"
UNSIGNED = "UNSIGNED-PAYLOAD"
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()
_SPACES = re.compile(r"\s+")
_AUTH = re.compile(
    r"AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)/(\d{8})/([^/,\s]+)/([^/,\s]+)/aws4_request\s*,\s*"
    r"SignedHeaders=([a-z0-9;\-]+)\s*,\s*Signature=([0-9a-f]{64})\s*$"
)


@dataclass(frozen=True)
class Authorization:
    """The parts of an ``Authorization: AWS4-HMAC-SHA256 …`` header."""

    access_key: str
    date: str
    region: str
    service: str
    signed_headers: tuple[str, ...]
    signature: str


def parse_authorization(value: str) -> Authorization | None:
    """The header's parts, or None when it is not a SigV4 header signature."""
    match = _AUTH.match(value.strip())
    if not match:
        return None
    key, date, region, service, signed, signature = match.groups()
    return Authorization(key, date, region, service, tuple(signed.split(";")), signature)


def _encode(text: str) -> str:
    return quote(text, safe="-_.~")


def canonical_query(raw_query: str) -> str:
    """The query string as SigV4 canonicalises it: each name and value encoded once, sorted."""
    pairs = []
    for item in raw_query.split("&") if raw_query else []:
        name, _, value = item.partition("=")
        pairs.append((_encode(unquote(name)), _encode(unquote(value))))
    return "&".join(f"{n}={v}" for n, v in sorted(pairs))


def canonical_request(
    method: str,
    raw_path: str,
    raw_query: str,
    headers: Mapping[str, str],
    signed_headers: tuple[str, ...],
    payload_hash: str,
) -> str:
    """S3's canonical request: the path as sent (S3 does not normalise or re-encode it)."""
    lines = "".join(f"{name}:{_SPACES.sub(' ', headers.get(name, '').strip())}\n" for name in signed_headers)
    return "\n".join(
        (method, raw_path or "/", canonical_query(raw_query), lines, ";".join(signed_headers), payload_hash)
    )


def signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def signature(secret: str, amz_date: str, region: str, service: str, request: str) -> str:
    date = amz_date[:8]
    scope = f"{date}/{region}/{service}/aws4_request"
    to_sign = "\n".join((ALGORITHM, amz_date, scope, hashlib.sha256(request.encode()).hexdigest()))
    return hmac.new(signing_key(secret, date, region, service), to_sign.encode(), hashlib.sha256).hexdigest()


def amz_now(now: datetime | None = None) -> str:
    return (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")


def sign(
    method: str,
    url_path: str,
    raw_query: str,
    headers: dict[str, str],
    *,
    access_key: str,
    secret: str,
    session_token: str | None,
    region: str = "auto",
    payload_hash: str = UNSIGNED,
    now: datetime | None = None,
) -> dict[str, str]:
    """``headers`` plus the SigV4 ones (lowercase names; ``host`` must be among ``headers``)."""
    out = {k.lower(): v for k, v in headers.items()}
    out["x-amz-date"] = amz_now(now)
    out["x-amz-content-sha256"] = payload_hash
    if session_token:
        out["x-amz-security-token"] = session_token
    names = tuple(sorted(out))
    request = canonical_request(method, url_path, raw_query, out, names, payload_hash)
    sig = signature(secret, out["x-amz-date"], region, "s3", request)
    out["authorization"] = (
        f"{ALGORITHM} Credential={access_key}/{out['x-amz-date'][:8]}/{region}/s3/aws4_request, "
        f"SignedHeaders={';'.join(names)}, Signature={sig}"
    )
    return out
