"""Hostile replies for every route the client reads, drawn from a fixed seed (tests/ui/test_wire_fuzz.py).

A :class:`Scenario` answers each route with its baseline (:func:`tests.wire_platform.baseline`)
except the routes it mutates, each with one :data:`KINDS` mutation: a value of another type, a
huge string, nesting past any sane depth, non-finite and negative numbers written as JSON text
(``1e999``, ``NaN``, ``-1e30``), hostile strings (controls, markup, invisible characters, 10,000
combining marks), 100,000 rows, an HTTP error with a hostile detail, a body cut short of its
Content-Length, a gzip bomb, a body that trickles a byte at a time, or a body that is not JSON.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from tests.hostile_platform import HOSTILE
from tests.wire_platform import Reply, baseline, gzip_bomb

ROUTES = [
    "runs",
    "run",
    "metrics",
    "logs",
    "checkpoints",
    "env-servers",
    "progress",
    "usage",
    "volumes",
    "sessions",
    "models",
    "gpu-types",
    "teams",
    "whoami",
]
"""Every route the client reads, by the name :func:`route_of` gives a request path."""

KINDS = ["type", "huge", "deep", "nonfinite", "hostile", "rows", "status", "cut", "bomb", "trickle", "not-json"]

STRANGE = HOSTILE + "\u200b\u200d\u2060\ufeff" + "e" + "\u0301" * 10_000 + "日本語" + "$(id); rm -rf ~ '\""
NUMBERS = ["1e999", "-1e999", "NaN", "Infinity", "-1", "-1e30", "1e30", "0.5", "1" + "0" * 40, "-0"]
_BOMB: list[bytes] = []


def route_of(path: str) -> str | None:
    p = path.removeprefix("/api/v1")
    if p == "/rft/runs":
        return "runs"
    m = re.fullmatch(r"/rft/runs/[^/]+(?:/([a-z-]+))?", p)
    if m:
        return m.group(1) or "run"
    if p.startswith("/billing/runs/"):
        return "usage"
    if p == "/training/volumes":
        return "volumes"
    if p.endswith("/sessions"):
        return "sessions"
    return {
        "/training/available-fft-models": "models",
        "/training/available-gpu-types": "gpu-types",
        "/user/teams": "teams",
        "/user/whoami": "whoami",
    }.get(p)


def _paths(value: Any, here: tuple = ()) -> list[tuple]:
    """Every path to a value inside ``value`` (dict keys and list indexes)."""
    out = [here]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, here + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out += _paths(v, here + (i,))
    return out


def _set(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _set(value[head], rest, new)}
    out = list(value)
    out[head] = _set(out[head], rest, new)
    return out


_MARK = "\u0000MARK\u0000"


def _with_text(data: Any, path: tuple, text: str) -> bytes:
    """``data`` as JSON with the value at ``path`` replaced by the raw JSON ``text``."""
    return json.dumps(_set(data, path, _MARK)).replace(json.dumps(_MARK), text, 1).encode()


@dataclass
class Scenario:
    """Which routes get which mutation; ``reply(...)`` is a WirePlatform handler."""

    seed: int
    mutations: dict[str, tuple[str, int]] = field(default_factory=dict)  # route -> (kind, sub-seed)

    @classmethod
    def draw(cls, seed: int, forced: list[tuple[str, str]], extra: int = 1) -> Scenario:
        """Each ``(route, kind)`` of ``forced``, plus ``extra`` more routes with drawn kinds."""
        rng = random.Random(seed)
        mutations = {route: (kind, rng.randrange(2**32)) for route, kind in forced}
        for other in rng.sample([r for r in ROUTES if r not in mutations], extra):
            mutations[other] = (rng.choice(KINDS), rng.randrange(2**32))
        return cls(seed, mutations)

    def describe(self) -> str:
        return f"seed {self.seed}: " + ", ".join(f"{r}={k}" for r, (k, _) in self.mutations.items())

    def reply(self, method: str, path: str, query: dict[str, str]) -> Reply:
        data = baseline(method, path, query)
        route = route_of(path)
        if data is None:
            return Reply.json({"detail": "Not Found"}, 404)
        if route not in self.mutations:
            return Reply.json(data)
        kind, sub = self.mutations[route]
        return mutate(data, kind, random.Random(sub))


def mutate(data: Any, kind: str, rng: random.Random) -> Reply:
    paths = _paths(data)
    path = rng.choice(paths[1:] or paths)
    if kind == "type":
        other = rng.choice([None, True, -7, 2**70, 3.5, "text", [], {}, [1, "a"], {"x": {"y": None}}])
        return Reply.json(_set(data, path, other))
    if kind == "huge":
        return Reply.json(_set(data, path, STRANGE * rng.choice([20, 200])))
    if kind == "deep":
        depth = rng.choice([100, 5_000, 200_000])
        return Reply(200, _with_text(data, path, "[" * depth + "]" * depth))
    if kind == "nonfinite":
        numbers = [p for p in paths if isinstance(_get(data, p), (int, float)) and not isinstance(_get(data, p), bool)]
        return Reply(200, _with_text(data, rng.choice(numbers or [path]), rng.choice(NUMBERS)))
    if kind == "hostile":
        strings = [p for p in paths if isinstance(_get(data, p), str)] or [path]
        out = data
        for p in rng.sample(strings, min(len(strings), 6)):
            out = _set(out, p, _get(out, p) + STRANGE if isinstance(_get(out, p), str) else STRANGE)
        return Reply.json(out)
    if kind == "rows":
        lists = [p for p in paths if isinstance(_get(data, p), list) and _get(data, p)]
        if not lists:  # an empty list on the baseline: 100,000 small objects instead
            empty = [p for p in paths if isinstance(_get(data, p), list)] or [path]
            return Reply.json(_set(data, rng.choice(empty), [{"id": "x", "name": "y"}] * 100_000))
        where = rng.choice(lists)
        items = _get(data, where)
        return Reply.json(_set(data, where, [items[i % len(items)] for i in range(100_000)]))
    if kind == "status":
        return Reply.json({"detail": STRANGE[:2000]}, rng.choice([400, 401, 403, 404, 409, 422, 429, 500, 502, 503]))
    body = json.dumps(data).encode()
    if kind == "cut":
        return Reply(200, body[: len(body) // 2], content_length=len(body))
    if kind == "bomb":
        if not _BOMB:
            _BOMB.append(gzip_bomb(128))
        return Reply(200, _BOMB[0], {"Content-Type": "application/json", "Content-Encoding": "gzip"})
    if kind == "trickle":
        return Reply(200, body, trickle=0.05)
    return Reply(200, rng.choice([b"<html>502 Bad Gateway</html>", b"", b"{", b"null", b"[1,2]", b"\xff\xfe\x00"]))


def _get(value: Any, path: tuple) -> Any:
    for key in path:
        value = value[key]
    return value
