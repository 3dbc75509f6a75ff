"""Fuzz every route of the local platform over real HTTP: no 5xx, it keeps answering, nothing lands outside.

Paths, query parameters and JSON bodies are drawn by hypothesis: huge and negative integers,
floats, hostile and over-long strings, ``..`` segments, nested JSON of every type, raw non-JSON
bytes and ``NaN``/``Infinity`` literals. Bounded for CI (a few hundred requests, well under a minute).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from primetui.local.testing import LocalPlatform

ROUTES = [
    ("GET", "/user/whoami"),
    ("GET", "/rft/runs"),
    ("GET", "/rft/runs/{id}"),
    ("PUT", "/rft/runs/{id}/stop"),
    ("DELETE", "/rft/runs/{id}"),
    ("PUT", "/rft/runs/{id}/restart"),
    ("GET", "/rft/runs/{id}/checkpoints"),
    ("GET", "/rft/runs/{id}/logs"),
    ("GET", "/rft/runs/{id}/env-servers"),
    ("GET", "/rft/runs/{id}/metrics"),
    ("GET", "/rft/runs/{id}/progress"),
    ("GET", "/rft/runs/{id}/samples"),
    ("GET", "/rft/runs/{id}/distributions"),
    ("GET", "/billing/runs/{id}/usage"),
    ("GET", "/rft/runs/{id}/env-server-logs"),
    ("GET", "/training/available-fft-models"),
    ("GET", "/training/available-gpu-types"),
    ("POST", "/training/runs/prepare"),
    ("POST", "/training/runs"),
    ("POST", "/training/runs/{id}/pause"),
    ("POST", "/training/runs/{id}/resume"),
    ("DELETE", "/training/runs/{id}"),
    ("GET", "/training/volumes"),
    ("POST", "/training/volumes"),
    ("PATCH", "/training/volumes/{name}"),
    ("DELETE", "/training/volumes/{name}"),
    ("POST", "/training/volumes/{name}/transfer"),
    ("POST", "/training/volumes/{name}/sessions"),
    ("GET", "/training/volumes/{name}/sessions/{id}"),
    ("DELETE", "/training/volumes/{name}/sessions/{id}"),
    ("GET", "/training/volumes/{name}/sessions"),
]
QUERY_KEYS = [
    "page",
    "limit",
    "min_step",
    "max_step",
    "pod_index",
    "tail_lines",
    "since_seconds",
    "level",
    "search",
    "regex",
    "component",
    "env_name",
    "status",
    "mine",
    "teamId",
    "step",
    "offset",
    "type",
    "env_index",
]
BODY_KEYS = [
    "name",
    "size",
    "warm",
    "config",
    "mode",
    "volume",
    "readOnly",
    "read_only",
    "teamId",
    "cluster",
    "max_steps",
    "data",
    "model",
    "runId",
    "resumeFrom",
    "checkpoint",
    "step",
    "imageTag",
]

HOSTILE = st.sampled_from(
    [
        "",
        "..",
        "../..",
        "%2e%2e",
        "research",
        "x" * 300,
        "a\nb",
        "\x1b]0;pwned\x07",
        "/etc/passwd",
        "NaN",
        "-1",
        str(10**21),
        "[bold]x[/]",
        "é" * 130,
        " ",
    ]
)
TEXT = st.one_of(HOSTILE, st.text(max_size=40))
NUMBER = st.one_of(
    st.integers(min_value=-(10**25), max_value=10**25),
    st.sampled_from([0, -1, 2**63, -(2**63) - 1, 10**21]),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALAR = st.one_of(st.none(), st.booleans(), NUMBER, TEXT)
JSONV = st.recursive(
    SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.one_of(st.sampled_from(BODY_KEYS), TEXT), inner, max_size=5)
    ),
    max_leaves=12,
)
BODY = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(BODY_KEYS), JSONV, max_size=6).map(lambda d: ("json", d)),
    JSONV.map(lambda v: ("json", v)),
    st.sampled_from(
        [
            '{"name": "v", "size": NaN}',
            '{"config": {"max_steps": Infinity}, "mode": "sft"}',
            "{",
            "[1,",
            "not json",
            '{"size": -Infinity}',
        ]
    ).map(lambda t: ("raw", t)),
)
QUERY = st.dictionaries(
    st.sampled_from(QUERY_KEYS), st.one_of(NUMBER.map(str), TEXT.filter(lambda t: "\x00" not in t)), max_size=4
)


def _outside_snapshot(root: Path, data_dir: Path) -> set[str]:
    """Every path under ``root`` except the data dir, the server's log and the ready files."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        if Path(dirpath) == data_dir or data_dir in Path(dirpath).parents:
            dirnames[:] = []
            continue
        out |= {os.path.join(dirpath, f) for f in filenames if not f.startswith(("server.log", "ready-"))}
    return out


def test_no_route_answers_5xx_to_any_input(fresh_platform: LocalPlatform, tmp_path: Path) -> None:
    lp = fresh_platform
    root = lp.data_dir.parent
    before = _outside_snapshot(root, lp.data_dir)
    client = httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30.0)
    seen: list[tuple[str, str, int]] = []

    @settings(max_examples=350, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(route=st.sampled_from(ROUTES), ident=TEXT, name=TEXT, query=QUERY, body=BODY)
    def probe(route, ident, name, query, body) -> None:
        method, template = route
        path = template.replace("{id}", quote(ident, safe="") or "x").replace("{name}", quote(name, safe="") or "x")
        kwargs: dict = {"params": {k: v for k, v in query.items()}}
        if body is not None:
            kind, value = body
            kwargs["content"] = json.dumps(value) if kind == "json" else value
            kwargs["headers"] = {"content-type": "application/json"}
        try:
            reply = client.request(method, path, **kwargs)
        except httpx.InvalidURL:
            return  # the client itself refuses it; nothing was sent
        seen.append((method, template, reply.status_code))
        assert reply.status_code < 500, f"{method} {path} {kwargs} -> {reply.status_code} {reply.text[:300]}"
        assert str(lp.data_dir) not in reply.text, f"{method} {path} named a server path: {reply.text[:300]}"

    for method, template in ROUTES:  # each route at least once, with the inputs the probe found
        path = template.replace("{id}", "x" * 300).replace("{name}", "research%0A")
        body = (
            '{"name": "vol\\n", "size": "9999999Ti", "mode": "sft", "config": {"max_steps": 0, "data": {"name": "%s"}}}'
            % ("y" * 300)
        )
        reply = client.request(
            method,
            path,
            params={"page": str(10**21), "min_step": str(10**21), "pod_index": str(10**21)},
            content=body,
            headers={"content-type": "application/json"},
        )
        assert reply.status_code < 500, f"{method} {path} -> {reply.status_code} {reply.text[:300]}"
    probe()
    assert client.get("/training/volumes").status_code == 200  # still answering
    assert _outside_snapshot(root, lp.data_dir) == before, "something was written outside the data dir"
    client.close()
