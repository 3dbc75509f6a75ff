"""primetui.sft: everything about an sft.toml (schema mirror, rules, diagnostics, templates, sizing).

No textual or rich here. Heavy parts (pydantic models, tree-sitter) load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from primetui.sft.check import Report, check_text
    from primetui.sft.server import ServerVerdict, server_checks

__all__ = ["server_checks", "ServerVerdict", "check_text", "Report"]


def __getattr__(name: str) -> Any:
    if name in ("server_checks", "ServerVerdict"):
        from primetui.sft import server

        return getattr(server, name)
    if name in ("check_text", "Report"):
        from primetui.sft import check

        return getattr(check, name)
    raise AttributeError(name)
