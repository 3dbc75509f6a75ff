"""Does the put dialog slow a transfer down? Put through the dialog vs bare ``primetui.shell.put``.

Both copy the same file through the same live read-write session of a real local platform
(a ``primetui local serve`` subprocess), alternating, in the same run. The dialog's figure is the
copy alone (from its first block to "done", what it reports to the user), so the two are
comparable; its session look-up and connect are reported separately.

    uv run python -m bench.transfer_dialog [--repeat 3] [--mib 32]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncssh
import httpx
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from primetui.local.testing import LocalPlatform
from primetui.shell import open_session_connection, put
from primetui.ui.transfer import TransferScreen


def make_key(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    path.write_bytes(key.export_private_key())
    os.chmod(path, 0o600)
    Path(str(path) + ".pub").write_bytes(key.export_public_key())
    return path


class Host(App):
    def compose(self) -> ComposeResult:
        yield Static("volumes")


async def dialog_put(client, key: Path, src: Path, dest: str) -> tuple[float, float]:
    """(copy seconds as the dialog measures them, seconds from enter to the first block)."""
    app = Host()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = TransferScreen(client, "bench", "put", key_path=key, poll=0.05)
        await app.push_screen(screen)
        screen.query_one("#transfer-source", Input).value = str(src)
        screen.query_one("#transfer-dest", Input).value = dest
        entered = time.monotonic()
        screen.action_start()
        while screen.state == "working":
            await pilot.pause(0.01)
        done = time.monotonic()
        if screen.state != "done":
            raise SystemExit(f"dialog put failed: {screen.outcome.error}")
        return done - screen._started, screen._started - entered


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mib", type=int, default=32)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-transfer-"))
    key = make_key(tmp / "home" / ".ssh" / "id_ed25519")
    src = tmp / "payload.bin"
    src.write_bytes(os.urandom(args.mib * 1024 * 1024))
    with LocalPlatform.start(tmp, demo=False, env={"HOME": str(tmp / "home"), "PRIME_SSH_KEY_PATH": str(key)}) as lp:
        with httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=30) as c:
            c.post("/training/volumes", json={"name": "bench", "size": "10Gi", "warm": False}).raise_for_status()
        client = lp.client()
        session = await client.create_session("bench", read_only=False)
        while session.phase != "ready":
            await asyncio.sleep(0.05)
            session = await client.get_session("bench", session.id)
        bare, ui, setup = [], [], []
        for i in range(args.repeat):
            conn = await open_session_connection(session, key)
            t = time.monotonic()
            await put(conn, src, f"bench/bare-{i}.bin")
            bare.append(time.monotonic() - t)
            await conn.close()
            copy, before = await dialog_put(client, key, src, f"bench/ui-{i}.bin")
            ui.append(copy)
            setup.append(before)
        await client.stop_session("bench", session.id)
        await client.aclose()
    mb = args.mib * 1024 * 1024 / 1e6
    b, u = statistics.median(bare), statistics.median(ui)
    print(
        f"# put of a {args.mib} MiB file through one live RW session, median of {args.repeat}; python "
        f"{sys.version.split()[0]}, {os.cpu_count()} cpus"
    )
    print("| path | seconds | MB/s | vs baseline |")
    print("|---|---:|---:|---:|")
    print(f"| bare `primetui.shell.put` (baseline) | {b:.2f} | {mb / b:.1f} | 1.00x |")
    print(f"| put dialog (progress bar, stats) | {u:.2f} | {mb / u:.1f} | {b / u:.2f}x |")
    print(
        f"\nthe dialog's session look-up + connect before the first block: median "
        f"{statistics.median(setup) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
