"""``primetui sweep sft.toml --volume V --set KEY=V1,V2 … [--name PREFIX] [--wait] [--json]``.

Expands the grid (:mod:`primetui.sft.sweep`), checks and pre-flights every variant, and only when
all pass dispatches them, one named run each (all or none: a variant that fails stops the sweep
before any run starts). Exit codes and ``--json`` are ``dispatch``'s (:mod:`primetui.waiting`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from primetui.waiting import Refusal, find_volume, preflight_config, read_config_file, send_run


@dataclass
class Dispatched:
    """The runs a sweep started, in grid order, and why it stopped early (the platform refused one)."""

    runs: list[tuple[str, str]]  # (run id, name)
    stopped: Refusal | None = None


async def dispatch_sweep(client: Any, path: Path, volume_name: str, sets: list[str], prefix: str | None,
                         err: TextIO) -> Dispatched | Refusal:
    text = read_config_file(path, "sweep")
    if isinstance(text, Refusal):
        return text
    return await sweep_text(client, text, path, volume_name, sets, prefix, err)


async def sweep_text(client: Any, text: str, path: Path, volume_name: str, sets: list[str], prefix: str | None,
                     err: TextIO) -> Dispatched | Refusal:
    """The sweep of ``text`` (the file at ``path``, or the editor's buffer for it)."""
    from primetui.sft.sweep import SweepError, default_prefix, expand, parse_sets

    details: list[str] = []

    def say(line: str) -> None:
        details.append(line)
        print(line, file=err)

    try:
        variants = expand(text, parse_sets(sets), prefix or default_prefix(text, path.stem))
    except SweepError as exc:
        return Refusal("config", f"primetui sweep: {exc}")
    volume = await find_volume(client, volume_name, "sweep")
    if isinstance(volume, Refusal):
        return volume
    configs, failed = [], []
    for v in variants:
        say(f"{v.name}:")
        config = await preflight_config(client, f"{path} [{v.name}]", v.text, volume, say, "sweep", f" of {v.name}")
        if isinstance(config, Refusal):
            failed.append(v.name)
        configs.append(config)
    if failed:
        return Refusal("preflight", f"primetui sweep: the pre-flight failed for {len(failed)} of {len(variants)} runs "
                                    f"({', '.join(failed)}); nothing was dispatched.", details)
    started: list[tuple[str, str]] = []
    for v, config in zip(variants, configs):
        result = await send_run(client, config, volume_name, v.name, "sweep")
        if isinstance(result, Refusal):
            if started:
                result.message += (f" {len(started)} run(s) of the sweep had started and go on: "
                                   + ", ".join(run_id for run_id, _ in started) + ".")
            return Dispatched(started, result)
        started.append((result, v.name))
    return Dispatched(started)
