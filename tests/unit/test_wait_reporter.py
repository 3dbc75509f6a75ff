"""``primetui wait``'s output: a live progress line on a terminal, plain lines elsewhere, neutralised names."""

from __future__ import annotations

import io

from primetui.commands.waiting import Followed, Reporter


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_terminal_gets_one_progress_line_rewritten_in_place_and_status_lines_clear_it():
    out = Tty()
    rep = Reporter(out, io.StringIO(), as_json=False)
    a, b = Followed("a", max_steps=10), Followed("b", max_steps=4)
    a.step, b.step = 3, 1
    rep.progress([a, b], a)
    assert out.getvalue() == "\r\x1b[2Ka step 3/10  ·  b step 1/4"
    b.status = "COMPLETED"
    rep.status(b, "RUNNING")
    assert "b step 1/4\r\x1b[2K" in out.getvalue(), "the live line is cleared before a status line"
    assert out.getvalue().rstrip().endswith("run b: RUNNING → COMPLETED")


def test_a_pipe_gets_plain_progress_lines_at_most_every_30s_and_the_last_step():
    out = io.StringIO()
    rep = Reporter(out, io.StringIO(), as_json=False)
    run = Followed("r", max_steps=3)
    for step in (1, 2, 3):
        run.step = step
        rep.progress([run], run)
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue() and "\r" not in out.getvalue()
    assert [ln.split("  ", 1)[1] for ln in lines] == ["run r: step 1/3", "run r: step 3/3"]


def test_run_names_from_the_platform_are_neutralised():
    out = io.StringIO()
    rep = Reporter(out, io.StringIO(), as_json=False)
    run = Followed("r", name="evil\x1b]52;c;eA==\x07", status="FAILED", ended=True, reason="x")
    rep.status(run, None)
    rep.end([run], 1, [])
    assert "\x1b" not in out.getvalue() and "\x07" not in out.getvalue()
