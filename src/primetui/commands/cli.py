"""Entry points: ``primetui``, ``primetui local serve``, ``primetui validate``, ``primetui edit``,
``primetui runs``, ``primetui run``, ``primetui serve``, ``primetui wait`` and ``primetui dispatch``.

Every subcommand imports its implementation lazily, so ``primetui validate`` or the headless
commands never pay for the UI toolkit.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="primetui",
        description="Terminal dashboard for Prime Intellect hosted SFT training.",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="start the embedded local platform in the background (with demo data) and open the dashboard on it",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--on-event", metavar="CMD", default=None,
                        help="run CMD for each event of a watched run, with the event as JSON on stdin (docs/ops.md)")
    sub = parser.add_subparsers(dest="command")

    local = sub.add_parser("local", help="the embedded local platform")
    local_sub = local.add_subparsers(dest="local_command", required=True)
    serve = local_sub.add_parser("serve", help="serve the Prime-compatible HTTP API on 127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="port to bind (default: a free port)")
    serve.add_argument("--data-dir", default=None, help="where state lives (default: the user data dir; env PRIMETUI_LOCAL_DATA_DIR)")
    serve.add_argument("--demo", action="store_true", help="seed the demo volume and config on first start")
    serve.add_argument("--ready-file", default=None, help="write a JSON file with base_url and token once serving (for supervisors and tests)")
    serve.add_argument("--faithful", default=None, metavar="BOOL",
                       help="serve logs through the hosted windows: a 200-line snapshot for plain fetches, the "
                            "search backend (up to 5000 lines) for search/level/since (default true; false: "
                            "whole logs, for debugging; env PRIMETUI_LOCAL_FAITHFUL)")
    serve.add_argument("--rate-limit", type=int, default=None, metavar="N",
                       help="answer 429 with Retry-After past N API requests per minute per key "
                            "(default: no limit; env PRIMETUI_LOCAL_RATE_LIMIT)")
    serve.add_argument("--session-idle-timeout", type=float, default=None, metavar="SECONDS",
                       help="stop volume sessions after this long without an SSH connection "
                            "(default 1800; env PRIMETUI_SESSION_IDLE_TIMEOUT)")
    serve.add_argument("--chart-version", default=None, metavar="X.Y.Z",
                       help="the prime-rl-fft chart version the local cluster reports; below 0.24.0 online evals "
                            "are rejected at dispatch (default 0.24.0; env PRIMETUI_LOCAL_CHART_VERSION)")

    validate = sub.add_parser("validate", help="validate sft.toml files: file:line:col: level: message")
    validate.add_argument("files", nargs="+", help="TOML files to check (- reads standard input)")
    validate.add_argument("--json", action="store_true", help="machine-readable output")
    validate.add_argument("--offline", action="store_true", help="do not ask the platform for its model cache")

    sub.add_parser("schema", help="print the JSON Schema (draft 2020-12) of sft.toml, for taplo and other editors")
    lsp = sub.add_parser("lsp", help="run the sft.toml language server on stdio (diagnostics, hover, completion, fixes)")
    lsp.add_argument("--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport")

    edit = sub.add_parser("edit", help="open an sft.toml in the config editor")
    edit.add_argument("file", help="the file to open or create")
    edit.add_argument("--local", action="store_true", help="use the embedded local platform")

    runs = sub.add_parser("runs", help="list runs (headless with --once)")
    runs.add_argument("--once", action="store_true", help="print once and exit instead of opening the dashboard")
    runs.add_argument("--json", action="store_true", help="JSON output (with --once)")
    runs.add_argument("--local", action="store_true", help="use the embedded local platform")

    run = sub.add_parser("run", help="show one run (headless with --once)")
    run.add_argument("run_id")
    run.add_argument("--once", action="store_true", help="print once and exit instead of opening the dashboard")
    run.add_argument("--json", action="store_true", help="JSON output (with --once)")
    run.add_argument("--local", action="store_true", help="use the embedded local platform")

    compare = sub.add_parser("compare", help="compare runs (or sft.toml files with --config): summary, config diff, curves")
    compare.add_argument("targets", nargs="+", metavar="RUN", help="two or more run ids (files with --config)")
    compare.add_argument("--config", action="store_true", help="the targets are sft.toml files: diff them before dispatch")
    compare.add_argument("--once", action="store_true", help="print once and exit (the compare screen opens from the runs list: space marks, C compares)")
    compare.add_argument("--json", action="store_true", help="JSON output")
    compare.add_argument("--local", action="store_true", help="use the embedded local platform")
    _add_ops_commands(sub)
    return parser


WAIT_EXIT_CODES = """exit codes:
  0    every run COMPLETED (dispatch without --wait: the run was dispatched)
  1    a run FAILED, STOPPED or PAUSED, or cannot be followed (unknown id, access refused)
  2    --timeout passed first; it counts from the command's start (the runs go on)
  3    nothing was asked or dispatched: no API key, an unreadable file, a setting
       that cannot work (named with its source), a failed pre-flight, the platform
       refused the run
  4    every run ended, but one COMPLETED with a NaN final loss or an error-level
       anomaly (NaN, traceback, OOM, NCCL, CUDA, a component that exited)
  130  interrupted by SIGINT (Ctrl-C): the runs go on
  143  ended by SIGTERM (a CI job cancelled): the runs go on
With --json the last line is always {"event": "done", "status": ..., "exit": N}."""


def _add_ops_commands(sub: argparse._SubParsersAction) -> None:
    """``serve``, ``wait`` and ``dispatch`` (docs/ops.md)."""
    serve = sub.add_parser("serve", help="serve the dashboard to a browser (textual-serve), behind a token")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="port to bind (default: a free port)")
    serve.add_argument("--local", action="store_true", help="serve the dashboard on the embedded local platform")
    serve.add_argument("--allow-remote", action="store_true", help="allow a --host that is not loopback, and Host names other than localhost, 127.0.0.1 and [::1] (prints a warning)")
    serve.add_argument("--no-spare", action="store_true", help="start each tab's app when the tab opens, instead of keeping one ready (one idle process less; each new tab waits for Python's imports)")

    wait = sub.add_parser("wait", help="follow runs until they end; exit 0 all COMPLETED, 1 FAILED/STOPPED, 2 timeout, 3 setup, 4 NaN/anomaly",
                          epilog=WAIT_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    wait.add_argument("run_ids", nargs="+", metavar="ID")
    wait.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="give up this long after the command started (exit 2)")
    wait.add_argument("--json", action="store_true", help="one JSON object per line instead of text")
    wait.add_argument("--interval", type=float, default=3.0, metavar="SECONDS", help="seconds between polls (default 3)")
    wait.add_argument("--local", action="store_true", help="use the embedded local platform")
    wait.add_argument("--on-event", metavar="CMD", default=None, help="run CMD with each status change as JSON on stdin")

    dispatch = sub.add_parser("dispatch", help="pre-flight and dispatch an sft.toml; prints the run id",
                              epilog=WAIT_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    dispatch.add_argument("file", help="the sft.toml to dispatch")
    dispatch.add_argument("--volume", required=True, help="the volume the run uses")
    dispatch.add_argument("--name", default=None, help="the run's name on the platform (wins over a top-level `name` in the file)")
    _add_wait_options(dispatch, "then wait like `primetui wait` (same exit codes)")
    _add_sweep_command(sub)


def _add_wait_options(parser: argparse.ArgumentParser, wait_help: str) -> None:
    """The options ``dispatch`` and ``sweep`` share: --wait and what it takes, --json, --local."""
    parser.add_argument("--wait", action="store_true", help=wait_help)
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="with --wait: give up this long after the command started (exit 2)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--interval", type=float, default=3.0, metavar="SECONDS", help=argparse.SUPPRESS)
    parser.add_argument("--local", action="store_true", help="use the embedded local platform")
    parser.add_argument("--on-event", metavar="CMD", default=None, help="with --wait: run CMD with each status change as JSON on stdin")


def _add_sweep_command(sub: argparse._SubParsersAction) -> None:
    """``sweep`` (docs/ops.md): ``dispatch`` over a grid of values."""
    from primetui.sft.sweep import MAX_RUNS

    sweep = sub.add_parser("sweep", help="dispatch one run per point of a grid of --set values (all or none)",
                           epilog=WAIT_EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sweep.add_argument("file", help="the sft.toml every run starts from")
    sweep.add_argument("--volume", required=True, help="the volume the runs use")
    sweep.add_argument("--set", action="append", metavar="KEY=V1,V2", required=True,
                       help="a dotted TOML key and its values (TOML, comma-separated); repeat for a grid "
                            f"(at most {MAX_RUNS} runs)")
    sweep.add_argument("--name", default=None, metavar="PREFIX",
                       help="runs are named PREFIX-key=value-… (default: the file's name, else its stem)")
    _add_wait_options(sweep, "then wait for every run like `primetui wait`")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.version:
        from primetui import __version__

        print(f"primetui {__version__}")
        return 0
    if args.command == "local" or getattr(args, "local", False):
        from primetui.local.extra import missing_sentence

        absent = missing_sentence()
        if absent:  # the base install: say what to add, rather than fail deep in an import
            print(f"primetui: {absent}", file=sys.stderr)
            return 2
    if args.command == "local":
        from primetui.local.cli import serve

        if getattr(args, "session_idle_timeout", None):  # read by primetui.local.sessions at start
            import os

            os.environ["PRIMETUI_SESSION_IDLE_TIMEOUT"] = str(args.session_idle_timeout)

        return serve(args)
    if args.command == "schema":
        from primetui.sft.schema_export import main as print_schema

        return print_schema()
    if args.command == "lsp":
        from primetui.commands.lsp import serve_stdio

        return serve_stdio()
    if args.command == "validate":
        from primetui.commands.validate import validate

        return validate(args)
    if args.command == "compare":
        from primetui.commands import compare

        return compare.main(args)
    if args.command == "serve":
        from primetui.commands.serve import serve as serve_dashboard

        return serve_dashboard(args)
    if args.command in ("wait", "dispatch", "sweep"):
        from primetui.commands import waiting

        return waiting.main(args)
    if args.command in ("runs", "run") and args.once:
        from primetui.commands import headless

        return headless.main(args)
    from primetui.commands.launch import run_app

    return run_app(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
