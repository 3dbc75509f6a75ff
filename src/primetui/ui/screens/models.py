"""Models screen: the cluster model cache and on-demand capacity (T1), empty states told apart."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.reactive import var
from textual.widgets import DataTable, Static

from primetui.ui.safe import SafeTable, plain
from primetui.viewmodel import present
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
                "Rate fixed at dispatch; billed per GPU-hour from when pods are ready. Runs may queue depending on GPU count and topology.",
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
        return [self.hub.resource(("models",), self.client.list_models, self.sink(self.on_models), interval=self.interval_for())]

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
        models = present.items(reply, "models")
        for model in sorted(models, key=lambda m: present.model_sort_key(str(present.field(m, "name", default="")))):
            clusters = present.field(model, "clusters", default=[]) or []
            names = sorted({str(present.field(c, "cluster_name", "clusterName", default="?")) for c in clusters})
            gpus = sorted({str(present.field(c, "gpu_type", "gpuType")) for c in clusters if present.field(c, "gpu_type", "gpuType")})
            name = str(present.field(model, "name"))
            mt.add_row(name, ", ".join(names) or "-", ", ".join(gpus) or "-", key=name)
        on_demand = present.field(reply, "on_demand", "onDemand", default=[]) or []
        for entry in on_demand:
            available = bool(present.field(entry, "available_now", "availableNow", default=False))
            price = present.field(entry, "price_per_gpu_hour", "pricePerGpuHour")
            note = " ".join(
                p
                for p in (
                    "beta" if present.field(entry, "is_beta", "isBeta") else "",
                    str(present.field(entry, "discount_label", "discountLabel", default="") or ""),
                )
                if p
            )
            ct.add_row(
                str(present.field(entry, "gpu_type", "gpuType", default="?")),
                f"${price:.2f}" if isinstance(price, (int, float)) else "-",
                Text("available", style=tone_style(self, "success")) if available else Text("busy", style=tone_style(self, "warning")),
                note,
            )
        if not on_demand:
            ct.add_row("-", "", "none listed", "")
        if not models:
            beta = present.field(reply, "on_demand_beta_access", "onDemandBetaAccess")
            empty.update(plain("No models available for Hosted Training. " + present.models_empty_reason(beta)))
            empty.add_class("visible")
        else:
            empty.remove_class("visible")
