"""The top-level keys ``prime train`` (0.18.0) reads itself, for an sft.toml and an rl.toml alike.

``name`` becomes the run's name; ``image_tag``, ``gpu_type``, ``volume``, ``volume_size``, ``source_ref``,
``env_file(s)`` and ``type`` are request-level keys the CLI strips before the config reaches prime-rl
(prime_cli commands/rl.py ``_CLI_ONLY_KEYS``). The CLI's own checks on them come with its texts;
``this file`` stands where it names the config's path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from primetui.sft import run_name
from primetui.sft.cfg import Cfg, Finding
from primetui.sft.context import CheckContext

_STRING_FORMS = {"volume_size": 'a string like "500Gi" or "2Ti"'}
_SOURCE_REF = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._/-]{0,199}\Z")
VOLUME_SIZE_NEEDS_VOLUME = "--volume-size (and top-level `volume_size`) needs --volume (or top-level `volume`)."


def source_ref_problem(ref: str) -> str | None:
    """The CLI's ``_source_ref_error``: why ``ref`` cannot be a prime-rl git ref, or None."""
    if (
        not _SOURCE_REF.match(ref)
        or ".." in ref
        or "//" in ref
        or "/." in ref
        or ref.endswith(("/", "."))
        or any(part.endswith(".lock") for part in ref.split("/"))
    ):
        return f"{ref!r} is not a valid git ref (branches, tags and commit shas only)."
    if ref.startswith(("refs/", "pull/")):
        return f"{ref!r}: pull-request and refs/ names are not accepted; use --pr N for a pull request."
    return None


def run(c: Cfg, ctx: CheckContext) -> Iterator[Finding]:
    if not ctx.hosted:
        return
    from primetui.sft.placing import remove_line_fix

    raw = c.raw
    if run_name.KEY in raw and (why := run_name.problem(raw[run_name.KEY])):
        yield Finding("error", "run-name", why, (run_name.KEY,), "platform")
    for key in ("image_tag", "gpu_type", "volume", "volume_size"):
        value = raw.get(key)
        if value is not None and not isinstance(value, str):
            form = _STRING_FORMS.get(key, "a string")
            yield Finding(
                "error", "cli-key", f"{key} in this file must be {form}, got {type(value).__name__}.", (key,), "cli"
            )
    ref = raw.get("source_ref")
    if ref is not None:
        why = (
            f"source_ref in this file must be a string, got {type(ref).__name__}."
            if not isinstance(ref, str)
            else (f"source_ref in this file: {p}" if (p := source_ref_problem(ref)) else None)
        )
        if why:
            yield Finding("error", "cli-key", why, ("source_ref",), "cli")
    if (
        isinstance(raw.get("volume_size"), str)
        and not isinstance(raw.get("volume"), str)
        and ctx.has_volume is not True
    ):
        yield Finding("warning", "cli-key", VOLUME_SIZE_NEEDS_VOLUME, ("volume_size",), "cli", True)
    for key in ("env_file", "env_files"):
        value = raw.get(key)
        if value is not None and not (
            isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
        ):
            yield Finding(
                "error",
                "cli-key",
                f"{key} must be a path or a list of paths (relative to this file), got {type(value).__name__}.",
                (key,),
                "cli",
            )
    if "type" in raw:
        yield Finding(
            "warning",
            "cli-type",
            f'`type = "{raw["type"]}"` in this file is no longer used. Remove it from the config.',
            ("type",),
            "cli",
            True,
            fix_builder=lambda spans: remove_line_fix(spans, ("type",), "Remove type (prime train ignores it)"),
        )
