"""Tokens a run trains on per step: ``data.seq_len`` x ``data.batch_size`` (prime-rl's defaults
when the config does not write them), for a tokens x axis that puts runs of other batch sizes or
sequence lengths on one scale."""

from __future__ import annotations

from typing import Any


def _setting(config: dict[str, Any], key: str) -> int | None:
    found = config.get("data")
    data: dict[str, Any] = found if isinstance(found, dict) else {}
    value = data.get(key)
    if value is None:
        from primetui.sft.schema import resolve

        spec, _ = resolve(("data", key), config)
        try:
            value = int(spec.default) if spec is not None else None
        except (TypeError, ValueError):
            return None
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def tokens_per_step(config: dict[str, Any] | None) -> int | None:
    """``seq_len x batch_size`` of ``config``; None when either is unknown."""
    if not isinstance(config, dict):
        return None
    seq, batch = _setting(config, "seq_len"), _setting(config, "batch_size")
    return seq * batch if seq and batch else None
