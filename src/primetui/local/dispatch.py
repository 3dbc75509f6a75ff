"""T4 dispatch checks: what the hosted platform refuses, with the seed's exact texts, plus local limits.

Order: body shape (422) -> an rl.toml's refusals (422, ``rl_dispatch_verdict``) -> the sft.toml schema (422 with
loc/msg, from ``primetui.sft``)
-> the hosted platform's rules (400, the seed's texts; every error-level rule the editor shows)
-> the local platform's own limits (400).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from primetui.local.cluster import ONLINE_EVALS_UNSUPPORTED, supports_online_evals
from primetui.local.errors import fail, invalid
from primetui.local.models_cache import ModelCacheError
from primetui.local.paths import PathEscapeError, volume_key
from primetui.local.state import LocalState
from primetui.local.teams import team_scope

INFERENCE_WITHOUT_EVAL = "[inference] is only used for online evals — add an [eval] block or remove it."
DATA_NAME_NEEDS_VOLUME = (
    "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, "
    "then rerun `prime train sft.toml --volume <name>`."
)


def model_not_available(name: str) -> str:
    return f"Model '{name}' is not available on this cluster. Reach out to Prime support to get it added."


@dataclass
class DispatchPlan:
    """A config that passed every check, with what the run needs."""

    config: dict[str, Any]
    model: str
    volume: str | None
    name: str | None
    team_id: str | None = None


def _editor_verdict(config: dict[str, Any]) -> tuple[list[tuple[list[str | int], str, str]], str | None]:
    """The editor's error-level rules on ``config``: (schema problems as (loc below ``config``, msg, type),
    the first hosted rule that refuses it, or None)."""
    from primetui.sft.dispatch import dispatch_verdict

    verdict = dispatch_verdict(config)
    return (
        [(_without_union_tags(config, list(loc)), msg, kind) for loc, msg, kind in verdict.schema_errors],
        verdict.rejection,
    )


def _check_rl(config: dict[str, Any]) -> None:
    """An rl.toml: the hosted platform's refusals at submit (``primetui.sft.dispatch.rl_dispatch_verdict``) as a 422."""
    from primetui.sft.dispatch import rl_dispatch_verdict

    problems = rl_dispatch_verdict(config)
    if problems:
        raise invalid(
            [(("body", "config", *_without_union_tags(config, list(loc))), msg, "value_error") for loc, msg in problems]
        )


def _without_union_tags(config: dict[str, Any], loc: list[str | int]) -> list[str | int]:
    """Drop pydantic's discriminator segments (``data.sft.seq_len`` -> ``data.seq_len``).

    The hosted platform reports the path as the user wrote it (observed:
    ``["body","config","data","seq_len"]``), so a segment that is not a key of the table but whose
    successor is, is a union tag and goes.
    """
    out: list[str | int] = []
    node: Any = config
    i = 0
    while i < len(loc):
        part = loc[i]
        if isinstance(node, dict) and part not in node and i + 1 < len(loc) and loc[i + 1] in node:
            i += 1
            continue
        out.append(part)
        node = (
            node.get(part)
            if isinstance(node, dict)
            else (node[part] if isinstance(node, list) and isinstance(part, int) and part < len(node) else None)
        )
        i += 1
    return out


def _client_paths(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Every path in the config the trainer would open: (dotted key, value)."""
    found = []

    def table(key: str) -> dict[str, Any]:
        node: Any = config
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else {}

    for section, key in (("data", "name"), ("val.data", "name"), ("ckpt", "output_dir"), ("resume", "dir")):
        node = table(section)
        if section.endswith("data") and node.get("type", "sft") == "fake":
            continue
        if isinstance(node.get(key), str) and node[key] not in ("", "None"):
            found.append((f"{section}.{key}", node[key]))
    return found


def _check_inside(state: LocalState, volume: str | None, label: str, value: str) -> None:
    """Refuse a client path that would reach outside the run's volume (its ``paths.volume_key``)."""
    if volume is None:
        if label == "data.name":
            return  # the hosted rule above already answered (fake data never gets here)
        raise fail(400, f"{label} '{value}' needs a volume on the local platform; dispatch with --volume <name>.")
    if any(len(part.encode("utf-8", "surrogatepass")) > 255 for part in value.split("/")):
        raise fail(400, f"{label} has a path part longer than 255 bytes (the file system limit); shorten it.")
    outside = value.startswith("/") and not (value == "/volume" or value.startswith("/volume/"))
    if not outside:
        try:
            state.volume_path(volume, value)
        except PathEscapeError:
            outside = True
    if outside:
        raise fail(
            400,
            f"{label} '{value}' points outside the volume; use a path under /volume such as "
            f"{'datasets/<name>' if label.endswith('name') else '/volume/runs/<runId>/...'}.",
        )


MAX_SIMULATED_NODES = 16


def _check_nodes(config: dict[str, Any]) -> None:
    """multi_node runs are simulated here (one process plays every node); refuse sizes it cannot play."""
    deployment = found if isinstance(found := config.get("deployment"), dict) else {}
    if deployment.get("type") != "multi_node":
        return
    for key in ("num_train_nodes", "num_infer_nodes"):
        value = deployment.get(key)
        if isinstance(value, int) and value > MAX_SIMULATED_NODES:
            raise fail(
                400,
                f"deployment.{key} = {value} is more nodes than the local platform simulates "
                f"(at most {MAX_SIMULATED_NODES}); lower it here, or dispatch to the hosted platform.",
            )


def _check_config(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The body's config (a dict, as hosted validates it) and whether the run is RL, after the schema checks."""
    config = body.get("config")
    if not isinstance(config, dict):
        raise invalid(
            [
                (
                    ("body", "config"),
                    "Field required" if config is None else "Input should be a valid dictionary",
                    "missing" if config is None else "dict_type",
                )
            ]
        )
    rl = body.get("mode") != "sft"  # prime train sends no mode for an RL run
    if rl:
        _check_rl(config)
        errors: list[tuple[list[str | int], str, str]] = []
        rejection: str | None = None
    else:
        errors, rejection = _editor_verdict(config)
    if errors:
        raise invalid([(("body", "config", *loc), msg, kind) for loc, msg, kind in errors])
    max_steps = config.get("max_steps")
    if isinstance(max_steps, (int, float)) and not isinstance(max_steps, bool) and not 1 <= max_steps <= 10**9:
        raise invalid(
            [
                (
                    ("body", "config", "max_steps"),
                    "Input should be a whole number from 1 to 1000000000 "
                    "(a run of 0 steps would finish without training)",
                    "value_error",
                )
            ]
        )
    if "inference" in config and "eval" not in config and not rl:
        raise fail(400, INFERENCE_WITHOUT_EVAL)
    if "eval" in config and not supports_online_evals() and not rl:
        raise fail(400, ONLINE_EVALS_UNSUPPORTED)
    if rejection is not None:  # the GPU budget, multi-node evals: what `primetui validate` calls an error
        raise fail(400, rejection)
    return config, rl


def _model_name(config: dict[str, Any], rl: bool) -> str:
    """The model the run trains: model.name (an RL run's trainer.model.name too), else prime-rl's default."""
    model = (config.get("model") or {}).get("name") if isinstance(config.get("model"), dict) else None
    if rl and not isinstance(model, str):
        trainer = found if isinstance(found := config.get("trainer"), dict) else {}
        model = trainer.get("model", {}).get("name") if isinstance(trainer.get("model"), dict) else None
    if not isinstance(model, str) or not model:
        model = "Qwen/Qwen3-0.6B"  # prime-rl's default model.name
    return model


def _check_model_cached(state: LocalState, model: str) -> None:
    try:
        cached = state.models.get(model)
    except ModelCacheError as exc:
        raise fail(500, str(exc)) from exc
    if cached is None:
        raise fail(400, model_not_available(model))


def _volume_of(body: dict[str, Any], config: dict[str, Any]) -> str | None:
    data = found if isinstance(found := config.get("data"), dict) else {}
    volume = body.get("volume")
    if volume is not None and not isinstance(volume, str):
        raise invalid([(("body", "volume"), "Input should be a valid string", "string_type")])
    if data.get("type", "sft") != "fake" and data.get("name") and not volume:
        raise fail(400, DATA_NAME_NEEDS_VOLUME)
    return volume


def _check_volume_ready(state: LocalState, team: str | None, volume: str) -> None:
    row = state.store.get_volume(team, volume)
    if row is None:
        raise fail(404, f"Volume '{volume}' not found; create it with `prime volumes create {volume}`.")
    if row["status"] != "RUNNING":
        raise fail(409, f"Volume '{volume}' is not ready (status {row['status']}); wait for it to be RUNNING.")


def check_dispatch(state: LocalState, body: dict[str, Any]) -> DispatchPlan:
    """Raise the HTTP error the hosted platform would give for ``body``, or return the plan."""
    config, rl = _check_config(body)
    model = _model_name(config, rl)
    on_volume = model == "/volume" or model.startswith("/volume/")
    if not on_volume:
        _check_model_cached(state, model)
    volume = _volume_of(body, config)
    _check_nodes(config)

    team = team_scope(body.get("teamId"))
    key = volume_key(team, volume) if volume else None  # the name in the run's own scope, as on hosted
    if volume:
        _check_volume_ready(state, team, volume)
    for label, value in _client_paths(config):
        _check_inside(state, key, label, value)
    if on_volume:
        from primetui.local.volume_models import check_volume_model

        check_volume_model(state, key, model)

    name = body.get("name") if isinstance(body.get("name"), str) else config.get("name")
    return DispatchPlan(
        config=config, model=model, volume=volume or None, name=name if isinstance(name, str) else None, team_id=team
    )
