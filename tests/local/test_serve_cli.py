"""``primetui local serve`` as a user starts it, and the launcher behind ``primetui --local``."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from primetui.local.launcher import ensure_running
from primetui.local.models_cache import ModelCache, ModelCacheError, parse_models
from primetui.local.paths import PathEscapeError, safe_join
from primetui.local.routes_volumes import parse_size
from primetui.local.testing import LocalPlatform


def serve(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "primetui", "local", "serve", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def test_banner_tells_how_to_point_the_official_cli_here(local_platform: LocalPlatform) -> None:
    out = local_platform.output()
    assert f"serving {local_platform.base_url}" in out
    assert f"export PRIME_BASE_URL={local_platform.base_url}" in out
    # Output to a file (not a terminal): the token stays out of it, the line reads the token file.
    assert local_platform.token not in out
    assert f'export PRIME_API_KEY="$(cat {local_platform.data_dir / "token"})"' in out
    assert "export PRIME_DISABLE_VERSION_CHECK=1" in out
    assert local_platform.base_url.startswith("http://127.0.0.1:")


def test_the_banner_shows_the_token_on_a_terminal(tmp_path: Path) -> None:
    from primetui.local.cli import banner

    text = banner("http://127.0.0.1:1", "local-secret", tmp_path, show_token=True)
    assert "Token: local-secret" in text and "export PRIME_API_KEY=local-secret" in text


def test_a_second_server_on_the_same_data_dir_is_refused(local_platform: LocalPlatform) -> None:
    reply = serve("--data-dir", str(local_platform.data_dir))
    assert reply.returncode == 1
    assert "already serves" in reply.stderr and str(local_platform.pid) in reply.stderr


def test_a_busy_port_is_reported_in_one_sentence(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        port = sock.getsockname()[1]
        reply = serve("--data-dir", str(tmp_path / "d"), "--port", str(port))
    assert reply.returncode == 2
    assert f"Port {port} on 127.0.0.1 is already in use" in reply.stderr and "Traceback" not in reply.stderr


def test_launcher_reuses_a_running_server(local_platform: LocalPlatform) -> None:
    assert ensure_running(local_platform.data_dir) == (local_platform.base_url, local_platform.token)


def test_launcher_starts_a_detached_server_once(tmp_path: Path) -> None:
    data_dir = tmp_path / "launched"
    base_url, token = ensure_running(data_dir, demo=True)
    pid = json.loads((data_dir / "server.json").read_text())["pid"]
    try:
        assert ensure_running(data_dir) == (base_url, token)
        reply = httpx.get(base_url + "/api/v1/training/volumes", headers={"Authorization": f"Bearer {token}"})
        assert [v["name"] for v in reply.json()["volumes"]] == ["research"]
    finally:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 30
        while (data_dir / "server.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert not (data_dir / "server.json").exists()


def test_safe_join_keeps_paths_inside(tmp_path: Path) -> None:
    root = tmp_path / "vol"
    (root / "datasets").mkdir(parents=True)
    assert safe_join(root, "datasets/x") == root / "datasets" / "x"
    assert safe_join(root, "/datasets/../datasets/x/") == root / "datasets" / "x"
    assert safe_join(root, "") == root
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    (root / "inner").symlink_to(root / "datasets")
    assert safe_join(root, "inner/file") == root / "datasets" / "file"  # a link inside is followed to its place
    for bad in ("..", "../x", "datasets/../../x", "link", "link/deeper/file", "a\x00b"):
        with pytest.raises(PathEscapeError):
            safe_join(root, bad)


def test_sizes() -> None:
    assert parse_size("100Gi") == 100 * 1024**3 and parse_size("5Ti") == 5 * 1024**4
    for bad in ("", "100", "1.5Gi", "0Gi", "10GB", "Gi"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_model_cache_defaults_and_errors(tmp_path: Path) -> None:
    cache = ModelCache(tmp_path / "models.toml")
    names = [m.name for m in cache.models()]
    assert names[0] == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
    assert "stand-in" in cache.get(names[0]).standin_summary()
    bad = tmp_path / "bad.toml"
    for text, needle in (
        ("[[models]\n", "not valid TOML"),
        ("[[models]]\nname = 3\n", "`name` must be"),
        ('[[models]]\nname = "a"\n[models.standin]\nhidden = -1\n', "positive integer"),
        ("models = 1\n", "array of tables"),
    ):
        bad.write_text(text)
        with pytest.raises(ModelCacheError, match=needle):
            parse_models(bad)


def test_an_unreadable_state_database_is_reported_not_overwritten(tmp_path: Path) -> None:
    data_dir = tmp_path / "d"
    data_dir.mkdir()
    (data_dir / "state.sqlite3").write_bytes(b"this is not a database" * 100)
    reply = serve("--data-dir", str(data_dir))
    assert reply.returncode == 2
    assert "cannot be read" in reply.stderr and "move it aside" in reply.stderr and "Traceback" not in reply.stderr
    assert (data_dir / "state.sqlite3").read_bytes().startswith(b"this is not a database")


def test_data_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from primetui.local.paths import DATA_DIR_ENV, default_data_dir, resolve_data_dir

    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    assert resolve_data_dir(None) == default_data_dir().resolve()
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path / "from-env"))
    assert resolve_data_dir(None) == tmp_path / "from-env"
    assert resolve_data_dir(tmp_path / "flag") == tmp_path / "flag"


def test_the_banner_names_the_command_that_creates_the_ssh_key(tmp_path: Path) -> None:
    from primetui.local.cli import SSH_KEYGEN, banner, ssh_key_line

    missing = banner("http://127.0.0.1:1", "t", tmp_path, show_token=True, ssh_line=ssh_key_line(tmp_path / "id_rsa"))
    assert f"no key at {tmp_path / 'id_rsa'}" in missing and SSH_KEYGEN in missing
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "rsa", "-b", "2048", "-N", "", "-f", str(tmp_path / "id_rsa")], check=True
    )
    assert "is accepted" in ssh_key_line(tmp_path / "id_rsa")
