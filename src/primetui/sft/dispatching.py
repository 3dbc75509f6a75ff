"""Dispatch a config, or a sweep of configs, as the `dispatch` and `sweep` commands and the editor's
sweep dialog all do: read, check, pre-flight on the volume, then send (T4).

A sweep expands its grid (:mod:`primetui.sft.sweep`), checks and pre-flights every variant, and only
when all pass dispatches them, one named run each (all or none: a variant that fails stops the sweep
before any run starts). No textual, no rich: the commands and the editor's dialog share this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from primetui.monitor_core.escapes import neutralise


def _clean(text: Any) -> str:
    return neutralise(str(text if text is not None else "")).replace("\n", " ")


@dataclass
class Refusal:
    """Why nothing was dispatched: ``kind`` (file, volume, config, preflight, platform), one sentence, the lines above
    it."""

    kind: str
    message: str
    details: list[str] = field(default_factory=list)


def read_config_file(path: Path, command: str = "dispatch") -> str | Refusal:
    """The text of ``path``, or why it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Refusal("file", f"primetui {command}: cannot read {path} ({reason}); check the path.")


async def find_volume(client: Any, volume_name: str, command: str = "dispatch") -> Any:
    """The volume named ``volume_name``, or the refusal naming the ones there are."""
    volumes = {v.name: v for v in await client.list_volumes()}
    volume = volumes.get(volume_name)
    if volume is None:
        known = ", ".join(sorted(volumes)) or "none yet"
        return Refusal(
            "volume",
            f"primetui {command}: no volume named {volume_name!r} (volumes: {known}); create it "
            f"with `prime volumes create {volume_name} --size 100Gi`.",
        )
    return volume


async def preflight_config(
    client: Any,
    label: str,
    text: str,
    volume: Any,
    say: Callable[[str], None],
    command: str = "dispatch",
    subject: str = "",
) -> dict[str, Any] | Refusal:
    """Check ``text`` and pre-flight it on ``volume``; the config to send, or why not.

    Diagnostics go to ``say`` as ``label:line:col:`` lines, then the pre-flight's; ``subject`` names
    which config failed when there are several (a sweep).
    """
    import tomllib

    from primetui.sft.check import check_text
    from primetui.sft.context import CheckContext
    from primetui.sft.preflight import run_preflight

    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        for d in check_text(text, CheckContext(hosted=True, has_volume=True)).diagnostics:
            say(d.format(label))
        return Refusal("config", f"primetui {command}: the file is not valid TOML; nothing was dispatched.")
    preflight = await run_preflight(client, volume, config, text, fix_hint="fix them first (listed above).")
    ctx = CheckContext(
        hosted=True,
        has_volume=True,
        cached_models=preflight.cached_models,
        volume_size_bytes=preflight.volume_size_bytes,
    )
    for d in check_text(text, ctx).diagnostics:
        say(d.format(label))
    icons = {"ok": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}
    for c in preflight.checks:
        say(f"pre-flight {icons[c.state]} {c.name:<9}{_clean(c.detail)}")
    if preflight.blocked:
        return Refusal("preflight", f"primetui {command}: the pre-flight{subject} failed; nothing was dispatched.")
    return config


async def send_run(
    client: Any, config: dict[str, Any], volume_name: str | None, name: str | None, command: str = "dispatch"
) -> str | Refusal:
    """Dispatch (T4) ``config`` under ``name`` (else the file's own ``name``); the run id, or the platform's refusal."""
    from primetui.api.errors import HTTPStatusError
    from primetui.sft import run_name
    from primetui.sft.kind import dispatch_mode

    try:
        reply = await client.create_run(
            config, volume=volume_name, name=name or run_name.config_name(config), mode=dispatch_mode(config)
        )
    except HTTPStatusError as exc:  # the platform's refusal (400, 422, 409...): its words, then stop
        issues = [f"  - {_clean(issue)}" for issue in getattr(exc, "issues", None) or []]
        return Refusal("platform", f"primetui {command}: the platform refused the run: {_clean(exc)}", issues)
    return str(reply.run_id)


async def dispatch(
    client: Any, path: Path, volume_name: str | None, err: TextIO, name: str | None = None
) -> str | Refusal:
    """Pre-flight and dispatch ``path`` on ``volume_name``; the run id, or why not.

    ``volume_name`` is None only for an rl.toml (the command line lets nothing else leave it out).

    ``name`` (``--name``) wins over the file's top-level ``name``. Diagnostics and pre-flight lines
    go to ``err`` as they come; the refusal's own sentence is the caller's to print.
    """
    from primetui.sft import run_name

    details: list[str] = []

    def say(line: str) -> None:
        details.append(line)
        print(line, file=err)

    text = read_config_file(path)
    if isinstance(text, Refusal):
        return text
    if name is not None and (why := run_name.problem(name)):
        return Refusal("config", f"primetui dispatch: --name: {why}")
    volume = await find_volume(client, volume_name) if volume_name is not None else None
    if isinstance(volume, Refusal):
        return volume
    config = await preflight_config(client, str(path), text, volume, say)
    if isinstance(config, Refusal):
        config.details = details
        return config
    return await send_run(client, config, volume_name, name)


@dataclass
class Dispatched:
    """The runs a sweep started, in grid order, and why it stopped early (the platform refused one)."""

    runs: list[tuple[str, str]]  # (run id, name)
    stopped: Refusal | None = None
    grid: Any = None  # the GridCheck (primetui.sft.sweep_check) the sweep passed
    warnings: list[str] = field(default_factory=list)  # names already taken, when --suffix was not asked


def cli_offer(prefix: str | None) -> str:
    """How ``primetui sweep`` offers new names: the prefix to pass, or the flag that finds one."""
    return f"--name {prefix} (or --suffix)" if prefix else "--suffix"


async def dispatch_sweep(
    client: Any, path: Path, volume_name: str, sets: list[str], prefix: str | None, err: TextIO, suffix: bool = False
) -> Dispatched | Refusal:
    text = read_config_file(path, "sweep")
    if isinstance(text, Refusal):
        return text
    return await sweep_text(client, text, path, volume_name, sets, prefix, err, suffix=suffix)


async def sweep_text(
    client: Any,
    text: str,
    path: Path,
    volume_name: str,
    sets: list[str],
    prefix: str | None,
    err: TextIO,
    suffix: bool = False,
    offer: Callable[[str | None], str] = cli_offer,
) -> Dispatched | Refusal:
    """The sweep of ``text`` (the file at ``path``, or the editor's buffer for it).

    Before any run starts: the names are checked against the platform's runs and each other
    (``suffix`` makes taken ones new: ``-2`` on the prefix, ``-2`` on a name the grid repeats;
    else a warning says so, with ``offer``), every variant is pre-flighted, then the grid as a
    whole (:mod:`primetui.sft.sweep_check`): its space, GPUs and cost on one line. A grid whose
    checkpoints do not fit the volume together is refused as one run's would be.
    """
    import tomllib

    from primetui.sft.sizing import parse_size
    from primetui.sft.sweep import (
        SweepError,
        default_prefix,
        expand,
        name_clashes,
        new_prefix,
        parse_sets,
        unique_names,
    )
    from primetui.sft.sweep_check import clash_sentence, grid_check, platform_run_names, prices_from

    details: list[str] = []

    def say(line: str) -> None:
        details.append(line)
        print(line, file=err)

    prefix = prefix or default_prefix(text, path.stem)
    try:
        axes = parse_sets(sets)
        variants = expand(text, axes, prefix)
    except SweepError as exc:
        return Refusal("config", f"primetui sweep: {exc}")
    volume = await find_volume(client, volume_name, "sweep")
    if isinstance(volume, Refusal):
        return volume
    try:
        existing = await platform_run_names(client)
    except Exception as exc:  # noqa: BLE001 - PrimeAPIError's str() is the sentence; the names go unchecked
        existing = set()
        say(f"warning: could not list the platform's runs ({_clean(exc)}); the run names were not checked.")
    if suffix:
        try:
            taken, _ = name_clashes([v.name for v in variants], existing)
            if taken:
                prefix = new_prefix(prefix, [v.name for v in variants], existing)
                variants = expand(text, axes, prefix)
            variants = unique_names(variants)
        except SweepError as exc:
            return Refusal("config", f"primetui sweep: {exc}")
    names = [v.name for v in variants]
    configs = [tomllib.loads(v.text) for v in variants]
    taken, twice = name_clashes(names, existing)
    warnings = []
    if taken or twice:
        sentence = clash_sentence(
            len(names), taken, twice, prefix, offer(new_prefix(prefix, names, existing) if taken else None)
        )
        warnings.append(f"warning: {_clean(sentence)}")
        say(warnings[-1])
    checked: list[dict[str, Any]] = []  # every variant's, when none failed
    failed: list[str] = []
    for v in variants:
        say(f"{v.name}:")
        config = await preflight_config(client, f"{path} [{v.name}]", v.text, volume, say, "sweep", f" of {v.name}")
        if isinstance(config, Refusal):
            failed.append(v.name)
        else:
            checked.append(config)
    try:
        prices = prices_from(await client.list_models())
    except Exception:  # noqa: BLE001 - the pre-flight's Model lines already said why the cache cannot be read
        prices = []
    grid = grid_check(configs, names, parse_size(getattr(volume, "size", None)), prices, existing)
    icons = {"ok": "ok  ", "fail": "FAIL", "warn": "warn", "skip": "skip"}
    say(f"sweep grid {icons[grid.state]} {_clean(grid.line())}")
    if failed:
        return Refusal(
            "preflight",
            f"primetui sweep: the pre-flight failed for {len(failed)} of {len(variants)} runs "
            f"({', '.join(failed)}); nothing was dispatched.",
            details,
        )
    if grid.blocked:
        return Refusal(
            "preflight",
            f"primetui sweep: the {len(variants)} runs do not fit on {volume_name} together "
            f"({_clean(grid.space.detail)}); nothing was dispatched.",
            details,
        )
    started: list[tuple[str, str]] = []
    for v, config in zip(variants, checked):
        result = await send_run(client, config, volume_name, v.name, "sweep")
        if isinstance(result, Refusal):
            if started:
                result.message += (
                    f" {len(started)} run(s) of the sweep had started and go on: "
                    + ", ".join(run_id for run_id, _ in started)
                    + "."
                )
            return Dispatched(started, result, grid, warnings)
        started.append((result, v.name))
    return Dispatched(started, None, grid, warnings)
