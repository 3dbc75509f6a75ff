"""Validation speed: the seed configs and a 5,000-line sft.toml, against ``tomllib.loads`` of the same text.

Run: ``uv run python -m bench.validate`` (writes nothing; paste the table into docs/performance.md).
``uv run python -m bench.validate --unknown`` times only the growth with unknown tables;
``--big-typing`` times key presses in a 4.6 MB file; ``--typing`` times key-to-echo on a real
terminal (a pty) in the 5,000-line file, beside the walkthrough and a plain Textual TextArea.
Targets (issue 7): a seed config in <= 20 ms, a 5,000-line file in <= 300 ms, typing stays smooth.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import tomllib

from primetui.sft.check import check_text
from primetui.sft.templates import MULTI_NODE, ONLINE_EVAL, WALKTHROUGH


def big_config(lines: int = 5000) -> str:
    """The online-eval config grown to ``lines`` lines with eval sources and env vars (valid prime-rl)."""
    out = [ONLINE_EVAL.rstrip("\n"), "", "[env_vars]"]
    out += [f'VAR_{i} = "value-{i}"' for i in range(400)]
    i = 0
    while len("\n".join(out).split("\n")) < lines - 6:
        out += [
            "",
            "[[eval.source]]",
            f'name = "env-{i}"',
            f'env = {{ taskset = {{ id = "org/task-{i}" }} }}',
            "num_examples = 32",
            "group_size = 2",
        ]
        i += 1
    return "\n".join(out[:lines]) + "\n"


def timed(fn, text: str, repeat: int) -> float:
    """Median wall milliseconds of ``fn(text)``."""
    return timed_both(fn, text, repeat)[0]


def timed_both(fn, text: str, repeat: int) -> tuple[float, float]:
    """Median (wall ms, CPU ms) of ``fn(text)``; CPU time is what other processes on a busy machine
    do not inflate."""
    fn(text)  # warm: imports, pydantic model build, tree-sitter parser
    wall, cpu = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn(text)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return statistics.median(wall), statistics.median(cpu)


async def typing_lag(text: str, keys: int = 40) -> tuple[float, float]:
    """Median ms per key press in the editor (validation on) vs a plain TOML TextArea, same document."""
    from pathlib import Path
    import tempfile

    from textual.app import App
    from textual.widgets import TextArea

    from primetui.ui.editor import EditorScreen

    async def run(make) -> float:
        app = make()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            area = app.screen.query_one(TextArea)
            area.focus()
            area.cursor_location = (20, 0)
            samples = []
            for i in range(keys):
                t0 = time.perf_counter()
                await pilot.press("x" if i % 2 == 0 else "backspace")
                samples.append((time.perf_counter() - t0) * 1000)
            await pilot.pause(0.3)
        return statistics.median(samples)

    tmp = Path(tempfile.mkdtemp())
    (tmp / "sft.toml").write_text(text)

    class Editor(App):
        def on_mount(self) -> None:
            self.push_screen(EditorScreen(tmp / "sft.toml", drafts_root=tmp / "drafts", offer_drafts=False))

    class Plain(App):
        def compose(self):
            yield TextArea.code_editor(text, language="toml")

    return await run(Editor), await run(Plain)


async def loop_lag(text: str, rounds: int = 5) -> tuple[float, float]:
    """Worst event-loop delay (ms) of a 5 ms ticker while the big file is validated: in a thread
    (holds the GIL) vs in the editor's helper process (``primetui.viewmodel.validator``)."""
    from primetui.sft.context import CheckContext
    from primetui.viewmodel import validator

    async def worst(run) -> float:
        lags: list[float] = []
        for _ in range(rounds):
            done = False
            worst_gap = 0.0

            async def tick() -> None:
                nonlocal worst_gap
                last = time.perf_counter()
                while not done:
                    await asyncio.sleep(0.005)
                    now = time.perf_counter()
                    worst_gap = max(worst_gap, (now - last) * 1000 - 5)
                    last = now

            ticker = asyncio.create_task(tick())
            await asyncio.to_thread(run)
            done = True
            await ticker
            lags.append(worst_gap)
        return statistics.median(lags)

    ctx = CheckContext()
    checker = validator.Validator()
    checker.validate(text, ctx)  # start and warm the helper
    try:
        in_thread = await worst(lambda: check_text(text, ctx))
        in_helper = await worst(lambda: checker.validate(text, ctx))
    finally:
        checker.close()
    return in_thread, in_helper


def unknown_tables(n: int) -> str:
    """The walkthrough plus ``n`` tables prime-rl does not know, each with one key (one error each)."""
    return WALKTHROUGH + "".join(f"\n[unknown_{i}]\nx = 1\n" for i in range(n))


def unknown_scaling(sizes: tuple[int, ...] = (1000, 8000, 64000, 200000)) -> None:
    """Wall / CPU seconds of one ``check_text`` per size: linear means the per-table cost stays flat."""
    check_text(WALKTHROUGH)  # warm
    print("| unknown tables | text | errors | check_text wall / CPU (s) | CPU per table (µs) |")
    print("|---:|---:|---:|---|---:|")
    for n in sizes:
        text = unknown_tables(n)
        t0, c0 = time.perf_counter(), time.process_time()
        report = check_text(text)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"| {n:,} | {len(text.encode()) / 1e6:.1f} MB | {len(report.errors):,} | {wall:.2f} / {cpu:.2f} | "
            f"{cpu / n * 1e6:.0f} |"
        )


def big_typing(sources: int = 40000, keys: int = 4) -> None:
    """Median ms per key press in a ~4.6 MB file: the editor's text area as the editor uses it
    above HIGHLIGHT_LIMIT (plain) against Textual's TextArea, plain and highlighted."""
    from textual.app import App
    from textual.widgets import TextArea

    from primetui.ui.editor.area import DiagnosticTextArea

    text = ONLINE_EVAL + "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\n'
        "num_examples = 32\ngroup_size = 2\n"
        for i in range(sources)
    )

    async def per_key(make) -> float:
        class Host(App):
            def compose(self):
                yield make()

        app = Host()
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(0.3)
            area = app.query_one(TextArea)
            area.focus()
            area.cursor_location = (20, 0)
            samples = []
            for i in range(keys):
                t0 = time.perf_counter()
                await pilot.press("x" if i % 2 == 0 else "backspace")
                samples.append((time.perf_counter() - t0) * 1000)
        return statistics.median(samples)

    rows = [
        ("primetui editor area, plain (above the limit)", lambda: DiagnosticTextArea(text, highlight=False)),
        (
            "Textual TextArea, no language, soft_wrap off",
            lambda: TextArea(text, soft_wrap=False, show_line_numbers=True),
        ),
        ("Textual TextArea.code_editor, toml", lambda: TextArea.code_editor(text, language="toml")),
    ]
    print(f"| {len(text) / 1e6:.1f} MB, {text.count(chr(10)):,} lines: text area | ms per key (median of {keys}) |")
    print("|---|---:|")
    for name, make in rows:
        print(f"| {name} | {asyncio.run(per_key(make)):.0f} |")


def echo_times(
    argv: list[str], env: dict[str, str], line0: str, keys: int = 60, interval: float = 0.1, pause: float = 0.4
) -> list[float]:
    """Key-to-echo in ms on a pty: ``argv`` shows a file whose first line is ``line0`` with the cursor at
    its start. Types a marker, then ``keys`` keys at one every ``interval`` seconds in bursts of 20
    (letters, then as many backspaces) ``pause`` seconds apart, so the editor's debounced check runs
    and lands while typing goes on; each key's time runs from writing it to the pty to the read after
    which the screen shows the line as that key leaves it. A key is sent only once the previous one
    has echoed (so each expected line differs from the one on screen when it is sent)."""
    import threading

    from bench.ptyapp import PtyApp

    marker = "#zq "
    tail = line0[:8]
    with PtyApp(argv, env, cols=120, rows=35) as app:
        app.wait_for(lambda s: tail in s, label="the file")
        app.send(marker)
        app.wait_for(lambda s: marker + tail in s, label="the marker")
        app.wait_quiet(1.0, timeout=30)
        typed = ""
        samples: list[float] = []
        seen = threading.Event()
        state: dict = {}

        def check(t: float, screen) -> None:
            want = state.get("want")
            if want and not seen.is_set() and any(want in row for row in screen.display):
                state["at"] = t
                seen.set()

        app.after_feed = check
        letters = "abcdefghijklmnopqrstuvwxyz"
        next_at = time.monotonic()
        for i in range(keys):
            forward = (i // 20) % 2 == 0
            key = letters[i % 20] if forward else "\x7f"
            typed = typed + key if forward else typed[:-1]
            if i and i % 20 == 0:
                next_at += pause
            now = time.monotonic()
            if now < next_at:
                time.sleep(next_at - now)
            seen.clear()
            state["want"] = marker + typed + tail
            t0 = time.monotonic()
            app.send(key)
            if not seen.wait(10):
                raise RuntimeError(f"no echo of key {i} ({key!r}):\n{app.text()}")
            samples.append((state["at"] - t0) * 1000)
            next_at = t0 + interval
        app.after_feed = None
    return samples


def typing_on_pty(keys: int = 60, before: str | None = None) -> None:
    """Key-to-echo (median / p95 ms) in the real editor on a pty: the generated 5,000-line file, the
    walkthrough, and a plain Textual ``TextArea.code_editor`` on the 5,000-line file; with
    ``before`` (another checkout's ``src``, e.g. ``git archive COMMIT src | tar -x -C DIR``), that
    build's editor on the generated file too, in the same run."""
    import os
    import sys
    import tempfile
    from pathlib import Path

    bin_dir = Path(sys.executable).parent
    big = big_config()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PRIME")}
        env.update(HOME=str(home), PRIMETUI_CACHE_DIR=str(home / "cache"))
        editor = [str(bin_dir / "primetui"), "edit"]
        rows = [
            (f"editor, generated ({big.count(chr(10)):,} lines, {len(big.encode()) / 1000:.0f} KB)", editor, big, {}),
            (f"editor, walkthrough ({WALKTHROUGH.count(chr(10))} lines)", editor, WALKTHROUGH, {}),
            (
                "plain Textual TextArea.code_editor (toml), generated file",
                [sys.executable, str(Path(__file__).resolve().parent / "textarea_app.py")],
                big,
                {},
            ),
        ]
        if before:
            rows.insert(
                1,
                (
                    f"editor before ({before}), generated file",
                    [sys.executable, "-m", "primetui", "edit"],
                    big,
                    {"PYTHONPATH": before},
                ),
            )
        load0 = os.getloadavg()
        out = []
        for n, (name, argv, text, extra) in enumerate(rows):
            path = home / f"run-{n}" / "sft.toml"  # a file of its own: no draft from an earlier row
            path.parent.mkdir()
            path.write_text(text)
            s = sorted(echo_times(argv + [str(path)], dict(env, **extra), text.split("\n", 1)[0], keys))
            out.append((name, statistics.median(s), s[min(len(s) - 1, int(len(s) * 0.95))], s[-1]))
        load1 = os.getloadavg()
    print(f"| key-to-echo on a pty, {keys} keys at 10/s in bursts of 20, 0.4 s apart | median ms | p95 ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, med, p95, worst in out:
        print(f"| {name} | {med:.1f} | {p95:.1f} | {worst:.1f} |")
    print(f"\nload average {load0[0]:.2f} at the start, {load1[0]:.2f} at the end ({os.cpu_count()} cores)")


def main() -> None:
    import sys

    if "--typing" in sys.argv[1:]:
        args = sys.argv[1:]
        typing_on_pty(before=args[args.index("--before") + 1] if "--before" in args else None)
        return
    if "--unknown" in sys.argv[1:]:
        unknown_scaling()
        return
    if "--big-typing" in sys.argv[1:]:
        big_typing()
        return
    big = big_config()
    rows = []
    for name, text, repeat in (
        ("walkthrough (27 lines)", WALKTHROUGH, 50),
        ("multi-node (58 lines)", MULTI_NODE, 50),
        ("online-eval (38 lines)", ONLINE_EVAL, 50),
        (f"generated ({big.count(chr(10))} lines)", big, 7),
    ):
        ours = timed_both(check_text, text, repeat)
        base = timed_both(tomllib.loads, text, repeat)
        rows.append((name, ours, base))
    print("| document | check_text wall / CPU (median ms) | tomllib.loads wall / CPU (median ms) | ratio (CPU) |")
    print("|---|---|---|---|")
    for name, ours, base in rows:
        print(
            f"| {name} | {ours[0]:.1f} / {ours[1]:.1f} | {base[0]:.2f} / {base[1]:.2f} | "
            f"{ours[1] / max(base[1], 1e-6):.0f}x |"
        )
    in_thread, in_helper = asyncio.run(loop_lag(big))
    print()
    print("| UI event loop while the generated file is validated (worst tick delay, median of 5) | ms |")
    print("|---|---|")
    print(f"| validation in a thread of the UI process | {in_thread:.1f} |")
    print(f"| validation in the helper process (what the editor does above 20,000 characters) | {in_helper:.1f} |")
    editor, plain = asyncio.run(typing_lag(big))
    print()
    print(
        "| typing in the generated file (pilot key press, median ms) | editor with validation | plain "
        "TextArea.code_editor |"
    )
    print("|---|---|---|")
    print(f"| per key | {editor:.1f} | {plain:.1f} |")


if __name__ == "__main__":
    main()
