"""``primetui transfers [VOLUME] [--follow] [--json]`` and the transfer half of ``primetui wait``.

``transfers`` lists the S3 imports and exports of one volume (or of every volume), newest first;
``--follow`` then polls until every live one has ended, printing a line per change (a JSON object
per change with ``--json``). ``wait`` takes a transfer as ``VOLUME/ID`` (or a bare ``tr_…`` id,
looked up on every volume) and exits like it does for runs: 0 succeeded, 1 failed or cancelled,
2 at ``--timeout``. No textual import.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import Any, TextIO

from primetui.commands.exits import EXIT_FAILED, EXIT_OK, EXIT_TIMEOUT
from primetui.monitor_core.escapes import clean
from primetui.viewmodel.transfers import format_transfers, progress_cell

FOLLOW_INTERVAL = 2.0


def is_transfer_ref(ref: str) -> bool:
    """``VOLUME/ID`` or a bare local transfer id (``tr_…``)."""
    return "/" in ref or ref.startswith("tr_")


async def _volumes(client: Any, volume: str | None) -> list[str]:
    if volume:
        return [volume]
    return [v.name for v in await client.list_volumes()]


async def collect(client: Any, volume: str | None) -> list[Any]:
    """The transfers of ``volume`` (or of every volume), newest first."""
    found: list[Any] = []
    for name in await _volumes(client, volume):
        found.extend(await client.list_volume_transfers(name))
    return sorted(found, key=lambda t: t.created_at or "", reverse=True)


def _json(t: Any) -> dict[str, Any]:
    return t.model_dump(mode="json", by_alias=True, exclude_none=True)


def _line(t: Any) -> str:
    return clean(f"{t.id} {t.volume_name}:/{t.path} {t.direction} {t.status:<10} {progress_cell(t)}")


async def follow(
    client: Any,
    transfers: list[Any],
    out: TextIO,
    as_json: bool,
    *,
    interval: float = FOLLOW_INTERVAL,
    deadline: float | None = None,
    notifier: Any = None,
) -> int:
    """Poll each live transfer (V13) until it ends; a line (or JSON object) per change. Returns the exit code."""
    shown: dict[str, str] = {}
    live = {t.id: t for t in transfers}
    worst = EXIT_OK
    while True:
        for t in list(live.values()):
            line = _line(t)
            if shown.get(t.id) != line:
                shown[t.id] = line
                out.write((json.dumps({"event": "transfer", **_json(t)}) if as_json else line) + "\n")
                out.flush()
            if t.is_terminal:
                del live[t.id]
                if t.status != "succeeded":
                    worst = EXIT_FAILED
                if notifier is not None:
                    from primetui.monitor_core.notify import RunEvent

                    notifier.emit(RunEvent.transfer_ended(t))
        if not live:
            return worst
        if deadline is not None and time.monotonic() + interval > deadline:
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
            return EXIT_TIMEOUT
        await asyncio.sleep(interval)
        for tid, t in list(live.items()):
            live[tid] = await client.get_volume_transfer(t.volume_name, tid)


async def resolve(client: Any, ref: str) -> Any:
    """The transfer named by ``VOLUME/ID`` or a bare id (searched on every volume); LookupError if none."""
    volume, _, tid = ref.rpartition("/")
    if volume:
        return await client.get_volume_transfer(volume, tid)
    for t in await collect(client, None):
        if t.id == ref:
            return t
    raise LookupError(f"Transfer '{clean(ref)}' is on no volume; list them with `primetui transfers`.")


async def wait_transfers(
    client: Any,
    refs: list[str],
    out: TextIO,
    as_json: bool,
    *,
    interval: float,
    deadline: float | None,
    notifier: Any = None,
) -> int:
    transfers = []
    for ref in refs:
        try:
            transfers.append(await resolve(client, ref))
        except LookupError as exc:
            print(f"primetui wait: {exc}", file=sys.stderr)
            return EXIT_FAILED
    return await follow(client, transfers, out, as_json, interval=interval, deadline=deadline, notifier=notifier)


async def _main(args: Any, out: TextIO, notes: list[str]) -> int:
    from primetui.commands.headless import _settings
    from primetui.commands.launch import make_client

    settings = _settings(bool(getattr(args, "local", False)))
    if not getattr(settings, "api_key", ""):
        print("No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.", file=sys.stderr)
        from primetui.commands.exits import EXIT_CONFIG

        return EXIT_CONFIG
    client = make_client(settings)
    try:
        transfers = await collect(client, args.volume)
        if args.follow:
            live = [t for t in transfers if not t.is_terminal]
            if not live:
                out.write(("" if args.json else "No live transfers.\n"))
                return EXIT_OK
            return await follow(client, live, out, args.json)
        if args.json:
            json.dump({"transfers": [_json(t) for t in transfers]}, out, indent=2)
            out.write("\n")
        else:
            out.write(format_transfers(transfers) + "\n")
        return EXIT_OK
    finally:
        await client.aclose()


def main(args: Any, out: TextIO | None = None) -> int:
    from primetui.commands.headless import run_guarded

    notes: list[str] = []
    if args.follow:  # a follow lasts as long as the transfers do: no headless deadline
        from primetui.commands.headless import _failure

        try:
            return asyncio.run(_main(args, out or sys.stdout, notes))
        except KeyboardInterrupt:
            return 130
        except Exception as exc:  # noqa: BLE001 - one sentence (or a crash report), never a traceback
            return _failure(exc, "primetui transfers --follow")
    return run_guarded(lambda: _main(args, out or sys.stdout, notes), notes, "primetui transfers")
