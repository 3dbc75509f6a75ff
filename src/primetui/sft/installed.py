"""Validation with prime-rl's own config package (``prime_rl.configs``) when it is importable.

The mirror in ``schema.py`` is what runs everywhere; when the user has the real package, its
``SFTConfig`` checks the same dict as well and its findings are added (marked
``[prime_rl.configs]``), so a newer prime-rl than the mirror's is still honoured.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

from primetui.sft.diagnostics import Diagnostic, Span

# The hosted platform launches multi-node runs itself; prime-rl's SLURM demand does not apply there.
_HOSTED_IGNORES = ("Must use SLURM for multi-node deployment",)


@lru_cache(maxsize=2)
def installed(kind: str = "sft") -> tuple[Any, str] | None:
    """(SFTConfig or RLConfig class, version) of the importable ``prime_rl.configs``, or None."""
    try:
        if kind == "rl":
            from prime_rl.configs.rl import RLConfig as config
        else:
            from prime_rl.configs.sft import SFTConfig as config
    except Exception:  # noqa: BLE001 - absent or broken: the mirror is all we have
        return None
    version = getattr(sys.modules.get("prime_rl.configs"), "__version__", None) or "installed"
    return config, str(version)


def _deferred(raw: dict[str, Any]) -> dict[str, Any]:
    """An rl.toml without its environment sources, as ``prime train`` validates it (``defer_environments``)."""
    import copy

    raw = copy.deepcopy(raw)
    orch = raw.get("orchestrator")
    if isinstance(orch, dict):
        if isinstance(orch.get("train"), dict):
            orch["train"].pop("source", None)
        if isinstance(orch.get("eval"), dict):
            orch["eval"].pop("source", None)
    raw.pop("k8s", None)
    return raw


def note(kind: str = "sft") -> str | None:
    found = installed(kind)
    return f"also validated with prime-rl's own config package (prime_rl.configs, {found[1]})." if found else None


def diagnostics(raw: dict[str, Any], spans: Any, hosted: bool = True, kind: str = "sft") -> list[Diagnostic]:
    """Findings of the installed ``SFTConfig`` (``RLConfig``) on ``raw``, placed like the mirror's."""
    found = installed(kind)
    if found is None:
        return []
    sft_config = found[0]
    if kind == "rl":
        raw = _deferred(raw)
    from pydantic import ValidationError

    from primetui.sft.placing import anchor, walk_loc as _walk_loc

    try:
        sft_config.model_validate(raw)
        return []
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
    except Exception as exc:  # noqa: BLE001 - e.g. a taskset package that is not installed
        return [
            Diagnostic(
                "error",
                f"prime_rl.configs: {type(exc).__name__}: {exc}",
                Span(0, 0, 0, 0),
                "prime-rl-installed",
                "prime-rl (installed)",
            )
        ]
    out = []
    for e in errors:
        if hosted and any(text in str(e.get("msg", "")) for text in _HOSTED_IGNORES):
            continue
        path, *_ = _walk_loc(tuple(e["loc"]), raw)
        where = ".".join(map(str, path)) or "<root>"
        out.append(
            Diagnostic(
                "error",
                f"{where}: {e['msg']} [prime_rl.configs]",
                anchor(spans, path, e["type"] == "extra_forbidden"),
                "prime-rl-installed",
                "prime-rl (installed)",
                tuple(path),
            )
        )
    return out
