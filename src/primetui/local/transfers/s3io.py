"""The S3 side of a transfer, through boto3 and its s3transfer manager (multipart, bounded memory, retries).

boto3 is the client the official CLI itself uses for its direct volume transfers, and s3transfer's
manager moves many objects at once with bounded queues: big objects go as multipart in parts of
:data:`PART_BYTES`, at most :data:`CONCURRENCY` requests in flight, so memory stays flat whatever
the object sizes. An object below one part goes as one plain GET or PUT from a pool of the same
size (the manager's per-object machinery costs more than such a request). Every botocore error
becomes one sentence here (:func:`explain`) that never carries a credential.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import boto3
from boto3.s3.transfer import TransferConfig, create_transfer_manager
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError, NoCredentialsError
from botocore.utils import determine_content_length, parse_timestamp
from s3transfer.subscribers import BaseSubscriber

PART_BYTES = 8 * 1024 * 1024
CONCURRENCY = 16
"""Requests in flight: small objects move 16 at a time, a big one in 16 parts at a time."""


@dataclass(frozen=True)
class Secret:
    """The caller's S3 credentials: held by the job while it runs, never stored, logged or shown."""

    access_key: str = field(repr=False)
    secret_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)

    def redact(self, text: str) -> str:
        for value in (self.access_key, self.secret_key, self.session_token):
            if value:
                text = text.replace(value, "***")
        return text


@dataclass(frozen=True)
class Remote:
    """One object seen in a listing."""

    key: str
    size: int
    modified: datetime


_SESSION: boto3.session.Session | None = None
_SESSION_LOCK = threading.Lock()
"""One boto3 session for every job: its loader reads botocore's service model and endpoint files
once (about half a CPU second per new session); each job's client still gets the job's own keys."""


def _session() -> boto3.session.Session:
    global _SESSION
    if _SESSION is None:
        _SESSION = boto3.session.Session()
        factory = _SESSION._session.get_component("response_parser_factory")
        factory.set_parser_defaults(timestamp_parser=timestamp)
    return _SESSION


def timestamp(text: str) -> datetime:
    """A timestamp of a reply, as botocore's own parser reads it, without dateutil for ISO 8601.

    A listing carries one ``LastModified`` per object, and botocore's default parser (dateutil) spent
    a quarter of the CPU of planning an import of 10,000 objects; any other form (RFC 822 in headers,
    epoch seconds) still goes to botocore's parser."""
    try:
        return datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return parse_timestamp(text)


def client(secret: Secret, region: str, endpoint: str | None) -> Any:
    """An S3 client for the caller's endpoint, with these credentials only (never the server's own:
    keys given to ``client`` are used as they are, the session's own chain is never read)."""
    config = Config(
        max_pool_connections=CONCURRENCY + 4,
        connect_timeout=5,
        read_timeout=30,
        retries={"max_attempts": 3, "mode": "standard"},
        s3={"addressing_style": "path"} if endpoint else None,
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    with _SESSION_LOCK:  # a boto3 session is not safe to create clients from in two threads at once
        made = _session().client(
            "s3",
            region_name=region,
            endpoint_url=endpoint,
            aws_access_key_id=secret.access_key,
            aws_secret_access_key=secret.secret_key,
            aws_session_token=secret.session_token or None,
            config=config,
        )
    # after botocore's own handler, which is registered for every S3 call (the more specific names run first)
    made.meta.events.register_last("before-call.s3", _no_continue_for_small_bodies)
    return made


CONTINUE_ABOVE = 1024 * 1024
"""botocore asks ``Expect: 100-continue`` before every body, a round trip that only pays when the server may
refuse a big body before it is sent; a body up to this size goes at once."""


def _no_continue_for_small_bodies(params: dict, **_: Any) -> None:
    body, headers = params.get("body"), params.get("headers", {})
    if "Expect" in headers:
        size = determine_content_length(body)
        if size is not None and size <= CONTINUE_ABOVE:
            del headers["Expect"]


def manager(s3: Any) -> Any:
    """The transfer manager: multipart above one part, bounded queues (flat memory for any size)."""
    config = TransferConfig(
        multipart_threshold=PART_BYTES,
        multipart_chunksize=PART_BYTES,
        max_concurrency=CONCURRENCY,
        max_io_queue=64,
        use_threads=True,
    )
    return create_transfer_manager(s3, config)


class Counter(BaseSubscriber):
    """Feeds a job's meter as bytes move (negative amounts when s3transfer retries a part)."""

    def __init__(self, add) -> None:
        self._add = add

    def on_progress(self, future, bytes_transferred, **kwargs) -> None:  # noqa: ARG002 - s3transfer's signature
        self._add(bytes_transferred)


class KnownSize(BaseSubscriber):
    """Tells s3transfer an object's size from the listing, which spares a HEAD request per download."""

    def __init__(self, size: int) -> None:
        self._size = size

    def on_queued(self, future, **kwargs) -> None:
        future.meta.provide_transfer_size(self._size)


def get_small(s3: Any, bucket: str, key: str, path: Any, add) -> None:
    """One GET for an object below one part (the manager's per-object machinery costs more than the request)."""
    body = s3.get_object(Bucket=bucket, Key=key)["Body"]
    with open(path, "wb") as fh:
        for chunk in body.iter_chunks(256 * 1024):
            fh.write(chunk)
            add(len(chunk))


def put_small(s3: Any, source: Any, bucket: str, key: str, metadata: dict, size: int, add) -> None:
    """One PUT for a file below one part."""
    with open(source, "rb") as fh:
        s3.put_object(Bucket=bucket, Key=key, Body=fh, Metadata=metadata)
    add(size)


def listing(s3: Any, bucket: str, prefix: str):
    """Every object under ``prefix`` (one page of 1000 at a time)."""
    pages = s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    for page in pages:
        for item in page.get("Contents", ()):
            yield Remote(item["Key"], int(item["Size"]), item["LastModified"])


_CREDENTIAL_CODES = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidToken",
    "ExpiredToken",
    "AuthorizationHeaderMalformed",
    "InvalidClientTokenId",
    "AccessDenied",
    "Forbidden",
    "403",
}


def explain(exc: BaseException, bucket: str, secret: Secret | None) -> str:
    """One sentence for what went wrong on the S3 side (no credential in it, whatever the server said)."""
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code") or exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
        if code in ("NoSuchBucket", "404") and "Key" not in error:
            text = (
                f"Bucket '{bucket}' does not exist on the S3 endpoint; check the bucket name in the URL and the region."
            )
        elif code in _CREDENTIAL_CODES:
            text = (
                f"The S3 endpoint refused the credentials ({code}); check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY "
                "and AWS_SESSION_TOKEN, and that they may read and write this bucket."
            )
        else:
            text = f"The S3 endpoint answered {code}: {str(error.get('Message') or '')[:200]}".rstrip(": ") + "."
    elif isinstance(exc, EndpointConnectionError):
        text = (
            "The S3 endpoint could not be reached (connection refused or timed out); check endpointUrl and that "
            "the service is up, then start the transfer again."
        )
    elif isinstance(exc, NoCredentialsError):
        text = "No S3 credentials were given; send accessKeyId and secretAccessKey."
    elif isinstance(exc, BotoCoreError):
        text = (
            f"The S3 endpoint stopped answering ({type(exc).__name__}); check that it is up, then start the "
            "transfer again (files already copied are skipped)."
        )
    else:
        text = f"The transfer failed: {type(exc).__name__}: {str(exc)[:200]}"
    return secret.redact(text) if secret is not None else text
