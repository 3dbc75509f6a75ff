"""Command palette (ctrl+p): screens, runs and volumes by name or id, and actions on them."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.markup import escape

from primetui.viewmodel.run_rows import run_model
from primetui.viewmodel.statuses import actions_for, run_status
from primetui.ui.safe import clean

if TYPE_CHECKING:
    from primetui.viewmodel.host import DashboardHost


class PrimeCommands(Provider):
    """Everything the dashboard knows about, searchable by fuzzy match."""

    @property
    def prime(self) -> "DashboardHost":
        return self.app  # type: ignore[return-value]

    def commands(self) -> list[tuple[str, Callable[[], object], str]]:
        app = self.prime
        out: list[tuple[str, Callable[[], object], str]] = [
            ("Go to Runs", partial(app.action_show, "runs"), "every run, newest first"),
            ("Go to Volumes", partial(app.action_show, "volumes"), "volumes and their sessions"),
            ("Go to Models", partial(app.action_show, "models"), "model cache and capacity"),
            ("New config / open editor", app.action_open_editor, "write an sft.toml and dispatch it"),
            ("Help: keys", app.action_help, "every key on this screen"),
            ("Refresh now", app.action_refresh, "poll the platform right away"),
            ("Show open shells", app.action_shells, "the volume shell tabs"),
            (
                "Switch account: personal or a team",
                app.action_switch_team,
                f"now: {app.team_label}; written back as `prime switch` does",
            ),
        ]
        for run in app.state.runs:
            run_id = run.id
            name = run.name or ""
            status = run_status(run)
            label = f"{name} {run_id}".strip()
            out.append((f"Open run {label} ({status})", partial(app.open_run, run_id), run_model(run)))
            if run_id in app.state.watched:
                out.append((f"Stop watching run {label}", partial(app.toggle_watch, run_id), "no more toasts for it"))
            else:
                out.append((f"Watch run {label}", partial(app.toggle_watch, run_id), "toast + bell on status change"))
            out.append((f"Copy run id {run_id}", partial(app.copy_text, run_id, "run id"), label))
            for action in sorted(actions_for(run) - {"copy_id", "copy_path"}):
                out.append(
                    (
                        f"{action.capitalize()} run {label}",
                        partial(app.act_on_run, run_id, action),
                        f"currently {status}",
                    )
                )
        for volume in app.state.volumes:
            name = volume.name
            out.append((f"Open volume {name}", partial(app.open_volume, name), volume.size or ""))
            out.append(
                (
                    f"Open read-write session on {name}",
                    partial(app.volume_action, name, "open_rw"),
                    "blocks dispatch while live",
                )
            )
            out.append((f"Open read-only session on {name}", partial(app.volume_action, name, "open_ro"), ""))
            out.append((f"Delete volume {name}", partial(app.volume_action, name, "delete"), "asks first"))
        # The palette parses prompt and help as markup: outside names are cleaned, then escaped.
        return [(escape(clean(text)), callback, escape(clean(help_text))) for text, callback, help_text in out]

    async def discover(self) -> Hits:
        for text, callback, help_text in self.commands()[:12]:
            yield DiscoveryHit(text, callback, help=help_text)

    def _listed(self) -> list[tuple[str, Callable[[], object], str]]:
        # Built again only when the lists behind it change: with thousands of runs, once per key would be seconds.
        state = self.prime.state
        key = (len(state.runs), len(state.volumes), frozenset(state.watched))
        kept = getattr(self, "_listed_commands", None)
        if kept is None or kept[0] is not state.runs or kept[1] is not state.volumes or kept[2] != key:
            kept = self._listed_commands = (state.runs, state.volumes, key, self.commands())
        return kept[3]

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, callback, help_text in self._listed():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), callback, help=help_text)
