"""Where a transfer may reach: the S3 URL's shape and the endpoint's address (docs/security.md, wall 13).

The platform copies from and to an endpoint the caller names, with its own network position. Unless
the server was started with ``--allow-private-endpoints``, an endpoint whose host is (or resolves to)
a loopback, link-local, private, unspecified or cloud-metadata address is refused with a sentence,
so a transfer cannot be used to read the platform's own services or its cloud's metadata.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

BUCKET_RE = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
METADATA_HOSTS = frozenset(
    {"metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"}
)
"""Names the clouds give their metadata service (they resolve to link-local addresses there)."""
METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("169.254.170.2"),
        ipaddress.ip_address("100.100.100.200"),
        ipaddress.ip_address("fd00:ec2::254"),
    }
)
DEFAULT_REGION = "us-east-1"
_REGION_RE = re.compile(r"[a-z0-9-]{1,32}")


class Refused(ValueError):
    """A transfer request that cannot start; ``str()`` is the one sentence the caller sees."""


@dataclass(frozen=True)
class S3Url:
    """``s3://bucket/prefix``: the bucket and the key prefix (``""`` or ending in ``/``)."""

    bucket: str
    prefix: str


def parse_s3_url(url: object) -> S3Url:
    """The bucket and prefix of an ``s3://`` URL, or :class:`Refused` with a sentence."""
    if not isinstance(url, str) or not url.strip():
        raise Refused("url must be an s3://bucket/prefix string.")
    text = url.strip()
    if not text.startswith("s3://"):
        raise Refused(f"url '{text[:120]}' is not an S3 URL: write s3://bucket/prefix.")
    bucket, _, key = text[len("s3://") :].partition("/")
    if not BUCKET_RE.fullmatch(bucket) or ".." in bucket:
        raise Refused(
            f"'{bucket[:80]}' is not a valid bucket name: use 3-63 lowercase letters, digits, dots and hyphens."
        )
    if len(key.encode("utf-8", "surrogatepass")) > 1024 or any(ord(c) < 32 for c in key):
        raise Refused("The key prefix of url is longer than 1024 bytes or holds a control character.")
    prefix = key if not key or key.endswith("/") else key + "/"
    return S3Url(bucket, prefix)


def clean_region(region: object) -> str:
    if region is None or region == "":
        return DEFAULT_REGION
    if not isinstance(region, str) or not _REGION_RE.fullmatch(region.strip()):
        raise Refused("region must be an AWS region name such as us-east-1.")
    return region.strip()


def _private(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return (
        address in METADATA_ADDRESSES
        or address.is_loopback
        or address.is_link_local
        or address.is_private
        or address.is_unspecified
        or address.is_reserved
        or address.is_multicast
        or address in ipaddress.ip_network("100.64.0.0/10")
    )


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise Refused(f"The endpoint host '{host[:80]}' does not resolve; check endpointUrl.") from None
    # sockaddr[0] is the address text for AF_INET and AF_INET6 (an int only for AF_CAN, not asked here)
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


def clean_endpoint(endpoint: object, allow_private: bool) -> str | None:
    """The endpoint URL to use (None: AWS's own), refusing private addresses unless ``allow_private``."""
    if endpoint is None or endpoint == "":
        return None
    if not isinstance(endpoint, str):
        raise Refused("endpointUrl must be an http(s)://host[:port] string.")
    text = endpoint.strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.username or parts.password:
        raise Refused(f"endpointUrl '{text[:120]}' is not an http(s)://host[:port] URL (without a user or password).")
    try:
        _ = parts.port
    except ValueError:
        raise Refused(f"endpointUrl '{text[:120]}' has a port that is not a number from 1 to 65535.") from None
    if allow_private:
        return text
    host = parts.hostname.lower().rstrip(".")
    if host in METADATA_HOSTS or host == "localhost" or host.endswith(".localhost"):
        raise Refused(_private_sentence(text))
    if any(_private(address) for address in _addresses(host)):
        raise Refused(_private_sentence(text))
    return text


def _private_sentence(endpoint: str) -> str:
    return (
        f"endpointUrl '{endpoint[:120]}' points at a loopback, link-local, private or cloud-metadata address, "
        "which transfers may not reach; use a public S3 endpoint, or start the platform with "
        "`primetui local serve --allow-private-endpoints` to allow it."
    )
