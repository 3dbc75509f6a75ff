"""Which prime-rl config a TOML document is: SFT or RL, the way ``prime train`` (0.18.0) decides.

The CLI's rule (prime_cli commands/rl.py ``_looks_like_sft``): a ``[data]`` table with neither
``[trainer]`` nor ``[orchestrator]`` is prime-rl's SFT schema; everything else is an RL run. Before
that, the retired shared-LoRA shape (a top-level ``model = "..."`` string or a top-level ``[[env]]``
array, ``_looks_like_lora``) is refused outright with the CLI's text.

The top-level keys ``prime train`` reads itself and strips before the config reaches prime-rl
(``_CLI_ONLY_KEYS`` plus ``name``, which becomes the run's name) are listed here too, since both
schemas take them.
"""

from __future__ import annotations

from typing import Any, Literal

Kind = Literal["sft", "rl"]

# prime_cli commands/rl.py ``_CLI_ONLY_KEYS``: request-level keys, stripped before shipping ``config``.
CLI_ONLY_KEYS: tuple[str, ...] = (
    "env_file",
    "env_files",
    "image_tag",
    "gpu_type",
    "volume",
    "volume_size",
    "source_ref",
    "type",
)
# Every top-level key prime-rl's schemas never see: the above plus ``name`` (``_schema_input``).
CLI_KEYS: tuple[str, ...] = ("name", *CLI_ONLY_KEYS)


def config_kind(doc: Any) -> Kind:
    """``"sft"`` for a ``[data]`` table with neither ``[trainer]`` nor ``[orchestrator]``, else ``"rl"``.

    Anything that is not a table (a broken parse) reads as SFT, the schema primetui grew up with.
    """
    if not isinstance(doc, dict):
        return "sft"
    return "sft" if "data" in doc and "trainer" not in doc and "orchestrator" not in doc else "rl"


def schema_kind(doc: Any) -> Kind:
    """The schema a document is checked against: RL when it has ``[trainer]`` or ``[orchestrator]``, else SFT.

    It differs from ``config_kind`` only for a document with none of ``[data]``, ``[trainer]`` and
    ``[orchestrator]``: ``prime train --sft`` dispatches such a file as SFT (without the flag, as RL,
    where prime-rl refuses it for lacking both tables), so the editor reads it as the sft.toml it
    most likely is, and ``primetui dispatch`` sends it as one.
    """
    if not isinstance(doc, dict):
        return "sft"
    return "rl" if "trainer" in doc or "orchestrator" in doc else "sft"


def dispatch_mode(doc: Any) -> str | None:
    """The create request's ``mode`` for a config primetui dispatches: ``"sft"``, or None for RL.

    ``prime train`` omits ``mode`` for an RL run (api/training.py: "so existing RL payloads stay
    byte-compatible"); primetui sends what the editor checked the file as (``schema_kind``).
    """
    return "sft" if schema_kind(doc) == "sft" else None


def is_retired_shape(doc: Any) -> bool:
    """The retired shared-LoRA config: a top-level ``model = "..."`` string or a top-level ``[[env]]`` array."""
    return isinstance(doc, dict) and (isinstance(doc.get("model"), str) or isinstance(doc.get("env"), list))


def retired_shape_message(path: str) -> str:
    """The CLI's refusal of the retired shape, word for word (``path`` is the file as the user named it)."""
    return (
        f'{path} is a shared LoRA training config (a top-level `model = "..."` or `[[env]]`). '
        "Shared LoRA training no longer accepts new runs; Hosted Training runs prime-rl configs on "
        "dedicated clusters. See prime-rl's examples/ for starter configs."
    )


def retired_shape_key(doc: dict[str, Any]) -> str:
    """The key that makes ``doc`` the retired shape (where the editor shows the refusal)."""
    return "model" if isinstance(doc.get("model"), str) else "env"


def schema_input(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` without the keys ``prime train`` takes for itself: what prime-rl's schema validates."""
    if not any(k in doc for k in CLI_KEYS):
        return doc
    return {k: v for k, v in doc.items() if k not in CLI_KEYS}
