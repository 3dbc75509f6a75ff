"""SVG snapshots of the editor on an rl.toml: an RL error and a deferred warning inline (160x48 and 80x24)."""

from __future__ import annotations

from pathlib import Path

import pytest

from primetui.sft.templates import RL_REVERSE_TEXT
from primetui.ui.editor import EditorScreen
from tests.snapshots.test_editor_snapshots import SnapHost, _at

RL_BAD = RL_REVERSE_TEXT.replace("batch_size = 128", "batch_size = 100").replace(
    'id = "reverse-text"', 'id = "primeintellect/no-such-env"'
)
SIZES = [(160, 48), (80, 24)]


class RLSnapHost(SnapHost):
    """The snapshot host of the SFT editor snapshots, on ``rl.toml``."""

    def __init__(self, text: str, tmp: Path) -> None:
        super().__init__(text, tmp)
        (tmp / "rl.toml").write_text(text)

    def push_screen(self, screen, *args, **kwargs):  # the host opens sft.toml: open rl.toml instead
        if isinstance(screen, EditorScreen):
            screen = EditorScreen(Path("rl.toml"), drafts_root=self.tmp / "drafts")
        return super().push_screen(screen, *args, **kwargs)


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("size", SIZES, ids=["160x48", "80x24"])
def test_editor_on_an_rl_toml(snap_compare, in_tmp, size):
    line = RL_BAD.split("\n").index("batch_size = 100")
    assert snap_compare(RLSnapHost(RL_BAD, in_tmp), terminal_size=size, run_before=_at(line, 13))
