"""Models screen: the cluster model cache and on-demand capacity (T1), empty states told apart."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import DataTable, Static

from primetui.ui.safe import SafeTable, plain
from primetui.viewmodel.model_list import model_sort_key, models_empty_reason
from primetui.ui.screens.base import DashboardScreen
from primetui.ui.widgets import tone_style
from primetui.ui.styles import tcss


class ModelsScreen(DashboardScreen):
    """Models a run can boot from, where they are cached, and what capacity costs."""

    TITLE = "Models"
    AUTO_FOCUS = "#models-table"
    poll_interval = 60.0

    models: var[Any] = var(None, init=False)
    """The model cache and capacity reply (B1), None until one came: both tables follow it, and a
    poll that brings the same reply redraws nothing."""
    CSS_PATH = tcss("models.tcss")

    def compose_body(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("Models in the cluster cache", classes="section")
            yield SafeTable(id="models-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="models-empty")
            yield Static("On-demand capacity", classes="section")
            yield SafeTable(id="capacity-table", cursor_type="row")
            yield Static(
                "Rate fixed at dispatch; billed per GPU-hour from when pods are ready. Runs may queue depending on "
                "GPU count and topology.",
                classes="caption",
            )

    def on_mount(self) -> None:
        mt = self.query_one("#models-table", DataTable)
        for key, label in (("name", "Model"), ("clusters", "Clusters"), ("gpus", "GPU types")):
            mt.add_column(label, key=key)
        ct = self.query_one("#capacity-table", DataTable)
        for key, label in (("gpu", "GPU type"), ("price", "$/GPU-hr"), ("capacity", "Capacity"), ("note", "")):
            ct.add_column(label, key=key)
        self.set_reactive(ModelsScreen.models, self.prime.state.models)  # read before, by another Models screen
        self.render_models()  # the first frame
        super().on_mount()

    # The model cache and capacity (B1), a shared resource of the client's FollowerHub.
    def subscribe(self) -> list[Any]:
        return [
            self.hub.resource(
                ("models",), self.client.list_models, self.sink(self.on_models), interval=self.interval_for()
            )
        ]

    def on_models(self, result: Any) -> None:
        if not self.alive:
            return
        if not result.ok:
            self.failed(result.error)  # ``load_error``: the empty line says why nothing is listed
            return
        self.ok()
        self.prime.state.models = self.models = result.value

    def watch_models(self) -> None:
        self.render_models()

    def render_screen(self) -> None:
        self.render_models()

    def render_models(self) -> None:
        if not self.alive:
            return
        reply = self.models
        mt = self.query_one("#models-table", DataTable)
        ct = self.query_one("#capacity-table", DataTable)
        empty = self.query_one("#models-empty", Static)
        mt.clear()
        ct.clear()
        if reply is None:
            empty.update(plain(self.loading_text("Loading the model cache…")))
            empty.add_class("visible")
            return
        models = reply.models
        for model in sorted(models, key=lambda m: model_sort_key(m.name)):
            names = sorted({c.cluster_name for c in model.clusters})
            gpus = sorted({c.gpu_type for c in model.clusters if c.gpu_type})
            mt.add_row(model.name, ", ".join(names) or "-", ", ".join(gpus) or "-", key=model.name)
        for entry in reply.on_demand:
            note = " ".join(p for p in ("beta" if entry.is_beta else "", entry.discount_label or "") if p)
            ct.add_row(
                entry.gpu_type,
                f"${entry.price_per_gpu_hour:.2f}",
                Text("available", style=tone_style(self, "success"))
                if entry.available_now
                else Text("busy", style=tone_style(self, "warning")),
                note,
            )
        if not reply.on_demand:
            ct.add_row("-", "", "none listed", "")
        if not models:
            beta = reply.on_demand_beta_access
            empty.update(plain("No models available for Hosted Training. " + models_empty_reason(beta)))
            empty.add_class("visible")
        else:
            empty.remove_class("visible")
