"""The local model cache: ``<data_dir>/models.toml``, a file the user may edit.

Real weights cannot run on a laptop CPU, so every cached model id maps to a small *stand-in*
model (a byte-level windowed MLP language model with some 100k parameters) that the local
trainer really trains. The ``[models.standin]`` table sizes it and is handed to the trainer verbatim in the
run's ``config.json`` (``model.standin``). The file is re-read whenever it changes, so an edit takes
effect on the next request; a broken file is reported, never overwritten.
"""

from __future__ import annotations

import tomllib

from primetui.config.fileio import atomic_write
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODELS_FILE = "models.toml"
LOCAL_CLUSTER_ID = "local"
LOCAL_CLUSTER_NAME = "local-cpu"
LOCAL_GPU_TYPE = "local-cpu"

DEFAULT_MODELS_TOML = """\
# The model cache of the primetui local platform (`primetui local serve`).
#
# Real weights cannot run on this machine: each model id below maps to a small stand-in model
# that the local trainer really trains (a byte-level windowed MLP language model, numpy on the
# CPU). Add a [[models]] entry to make another model id dispatchable; its [models.standin] table
# sizes the stand-in: context (tokens of left context, 1..64), embed (embedding width, 4..256),
# hidden (MLP width, 8..2048), seed (init seed). The server re-reads this file when it changes.

[[models]]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
description = "the walkthrough's debug model, already tuned on reverse-text"
[models.standin]
context = 16
embed = 32
hidden = 256

[[models]]
name = "Qwen/Qwen3-0.6B"
description = "base Qwen3 0.6B"
[models.standin]
context = 16
embed = 32
hidden = 256

[[models]]
name = "Qwen/Qwen3-1.7B"
description = "base Qwen3 1.7B"
[models.standin]
context = 24
embed = 48
hidden = 384

[[models]]
name = "zai-org/GLM-5.3-BF16"
description = "GLM-5.3 (the multi-node example's model; a stand-in of the same size as the others here)"
[models.standin]
context = 16
embed = 32
hidden = 256
"""


class ModelCacheError(ValueError):
    """models.toml cannot be read; ``str()`` says where and how to fix it."""


@dataclass(frozen=True)
class CachedModel:
    """One cache entry: the model id users write in ``[model].name`` and its stand-in's shape."""

    name: str
    standin: dict[str, Any]
    description: str = ""

    def standin_summary(self) -> str:
        """E.g. ``stand-in byte-level MLP LM (context 16, embed 32, hidden 256)``."""
        bits = [f"{key} {value}" for key, value in self.standin.items() if key != "seed"]
        return "stand-in byte-level MLP LM" + (f" ({', '.join(bits)})" if bits else "")


@dataclass
class ModelCache:
    """Loads models.toml lazily and again whenever its modification time changes."""

    path: Path
    _mtime: float | None = None
    _models: list[CachedModel] = field(default_factory=list)

    def ensure_file(self) -> None:
        """Write the default cache if there is none yet (never touches an existing file)."""
        if not self.path.exists():
            atomic_write(self.path, DEFAULT_MODELS_TOML)

    def models(self) -> list[CachedModel]:
        """The cached models, in file order. Raises :class:`ModelCacheError` for a broken file."""
        try:
            mtime = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            self.ensure_file()
            mtime = self.path.stat().st_mtime_ns
        if mtime != self._mtime:
            self._models = parse_models(self.path)
            self._mtime = mtime
        return list(self._models)

    def get(self, name: str) -> CachedModel | None:
        for model in self.models():
            if model.name == name:
                return model
        return None


def parse_models(path: Path) -> list[CachedModel]:
    """Parse and check models.toml; every problem becomes one :class:`ModelCacheError` sentence."""
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ModelCacheError(
            f"The local model cache {path} is not valid TOML ({exc}); fix it, or delete it to restore the defaults."
        ) from exc
    except OSError as exc:
        raise ModelCacheError(
            f"The local model cache {path} cannot be read ({exc.strerror}); check its permissions."
        ) from exc
    entries = doc.get("models", [])
    if not isinstance(entries, list):
        raise ModelCacheError(
            f"In {path}, `models` must be an array of tables ([[models]]); fix it or delete the file."
        )
    result: list[CachedModel] = []
    for i, entry in enumerate(entries, start=1):
        where = f"{path}, [[models]] entry {i}"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise ModelCacheError(f"In {where}, `name` must be a non-empty string (the model id used in [model].name).")
        standin = entry.get("standin", {})
        if not isinstance(standin, dict):
            raise ModelCacheError(f"In {where}, `standin` must be a table of positive integers.")
        for key, value in standin.items():
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ModelCacheError(f"In {where}, standin.{key} must be a positive integer, not {value!r}.")
        description = entry.get("description", "")
        result.append(
            CachedModel(
                name=entry["name"].strip(),
                standin=dict(standin),
                description=description if isinstance(description, str) else "",
            )
        )
    return result
