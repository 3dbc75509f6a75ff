"""Validation speed: the seed configs and a 5,000-line sft.toml, against ``tomllib.loads`` of the same text.

Run: ``uv run python -m bench.validate`` (writes nothing; paste the table into docs/performance.md).
``uv run python -m bench.validate --unknown`` times only the growth with unknown tables;
``--big-typing`` times key presses in a 4.6 MB file.
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
        out += ["", "[[eval.source]]", f'name = "env-{i}"', f'env = {{ taskset = {{ id = "org/task-{i}" }} }}',
                "num_examples = 32", "group_size = 2"]
        i += 1
    return "\n".join(out[: lines]) + "\n"


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
    validator.validate(text, ctx)  # start and warm the helper
    try:
        in_thread = await worst(lambda: check_text(text, ctx))
        in_helper = await worst(lambda: validator.validate(text, ctx))
    finally:
        validator.stop()
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
        print(f"| {n:,} | {len(text.encode()) / 1e6:.1f} MB | {len(report.errors):,} | {wall:.2f} / {cpu:.2f} | "
              f"{cpu / n * 1e6:.0f} |")


def big_typing(sources: int = 40000, keys: int = 4) -> None:
    """Median ms per key press in a ~4.6 MB file: the editor's text area as the editor uses it
    above HIGHLIGHT_LIMIT (plain) against Textual's TextArea, plain and highlighted."""
    from textual.app import App
    from textual.widgets import TextArea

    from primetui.ui.editor.area import DiagnosticTextArea

    text = ONLINE_EVAL + "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\n'
        "num_examples = 32\ngroup_size = 2\n" for i in range(sources))

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
        ("Textual TextArea, no language, soft_wrap off", lambda: TextArea(text, soft_wrap=False, show_line_numbers=True)),
        ("Textual TextArea.code_editor, toml", lambda: TextArea.code_editor(text, language="toml")),
    ]
    print(f"| {len(text) / 1e6:.1f} MB, {text.count(chr(10)):,} lines: text area | ms per key (median of {keys}) |")
    print("|---|---:|")
    for name, make in rows:
        print(f"| {name} | {asyncio.run(per_key(make)):.0f} |")


def main() -> None:
    import sys

    if "--unknown" in sys.argv[1:]:
        unknown_scaling()
        return
    if "--big-typing" in sys.argv[1:]:
        big_typing()
        return
    big = big_config()
    rows = []
    for name, text, repeat in (("walkthrough (27 lines)", WALKTHROUGH, 50), ("multi-node (58 lines)", MULTI_NODE, 50),
                               ("online-eval (38 lines)", ONLINE_EVAL, 50), (f"generated ({big.count(chr(10))} lines)", big, 7)):
        ours = timed_both(check_text, text, repeat)
        base = timed_both(tomllib.loads, text, repeat)
        rows.append((name, ours, base))
    print("| document | check_text wall / CPU (median ms) | tomllib.loads wall / CPU (median ms) | ratio (CPU) |")
    print("|---|---|---|---|")
    for name, ours, base in rows:
        print(f"| {name} | {ours[0]:.1f} / {ours[1]:.1f} | {base[0]:.2f} / {base[1]:.2f} | {ours[1] / max(base[1], 1e-6):.0f}x |")
    in_thread, in_helper = asyncio.run(loop_lag(big))
    print()
    print("| UI event loop while the generated file is validated (worst tick delay, median of 5) | ms |")
    print("|---|---|")
    print(f"| validation in a thread of the UI process | {in_thread:.1f} |")
    print(f"| validation in the helper process (what the editor does above 20,000 characters) | {in_helper:.1f} |")
    editor, plain = asyncio.run(typing_lag(big))
    print()
    print("| typing in the generated file (pilot key press, median ms) | editor with validation | plain TextArea.code_editor |")
    print("|---|---|---|")
    print(f"| per key | {editor:.1f} | {plain:.1f} |")


if __name__ == "__main__":
    main()
