"""``primetui`` / ``primetui --local`` / ``primetui edit FILE`` / ``primetui runs`` / ``primetui run ID``.

Decides which platform to talk to, builds the client, and runs :class:`PrimeApp`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any


def _with(settings: Any, **changes: Any) -> Any:
    """A copy of ``settings`` with some fields changed, whatever type it is."""
    if dataclasses.is_dataclass(settings) and not isinstance(settings, type):
        return dataclasses.replace(settings, **changes)
    if hasattr(settings, "model_copy"):
        return settings.model_copy(update=changes)
    if settings is None:  # no settings read (a library caller): the local platform's own, typed
        from primetui.config.settings import Settings

        return Settings(**changes)
    data = dict(vars(settings))
    data.update(changes)
    return SimpleNamespace(**data)


def make_client(settings: Any, rediscover: Any = None) -> Any:
    """``rediscover``: the local platform's ``launcher.following(data_dir)``, so the client follows a restart."""
    from primetui.api.client import PrimeClient

    return PrimeClient(
        settings.base_url, settings.api_key, team_id=getattr(settings, "team_id", None), rediscover=rediscover
    )


class LazyClient:
    """Stands in for a ``PrimeClient`` until the first call, which builds it in a thread.

    Importing httpx, pydantic and the wire models costs more than a second on a loaded machine;
    deferring it lets the first frame (with cached data) paint while it happens, off the UI loop.
    """

    def __init__(self, settings: Any, *, prefetch: Any = None) -> None:
        self._settings = settings
        self._client: Any = None
        self._lock: asyncio.Lock | None = None
        self._prefetch = prefetch
        self.base_url = str(getattr(settings, "base_url", "") or "").rstrip("/").removesuffix("/api/v1")

    async def list_runs(self, *, page: int = 1, limit: int = 20, mine: bool = False) -> Any:
        """R1; the first call may take the page already fetched at start (``primetui.api.prefetch``)."""
        prefetch, self._prefetch = self._prefetch, None
        if prefetch is not None and not mine and (page, limit) == (prefetch.page, prefetch.limit):
            reply = await asyncio.wrap_future(prefetch.future)
            if reply is not None and prefetch.fresh():
                from primetui.api.plainrun import PlainRunPage

                plain = PlainRunPage.from_wire(reply)  # attributes as the models have them, without pydantic
                if plain is not None:
                    return plain
        client = await self.ready()
        return await client.list_runs(page=page, limit=limit, mine=mine)

    async def ready(self) -> Any:
        if self._client is None:
            if self._lock is None:
                self._lock = asyncio.Lock()
            async with self._lock:
                if self._client is None:
                    self._client = await asyncio.to_thread(make_client, self._settings)
        return self._client

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)

        async def call(*args: Any, **kwargs: Any) -> Any:
            client = await self.ready()
            return await getattr(client, name)(*args, **kwargs)

        return call

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()


class DefaultPrefs:
    """The preferences when there is no preferences file: ``primetui.config.prefs.Prefs()``, built late.

    Building the model imports pydantic, which the first frame has no other use for; what the
    first frame reads (``FIRST_FRAME``, the same values as the model's defaults: a unit test
    compares them) is answered at once, anything else builds the model once and reads it.
    """

    FIRST_FRAME: dict[str, Any] = {
        "theme": "",
        "keymap": {},
        "watched": [],
        "local_data_dir": None,
        "refresh": {"runs_list": 5.0, "run_detail": 3.0, "logs": 3.0, "metrics": 5.0},
        "notify": {"desktop": "off", "on_event": "", "hook_timeout": 10.0},
    }

    def __init__(self) -> None:
        self._model: Any = None

    def model(self) -> Any:
        if self._model is None:
            from primetui.config.prefs import Prefs

            self._model = Prefs()
        return self._model

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._model is None and name in self.FIRST_FRAME:
            value = self.FIRST_FRAME[name]
            return (
                SimpleNamespace(**value)
                if isinstance(value, dict) and name in ("refresh", "notify")
                else type(value)(value)
                if isinstance(value, (dict, list))
                else value
            )
        return getattr(self.model(), name)


def load_prefs() -> tuple[Any, str | None]:
    """Preferences (primetui.config.prefs) and a warning sentence if the file was broken."""
    from primetui.config.prefs_file import prefs_path

    try:
        if not prefs_path().exists():
            return DefaultPrefs(), None
    except Exception:  # noqa: BLE001 - the full loader below says what is wrong
        pass
    try:
        from primetui.config import prefs as prefs_mod
    except ImportError:
        return None, None
    loader = getattr(prefs_mod, "load_prefs", None) or getattr(prefs_mod, "load_preferences", None)
    if loader is None:
        return None, None
    try:
        result = loader()
    except Exception as exc:  # noqa: BLE001 - broken preferences never stop the app
        return None, f"Preferences could not be read ({exc}); using defaults."
    if isinstance(result, tuple):
        return result[0], (result[1] if len(result) > 1 and isinstance(result[1], str) else None)
    return result, getattr(result, "warning", None)


def local_data_dir(prefs: Any) -> Path | None:
    value = os.environ.get("PRIMETUI_LOCAL_DATA_DIR") or getattr(prefs, "local_data_dir", None)
    return Path(value) if value else None


class Connector:
    """How the first-run screen (and ``--local``) get a client: an API key, or the local platform."""

    def __init__(self, settings: Any, prefs: Any) -> None:
        self.settings = settings
        self.prefs = prefs
        self.demo_config: Path | None = None

    def local_sync(self) -> tuple[Any, Any, str]:
        """Start (or reuse) the embedded platform for this user; blocks until it answers."""
        from primetui.local.launcher import ensure_running, following, local_team

        data_dir = local_data_dir(self.prefs)
        result = ensure_running(data_dir=data_dir, demo=True)
        base_url, token = result[0], result[1]
        found = self._find_demo_config(data_dir)
        if found:
            self.demo_config = found
        team = local_team(getattr(self.settings, "team_id", None))
        settings = _with(
            self.settings,
            base_url=base_url,
            api_key=token,
            team_id=team,
            team_name=getattr(self.settings, "team_name", None) if team else None,
        )
        host = base_url.split("://", 1)[-1].split("/", 1)[0]
        return make_client(settings, following(data_dir)), settings, f"local platform {host}"

    @staticmethod
    def _find_demo_config(data_dir: Path | None) -> Path | None:
        if data_dir is None:
            try:
                from primetui.local.paths import resolve_data_dir

                data_dir = Path(resolve_data_dir(None))
            except Exception:  # noqa: BLE001
                data_dir = None
        if data_dir is None:
            return None
        for candidate in ("sft.toml", "demo/sft.toml", "configs/sft.toml"):
            if (data_dir / candidate).exists():
                return data_dir / candidate
        return None

    async def local(self) -> tuple[Any, Any, str]:
        return await asyncio.to_thread(self.local_sync)

    async def with_api_key(self, key: str) -> tuple[Any, Any, str]:
        """Check the key against the platform, then save it where the prime CLI keeps it."""
        from primetui.config import settings as settings_mod

        candidate = _with(self.settings, api_key=key)
        client = make_client(candidate)
        await client.list_volumes()  # a 401 here raises the CLI's own one-sentence message
        settings_mod.save_api_key(key)
        return client, candidate, None  # type: ignore[return-value]


def _prefs_file() -> Any:
    """Where the dashboard keeps watched runs and the theme (the preferences file), if known."""
    try:
        from primetui.config.prefs_file import prefs_path

        return prefs_path()
    except Exception:  # noqa: BLE001 - without it watches last for the session only
        return None


def prefetch_runs(settings: Any) -> Any:
    """Start reading the first page of runs now, while Textual loads (see primetui.api.prefetch)."""
    from primetui.api.prefetch import RunsPrefetch

    return RunsPrefetch(str(settings.base_url), str(settings.api_key), team_id=getattr(settings, "team_id", None))


def build_app(args: Any) -> tuple[Any, int]:
    """The dashboard app for these command-line ``args``, or ``(None, exit code)`` when it cannot start.

    ``run_app`` runs it; the wheel smoke test (``.ci/wheel_smoke.py``) drives the same app headless.
    """
    from primetui.config.settings import load_settings

    try:
        settings = load_settings()
    except Exception as exc:  # noqa: BLE001
        print(
            f"primetui: could not read the prime configuration ({exc}); fix ~/.prime/config.json or set PRIME_API_KEY.",
            file=sys.stderr,
        )
        from primetui.commands.exits import EXIT_CONFIG

        return None, EXIT_CONFIG
    use_local = bool(getattr(args, "local", False))
    from primetui.config.mistakes import first_mistake

    mistake = first_mistake(settings, local=use_local)  # the status line names it; nothing is asked
    prefetch = prefetch_runs(settings) if not use_local and not mistake and settings.api_key else None
    prefs, prefs_warning = load_prefs()
    connector = Connector(settings, prefs)
    client = None
    label = None
    if mistake is not None:
        pass
    elif use_local:
        try:
            client, settings, label = connector.local_sync()
        except Exception as exc:  # noqa: BLE001
            print(
                f"primetui: the local platform did not start ({exc}); try `primetui local serve` to see why.",
                file=sys.stderr,
            )
            return None, 1
    elif getattr(settings, "api_key", ""):
        client = LazyClient(settings, prefetch=prefetch)
    command = getattr(args, "command", None)
    from primetui.ui.app import PrimeApp

    app = PrimeApp(
        client,
        settings,
        prefs,
        platform_label=label,
        start="runs",
        run_id=getattr(args, "run_id", None) if command == "run" else None,
        edit_path=getattr(args, "file", None) if command == "edit" else None,
        connect=connector,
        cache=True,
        prefs_file=_prefs_file(),
        on_event=getattr(args, "on_event", None),
        mistake=mistake,
    )
    if prefs_warning:
        app.theme_warnings.append(prefs_warning)
    return app, 0


def run_app(args: Any) -> int:
    """Entry point for the dashboard (see ``primetui.commands.cli``)."""
    app, code = build_app(args)
    if app is None:
        return code
    app.run()
    from primetui.ui.crashguard import exit_code

    return exit_code(app)
