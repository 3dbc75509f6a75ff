"""Pre-flight checks before dispatching a config to a volume: the editor's F5 and ``primetui dispatch``.

Each check is one line a user reads top to bottom: the volume is CREATED (ready), no read-write session is
open on it, the model is available (cache or /volume path), the dataset is on the volume in a shape
the trainer loads (listed through the volume's storage route, ``preflight_data``), the kept
checkpoints fit the volume, and the config itself has no errors. An rl.toml has its taskset, batch
and inference lines (``preflight_rl``) in place of the dataset's.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from primetui.sft.context import CheckContext
from primetui.sft.rules_platform import is_volume_path, model_not_available
from primetui.sft.sizing import checkpoint_bytes, checkpoints_kept, human_bytes, params_from_model_name, parse_size
from primetui.api.models import VOLUME_STATUS_LABELS

State = Literal["ok", "fail", "warn", "skip"]


@dataclass(frozen=True)
class Check:
    name: str
    state: State
    detail: str


@dataclass(frozen=True)
class Preflight:
    volume: str
    checks: tuple[Check, ...]
    cached_models: frozenset[str] | None = None
    volume_size_bytes: int | None = None

    @property
    def blocked(self) -> bool:
        return any(c.state == "fail" for c in self.checks)


def _session_is_live_rw(session: Any) -> bool:
    dead = getattr(session, "is_dead", None)
    if dead is None:
        dead = str(getattr(session, "status", "")).upper() in (
            "TERMINATED",
            "STOPPED",
            "FAILED",
            "TOMBSTONED",
            "DELETED",
        )
    return not dead and not getattr(session, "read_only", False)


async def _volume_checks(client: Any, volume: Any, checks: list[Check]) -> None:
    """The volume is ready, and no read-write session is open on it."""
    name = volume.name
    status = str(getattr(volume, "status", "") or "")
    # One state, one word: the same label the volumes table and the dispatch dialog show.
    ready = VOLUME_STATUS_LABELS.get("RUNNING", "RUNNING")
    if status == "RUNNING":
        checks.append(Check("Volume", "ok", f"{name} is {ready}"))
    else:
        shown = VOLUME_STATUS_LABELS.get(status, status) if status else "in an unknown state"
        checks.append(Check("Volume", "fail", f"{name} is {shown} — wait until it is {ready}, or pick another volume."))
    try:
        sessions = await client.list_sessions(name)
        live = [s for s in sessions if _session_is_live_rw(s)]
        if live:
            checks.append(
                Check(
                    "Sessions",
                    "fail",
                    f"read-write session {live[0].id} is open on {name} — stop it (`prime volumes stop {name} "
                    f"{live[0].id}`) and wait for its final sync.",
                )
            )
        else:
            checks.append(Check("Sessions", "ok", "no read-write session is open"))
    except Exception as exc:  # noqa: BLE001 - one failed look-up is one failed line
        checks.append(Check("Sessions", "fail", f"could not list sessions ({exc})"))


async def run_preflight(
    client: Any, volume: Any, config: dict[str, Any], text: str, fix_hint: str = "fix them first (F8 jumps to each)."
) -> Preflight:
    """Run every check against the platform; network failures become one ``fail`` line each.

    ``fix_hint`` ends the Config line when the config has errors (the editor names its key).
    """
    checks: list[Check] = []
    if volume is None:  # an rl.toml dispatched without a volume, as `prime train rl.toml` does
        name = ""
        checks.append(Check("Volume", "skip", "none: an RL run reads no dataset from a volume"))
    else:
        name = volume.name
        await _volume_checks(client, volume, checks)
    from primetui.sft.kind import schema_kind
    from primetui.sft.preflight_rl import config_model, rl_checks

    rl = schema_kind(config) == "rl"
    model = config_model(config)
    cached: frozenset[str] | None = None
    if is_volume_path(model):
        checks.append(Check("Model", "ok", f"{model} is read from the volume (no cache entry needed)"))
    else:
        try:
            reply = await client.list_models()
            cached = frozenset(m.name for m in reply.models)
            if model in cached:
                checks.append(Check("Model", "ok", f"{model} is in the cluster model cache"))
            else:
                checks.append(Check("Model", "fail", model_not_available(model)))
        except Exception as exc:  # noqa: BLE001
            checks.append(Check("Model", "warn", f"could not read the model cache ({exc}); the platform will check it"))
    size = parse_size(getattr(volume, "size", None))
    checks.extend([Check(*line) for line in rl_checks(config)] if rl else await _data_checks(client, name, config))
    checks.append(_space_check(config, size))
    from primetui.sft.check import check_text

    report = check_text(text, CheckContext(has_volume=True, cached_models=cached, volume_size_bytes=size))
    n = len(report.errors)
    if n:
        checks.append(Check("Config", "fail", f"{n} error(s) in the config — {fix_hint}"))
    else:
        w = report.count("warning")
        checks.append(Check("Config", "warn" if w else "ok", f"no errors, {w} warning(s)" if w else "no errors"))
    return Preflight(name, tuple(checks), cached, size)


DEFAULT_DATA_NAME = "PrimeIntellect/Reverse-Text-SFT"  # prime-rl's data.name default


def _data_table(config: dict[str, Any]) -> dict[str, Any]:
    data = config.get("data")
    return data if isinstance(data, dict) else {}


def data_check(config: dict[str, Any]) -> Check:
    """What a config shows about its dataset before dispatch (the trainer reads data.name from /volume)."""
    data = _data_table(config)
    if data.get("type", "sft") == "fake":
        return Check("Data", "ok", 'data.type = "fake": synthetic data, no dataset on the volume is read')
    name = data.get("name", DEFAULT_DATA_NAME)
    if not isinstance(name, str) or not name.strip():
        return Check(
            "Data", "fail", "data.name is empty; set it to the dataset's folder on the volume, e.g. datasets/<name>."
        )
    rel = name[len("/volume") :].lstrip("/") if name == "/volume" or name.startswith("/volume/") else name
    if (name.startswith("/") and rel == name) or ".." in rel.split("/"):
        return Check(
            "Data",
            "fail",
            f"data.name '{name}' points outside the volume; use a path under /volume such as datasets/<name>.",
        )
    shown = "/volume/" + rel
    if "name" not in data:
        return Check(
            "Data",
            "warn",
            f"data.name is not set, so it defaults to {DEFAULT_DATA_NAME}, read from {shown}; "
            "set it to your dataset's folder on the volume.",
        )
    if not rel.startswith("datasets/") and rel.count("/") == 1 and not name.startswith("/"):
        short = rel.split("/")[1]
        return Check(
            "Data",
            "warn",
            f"'{name}' looks like a Hub id, but runs read {shown} and download nothing; put it on "
            f"the volume (hf download {name} --repo-type dataset --local-dir /volume/datasets/{short}) "
            f'and set data.name = "datasets/{short}".',
        )
    return Check(
        "Data",
        "skip",
        f"the run reads {shown} at startup and fails there if it is missing or empty; the platform "
        "lists no volume contents before dispatch, so check it is there (prime volumes ls).",
    )


async def _data_checks(client: Any, volume: str, config: dict[str, Any]) -> list[Check]:
    """The dataset on the volume, line by line, when the platform's storage route can list it."""
    static = data_check(config)
    data = _data_table(config)
    if static.state in ("fail", "ok"):  # an unusable name, or fake data: nothing to look at
        return [static]
    name = data.get("name", DEFAULT_DATA_NAME)
    rel = (name[len("/volume") :] if name == "/volume" or name.startswith("/volume/") else name).strip("/")
    route_transfer = getattr(client, "route_transfer", None)
    if route_transfer is None:
        return [static]
    from primetui.api.errors import NotFoundError

    try:
        route = await route_transfer(volume, "get", rel)
    except NotFoundError:
        return [static]  # a platform without the storage route: nothing can be listed before dispatch
    except Exception as exc:  # noqa: BLE001 - one failed look-up is one line
        return [
            Check(
                "Data", "warn", f"could not list {name} on {volume} ({exc}); the run fails at startup if it is missing."
            )
        ]
    if route.via != "r2":
        return [static]

    def probe() -> list[tuple[Any, ...]]:
        from primetui.api.volume_storage import VolumeStorage
        from primetui.sft.preflight_data import dataset_lines

        with VolumeStorage(route) as storage:
            return dataset_lines(storage, rel, data)

    try:
        lines = await asyncio.to_thread(probe)
    except Exception as exc:  # noqa: BLE001
        return [
            Check(
                "Data", "warn", f"could not read {name} on {volume} ({exc}); the run fails at startup if it is missing."
            )
        ]
    found = [Check(n, st, detail) for n, st, detail in lines]
    return ([static] if static.state == "warn" else []) + found


@dataclass(frozen=True)
class SpaceNeed:
    """What one run's kept checkpoints take on its volume: ``kept`` × ``per`` bytes, when both are known."""

    state: State  # ok: no [ckpt] (nothing written); skip: size unknown; warn: unbounded; else None below
    kept: int | None = None
    per: int | None = None
    detail: str = ""

    @property
    def need(self) -> int | None:
        """Bytes at the end of the run (0 without [ckpt]); None when unknown or unbounded."""
        if self.kept is not None and self.per is not None:
            return self.kept * self.per
        return 0 if self.state == "ok" else None


def space_need(config: dict[str, Any]) -> SpaceNeed:
    """The checkpoints ``config`` keeps on the volume, from its model's parameter count (sizing.py)."""
    ckpt = config.get("ckpt")
    if not isinstance(ckpt, dict):
        return SpaceNeed("ok", detail="no [ckpt]: the run writes no checkpoint to the volume")
    from primetui.sft.preflight_rl import config_model

    model = config_model(config)
    params = params_from_model_name(str(model))
    if params is None:
        return SpaceNeed("skip", detail=f"checkpoint size unknown: '{model}' does not state its parameter count")
    optim_table = config.get("optim") if "optim" in config else (config.get("trainer") or {}).get("optim")
    optim = optim_table.get("type", "adamw") if isinstance(optim_table, dict) else "adamw"
    dtype = (
        config.get("model", {}).get("optimization_dtype", "float32")
        if isinstance(config.get("model"), dict)
        else "float32"
    )
    max_steps = config.get("max_steps") if isinstance(config.get("max_steps"), int) else None
    interval = ckpt.get("interval") if isinstance(ckpt.get("interval"), int) else None
    keep_last = ckpt.get("keep_last") if isinstance(ckpt.get("keep_last"), int) else None
    kept = checkpoints_kept(max_steps, interval, keep_last)
    per = checkpoint_bytes(params, str(optim), str(dtype))
    if kept is None:
        return SpaceNeed(
            "warn",
            per=per,
            detail=f"{human_bytes(per)} per checkpoint with no keep_last and no max_steps: they pile up",
        )
    return SpaceNeed("ok", kept, per, f"{kept} checkpoint(s) × {human_bytes(per)} = {human_bytes(per * kept)}")


def _space_check(config: dict[str, Any], volume_bytes: int | None) -> Check:
    space = space_need(config)
    need = space.need
    if space.kept is None or need is None:
        return Check("Space", space.state, space.detail)
    return space_verdict(space.detail, need, volume_bytes)


def space_verdict(
    what: str, need: int, volume_bytes: int | None, fix: str = "expand the volume or lower keep_last"
) -> Check:
    """The Space line for ``need`` bytes (``what`` says how they add up) on a volume of ``volume_bytes``:
    one run's checkpoints, or a sweep's all together (the same severity for both)."""
    if volume_bytes is None:
        return Check("Space", "skip", f"{what}; volume size unknown")
    if need > volume_bytes:
        return Check("Space", "fail", f"{what} > volume {human_bytes(volume_bytes)} — {fix}")
    return Check("Space", "ok", f"{what} of {human_bytes(volume_bytes)} (plus your dataset)")
