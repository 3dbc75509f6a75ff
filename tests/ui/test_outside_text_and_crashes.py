"""Issue 23 items 2, 4, 5: outside text is shown literally, a crash is never silent, commands are quoted.

- one ``notify``: a toast with ``[/]``, ``[bold]…[/bold]`` or ``[@click=…]`` shows that text;
- a metrics row with step ``1e999`` leaves the Charts tab working and says what it dropped;
- an unexpected exception writes a redacted report, tells open shells, and exits 70;
- the "Download with" line and copied paths are shell-quoted;
- zero-width and other invisible format characters are shown, and headless columns are sized
  by display width, capped with an ellipsis.
"""

from __future__ import annotations

import asyncio
import shlex

import pytest

from tests.runs import wire_run
from primetui.config.settings import Settings
from primetui.commands import headless
from primetui.monitor_core.escapes import clean
from primetui.viewmodel.checkpoints import checkpoint_command
from primetui.viewmodel.run_rows import run_row
from primetui.ui.app import PrimeApp
from tests.ui.dash_helpers import notifications
from tests.waiting import quiet, until
from tests.wire_platform import RUN_ID, Reply, WirePlatform, default_reply

MARKUP = ["Could not open /tmp/[/]x", "Saved [bold]a[/bold] to [@click=app.quit]here[/]", "[red]", "a\u200bb"]


async def test_every_toast_shows_its_text_literally():
    app = PrimeApp(None, poll_scale=0)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        for text in MARKUP:
            app.notify(text, title="[/]title")
            app.notify(text, markup=True)  # asking for markup changes nothing: outside text is never parsed
        await quiet(pilot)
        assert app.is_running
        shown = notifications(app)
    for text in MARKUP:
        assert clean(text) in shown
    assert "a\ufffdb" in shown  # the zero-width space is seen


async def test_one_notify_only():
    import ast
    import inspect

    from primetui.ui.app import PrimeApp

    # PrimeApp and its topic mixins (ui/app_*.py): one notify among them, the one every toast goes through
    mine = [k for k in PrimeApp.__mro__ if k.__module__.startswith("primetui.")]
    found = []
    for klass in mine:
        tree = ast.parse(inspect.getsource(inspect.getmodule(klass)))
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == klass.__name__)
        found += [klass.__name__ for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "notify"]
    assert len(found) == 1, found
    assert PrimeApp.notify.__module__ == "primetui.ui.app_health"


def _metrics_with_infinite_step(method: str, path: str, query: dict[str, str]) -> Reply:
    if path.endswith("/metrics"):
        return Reply.raw_json(
            '{"metrics": [{"step": 1, "time": 1767000000, "loss/mean": 2.0}, '
            '{"step": 1e999, "time": 1767000001, "loss/mean": 1.5}, '
            '{"step": 2, "time": 1767000002, "loss/mean": 1.0}]}'
        )
    return default_reply(method, path, query)


async def test_an_infinite_step_leaves_the_charts_tab_working_and_is_counted():
    from primetui.api.client import PrimeClient
    from primetui.ui.monitor.charts_pane import ChartsPane

    with WirePlatform(_metrics_with_infinite_step) as wp:
        app = PrimeApp(PrimeClient(wp.base_url, "k"), None, None, poll_scale=0.1, platform_label="wire")
        async with app.run_test(size=(160, 48), notifications=True) as pilot:
            await until(pilot, lambda: app.state.runs, what="the runs list")
            app.open_run(RUN_ID)
            await until(pilot, lambda: app.screen.query("#run-summary"), what="the run screen")
            await pilot.press("3")  # Charts
            await until(
                pilot,
                lambda: app.screen.query(ChartsPane) and "loss/mean" in app.screen.query_one(ChartsPane).charts,
                what="the loss chart",
            )
            await until(
                pilot, lambda: any("1 row ignored: non-finite step" in n for n in notifications(app)), what="the note"
            )
            await quiet(pilot)
            assert app.is_running and app.crash_report is None


async def test_a_bug_writes_a_redacted_report_and_exits_non_zero(tmp_path, monkeypatch):
    from primetui.config import crash
    from primetui.ui.crashguard import exit_code

    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path))
    monkeypatch.setenv("HF_TOKEN", "hf_secret_value_123")
    settings = Settings(api_key="pit_the_api_key_456", base_url="http://127.0.0.1:9")
    app = PrimeApp(None, settings, None, poll_scale=0)

    def boom() -> None:
        raise RuntimeError("bug with pit_the_api_key_456 and Bearer abc.def.ghi and hf_secret_value_123")

    with pytest.raises(RuntimeError):
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.call_later(boom)
            await pilot.pause()
            await pilot.pause()
    assert app.crash_report and app.crash_report.parent == tmp_path
    text = app.crash_report.read_text()
    assert "RuntimeError: bug with *** and Bearer *** and ***" in text and "Traceback" in text
    for secret in ("pit_the_api_key_456", "abc.def.ghi", "hf_secret_value_123"):
        assert secret not in text
    assert exit_code(app) == crash.EXIT_CRASH


def test_a_bug_in_a_headless_command_leaves_a_report_and_exit_70(tmp_path, monkeypatch, capsys):
    from primetui.config import crash

    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path))
    monkeypatch.setenv("PRIME_API_KEY", "pit_env_key_789")

    async def buggy() -> int:
        raise KeyError("pit_env_key_789")

    code = headless.run_guarded(buggy, ["2 rows ignored: non-finite step"], "primetui runs --once")
    err = capsys.readouterr().err
    assert code == crash.EXIT_CRASH == 70
    report = next(tmp_path.glob("crash-*.txt"))
    assert str(report) in err and "Unexpected problem" not in err
    assert "pit_env_key_789" not in report.read_text() and "KeyError" in report.read_text()
    assert "primetui: note: 2 rows ignored: non-finite step" in err


def test_a_headless_command_has_an_overall_deadline(monkeypatch, capsys):
    monkeypatch.setenv("PRIMETUI_HEADLESS_DEADLINE", "0.5")

    async def forever() -> int:
        await asyncio.sleep(60)
        return 0

    assert headless.run_guarded(forever, [], "primetui runs --once") == 2  # timed out (docs/ops.md, exit codes)
    assert "gave up after 0.5 s" in capsys.readouterr().err


@pytest.mark.parametrize("volume", ["x; rm -rf ~", "$(curl evil)", "a'b", "`id`", "v\nw"])
def test_download_lines_are_quoted_for_the_shell(volume):
    run_id = "r1 && reboot"
    line = checkpoint_command(volume, run_id, 5)
    words = shlex.split(line)
    assert words == ["prime", "volumes", "get", volume, f"runs/{run_id}/checkpoints/step_5/", "./step_5"]


def test_zero_width_and_format_characters_are_shown():
    for ch in ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad", "\U000e0041", "\u2063"):
        assert clean(f"run{ch}a") == "run\ufffda", repr(ch)
    assert clean("Ωmega 日本") == "Ωmega 日本"


def test_headless_columns_use_display_width_capped_with_an_ellipsis():
    from datetime import datetime, timezone

    now = datetime.now(timezone.utc)
    runs = [
        wire_run(id="r1", status="RUNNING", name="e" + "\u0301" * 10_000, baseModel="日本語" * 40),
        wire_run(id="r2", status="RUNNING", name="plain", baseModel="m"),
    ]
    table = headless.format_table([run_row(r, None, now) for r in runs])
    from primetui.monitor_core.cells import width

    assert max(len(line) for line in table.splitlines()) < 400
    assert max(width(line) for line in table.splitlines()) <= sum(headless.COLUMN_CAPS.values()) + 2 * len(
        headless.COLUMN_CAPS
    )
    assert "…" in table
    header, first, second = table.splitlines()
    column = width(header[: header.index("MODEL")])
    assert width(first[: first.index("日")]) == column == width(second[: second.index(" m ")]) + 1


async def test_a_bug_lets_each_open_shell_say_it_is_closing_and_hangs_it_up(tmp_path, monkeypatch):
    import os
    import shutil

    from textual.screen import Screen

    from primetui.shell.term.transport import PtyTransport
    from primetui.ui.crashguard import CLOSING
    from primetui.ui.terminal.view import TerminalView

    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is needed for a shell tab")
    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path))
    transport = PtyTransport([bash, "--norc", "--noprofile", "-i"], env={"PS1": "$ ", "HISTFILE": "/dev/null"})

    class ShellTab(Screen):
        def compose(self):
            yield TerminalView(transport, id="term")

    app = PrimeApp(None, poll_scale=0)
    with pytest.raises(RuntimeError):
        async with app.run_test(size=(100, 30)) as pilot:
            app.push_screen(ShellTab())
            view = await until(pilot, lambda: next(iter(app.screen.query(TerminalView)), None), what="the shell tab")
            await until(pilot, lambda: view.running and "$" in "\n".join(view.term.history_text()), what="the prompt")
            pid = transport.pid

            def boom() -> None:
                raise RuntimeError("bug")

            app.call_later(boom)
            await until(pilot, lambda: app.crash_report is not None, what="the crash report")
            await until(pilot, lambda: CLOSING in "\n".join(view.term.history_text()), what="the closing line")
    assert app.crash_shells == 1
    for _ in range(200):  # the hangup ends bash; wait on that, by its pid
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the shell's program was not hung up")


def test_compare_once_on_an_infinite_step_prints_and_notes_it(tmp_path, monkeypatch, capsys):
    import json

    from primetui.commands.cli import main

    for name in ("PRIME_TEAM_ID", "PRIME_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PRIMETUI_CONFIG_DIR", str(tmp_path / "cfg"))
    with WirePlatform(_metrics_with_infinite_step) as wp:
        monkeypatch.setenv("PRIME_BASE_URL", wp.base_url)
        monkeypatch.setenv("PRIME_API_KEY", "k-123456")
        code = main(["compare", RUN_ID, "run1fuzz", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Unexpected problem" not in err
    assert f"primetui: note: metrics of run {RUN_ID}: 1 row ignored: non-finite step" in err
    steps = json.loads(out)["runs"][0]["series"]["loss/mean"]["steps"]
    assert steps == [1, 2]
