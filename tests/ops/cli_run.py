"""Command-line tests go through the CLI's own argument parsing: ``primetui.commands.cli.main([...])``
in this process, with the environment a user's shell would give it (the platform by PRIME_BASE_URL
and PRIME_API_KEY), so a renamed or dropped flag fails the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from primetui.commands.cli import main
from primetui.local.testing import LocalPlatform


def primetui_main(
    lp: LocalPlatform, tmp: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *argv: str
) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``primetui *argv`` against the local platform ``lp``."""
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    for key in ("PRIME_API_BASE_URL", "PRIME_CONTEXT", "PRIME_TEAM_ID"):
        monkeypatch.delenv(key, raising=False)
    for key, value in (
        ("HOME", str(home)),
        ("PRIME_API_KEY", lp.token),
        ("PRIME_BASE_URL", lp.base_url),
        ("PRIMETUI_CONFIG_DIR", str(tmp / "cfg")),
        ("PRIMETUI_LOG_DIR", str(tmp / "log")),
    ):
        monkeypatch.setenv(key, value)
    capsys.readouterr()
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse refusing the command line
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err
