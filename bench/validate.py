"""Validation speed: the seed configs and a 5,000-line sft.toml, against ``tomllib.loads`` of the same text.

Run: ``uv run python -m bench.validate`` (writes nothing; paste the table into docs/performance.md).
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
    """Median milliseconds of ``fn(text)``."""
    fn(text)  # warm: imports, pydantic model build, tree-sitter parser
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


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


def main() -> None:
    big = big_config()
    rows = []
    for name, text, repeat in (("walkthrough (27 lines)", WALKTHROUGH, 50), ("multi-node (58 lines)", MULTI_NODE, 50),
                               ("online-eval (38 lines)", ONLINE_EVAL, 50), (f"generated ({big.count(chr(10))} lines)", big, 7)):
        ours = timed(check_text, text, repeat)
        base = timed(tomllib.loads, text, repeat)
        rows.append((name, ours, base))
    print("| document | check_text (median ms) | tomllib.loads (median ms) | ratio |")
    print("|---|---|---|---|")
    for name, ours, base in rows:
        print(f"| {name} | {ours:.1f} | {base:.2f} | {ours / base:.0f}x |")
    editor, plain = asyncio.run(typing_lag(big))
    print()
    print("| typing in the generated file (pilot key press, median ms) | editor with validation | plain TextArea.code_editor |")
    print("|---|---|---|")
    print(f"| per key | {editor:.1f} | {plain:.1f} |")


if __name__ == "__main__":
    main()
