"""The short-lived credentials V9 issues, and the upload leases of direct puts.

A grant is one set of S3 credentials for one volume (named by its ``paths.volume_key``): read-only (a ``get`` route) or
read-write
(a ``put`` route, which also holds the volume's upload lease), limited to the volume-relative
path the route was asked for (its top-level ``entries`` for a put to the root). Grants and leases
live in memory: a restart of the server ends them, as a lapse would.

Lifetimes, as hosted documents them for prime 0.18.0: a put's lease lapses 15 minutes after its
last refresh (a refresh is a new V9 call with the lease id), and its credentials with it; read
credentials last an hour. The CLI refreshes 5 minutes before ``expiresAt``.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from primetui.local.errors import fail
from primetui.local.paths import PathEscapeError, VolumePath, canonical_parts, in_runs, volume_name_of

GET_SECONDS = 60 * 60
PUT_SECONDS = 15 * 60
MAX_ENTRIES = 256
RUNS_READ_ONLY = "runs/ holds run outputs and is read-only; put elsewhere."
_SEGMENT = re.compile(r"[A-Za-z0-9._@%+=,:-]+")


@dataclass
class Lease:
    """The one writer a volume may have through the storage route (besides a read-write session)."""

    id: str
    volume: str
    expires: float
    released: bool = False

    def live(self, now: float) -> bool:
        return not self.released and now < self.expires


@dataclass
class Grant:
    access_key: str
    secret: str
    token: str
    volume: str
    mode: str  # "get" or "put"
    base: str  # volume-relative, no leading or trailing "/"; "" is the whole volume
    entries: frozenset[str] | None
    expires: float
    lease: Lease | None = None

    def reaches(self, target: VolumePath) -> bool:
        """True when ``target`` (decided by ``paths.resolve_volume_path``, never a raw key) lies inside
        what this grant was issued for."""
        rel = target.rel
        if self.base:
            return rel == self.base or rel.startswith(self.base + "/")
        if self.entries is not None:
            return rel.split("/", 1)[0] in self.entries
        return True

    def may_write(self, target: VolumePath, now: float) -> bool:
        return (
            self.mode == "put"
            and self.lease is not None
            and self.lease.live(now)
            and self.reaches(target)
            and not in_runs(target.rel)
        )


def clean_path(path: object) -> str:
    """The volume-relative path of a V9 body, as the CLI checks it (400 with one sentence otherwise)."""
    if not isinstance(path, str):
        raise fail(400, 'path must be a string: the volume-relative path, or "" for the root.')
    text = path.strip()
    if text == "/volume" or text.startswith("/volume/"):
        text = text[len("/volume") :]
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if len(text.encode("utf-8", "surrogatepass")) > 1024:
        raise fail(400, "path is longer than 1024 bytes; shorten it.")
    for part in parts:
        if part == ".." or not _SEGMENT.fullmatch(part) or len(part.encode()) > 255:
            raise fail(
                400,
                f"path '{path[:120]}' is not a volume path: use letters, digits and ._@%+=,:- "
                "in parts of at most 255 bytes, without '..'.",
            )
    try:  # the same decision every route makes (a look-alike of runs/ is refused here too)
        parts, _ = canonical_parts("/".join(parts))
    except PathEscapeError as exc:
        raise fail(400, f"path '{path[:120]}' is not a volume path: {exc}.") from None
    return "/".join(parts)


def clean_entries(entries: object) -> frozenset[str] | None:
    if entries is None:
        return None
    if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
        raise fail(400, "entries must be a list of the top-level names a root put writes.")
    if len(entries) > MAX_ENTRIES:
        raise fail(
            400,
            f"A put to the volume root may write at most {MAX_ENTRIES} top-level names; "
            "put a directory that holds them instead.",
        )
    for entry in entries:
        if entry in (".", "..") or not _SEGMENT.fullmatch(entry) or len(entry.encode()) > 255:
            raise fail(400, f"entries holds '{entry[:80]}', which is not a top-level name on a volume.")
    return frozenset(entries)


@dataclass
class Grants:
    """Every live grant and lease of this server."""

    grants: dict[str, Grant] = field(default_factory=dict)
    leases: dict[str, Lease] = field(default_factory=dict)

    def _prune(self, now: float) -> None:
        for key in [k for k, g in self.grants.items() if g.expires <= now]:
            del self.grants[key]
        for key in [k for k, lease in self.leases.items() if not lease.live(now)]:
            del self.leases[key]

    def live_lease(self, volume: str, now: float | None = None) -> Lease | None:
        now = time.time() if now is None else now
        return next((lease for lease in self.leases.values() if lease.volume == volume and lease.live(now)), None)

    def issue(
        self,
        volume: str,
        mode: str,
        base: str,
        entries: frozenset[str] | None,
        lease_id: str | None = None,
        now: float | None = None,
    ) -> Grant:
        """New credentials; a put takes the volume's lease (a refresh names it) or is refused with 409."""
        now = time.time() if now is None else now
        self._prune(now)
        lease = None
        if mode == "put":
            held = self.live_lease(volume, now)
            if held is not None and held.id != lease_id:
                minutes = max(1, round((held.expires - now) / 60))
                raise fail(
                    409,
                    f"Volume '{volume_name_of(volume)}' has an upload in progress (another put holds its write lease); "
                    f"wait for it to finish, or for the lease to lapse within {minutes} min, and rerun.",
                )
            if held is None and lease_id:
                raise fail(
                    409, f"Upload lease {lease_id[:40]} on volume '{volume_name_of(volume)}' has ended; rerun the put."
                )
            lease = held or Lease(id="lease_" + secrets.token_hex(8), volume=volume, expires=0.0)
            lease.expires = now + PUT_SECONDS
            self.leases[lease.id] = lease
        grant = Grant(
            access_key="LPTK" + secrets.token_hex(8).upper(),
            secret=secrets.token_urlsafe(30),
            token=secrets.token_urlsafe(36),
            volume=volume,
            mode=mode,
            base=base,
            entries=entries,
            expires=now + (PUT_SECONDS if mode == "put" else GET_SECONDS),
            lease=lease,
        )
        self.grants[grant.access_key] = grant
        return grant

    def lookup(self, access_key: str) -> Grant | None:
        return self.grants.get(access_key)

    def release(self, volume: str, lease_id: str) -> None:
        """End a lease (idempotent; an unknown or other volume's lease id is a no-op, like a lapsed one)."""
        lease = self.leases.get(lease_id)
        if lease is not None and lease.volume == volume:
            lease.released = True
            del self.leases[lease_id]


def live_upload_lease(state: Any, volume: str) -> Lease | None:
    """The live upload lease of ``volume`` on the server of ``state`` (a direct put in progress), or None."""
    found = state.extras.get("storage")
    return found.grants.live_lease(volume) if found is not None else None
