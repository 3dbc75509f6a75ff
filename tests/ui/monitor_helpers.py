"""Shared helpers for the monitor's Pilot and snapshot tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import App, ComposeResult


class PaneApp(App):
    """Hosts one monitor pane, as the run screen does."""

    def __init__(self, make: Callable[[], Any]) -> None:
        super().__init__()
        self._make = make

    def compose(self) -> ComposeResult:
        yield self._make()


def screen_text(app: App) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join("".join(seg.text for seg in strip) for strip in app.screen._compositor.render_strips())


def prime_rl_lines(n: int, start: int = 1) -> list[str]:
    """Deterministic prime-rl console lines (with loguru's colour codes, as the trainer writes them)."""
    out = []
    for i in range(start, start + n):
        out.append(
            f"\x1b[2m20:35:{i % 60:02d}\x1b[0m \x1b[1m   INFO\x1b[0m Saving checkpoint at step {i}"
            if i % 5 == 0
            else f"20:35:{i % 60:02d}    INFO Initializing data (batch {i})"
        )
        out.append(
            f"20:35:{i % 60:02d} SUCCESS Step {i} |    2.4s | Loss {1.2 / (1 + i / 10):.4f} | Grad. Norm 7.4464 | "
            f"LR 2.00e-05 | Throughput 6704 tokens/s | MFU 2.9% | Peak Mem. 10.7/139.8 GiB (7.7%)"
        )
    return out
