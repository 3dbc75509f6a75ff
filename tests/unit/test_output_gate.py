"""The output gate: what the terminal confirmed, when a frame waits, the badge (primetui.ui.output_gate)."""

from __future__ import annotations

from primetui.ui import output_gate as og


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def asked(gate: og.OutputGate, text: str) -> None:
    gate.count(text)
    assert gate.should_ask()
    gate.count(og.PROBE)
    gate.asked()


def test_frames_wait_for_the_answer_and_go_out_merged():
    clock = Clock()
    gate = og.OutputGate(clock)
    asked(gate, "x" * 300)
    assert not gate.holding(), "frames are never held before the terminal has answered once"
    clock.now += 0.01
    assert gate.answer() == []
    assert gate.confirmed == 304 and not gate.slow
    asked(gate, "x" * 2000)  # a big frame: more than HOLD_BYTES unconfirmed
    assert gate.holding()
    screen = object()
    gate.hold(screen)
    gate.hold(screen)
    assert gate.coalesced == 2
    clock.now += 2.0  # the link drained 2,004 bytes in 2 s
    assert gate.answer() == [screen], "the held screen is released once"
    assert not gate.holding() and gate.slow and gate.describe() == og.BADGE
    assert 900 < gate.rate < 1100
    asked(gate, "x" * 300)
    clock.now += 0.1
    gate.answer()
    assert gate.describe() == "", "a quick answer turns the badge off"


def test_a_terminal_that_never_answers_is_asked_once_and_never_waited_for():
    clock = Clock()
    gate = og.OutputGate(clock)
    asked(gate, "x" * 5000)
    for _ in range(3):
        clock.now += 60
        gate.count("x" * 5000)
        assert not gate.should_ask() and not gate.holding()


def test_a_lost_answer_stops_holding():
    clock = Clock()
    gate = og.OutputGate(clock)
    asked(gate, "x" * 300)
    gate.answer()
    asked(gate, "x" * 5000)
    assert gate.holding()
    clock.now += og.LOST_AFTER + 1
    assert not gate.holding()
    assert gate.should_ask(), "a new question goes out after the next frame"
    assert gate.answer() is None, "an answer to no question (a stray report) confirms nothing"


def test_an_answer_read_by_the_full_terminal_is_taken_out_of_the_shells_input(monkeypatch):
    clock = Clock()
    gate = og.OutputGate(clock)
    monkeypatch.setattr(og, "GATE", gate)
    assert og.take_answer(object(), b"ls\x1b[12;1R\r") == b"ls\x1b[12;1R\r", (
        "no question in flight: the input is the shell's"
    )
    asked(gate, "x" * 300)
    assert og.take_answer(object(), b"ls\x1b[12;1R\r") == b"ls\r"
    assert gate.question is None and gate.confirmed == 304


def test_on_a_slow_link_frames_wait_behind_what_it_drains_in_a_quarter_second():
    """At 1,200 B/s a key's frame must not queue behind a kilobyte (0.85 s): the hold follows the drain rate."""
    clock = Clock()
    gate = og.OutputGate(clock)
    asked(gate, "x" * 300)
    clock.now += 0.01
    gate.answer()
    asked(gate, "x" * 2400)  # a frame the link drains in 2 s: frames wait meanwhile
    gate.hold(object())
    clock.now += 2.0
    gate.answer()
    assert 1100 < gate.rate < 1300
    asked(gate, "x" * 400)  # 400 bytes behind: a third of a second at this rate
    assert gate.holding(), "the next frame waits (and is merged) rather than queueing behind 400 bytes"
    assert og.PROBE_BYTES <= gate.hold_bytes() <= 0.25 * gate.rate + 1


def test_on_a_fast_link_frames_wait_only_behind_a_kilobyte():
    clock = Clock()
    gate = og.OutputGate(clock)
    asked(gate, "x" * 300)
    clock.now += 0.001  # 300 bytes drained in a millisecond
    gate.answer()
    asked(gate, "x" * 900)
    assert not gate.holding() and gate.hold_bytes() == og.HOLD_BYTES
