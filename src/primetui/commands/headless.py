"""``primetui runs --once [--json]`` and ``primetui run ID --once [--json]``: what the screens show, printed.

For scripts, cron and agents. No textual or rich import: the same view model
(:mod:`primetui.viewmodel.run_rows` and its neighbours) as the screens, formatted as a plain table or JSON.
Exit codes (:mod:`primetui.commands.exits`): 0 ok, 1 platform error (one sentence on stderr), 2 the
headless deadline passed, 78 configuration problem (no key, or a setting that cannot work: one
sentence naming it and where it was set), 70 a bug.
Text output goes through the one neutraliser (``clean``/``clean_block``: controls shown as symbols, never sent);
``--json`` is exact, since ``json.dump`` escapes every control character.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Sequence, TextIO

from primetui.api.boundary import gather_bounded
from primetui.api.plainrun import PlainRun, PlainRunPage

from primetui.monitor_core.cells import table as cell_table
from primetui.monitor_core.escapes import clean, clean_block
from primetui.monitor_core.rl_metrics import REWARD, normalise
from primetui.viewmodel import run_columns
from primetui.viewmodel.checkpoints import checkpoint_command
from primetui.viewmodel.fmt import DASH, fmt_bytes, sparkline
from primetui.viewmodel.progress import RunProgress
from primetui.viewmodel.run_rows import RunRow, run_detail, run_row
from primetui.viewmodel.statuses import TERMINAL_RUN_STATUSES
from primetui.viewmodel.rl_summary import RLLogState, rl_summary, summary_lines
from primetui.monitor_core.numbers import fmt_loss_json

if TYPE_CHECKING:
    from primetui.api.models import RLCheckpoint, RLRun, RLRunPage

RUN_COLUMNS = [(c.key, c.head) for c in run_columns.HEADLESS]
"""The columns of ``runs --once`` (:mod:`primetui.viewmodel.run_columns`, shared with the runs screen)."""
COLUMN_CAPS = {c.key: c.cap for c in run_columns.HEADLESS}
"""Cells a column takes at most in ``runs --once``; a longer value ends in ``…`` (``--json`` has it whole)."""


def format_table(rows: list[RunRow]) -> str:
    """Plain aligned columns, one run per line (no colour: pipes and cron want text)."""
    kinds = [row.kind for row in rows]
    columns = [c for c in run_columns.HEADLESS if c.key != "kind" or run_columns.kind_needed(kinds)]
    cells = [[run_columns.headline_label(kinds, upper=True) if c.key == "loss" else str(c.head) for c in columns]]
    for row in rows:
        cells.append([clean(c.cell(row, None)) for c in columns])
    return cell_table(cells, [c.cap for c in columns])


def format_run(detail: dict[str, Any], checkpoints: list[dict[str, Any]]) -> str:
    lines = [
        f"Run {detail['id']}" + (f"  ({detail['name']})" if detail["name"] else ""),
        "",
        f"  Status:     {detail['status']}",
        f"  Model:      {detail['model']}",
        f"  Volume:     {detail['volume']}",
        f"  Steps:      {detail['step'] if detail['step'] is not None else '-'}/{detail['max_steps'] or '-'}",
        *(
            [f"  {label + ':':<11} {text}" for label, text in summary_lines(detail["rl"])]
            if "rl" in detail
            else [f"  Loss:       {fmt_loss_json(detail['loss'], detail['loss_nonfinite'], detail['loss_step'])}"]
        ),
        f"  Elapsed:    {detail['elapsed']}   ETA: {detail['eta']}",
        f"  GPUs:       {detail['gpus']}",
        f"  Created:    {detail['lifecycle'].get('created', '-')}",
        f"  Started:    {detail['lifecycle'].get('started', '-')}",
    ]
    for key in ("completed", "failed", "stopped", "paused"):
        if key in detail["lifecycle"]:
            lines.append(f"  {key.capitalize() + ':':<11} {detail['lifecycle'][key]}")
    if detail["runs_ahead"] is not None or detail["queue_reason"]:
        lines.append(
            f"  Queue:      {detail['runs_ahead'] if detail['runs_ahead'] is not None else '?'} ahead  "
            f"{detail['queue_reason'] or ''}".rstrip()
        )
    if detail["error"]:
        lines.append(f"  Error:      {detail['error']}")
    fa = detail.get("failure_analysis")
    if fa:
        lines.append(f"  Failure analysis: {fa.get('rootCause') or fa.get('root_cause') or '-'}")
        for ev in fa.get("evidence") or []:
            lines.append(f"    - {ev}")
    if detail["losses"]:
        lines.append(f"  Loss curve: {sparkline(detail['losses'], 40)}")
    rewards = (detail.get("series") or {}).get(REWARD, {}).get("values") if "rl" in detail else None
    if rewards:
        lines.append(f"  Reward curve: {sparkline([v for v in rewards if v is not None], 40)}")
    lines.append(f"  Actions:    {', '.join(detail['actions']) or 'none'}")
    if "anomalies" in detail:
        from primetui.commands import diagnose

        lines += diagnose.format_anomalies(detail["anomalies"])
        chart = diagnose.loss_chart(detail)
        if chart:
            lines += ["", chart]
    if checkpoints:
        lines += ["", "  Checkpoints:"]
        for ck in checkpoints:
            lines.append(f"    step {ck['step']:<6} {ck['status']:<10} {ck['size']:>10}   {ck['command']}")
    return "\n".join(lines)


def _settings(local: bool) -> Any:
    """The platform settings (the local platform's with ``local``); raises ``SettingsMistake`` for one that cannot
    work."""
    from primetui.config.mistakes import first_mistake
    from primetui.config.settings import load_settings

    settings = load_settings()
    mistake = first_mistake(settings, local=local)
    if mistake is not None:
        raise mistake
    if local:
        from primetui.local.launcher import ensure_running, local_team

        base_url, token = ensure_running(demo=True)[:2]
        import dataclasses

        team = local_team(getattr(settings, "team_id", None))
        if dataclasses.is_dataclass(settings):
            return dataclasses.replace(
                settings, base_url=base_url, api_key=token, team_id=team, team_name=settings.team_name if team else None
            )
        settings.base_url, settings.api_key = base_url, token
    return settings


async def _metrics(client: Any, run_id: str, notes: list[str] | None = None) -> RunProgress:
    from primetui.viewmodel.run_data import fetch_metric_rows

    return RunProgress.from_metric_rows(await fetch_metric_rows(client, run_id, notes))


def reply_notes(reply: Any, notes: list[str] | None) -> None:
    if notes is not None:
        notes.extend(getattr(reply, "notes", ()))


async def collect_runs(
    client: Any, now: datetime, page: int = 1, limit: int = 20, notes: list[str] | None = None
) -> tuple[list[RunRow], dict[str, Any]]:
    reply: RLRunPage | PlainRunPage = await client.list_runs(page=page, limit=limit)
    reply_notes(reply, notes)
    runs: Sequence[RLRun | PlainRun] = reply.runs
    progress = await gather_bounded([partial(_metrics, client, r.id, notes) for r in runs])
    rows = [run_row(r, p, now) for r, p in zip(runs, progress)]
    meta = {
        "total": reply.total,
        "page": reply.page if reply.page is not None else page,
        "total_pages": reply.total_pages,
    }
    return rows, meta


async def collect_run(
    client: Any, run_id: str, now: datetime, notes: list[str] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    from primetui.viewmodel import run_data

    run: RLRun = await client.get_run(run_id)
    progress = await _metrics(client, run_id, notes)
    logs = await run_data.fetch_logs(client, run)
    progress.note_log_lines(run_data.trainer_lines(logs))  # a final "Loss nan" line the metrics lack
    detail = run_detail(run, progress, now)
    try:
        cks: list[RLCheckpoint] = list(await client.list_checkpoints(run_id))
    except Exception:  # noqa: BLE001 - a run without checkpoints still prints
        cks = []
    volume = detail["volume"] if detail["volume"] != DASH else None
    checkpoints = [
        {
            "step": c.step,
            "status": c.status,
            "size_bytes": c.size_bytes,
            "size": fmt_bytes(c.size_bytes),
            "command": checkpoint_command(volume, run_id, c.step),
        }
        for c in sorted(cks, key=lambda c: c.step)
    ]
    detail["config"] = run.run_config
    detail["terminal"] = detail["status"] in TERMINAL_RUN_STATUSES
    from primetui.commands import diagnose

    rows = list(progress.rows.values())
    detail["anomalies"] = [a.to_json() for a in await diagnose.run_anomalies(client, run, rows, now.timestamp(), logs)]
    detail["series"] = diagnose.series(rows, ["loss/mean"])
    if detail["kind"] == "rl":
        log_state = RLLogState()
        for key, texts in logs.items():
            log_state.add(key, texts)
        detail["rl"] = rl_summary(run, progress, log_state)
        detail["series"] = diagnose.series([normalise(r) for r in rows], [REWARD])
    return detail, checkpoints


async def _main(args: Any, out: TextIO, notes: list[str]) -> int:
    from primetui.commands.launch import make_client

    settings = _settings(bool(getattr(args, "local", False)))
    if not getattr(settings, "api_key", ""):
        print("No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.", file=sys.stderr)
        from primetui.commands.exits import EXIT_CONFIG

        return EXIT_CONFIG
    now = datetime.now(timezone.utc)
    client = make_client(settings)
    try:
        if args.command == "runs":
            rows, meta = await collect_runs(client, now, notes=notes)
            if args.json:
                json.dump({"runs": [r.to_json() for r in rows], **meta}, out, indent=2)
                out.write("\n")
            else:
                out.write(clean_block(format_table(rows)) + "\n")
                if meta.get("total_pages") and meta["total_pages"] > 1:
                    out.write(f"page {meta['page']} of {meta['total_pages']} ({meta['total']} runs)\n")
        else:
            detail, checkpoints = await collect_run(client, args.run_id, now, notes)
            if args.json:
                json.dump({**detail, "checkpoints": checkpoints}, out, indent=2)
                out.write("\n")
            else:
                out.write(clean_block(format_run(detail, checkpoints)) + "\n")
    finally:
        close = getattr(client, "aclose", None)
        if close:
            await close()
    return 0


def main(args: Any, out: TextIO | None = None) -> int:
    """Run once, print, exit. Platform errors become one sentence on stderr and exit code 1."""
    notes: list[str] = []
    return run_guarded(lambda: _main(args, out or sys.stdout, notes), notes, f"primetui {args.command} --once")


def run_guarded(main: Callable[[], Awaitable[int]], notes: list[str], context: str) -> int:
    """Run a headless command under its overall deadline; every failure becomes one line on stderr.

    Exit codes: the command's own, 1 for a platform problem, 2 for the deadline, 78 for a setting that
    cannot work (``primetui.config.mistakes``: one sentence naming it and its source, never called
    a bug), 130 for ctrl+c, and ``EXIT_CRASH`` (70) for a bug, whose report file (secrets redacted)
    is named on stderr. Notes from the wire boundary (rows dropped, a page cut) go to stderr after the output.
    """
    from primetui.api.boundary import HEADLESS_DEADLINE, seconds
    from primetui.config.mistakes import SettingsMistake, env_mistake

    mistake = env_mistake()
    if mistake is not None:
        return _mistaken(mistake)
    limit = seconds(HEADLESS_DEADLINE, "PRIMETUI_HEADLESS_DEADLINE")

    async def bounded() -> int:
        async with asyncio.timeout(limit):
            return await main()

    try:
        code = asyncio.run(bounded())
    except KeyboardInterrupt:
        return 130
    except TimeoutError:
        from primetui.commands.exits import EXIT_TIMEOUT

        _fail(f"gave up after {limit:g} s: the platform did not finish answering; check your network and retry.")
        code = EXIT_TIMEOUT
    except SettingsMistake as exc:
        code = _mistaken(exc)
    except Exception as exc:  # noqa: BLE001 - sorted below: platform problem or bug
        code = _failure(exc, context)
    for note in dict.fromkeys(notes):
        print(f"primetui: note: {clean(note)}", file=sys.stderr)
    return code


def _fail(sentence: str) -> int:
    print(f"primetui: {clean(sentence)}", file=sys.stderr)
    return 1


def _mistaken(mistake: Exception) -> int:
    """A setting that cannot work: its one sentence on stderr, exit 78 (a mistake, not a bug)."""
    from primetui.config.mistakes import EXIT_MISTAKE

    print(f"primetui: {clean(str(mistake))}", file=sys.stderr)
    return EXIT_MISTAKE


def _failure(exc: Exception, context: str) -> int:
    from primetui.api.errors import BadSettingError, PrimeAPIError

    if isinstance(exc, BadSettingError):
        return _mistaken(exc)
    if isinstance(exc, (PrimeAPIError, OSError)):
        from primetui.viewmodel.errors import describe

        return _fail(describe(exc))
    from primetui.config import crash

    path = crash.write_report(exc, context=context)  # it redacts the key in use and every hook itself
    print(clean(crash.crash_sentence(path)), file=sys.stderr)
    return crash.EXIT_CRASH
