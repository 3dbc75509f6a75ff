"""The wire boundary: what a platform reply may be before anything past the client sees it.

Every reply the client reads passes here once, so nothing downstream has to guard against a
hostile or broken platform again:

- **Size.** A reply body is read as a stream and decoded (gzip/deflate) by :class:`BodyReader`
  under a cap on *decoded* bytes (:func:`reply_cap`), so a decompression bomb stops at the cap.
- **Shape.** JSON nested deeper than :data:`MAX_JSON_DEPTH` is refused before it is parsed
  (:func:`loads`); a list longer than the page asked for is cut to that page (:func:`cut`).
- **Numbers.** Metric rows are checked by :func:`metric_rows`: a step is an integer in
  ``0..STEP_MAX``, a time a finite number of seconds, a value a number (NaN and ±inf stay, as the
  float marks ``nan``/``inf``: a NaN loss is what the anomaly detector looks for). A row that fails
  is dropped and counted; the count is a note the screens and headless commands show.

The deadline for a whole reply and the fan-out bound live next to their users
(:data:`REPLY_DEADLINE` here, applied by ``PrimeClient.request``; :data:`FANOUT`). The numbers are
stated in docs/security.md ("The wire boundary").
"""

from __future__ import annotations

import json
import math
import os
import re
import zlib
from collections import Counter
from typing import Any, Awaitable, Callable, Iterable, TypeVar

T = TypeVar("T")

MiB = 1024 * 1024

DEFAULT_REPLY_CAP = 8 * MiB
"""Decoded bytes of one reply, for every route without its own cap (a page of 20 runs is ~50 KiB)."""
LOGS_REPLY_CAP = 16 * MiB
"""R7 logs: at most 5000 lines, and a line of a crashing trainer can be a long traceback."""
METRICS_REPLY_CAP = 32 * MiB
"""R10 metrics: a page of 5000 rows of a couple of hundred metrics each."""
ERROR_BODY_CAP = 64 * 1024
"""An error reply is read only for its one-sentence `detail`: the rest is dropped unread."""

REPLY_DEADLINE = 60.0
"""Seconds for a whole exchange (connect, headers and every byte of the body), not per read."""
CREATE_REPLY_DEADLINE = 150.0
"""Create and resume wait on a cold validator (up to 60 s on the platform's side)."""
HEADLESS_DEADLINE = 120.0
"""Seconds for a whole headless command (``runs --once``, ``run ID --once``, ``compare --once``)."""


def seconds(default: float, env: str) -> float:
    """``default``, or the positive number of seconds in environment variable ``env`` (slow links)."""
    try:
        value = float(os.environ.get(env, ""))
    except ValueError:
        return default
    return value if math.isfinite(value) and value > 0 else default


def reply_deadline(default: float = REPLY_DEADLINE) -> float:
    """The whole-reply deadline; ``PRIMETUI_REPLY_DEADLINE`` sets every route's (slow links)."""
    return seconds(default, "PRIMETUI_REPLY_DEADLINE")


MAX_JSON_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (a run config is ~5 deep)."""
MAX_JSON_CONTAINERS = 250_000
"""Arrays and objects in one reply at most: each costs ~100 bytes parsed for its 2 bytes of text, so
this, not the byte cap, bounds memory for ``[{},{},…]`` (a metrics page of 5000 rows has 5001)."""

FANOUT = 4
"""Requests one command sends at a time for many runs (metrics of a runs page, compare)."""
IN_FLIGHT = 8
"""Requests one client has open at once, all screens together; the rest wait their turn."""

STEP_MAX = 10**12
"""The largest step accepted (a run of a million steps a second for 11 days)."""
TIME_MAX = 32_503_680_000.0
"""The largest unix time accepted (year 3000); the smallest is 0."""


class ReplyTooLarge(Exception):
    """The decoded body passed its cap; ``cap`` is that cap in bytes."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"the reply is larger than {fmt_cap(cap)}")
        self.cap = cap


class UnsupportedEncoding(Exception):
    """A Content-Encoding primetui did not ask for."""


def fmt_cap(cap: int) -> str:
    return f"{cap // MiB} MiB" if cap >= MiB else f"{cap // 1024} KiB"


def reply_cap(path: str) -> int:
    """The decoded-size cap of a reply to ``path`` (an API path without the ``/api/v1`` prefix)."""
    if path.startswith("/rft/runs/"):
        if path.endswith("/metrics"):
            return METRICS_REPLY_CAP
        if path.endswith("/logs"):
            return LOGS_REPLY_CAP
    return DEFAULT_REPLY_CAP


ACCEPT_ENCODING = "gzip, deflate"
"""What the client asks for: the encodings :class:`BodyReader` can decode under its cap."""


class BodyReader:
    """Decodes raw body chunks into at most ``cap`` bytes; ``feed`` raises :class:`ReplyTooLarge` past it.

    zlib is asked for no more output than the room left (``max_length``), so a 10 MB gzip body that
    inflates to 10 GiB costs one cap of memory before it is refused, never more.
    """

    def __init__(self, content_encoding: str, cap: int) -> None:
        encoding = content_encoding.strip().lower()
        self.cap = cap
        self.size = 0
        self._parts: list[bytes] = []
        self._raw_deflate = False
        if encoding in ("", "identity"):
            self._z: Any = None
        elif encoding in ("gzip", "x-gzip"):
            self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._z = zlib.decompressobj()
            self._raw_deflate = True  # some servers send raw deflate without the zlib header
        else:
            raise UnsupportedEncoding(encoding)

    def _add(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.cap:
            raise ReplyTooLarge(self.cap)
        if data:
            self._parts.append(data)

    def feed(self, chunk: bytes) -> None:
        if self._z is None:
            self._add(chunk)
            return
        data = chunk
        while data:
            try:
                out = self._z.decompress(data, self.cap - self.size + 1)
            except zlib.error:
                if not self._raw_deflate or self.size or self._parts:
                    raise
                self._z = zlib.decompressobj(-zlib.MAX_WBITS)
                self._raw_deflate = False
                continue
            self._raw_deflate = False
            self._add(out)
            data = self._z.unconsumed_tail

    def partial(self) -> bytes:
        """What was decoded before the reading stopped."""
        return b"".join(self._parts)

    def body(self) -> bytes:
        if self._z is not None:
            self._add(self._z.flush())
        return b"".join(self._parts)


# ---- JSON -------------------------------------------------------------------------------------

_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_PAIR = re.compile(rb"\[\]|\{\}")
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


class TooDeep(ValueError):
    """JSON nested deeper than :data:`MAX_JSON_DEPTH`."""


def too_deep(data: bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when ``data`` nests arrays/objects deeper than ``limit`` (or holds that many unmatched).

    Strings are removed first (their brackets are text), then innermost ``[]``/``{}`` pairs are
    removed once per level: after ``limit`` rounds a well-formed document of that depth is empty.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    brackets = _STRING.sub(b"", data).translate(None, _NOT_BRACKET)
    for _ in range(limit):
        if not brackets:
            return False
        shorter = _PAIR.sub(b"", brackets)  # every innermost pair at once: exactly one level
        if shorter == brackets:
            return False  # unbalanced: json.loads says what is wrong
        brackets = shorter
    # ``limit`` levels are gone; anything still made of pairs is a level deeper.
    return _PAIR.search(brackets) is not None


class TooMany(ValueError):
    """JSON with more than :data:`MAX_JSON_CONTAINERS` arrays and objects."""


def loads(data: bytes | str) -> Any:
    """``json.loads`` that refuses nesting past :data:`MAX_JSON_DEPTH` (:class:`TooDeep`) and more
    than :data:`MAX_JSON_CONTAINERS` arrays/objects (:class:`TooMany`); never RecursionError."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if raw.count(b"{") + raw.count(b"[") > MAX_JSON_CONTAINERS:
        # Brackets inside strings count too: an estimate from above, so only refuse past it when
        # the strings are taken out.
        brackets = _STRING.sub(b"", raw).translate(None, _NOT_BRACKET)
        if brackets.count(b"[") + brackets.count(b"{") > MAX_JSON_CONTAINERS:
            raise TooMany(f"the reply holds more than {MAX_JSON_CONTAINERS:,} JSON arrays and objects")
    if too_deep(raw):
        raise TooDeep(f"the reply is JSON nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        return json.loads(data)
    except RecursionError as exc:  # unbalanced input deeper than the interpreter allows
        raise TooDeep(f"the reply is JSON nested more than {MAX_JSON_DEPTH} levels deep") from exc


async def gather_bounded(factories: Iterable[Callable[[], Awaitable[T]]], limit: int = FANOUT) -> list[T]:
    """Await each factory's coroutine, at most ``limit`` at a time, results in order.

    A coroutine is only created when its turn comes, so 100,000 factories never become 100,000
    pending requests.
    """
    import asyncio

    factories = list(factories)
    results: list[Any] = [None] * len(factories)
    turns = iter(enumerate(factories))  # shared: each worker takes the next one when it is free

    async def worker() -> None:
        for index, factory in turns:
            results[index] = await factory()

    await asyncio.gather(*(worker() for _ in range(min(limit, len(factories)))))
    return results


MAX_LIST_ROWS = 1000
"""Items kept from a list the client asks for without a limit (volumes, sessions, checkpoints, env
servers, models, GPU types, teams); more are cut with a note."""
MAX_PAGES = 100
"""Pages read at most from an endpoint the client walks page by page (teams)."""


class NotedList(list):  # type: ignore[type-arg]
    """A list from the wire with ``notes`` on what the boundary cut from it."""

    def __init__(self, items: Iterable[Any] = (), notes: Iterable[str] = ()) -> None:
        super().__init__(items)
        self.notes = list(notes)


# ---- pages ------------------------------------------------------------------------------------


def cut(items: list[Any], limit: int | None, what: str) -> tuple[list[Any], str | None]:
    """``items`` cut to the ``limit`` asked for, and a note when the platform sent more."""
    if limit is None or len(items) <= limit:
        return items, None
    return items[:limit], f"the platform sent {len(items):,} {what} for a page of {limit}; showing the first {limit}"


# ---- numbers ----------------------------------------------------------------------------------


def _number(value: Any) -> int | float | None:
    """``value`` when it is a JSON number a float can hold (ints stay ints), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return None
    return value


def step_of(value: Any) -> tuple[int | None, str]:
    """A wire step as an int in ``0..STEP_MAX``, or None and why not."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, "no step" if value is None else "step is not a number"
    if isinstance(value, float):
        if not math.isfinite(value):
            return None, "non-finite step"
        if value != int(value):
            return None, "step is not a whole number"
        value = int(value)
    if not 0 <= value <= STEP_MAX:
        return None, "step out of range"
    return value, ""


def metric_rows(raw: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """R10 rows made safe: ``{"step": int, "time": float?, name: float, ...}``, and notes on what was dropped.

    A row is dropped when it is not an object or its step fails :func:`step_of`. In a kept row, a
    time that is not a number in ``0..TIME_MAX`` and a value that is not a number (a string, a
    list, ``true``, an integer too large for a float) are dropped; ``null`` means "no value" and is
    dropped silently. NaN and ±inf values stay.
    """
    rows: list[dict[str, Any]] = []
    dropped: Counter[str] = Counter()
    values_dropped: Counter[str] = Counter()
    for row in raw if isinstance(raw, list) else []:
        if not isinstance(row, dict):
            dropped["not an object"] += 1
            continue
        step, why = step_of(row.get("step"))
        if step is None:
            dropped[why] += 1
            continue
        out: dict[str, Any] = {"step": step}
        for key, value in row.items():
            if key == "step" or value is None:
                continue
            number = _number(value)
            if key == "time":
                if number is None or not 0 <= number <= TIME_MAX:
                    values_dropped["unreadable time"] += 1
                    continue
            elif number is None:
                values_dropped["not a number"] += 1
                continue
            out[key] = number
        rows.append(out)
    notes = [f"{n:,} row{'s' if n != 1 else ''} ignored: {why}" for why, n in sorted(dropped.items())]
    notes += [f"{n:,} value{'s' if n != 1 else ''} ignored: {why}" for why, n in sorted(values_dropped.items())]
    return rows, notes


def join_notes(notes: Iterable[str]) -> str:
    """Notes as one sentence for a toast or stderr (``""`` when there are none)."""
    notes = list(dict.fromkeys(notes))
    return ("; ".join(notes) + ".") if notes else ""
