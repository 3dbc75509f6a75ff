"""A sweep: one sft.toml, a grid of ``--set KEY=V1,V2`` values, one config (and one named run) per point.

Keys are dotted TOML keys (``optim.lr``); each value is parsed as a TOML value (``1e-4``, ``true``,
``"a string"``, ``[1, 2]``), and commas inside brackets or quotes do not split. A variant's text is
the file with those keys set (tomlkit keeps the rest as written), so it is checked and pre-flighted
exactly as a dispatched file is.
"""

from __future__ import annotations

import itertools
import re
import tomllib
from dataclasses import dataclass
from typing import Any

import tomlkit

from primetui.sft import run_name

# A grid is a batch of GPU runs started by one command; past this a typo (a stray value, one key
# too many) costs real money, so a larger sweep is split into several commands on purpose.
MAX_RUNS = 32


class SweepError(ValueError):
    """A ``--set`` or a grid that cannot be swept; its text is the one sentence to show."""


@dataclass(frozen=True)
class Axis:
    """One ``--set``: the dotted key, the values as typed and as parsed."""

    key: str
    typed: tuple[str, ...]
    values: tuple[Any, ...]

    @property
    def label(self) -> str:
        """The key as a run name shows it: its last part (``optim.lr`` → ``lr``)."""
        return self.key.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class Variant:
    """One point of the grid: its run name, its settings (dotted key → value) and its sft.toml text."""

    name: str
    settings: tuple[tuple[str, Any], ...]
    text: str


def _split_values(raw: str) -> list[str]:
    """``raw`` split on commas that are not inside brackets, braces or quotes."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(raw):
        if quote:
            if ch == quote and raw[i - 1] != "\\":
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(raw[start:i])
            start = i + 1
    parts.append(raw[start:])
    return [p.strip() for p in parts]


def _same(value: Any) -> str:
    """A value as TOML writes it, with its type: ``1e-4`` and ``0.0001`` are one value, ``1`` and ``1.0`` two."""
    return f"{type(value).__name__}:{value!r}"


def _valid_key(key: str) -> bool:
    return bool(key) and all(part and all(c.isalnum() or c in "_-" for c in part) for part in key.split("."))


def parse_set(spec: str) -> Axis:
    """``KEY=V1,V2,…`` → an Axis; raises SweepError with the sentence to show."""
    key, sep, raw = spec.partition("=")
    key = key.strip()
    if not sep or not raw.strip():
        raise SweepError(f"--set {spec!r}: write it as KEY=VALUE[,VALUE…], e.g. --set optim.lr=1e-5,3e-5.")
    if not _valid_key(key):
        raise SweepError(f"--set {spec!r}: {key!r} is not a dotted TOML key (letters, digits, _ and - between dots).")
    typed = _split_values(raw)
    values = []
    for token in typed:
        try:
            values.append(tomllib.loads(f"v = {token}")["v"])
        except tomllib.TOMLDecodeError:
            raise SweepError(
                f"--set {key}: {token!r} is not a TOML value; quote a string (--set '{key}=\"{token}\"')."
            ) from None
    if len(set(typed)) != len(typed) or len({_same(v) for v in values}) != len(values):
        raise SweepError(f"--set {key}: a value is given twice; each run of a sweep must differ.")
    return Axis(key, tuple(typed), tuple(values))


def parse_sets(specs: list[str]) -> list[Axis]:
    axes = [parse_set(s) for s in specs]
    if not axes:
        raise SweepError("a sweep needs at least one --set KEY=V1,V2.")
    keys = [a.key for a in axes]
    for a in axes:
        if keys.count(a.key) > 1:
            raise SweepError(f"--set {a.key} is given twice; put all its values in one --set.")
        if any(other != a.key and other.startswith(a.key + ".") for other in keys):
            raise SweepError(f"--set {a.key} is a table that another --set goes inside; sweep one or the other.")
    return axes


def grid_size(axes: list[Axis]) -> int:
    size = 1
    for a in axes:
        size *= len(a.values)
    return size


def _set_dotted(doc: Any, key: str, value: Any) -> None:
    parts = key.split(".")
    node = doc
    for part in parts[:-1]:
        if part not in node:
            node[part] = tomlkit.table()
        node = node[part]
        if not isinstance(node, dict):
            raise SweepError(f"--set {key}: {part} is a value in the file, not a table; sweep it directly.")
    node[parts[-1]] = value


def _point_name(prefix: str, axes: list[Axis], point: tuple[str, ...]) -> str:
    labels = [a.label for a in axes]
    # Two keys ending alike (model.name, data.name) are told apart by their whole dotted key.
    shown = [a.key if labels.count(a.label) > 1 else a.label for a in axes]
    return "-".join([prefix, *(f"{k}={v}" for k, v in zip(shown, point))])


def expand(text: str, axes: list[Axis], prefix: str) -> list[Variant]:
    """Every point of the grid as a Variant, in the order of the ``--set`` options (the last varies fastest)."""
    size = grid_size(axes)
    if size > MAX_RUNS:
        raise SweepError(
            f"the grid has {size} runs, more than the {MAX_RUNS} one sweep may start; "
            "drop some values or split it into several sweeps."
        )
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"the file is not valid TOML ({exc}); fix it first (primetui validate shows where).") from None
    variants = []
    for point in itertools.product(*(range(len(a.values)) for a in axes)):
        doc = tomlkit.parse(text)
        settings = tuple((a.key, a.values[i]) for a, i in zip(axes, point))
        for key, value in settings:
            _set_dotted(doc, key, value)
        # A string reads as itself in a name (lr-model=qwen, not lr-model="qwen"); the rest as typed (1e-4).
        shown = tuple(a.values[i] if isinstance(a.values[i], str) else a.typed[i] for a, i in zip(axes, point))
        name = _point_name(prefix, axes, shown)
        if why := run_name.problem(name):
            raise SweepError(f"the run name {name!r} cannot be used: {why}")
        if (
            run_name.KEY in doc
        ):  # the file's own name stays inside config (as prime train leaves it): make it this run's
            doc[run_name.KEY] = name
        variants.append(Variant(name, settings, tomlkit.dumps(doc)))
    return variants


def default_prefix(text: str, stem: str) -> str:
    """The file's own ``name`` when it has one, else the file's stem (``sft``)."""
    try:
        return run_name.config_name(tomllib.loads(text)) or stem
    except tomllib.TOMLDecodeError:
        return stem


# ---- names that are already taken -------------------------------------------------------------

_GENERATION = re.compile(r"(.+)-(\d{1,3})")


def name_clashes(names: list[str], existing: set[str] | frozenset[str]) -> tuple[list[str], list[str]]:
    """(the grid's names a run on the platform already has, the names the grid itself gives twice)."""
    taken = [n for n in names if n in existing]
    seen: set[str] = set()
    twice = []
    for n in names:
        if n in seen and n not in twice:
            twice.append(n)
        seen.add(n)
    return taken, twice


def new_prefix(prefix: str, names: list[str], existing: set[str] | frozenset[str]) -> str:
    """The prefix with ``-2`` (``-3``, …) added, the first that makes every name of the grid new.

    ``names`` start with ``prefix``; a prefix that already ends in a small ``-N`` (a sweep run again
    as ``lr-2``) counts on from N, so the generations read ``lr``, ``lr-2``, ``lr-3``.
    """
    tails = [n[len(prefix) :] for n in names]
    m = _GENERATION.fullmatch(prefix)
    base, n = (m.group(1), int(m.group(2)) + 1) if m else (prefix, 2)
    while any(f"{base}-{n}{tail}" in existing for tail in tails):
        n += 1
    return f"{base}-{n}"


def unique_names(variants: list[Variant]) -> list[Variant]:
    """``variants`` with a name given twice in the grid made new: the second gets ``-2``, the third ``-3``."""
    counts: dict[str, int] = {}
    out = []
    for v in variants:
        counts[v.name] = counts.get(v.name, 0) + 1
        if counts[v.name] == 1:
            out.append(v)
            continue
        name = f"{v.name}-{counts[v.name]}"
        out.append(rename(v, name))
    return out


def rename(variant: Variant, name: str) -> Variant:
    """``variant`` under ``name`` (its file's own ``name`` too, when it has one)."""
    if why := run_name.problem(name):
        raise SweepError(f"the run name {name!r} cannot be used: {why}")
    text = variant.text
    doc = tomlkit.parse(text)
    if run_name.KEY in doc:
        doc[run_name.KEY] = name
        text = tomlkit.dumps(doc)
    return Variant(name, variant.settings, text)
