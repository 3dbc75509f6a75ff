"""primetui's own preferences: one TOML file in the user config directory.

    ~/.config/primetui/config.toml        (platformdirs; PRIMETUI_CONFIG_DIR overrides the directory)

Platform settings (API key, team, base URL) are NOT here: they are shared with the `prime` CLI,
see `primetui.config.settings`. Every field below is documented by its docstring; `default_toml()`
renders them into a commented example file (also shown in docs/configuration.md).

A broken file never stops the app: a TOML syntax error gives all defaults, a bad value gives that
field's default, an unknown key is ignored, and each case yields one sentence saying what to fix.
Saving keeps the user's comments and layout (tomlkit) and never overwrites a file it cannot read.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from collections.abc import Iterable
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StringConstraints, field_validator
from pydantic import ValidationError as PydanticValidationError

from primetui.config.fileio import atomic_write_text
from primetui.config.prefs_file import config_dir, prefs_path

__all__ = [
    "AnomalyThresholds",
    "CHART_MARKERS",
    "NotifyPrefs",
    "Prefs",
    "PrefsError",
    "RefreshIntervals",
    "config_dir",
    "default_toml",
    "load_prefs",
    "prefs_path",
    "save_prefs",
    "update_prefs",
]

CHART_MARKERS = ("braille", "block", "ascii")
HexColor = Annotated[str, StringConstraints(strip_whitespace=True, pattern=r"^#[0-9a-fA-F]{6}$")]
MIN_INTERVAL = 0.5
MAX_INTERVAL = 3600.0


class PrefsError(Exception):
    """Preferences could not be saved; `str()` says why and what to do."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, validate_assignment=True)


def _interval(default: float) -> Any:
    return Field(default=default, ge=MIN_INTERVAL, le=MAX_INTERVAL)


class RefreshIntervals(_Strict):
    """How often each view polls the platform, in seconds (0.5 to 3600)."""

    runs_list: float = _interval(5.0)
    """Runs list: how often the list of runs is re-read."""
    run_detail: float = _interval(3.0)
    """Run screen: how often the run's status and step are re-read."""
    logs: float = _interval(3.0)
    """Log panes: how often each followed component's log window is re-read."""
    metrics: float = _interval(5.0)
    """Charts: how often new metric rows are fetched (only rows after the last step)."""


class AnomalyThresholds(_Strict):
    """When the anomaly detector flags a run (see docs/compare-diagnose.md)."""

    window: int = Field(default=20, ge=2, le=10_000)
    """Rolling window: how many recent healthy points the median is taken over."""
    loss_z: float = Field(default=6.0, gt=0)
    """Loss spike: robust z-score (distance from the rolling median in 1.4826 x MAD) that flags."""
    loss_rel_floor: float = Field(default=0.1, ge=0)
    """Loss spike: the deviation is never taken below this fraction of the median (warmup noise)."""
    grad_ratio: float = Field(default=10.0, gt=1)
    """Grad-norm blow-up: flag when optim/grad_norm exceeds this multiple of its rolling median."""
    throughput_ratio: float = Field(default=0.2, gt=0, lt=1)
    """Throughput collapse: flag when perf/throughput falls below this fraction of its rolling median."""
    min_points: int = Field(default=3, ge=1)
    """Grad-norm and throughput checks start after this many points."""
    stall_factor: float = Field(default=5.0, gt=1)
    """Stall: flag a RUNNING run with no new step for this many median step times..."""
    stall_min_seconds: float = Field(default=120.0, ge=0)
    """...and at least this many seconds."""
    early_steps: int = Field(default=20, ge=1)
    """Early divergence: only within this many steps of the run's first loss..."""
    early_factor: float = Field(default=2.0, gt=1)
    """...when the loss exceeds this multiple of the first loss (a learning rate too high)."""
    trainable_share: float = Field(default=0.10, ge=0, le=1)
    """RL: flag a step whose trainable share (`Trainable k/n`) is at or below this (the orchestrator warns at 10 %)."""
    entropy_ratio: float = Field(default=0.25, gt=0, lt=1)
    """RL entropy collapse: flag when the trainer's entropy falls below this fraction of its highest value..."""
    entropy_steps: int = Field(default=5, ge=1)
    """...over the last this many steps."""
    kl_rises: int = Field(default=5, ge=2)
    """RL: flag mismatch KL that rises this many steps in a row (to at least twice where it began)..."""
    kl_floor: float = Field(default=1e-3, ge=0)
    """...and is at least this large."""
    hack_truncation: float = Field(default=0.5, gt=0, le=1)
    """RL length hacking: flag when at least this share of outputs is truncated at the token cap..."""
    hack_truncation_rise: float = Field(default=0.2, ge=0, le=1)
    """...having risen by this much since the first step..."""
    hack_reward_rise: float = Field(default=0.05, ge=0)
    """...while the mean reward rose by at least this much."""
    answer_rise: float = Field(default=0.02, ge=0)
    """RL reward without the answer: flag when the reward rose hack_reward_rise between sample steps while
    the completions' similarity to the answer rose less than this."""


class NotifyPrefs(_Strict):
    """How watched runs reach you beyond the toast and the bell, in the `[notify]` table."""

    desktop: Literal["off", "osc777", "osc9"] = "off"
    (
        "Desktop notifications through the terminal: `osc777` (e.g. foot, urxvt), `osc9` (e.g. iTerm2, WezTerm), "
        "or `off`."
    )
    on_event: str = ""
    (
        "A command run for each event of a watched run, with the event as one JSON object on stdin (pagers, chat "
        "webhooks); empty runs none."
    )
    hook_timeout: float = Field(default=10.0, gt=0, le=300)
    """Seconds `on_event` may take before it is killed; a failure is a warning and a line in notify.log."""


_TABLES: dict[str, type[BaseModel]] = {
    "refresh": RefreshIntervals,
    "anomalies": AnomalyThresholds,
    "notify": NotifyPrefs,
}
"""The tables of the preferences file, by name."""


class Prefs(_Strict):
    """primetui's preferences (the `config.toml` file)."""

    theme: str = ""
    """Colour theme name, e.g. `primetui-dark`; empty picks one that suits the terminal."""
    chart_marker: Literal["braille", "block", "ascii"] = "braille"
    """How charts draw lines: `braille` (finest), `block`, or `ascii` (for fonts without braille)."""
    shell_palette: Literal["xterm", "terminal"] | Annotated[list[HexColor], Field(min_length=16, max_length=16)] = (
        "xterm"
    )
    (
        "The shell pane's 16 ANSI colours: `xterm` (distinct, the default), `terminal` (your terminal's own, with "
        'the `primetui-ansi` theme) or 16 `"#rrggbb"` colours.'
    )
    local_data_dir: Path | None = None
    """Where the embedded local platform keeps its volumes and runs; empty uses primetui's data dir."""
    log_memory_lines: int = Field(default=20_000, ge=1_000, le=2_000_000)
    (
        "Log lines per stream held in memory (1000 to 2000000); older lines wait in a temporary file and page back "
        "in when you scroll up or search."
    )
    refresh: RefreshIntervals = Field(default_factory=RefreshIntervals)
    """Polling intervals, in the `[refresh]` table."""
    anomalies: AnomalyThresholds = Field(default_factory=AnomalyThresholds)
    """Anomaly detection thresholds, in the `[anomalies]` table."""
    notify: NotifyPrefs = Field(default_factory=NotifyPrefs)
    """Notifications for watched runs, in the `[notify]` table."""
    keymap: dict[str, str] = Field(default_factory=dict)
    """Key overrides, in the `[keymap]` table: binding id = "keys", e.g. `"app.theme" = "ctrl+t"`."""
    watched: list[str] = Field(default_factory=list)
    """Run ids you watch (a toast and the bell when their status changes); the dashboard keeps this."""

    _base: dict[str, Any] | None = PrivateAttr(default=None)
    # the values as read from (or last saved to) the file: save_prefs writes only what differs from them

    def __eq__(self, other: object) -> bool:  # the preferences themselves, not where they came from
        if not isinstance(other, Prefs):
            return NotImplemented
        return self.model_dump() == other.model_dump()

    __hash__ = None  # type: ignore[assignment]

    @field_validator("theme")
    @classmethod
    def _strip_theme(cls, value: str) -> str:
        return value.strip()

    @field_validator("local_data_dir")
    @classmethod
    def _expand(cls, value: Path | None) -> Path | None:
        if value is None or str(value).strip() in ("", "."):
            return None
        return Path(os.path.expanduser(str(value)))


def _describe(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc)


def _drop(data: dict[str, Any], loc: tuple[Any, ...]) -> bool:
    """Remove the value at `loc` (a top-level key or a key in a table); True if removed."""
    node: Any = data
    for part in loc[:-1]:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    if isinstance(node, dict) and loc and loc[-1] in node:
        del node[loc[-1]]
        return True
    if loc and isinstance(data, dict) and loc[0] in data:
        del data[loc[0]]
        return True
    return False


def _validate_leniently(data: dict[str, Any], path: Path, problems: list[str]) -> Prefs:
    """Validate; each bad or unknown value is dropped (its default applies) with one problem."""
    for _ in range(50):
        try:
            return Prefs.model_validate(data)
        except PydanticValidationError as exc:
            progressed = False
            for err in exc.errors():
                loc = tuple(err["loc"])
                name = _describe(loc)
                if err["type"] == "extra_forbidden":
                    problems.append(f"Unknown setting `{name}` in {path} is ignored; check its spelling.")
                else:
                    problems.append(
                        f"`{name}` in {path} is invalid ({err['msg'].rstrip('.')}); fix it, the default "
                        "is used meanwhile."
                    )
                # keymap values live one level deeper than the field itself
                progressed = _drop(data, loc) or progressed
            if not progressed:
                break
    problems.append(f"{path} could not be applied; fix it, primetui uses default preferences meanwhile.")
    return Prefs()


def load_prefs(path: Path | None = None) -> tuple[Prefs, str | None]:
    """Read the preferences; returns them and a warning (one sentence per problem) or None.

    A missing file is not a problem: it means defaults.
    """
    path = prefs_path() if path is None else path
    problems: list[str] = []
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return Prefs(), None
    except OSError as exc:
        return Prefs(), (
            f"Cannot read {path} ({exc.__class__.__name__}); fix its permissions, primetui uses default "
            "preferences meanwhile."
        )
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return Prefs(), f"{path} is not UTF-8 text; fix or delete it, primetui uses default preferences meanwhile."
    except tomllib.TOMLDecodeError as exc:
        return Prefs(), (
            f"{path} is not valid TOML ({exc}); fix or delete it, primetui uses default preferences meanwhile."
        )
    prefs = _validate_leniently(data, path, problems)
    prefs._base = _to_toml_values(prefs)
    return prefs, (" ".join(problems) or None)


def _to_toml_values(prefs: Prefs) -> dict[str, Any]:
    data = prefs.model_dump(mode="json")
    if data.get("local_data_dir") is None:
        data["local_data_dir"] = ""
    return data


def _read_doc(path: Path) -> Any:
    """The file as tomlkit holds it (comments and layout kept); a missing file is a new, short one."""
    import tomlkit

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        doc = tomlkit.document()
        for line in NEW_FILE_HEADER:
            doc.add(tomlkit.comment(line))
        return doc
    except (OSError, UnicodeDecodeError) as exc:
        raise PrefsError(
            f"{path} could not be read ({exc.__class__.__name__}), so nothing was saved; fix or move it and retry."
        ) from exc
    try:
        return tomlkit.parse(text)
    except Exception as exc:  # tomlkit raises several parse error types
        raise PrefsError(
            f"{path} is not valid TOML, so nothing was saved (your file is untouched); fix or delete it and retry."
        ) from exc


NEW_FILE_HEADER = (
    "primetui preferences: only what you chose is written here.",
    "Every other setting keeps its default; docs/configuration.md lists them all.",
)


def _description(dotted: str) -> str | None:
    head, _, sub = dotted.partition(".")
    info = Prefs.model_fields.get(head)
    if info is None:
        return None
    if not sub:
        return info.description
    model = _TABLES.get(head)
    sub_info = model.model_fields.get(sub) if model is not None else None
    return sub_info.description if sub_info is not None else None


def _new_item(dotted: str, value: Any) -> Any:
    """A value for a key the file does not hold yet, with its field's description as a comment above."""
    import tomlkit

    item = tomlkit.item(value)
    text = _description(dotted)
    if text and not isinstance(value, dict):
        item.trivia.indent = ("" if "." in dotted else "\n") + _comment(text)
    return item


def _set(doc: Any, dotted: str, value: Any) -> bool:
    """Set ``table.key`` (or ``key``) in ``doc``; True when it changed the file."""
    import tomlkit

    if value is None:
        value = ""
    head, _, sub = dotted.partition(".")
    if not sub and isinstance(value, dict) and isinstance(doc.get(head), dict):
        table = doc[head]  # a table set as a whole (the keymap): key by key, keeping its comments
        stale = [k for k in table if k not in value]
        for k in stale:
            del table[k]
        changed = [k for k, v in value.items() if table.get(k) != v]
        for k in changed:
            table[k] = value[k]
        return bool(stale or changed)
    if not sub:
        if head in doc and doc.get(head) == value:
            return False
        if head in doc:
            doc[head] = value
        else:
            doc[head] = _new_item(head, value)
        return True
    table = doc.get(head)
    if table is None or not isinstance(table, dict):
        table = tomlkit.table()
        doc[head] = table
    if sub in table and table.get(sub) == value:
        return False
    table[sub] = value if sub in table else _new_item(dotted, value)
    return True


def _unset(doc: Any, dotted: str) -> bool:
    head, _, sub = dotted.partition(".")
    if not sub:
        if head in doc:
            del doc[head]
            return True
        return False
    table = doc.get(head)
    if isinstance(table, dict) and sub in table:
        del table[sub]
        if not table:
            del doc[head]
        return True
    return False


def _effective(doc: Any) -> Prefs:
    """What ``doc`` means, leniently (a bad value is its default), as :func:`load_prefs` reads it."""
    return _validate_leniently(doc.unwrap(), Path("config.toml"), [])


def _write_doc(path: Path, doc: Any) -> None:
    import tomlkit

    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, tomlkit.dumps(doc))


def _changed_keys(before: dict[str, Any], new: Prefs) -> dict[str, Any]:
    """The dotted keys whose value in ``new`` differs from ``before`` (TOML values: a table field key
    by key, the keymap as a whole)."""
    after = _to_toml_values(new)
    out: dict[str, Any] = {}
    for key, value in after.items():
        if isinstance(value, dict) and key != "keymap":
            for sub, sub_value in value.items():
                if (before.get(key) or {}).get(sub) != sub_value:
                    out[f"{key}.{sub}"] = sub_value
        elif before.get(key) != value:
            out[key] = value
    return out


def update_prefs(
    path: Path | None = None,
    *,
    values: dict[str, Any] | None = None,
    unset: Iterable[str] = (),
    watch: Iterable[str] = (),
    unwatch: Iterable[str] = (),
) -> Prefs:
    """Merge a change into the preferences file; returns the preferences as the file now says.

    Held under the file's lock (:mod:`primetui.config.shared`), the file is read as it is now and
    only the keys named change: ``values`` sets dotted keys (``theme``, ``refresh.logs``), ``unset``
    removes keys (their default applies again), ``watch``/``unwatch`` add and remove run ids in
    ``watched``. So two dashboards never undo each other's changes, and a default is never written
    for a key nobody chose. Comments and layout are kept; a file that cannot be parsed is not touched
    (:class:`PrefsError`); a lock held too long is an ``OSError``.
    """
    from primetui.config.shared import locked

    path = prefs_path() if path is None else path
    adds = [str(r) for r in watch if str(r).strip()]
    drops = {str(r) for r in unwatch}
    with locked(path):
        doc = _read_doc(path)
        changed = False
        for key, value in (values or {}).items():
            changed = _set(doc, key, value.as_posix() if isinstance(value, Path) else value) or changed
        for key in unset:
            changed = _unset(doc, key) or changed
        if adds or drops:
            current = doc.get("watched")
            ids = [str(r) for r in current] if isinstance(current, list) else []
            merged = [r for r in ids if r not in drops] + [r for r in adds if r not in ids and r not in drops]
            changed = _set(doc, "watched", merged) or changed
        if changed:
            _write_doc(path, doc)
        return _effective(doc)


def save_prefs(prefs: Prefs, path: Path | None = None) -> Path:
    """Write what was changed in `prefs`, merged into the file as it is now; returns the path.

    "Changed" is against the values `prefs` was loaded with (:func:`load_prefs`), or the defaults for
    preferences made in code. Only those keys are written, under the file's lock, keeping the file's
    comments and order: defaults stay unwritten (a new file holds just the chosen keys), and a change
    another dashboard made to another key is kept. For watched runs :func:`update_prefs` (``watch``,
    ``unwatch``) says exactly which ids changed.
    """
    from primetui.config.shared import locked

    path = prefs_path() if path is None else path
    base = prefs._base if prefs._base is not None else _to_toml_values(Prefs())
    changes = _changed_keys(base, prefs)
    with locked(path):
        doc = _read_doc(path)
        for key, value in changes.items():
            _set(doc, key, value)
        if changes or not path.exists():
            _write_doc(path, doc)
    prefs._base = _to_toml_values(prefs)
    return path


def _comment(text: str | None) -> str:
    return "".join(f"# {line}\n" for line in (text or "").splitlines())


def _toml_value(value: Any) -> str:
    import tomlkit

    return str(tomlkit.item(value).as_string())


def default_toml() -> str:
    """A commented config.toml holding every field at its default value."""
    defaults = _to_toml_values(Prefs())
    out = ["# primetui preferences. Platform settings (API key, team, URL) live in ~/.prime/config.json.\n"]
    tables: list[tuple[str, Any]] = []
    for name, info in Prefs.model_fields.items():
        value = defaults[name]
        if isinstance(value, dict):
            tables.append((name, info))
            continue
        out.append("\n" + _comment(info.description) + f"{name} = {_toml_value(value)}\n")
    for name, info in tables:
        out.append("\n" + _comment(info.description) + f"[{name}]\n")
        model = _TABLES.get(name)
        if model is not None:
            for sub, sub_info in model.model_fields.items():
                out.append(_comment(sub_info.description) + f"{sub} = {_toml_value(defaults[name][sub])}\n")
        else:
            out.append('# "app.theme" = "ctrl+t"\n')
    return "".join(out)
