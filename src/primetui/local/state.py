"""The server's shared state, reachable from any route as ``request.app.state.platform``.

Other local packages (``primetui.local.sessions``) get at the data dir, the store and the
volume helpers through this object, never through globals.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from primetui.local.auth import load_or_create_token
from primetui.local.log_windows import faithful_from_env
from primetui.local.ratelimit import rate_limit_from_env
from primetui.local.models_cache import MODELS_FILE, ModelCache
from primetui.local.paths import safe_join
from primetui.local.store import Store

SPEED_ENV = "PRIMETUI_LOCAL_SPEED"
MAX_RUNS_ENV = "PRIMETUI_LOCAL_MAX_RUNS"
DB_FILE = "state.sqlite3"
LOCAL_USER_ID = "local-user"
LOCAL_USER_NAME = "local"


def speed_factor() -> float:
    """``PRIMETUI_LOCAL_SPEED`` (default 1): artificial platform delays are divided by it (tests use 10+)."""
    raw = os.environ.get(SPEED_ENV, "1")
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    return value if value > 0 else 1.0


def max_runs_limit() -> int | None:
    """``PRIMETUI_LOCAL_MAX_RUNS``: how many runs may train at once (unset or invalid: no limit)."""
    raw = os.environ.get(MAX_RUNS_ENV, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


@dataclass
class LocalState:
    """Everything the routes and the supervisor share."""

    data_dir: Path
    store: Store
    token: str
    models: ModelCache
    speed: float = 1.0
    max_runs: int | None = None
    base_url: str = ""
    faithful_logs: bool = True
    """Serve the hosted log windows (200-line snapshot, search backend); False: whole logs."""
    rate_limit: int | None = None
    """Requests per minute per client before a 429 with Retry-After (None: no limit)."""
    supervisor: Any = None  # the server's primetui.local.supervisor.Supervisor (it sits above this module)
    extras: dict[str, Any] = field(default_factory=dict)  # room for other local packages (sessions)

    @classmethod
    def open(cls, data_dir: Path) -> LocalState:
        """Create the data dir layout if needed and open the store; never deletes anything."""
        if not data_dir.exists():
            data_dir.mkdir(parents=True)
            os.chmod(data_dir, 0o700)  # only a dir we created: never re-permission a dir the user pointed at
        (data_dir / "volumes").mkdir(exist_ok=True)
        (data_dir / "runs").mkdir(exist_ok=True)
        models = ModelCache(data_dir / MODELS_FILE)
        models.ensure_file()
        return cls(
            data_dir=data_dir,
            store=Store(data_dir / DB_FILE),
            token=load_or_create_token(data_dir),
            models=models,
            speed=speed_factor(),
            max_runs=max_runs_limit(),
            faithful_logs=faithful_from_env(),
            rate_limit=rate_limit_from_env(),
        )

    # volumes ---------------------------------------------------------------------------------
    @property
    def volumes_dir(self) -> Path:
        return self.data_dir / "volumes"

    def volume_dir(self, key: str) -> Path:
        """The directory backing the volume of ``key`` (``paths.volume_key``: its owner and name)."""
        return safe_join(self.volumes_dir, key)

    def volume_path(self, key: str, relative: str) -> Path:
        """A client path inside the volume of ``key``; raises PathEscapeError for ``..``/symlink escapes.

        Accepts the volume-relative form (``datasets/x``) and the mount form (``/volume/datasets/x``).
        """
        rel = relative
        if rel == "/volume" or rel.startswith("/volume/"):
            rel = rel[len("/volume") :]
        return safe_join(self.volume_dir(key), rel)

    # runs ------------------------------------------------------------------------------------
    @property
    def runs_dir(self) -> Path:
        return self.data_dir / "runs"

    def run_dir(self, run_id: str) -> Path:
        return safe_join(self.runs_dir, run_id)

    def delay(self, seconds: float) -> float:
        """An artificial platform delay, shortened by ``PRIMETUI_LOCAL_SPEED``."""
        return seconds / self.speed
