"""Differential test: primetui's volume path rules agree with the prime CLI 0.18.0's own code."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from primetui.shell.errors import RemotePathError
from primetui.shell.paths import remote_path

volumes = pytest.importorskip("prime_cli.commands.volumes")
typer = pytest.importorskip("typer")
rich_console = pytest.importorskip("rich.console")

# segments the CLI treats specially, names that are fine, and characters it refuses
_SEGMENT = st.one_of(
    st.sampled_from(["", ".", "..", "runs", "volume", "datasets", "a.b", "x@y%z+1=2,3:4-5_6"]),
    st.text(alphabet="abcXYZ019._@%+=,:-", min_size=1, max_size=12),
    st.text(alphabet="ab $*'\"\\;|&()<>?!é\t", min_size=1, max_size=4),
    st.text(alphabet="a", min_size=250, max_size=260),
)
_PATH = st.builds(
    lambda lead, parts, trail: ("/" if lead else "") + "/".join(parts) + ("/" if trail else ""),
    st.booleans(),
    st.lists(_SEGMENT, max_size=6),
    st.booleans(),
)


def _cli(path: str) -> str | None:
    """The CLI's normalised '/volume/...' path, or None when it refuses the path."""
    sink = rich_console.Console(file=io.StringIO())
    try:
        return volumes._remote_path(path, error_console=sink)
    except typer.Exit:
        return None


@settings(max_examples=200, deadline=None)
@given(_PATH)
def test_remote_path_matches_the_cli(path):
    expected = _cli(path)
    try:
        mine = remote_path(path)
    except RemotePathError:
        assert expected is None, f"primetui refused {path!r}, the CLI accepts it as {expected!r}"
        return
    assert expected is not None, f"the CLI refuses {path!r}, primetui accepts it"
    assert expected.rstrip("/") == mine.remote.rstrip("/") or (expected == "/volume/" and mine.rel == "")
    assert expected.endswith("/") == (mine.into and bool(mine.rel)) or mine.rel == ""
