"""Entry points: ``primetui``, ``primetui local serve``, ``primetui validate``, ``primetui edit``,
``primetui runs``, ``primetui run``, ``primetui transfers``, ``primetui serve``, ``primetui wait`` and
``primetui dispatch``.

Every subcommand imports its implementation lazily, so ``primetui validate`` or the headless
commands never pay for the UI toolkit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
from collections.abc import Sequence

from primetui.commands.exits import EXIT_CONFIG, EXIT_USAGE

HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class UsageError(Exception):
    """A command line that cannot be used: argparse's sentence, turned into exit 64 by :func:`main`."""

    def __init__(self, prog: str, usage: str, message: str) -> None:
        super().__init__(message)
        self.prog, self.usage, self.message = prog, usage, message


class Parser(argparse.ArgumentParser):
    """argparse with its own exit code for usage errors (64, not the 2 that is ``wait``'s timeout)."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(self.prog, self.format_usage(), message)


def seconds(text: str) -> float:
    """A positive, finite number of seconds (``--timeout``, ``--interval``): -1, nan and inf are refused."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive, finite number of seconds")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="primetui",
        description="Terminal dashboard for Prime Intellect hosted SFT training.",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="start the embedded local platform in the background (with demo data) and open the dashboard on it",
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--on-event",
        metavar="CMD",
        default=None,
        help="run CMD for each event of a watched run, with the event as JSON on stdin (docs/ops.md)",
    )
    sub = parser.add_subparsers(dest="command")

    local = sub.add_parser("local", help="the embedded local platform")
    local_sub = local.add_subparsers(dest="local_command", required=True)
    serve = local_sub.add_parser("serve", help="serve the Prime-compatible HTTP API on 127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="port to bind (default: a free port)")
    serve.add_argument(
        "--data-dir", default=None, help="where state lives (default: the user data dir; env PRIMETUI_LOCAL_DATA_DIR)"
    )
    serve.add_argument("--demo", action="store_true", help="seed the demo volume and config on first start")
    serve.add_argument(
        "--ready-file",
        default=None,
        help="write a JSON file with base_url and token once serving (for supervisors and tests)",
    )
    serve.add_argument(
        "--log-file",
        default=None,
        metavar="PATH",
        help="write the server's output to PATH, rotated at 8 MiB with 2 older files kept "
        "(the launcher uses <data_dir>/server.log)",
    )
    serve.add_argument(
        "--faithful",
        default=None,
        metavar="BOOL",
        help="serve logs through the hosted windows: a 200-line snapshot for plain fetches, the "
        "search backend (up to 5000 lines) for search/level/since (default true; false: "
        "whole logs, for debugging; env PRIMETUI_LOCAL_FAITHFUL)",
    )
    serve.add_argument(
        "--rate-limit",
        type=int,
        default=None,
        metavar="N",
        help="answer 429 with Retry-After past N API requests per minute per key "
        "(default: no limit; env PRIMETUI_LOCAL_RATE_LIMIT)",
    )
    serve.add_argument(
        "--allow-private-endpoints",
        action="store_true",
        help="let S3 imports and exports reach loopback, link-local and private addresses "
        "(a MinIO on this machine; refused by default, docs/security.md)",
    )
    serve.add_argument(
        "--session-idle-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop volume sessions after this long without an SSH connection "
        "(default 1800; env PRIMETUI_SESSION_IDLE_TIMEOUT)",
    )
    serve.add_argument(
        "--chart-version",
        default=None,
        metavar="X.Y.Z",
        help="the prime-rl-fft chart version the local cluster reports; below 0.24.0 online evals "
        "are rejected at dispatch (default 0.24.0; env PRIMETUI_LOCAL_CHART_VERSION)",
    )

    validate = sub.add_parser("validate", help="validate sft.toml and rl.toml files: file:line:col: level: message")
    validate.add_argument("files", nargs="+", help="TOML files to check (- reads standard input)")
    validate.add_argument("--json", action="store_true", help="machine-readable output")
    validate.add_argument("--offline", action="store_true", help="do not ask the platform for its model cache")
    validate.add_argument("--local", action="store_true", help="ask the embedded local platform for its model cache")

    schema = sub.add_parser(
        "schema", help="print the JSON Schema (draft 2020-12) of sft.toml (or rl.toml), for taplo and other editors"
    )
    schema.add_argument("--rl", action="store_true", help="the schema of an rl.toml (prime-rl's RLConfig)")
    lsp = sub.add_parser(
        "lsp", help="run the sft.toml / rl.toml language server on stdio (diagnostics, hover, completion, fixes)"
    )
    lsp.add_argument(
        "--stdio", action="store_true", help="accepted for editors that pass it; stdio is the only transport"
    )

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

    _add_rl_commands(sub)

    compare = sub.add_parser(
        "compare", help="compare runs (or sft.toml files with --config): summary, config diff, curves"
    )
    compare.add_argument("targets", nargs="+", metavar="RUN", help="two or more run ids (files with --config)")
    compare.add_argument(
        "--config", action="store_true", help="the targets are sft.toml files: diff them before dispatch"
    )
    compare.add_argument(
        "--once",
        action="store_true",
        help="print once and exit (the compare screen opens from the runs list: space marks, C compares)",
    )
    compare.add_argument("--json", action="store_true", help="JSON output")
    compare.add_argument("--local", action="store_true", help="use the embedded local platform")
    transfers = sub.add_parser("transfers", help="list a volume's S3 imports and exports (all volumes without VOLUME)")
    transfers.add_argument("volume", nargs="?", default=None, metavar="VOLUME")
    transfers.add_argument("--follow", action="store_true", help="poll until every live transfer has ended")
    transfers.add_argument("--json", action="store_true", help="JSON output (one object per change with --follow)")
    transfers.add_argument("--local", action="store_true", help="use the embedded local platform")
    _add_ops_commands(sub)
    _local_before_or_after(sub)
    return parser


def _local_before_or_after(sub: argparse._SubParsersAction) -> None:
    """``primetui --local runs --once`` is ``primetui runs --once --local``: a subcommand's own ``--local``
    leaves the one given before it standing (argparse would put its default False over it)."""
    for command in sub.choices.values():
        for action in command._actions:  # noqa: SLF001 - argparse keeps a parser's options there
            if action.dest == "local":
                action.default = argparse.SUPPRESS


WAIT_EXIT_CODES = """exit codes (the same for every primetui command):
  0    every run COMPLETED (dispatch without --wait: the run was dispatched)
  1    a run FAILED, STOPPED or PAUSED, or cannot be followed (unknown id, access refused)
  2    --timeout passed first; it counts from the command's start (the runs go on)
  3    nothing was dispatched: an unreadable file, no such volume, a failed
       pre-flight, the platform refused the run
  4    every run ended, but one COMPLETED with a NaN final loss or an error-level
       anomaly (NaN, traceback, OOM, NCCL, CUDA, a component that exited)
  64   usage: a wrong command line (--timeout must be a positive number of seconds)
  70   a bug: a crash report was written
  78   configuration: no API key, an unreadable ~/.prime/config.json, a setting
       that cannot work (named with its source)
  130  interrupted by SIGINT (Ctrl-C): the runs go on
  143  ended by SIGTERM (a CI job cancelled): the runs go on
With --json the last line is always {"event": "done", "status": ..., "exit": N}."""


def _add_rl_commands(sub: argparse._SubParsersAction) -> None:
    """``rollouts`` and ``distributions``: an RL run's samples and histograms, printed (docs/rl-rollouts.md)."""
    rollouts = sub.add_parser(
        "rollouts", help="an RL run's samples of one step, grouped by problem (default: the latest step)"
    )
    rollouts.add_argument("run_id")
    rollouts.add_argument("--step", type=int, help="the step (one of the run's steps with samples)")
    rollouts.add_argument(
        "--sort",
        choices=("reward", "advantage", "length", "spread"),
        default="reward",
        help="order of the groups and of the completions in each (high first; default reward)",
    )
    rollouts.add_argument("--json", action="store_true", help="JSON output")
    rollouts.add_argument("--local", action="store_true", help="use the embedded local platform")
    dists = sub.add_parser("distributions", help="an RL run's reward/advantage histograms at one step, with stats")
    dists.add_argument("run_id")
    dists.add_argument("--type", choices=("rewards", "advantages"), help="one histogram (default: both)")
    dists.add_argument("--step", type=int, help="the step (default: the latest with histograms)")
    dists.add_argument("--json", action="store_true", help="JSON output")
    dists.add_argument("--local", action="store_true", help="use the embedded local platform")


def _add_ops_commands(sub: argparse._SubParsersAction) -> None:
    """``serve``, ``wait`` and ``dispatch`` (docs/ops.md)."""
    serve = sub.add_parser("serve", help="serve the dashboard to a browser (textual-serve), behind a token")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=0, help="port to bind (default: a free port)")
    serve.add_argument("--local", action="store_true", help="serve the dashboard on the embedded local platform")
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host that is not loopback, and Host names other than localhost, 127.0.0.1 and [::1] (prints "
        "a warning)",
    )
    serve.add_argument(
        "--log-file",
        default=None,
        metavar="PATH",
        help="write the server's output to PATH, rotated at 8 MiB with 2 older files kept",
    )
    serve.add_argument(
        "--no-spare",
        action="store_true",
        help="start each tab's app when the tab opens, instead of keeping one ready (one idle process less; each new "
        "tab waits for Python's imports)",
    )

    wait = sub.add_parser(
        "wait",
        help="follow runs until they end; exit 0 all COMPLETED, 1 FAILED/STOPPED, 2 timeout (see --help)",
        epilog=WAIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    wait.add_argument(
        "run_ids", nargs="+", metavar="ID", help="run ids, or S3 transfers as VOLUME/ID (or a bare tr_… id)"
    )
    wait.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="give up this long after the command started (exit 2)",
    )
    wait.add_argument("--json", action="store_true", help="one JSON object per line instead of text")
    wait.add_argument(
        "--interval", type=seconds, default=3.0, metavar="SECONDS", help="seconds between polls (default 3)"
    )
    wait.add_argument("--local", action="store_true", help="use the embedded local platform")
    wait.add_argument(
        "--on-event", metavar="CMD", default=None, help="run CMD with each status change as JSON on stdin"
    )

    dispatch = sub.add_parser(
        "dispatch",
        help="pre-flight and dispatch an sft.toml or rl.toml; prints the run id",
        epilog=WAIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    dispatch.add_argument("file", help="the sft.toml or rl.toml to dispatch")
    dispatch.add_argument(
        "--volume",
        default=None,
        help="the volume the run uses (an sft.toml needs one; an rl.toml may leave it out, as `prime train`)",
    )
    dispatch.add_argument(
        "--name", default=None, help="the run's name on the platform (wins over a top-level `name` in the file)"
    )
    _add_wait_options(dispatch, "then wait like `primetui wait` (same exit codes)")
    _add_sweep_command(sub)


def _add_wait_options(parser: argparse.ArgumentParser, wait_help: str) -> None:
    """The options ``dispatch`` and ``sweep`` share: --wait and what it takes, --json, --local."""
    parser.add_argument("--wait", action="store_true", help=wait_help)
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=None,
        metavar="SECONDS",
        help="with --wait: give up this long after the command started (exit 2)",
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--interval", type=seconds, default=3.0, metavar="SECONDS", help=argparse.SUPPRESS)
    parser.add_argument("--local", action="store_true", help="use the embedded local platform")
    parser.add_argument(
        "--on-event", metavar="CMD", default=None, help="with --wait: run CMD with each status change as JSON on stdin"
    )


def _add_sweep_command(sub: argparse._SubParsersAction) -> None:
    """``sweep`` (docs/ops.md): ``dispatch`` over a grid of values."""
    from primetui.sft.sweep import MAX_RUNS

    sweep = sub.add_parser(
        "sweep",
        help="dispatch one run per point of a grid of --set values (all or none)",
        epilog=WAIT_EXIT_CODES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sweep.add_argument("file", help="the sft.toml every run starts from")
    sweep.add_argument("--volume", required=True, help="the volume the runs use")
    sweep.add_argument(
        "--set",
        action="append",
        metavar="KEY=V1,V2",
        required=True,
        help=f"a dotted TOML key and its values (TOML, comma-separated); repeat for a grid (at most {MAX_RUNS} runs)",
    )
    sweep.add_argument(
        "--name",
        default=None,
        metavar="PREFIX",
        help="runs are named PREFIX-key=value-… (default: the file's name, else its stem)",
    )
    sweep.add_argument(
        "--suffix",
        action="store_true",
        help="when a run name is already taken, add -2 (-3, …) to the prefix so every name is new "
        "(without it, a taken name is a warning)",
    )
    _add_wait_options(sweep, "then wait for every run like `primetui wait`")


def _hold_signals() -> dict[int | str, object]:
    """Until a command sets up its own handling, SIGINT and SIGTERM are noted, not fatal.

    ``wait``, ``dispatch`` and ``sweep`` take the noted signal over (their stream still ends with
    ``done``); every other command gets it back as if it had arrived now. Only in the main thread.
    """
    held: dict[int | str, object] = {}
    try:
        for signum in HELD_SIGNALS:
            held[signum] = signal.signal(signum, lambda n, _f: held.setdefault("pending", n))
    except ValueError:  # not the main thread (a test calling main)
        _release(held)
        return {}
    return held


def _release(held: dict[int | str, object]) -> int | None:
    """Restore the handlers :func:`_hold_signals` replaced; the signal that came meanwhile, if any."""
    pending = held.pop("pending", None)
    for signum in [key for key in held if isinstance(key, int)]:
        signal.signal(signum, held.pop(signum))  # type: ignore[arg-type]  # a handler signal.signal returned
    return pending if isinstance(pending, int) else None  # the signal number the handler noted


def _usage(exc: UsageError, argv: Sequence[str]) -> int:
    """A usage error: argparse's usage and sentence on stderr; with --json a ``done`` record on stdout too."""
    sys.stderr.write(f"{exc.usage}{exc.prog}: error: {exc.message}\n")
    if "--json" in argv:
        print(
            json.dumps({"event": "done", "status": "USAGE", "exit": EXIT_USAGE, "error": f"{exc.prog}: {exc.message}"}),
            flush=True,
        )
    return EXIT_USAGE


def _subcommand(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of one subcommand (its own prog and usage for an error found after parsing)."""
    for action in parser._actions:  # noqa: SLF001 - argparse keeps its subcommands there
        if isinstance(action, argparse._SubParsersAction):  # noqa: SLF001
            return action.choices[name]
    raise KeyError(name)


def _is_rl_file(path: str) -> bool:
    """Whether ``path`` reads as an RL config by the CLI's rule (a file it cannot read is not one)."""
    import tomllib

    from primetui.sft.kind import schema_kind

    try:
        with open(path, "rb") as fh:
            return schema_kind(tomllib.load(fh)) == "rl"
    except (OSError, ValueError):
        return False


def main(argv: Sequence[str] | None = None) -> int:
    held = _hold_signals()
    try:
        code = _main(argv, held)
    finally:
        pending = _release(held)
    if pending is not None:
        os.kill(os.getpid(), pending)  # the command did not take it over: deliver it as it would have come
    if held.get("exit_now"):
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process at once: the exit handlers run and the output is flushed, the interpreter's teardown is skipped.

    For ``wait``, ``dispatch`` and ``sweep`` run as a process of their own: tearing down every module
    takes 0.2-0.3 s on a busy machine, which a script would otherwise wait on after the ``done`` line
    and past its ``--timeout``.
    """
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can reach it
            continue
    os._exit(code)


def _main(argv: Sequence[str] | None, held: dict[int | str, object]) -> int:
    whole_process = argv is None  # the process was started for this command (not a caller in-process)
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "dispatch" and args.volume is None and not _is_rl_file(args.file):
            _subcommand(parser, "dispatch").error(
                "the following arguments are required: --volume (an rl.toml may leave it out)"
            )
    except UsageError as exc:
        return _usage(exc, argv)
    if args.command not in ("wait", "dispatch", "sweep"):
        pending = _release(held)  # the other commands keep the default handling
        if pending is not None:
            os.kill(os.getpid(), pending)
    if args.version:
        from primetui import __version__

        print(f"primetui {__version__}")
        return 0
    if args.command == "local" or getattr(args, "local", False):
        from primetui.local.extra import missing_sentence

        absent = missing_sentence()
        if absent:  # the base install: say what to add, rather than fail deep in an import
            print(f"primetui: {absent}", file=sys.stderr)
            return EXIT_CONFIG
    if args.command == "local":
        from primetui.local.cli import serve

        if getattr(args, "session_idle_timeout", None):  # read by primetui.local.sessions at start
            os.environ["PRIMETUI_SESSION_IDLE_TIMEOUT"] = str(args.session_idle_timeout)

        return serve(args)
    if args.command == "schema":
        from primetui.sft.schema_export import main as print_schema

        return print_schema("rl" if args.rl else "sft")
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

        # Held until waiting's own handlers are in: a signal noted so far (or meanwhile) is its to report.
        # --timeout counts from the process's start when the process is this command's own.
        code = waiting.main(args, held=held, started=waiting.process_started() if whole_process else None)
        held["exit_now"] = whole_process
        return code
    if args.command in ("rollouts", "distributions"):
        from primetui.commands import rl_views

        return rl_views.main(args)
    if args.command == "transfers":
        from primetui.commands import transfers as transfer_command

        return transfer_command.main(args)
    if args.command in ("runs", "run") and args.once:
        from primetui.commands import headless

        return headless.main(args)
    from primetui.commands.launch import run_app

    return run_app(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
