"""The suite's rule for waiting, checked over its own source: nothing looks at the app or the screen
after an action without a wait on a named condition in between (see tests/waiting.py).

The rule follows each function in source order, across nested blocks: ``with``, ``if``, ``try``
and loops (a loop's body is followed twice, so its end leads into its start, and into what comes
after the loop). It keeps the last statement that acts or waits:

- an action: a key press, click or pause (``pilot.press`` / ``click`` / ``hover`` / ``pause``),
  ``asyncio.sleep`` / ``time.sleep``, keys typed into a terminal (``.keys(...)``, ``send_keys``,
  ``send-keys``);
- a wait: any other ``await``, the end of an ``async with`` block, or a call of something named
  ``*wait*`` / ``*until*`` / ``eventually`` / ``quiet`` / ``*applied*``.

A call of a helper of the suite (defined in the file, or imported from another test module) whose
own last act-or-wait is an action is that action: ``ask()`` that ends on ``pilot.press("enter")``.

A look is an ``assert``, a capture of the screen (``.screen()``, ``screen_text(...)``,
``snap_compare(...)``), or the end of a ``run_before`` hook (the snapshot is taken right after it).
A look whose last act-or-wait is an action breaks the rule. So does an assert that a value moved
on from a copy taken earlier in the test (``frames = view.frames`` ... ``assert view.frames >
frames``) when the wait before it does not name that value: it waited for something else. And so does
an assert that a text is on a screen (``screen = tmux.wait("A")`` ... ``assert "B" in screen``, or
``assert "B" in tmux.screen()``) straight after a wait whose texts do not hold it: the screen was
captured when A showed, and B may be drawn a moment later (a toast over it, another follower).
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent

# A sleep that makes the situation under test (a reader that stalls), not one that waits for it.
STALLS = {
    "api/test_ssh_sessions.py::test_a_flood_arrives_whole_over_aes_gcm_without_compression",
}

_ACTS = {
    "press": "pilot.press",
    "click": "a click",
    "double_click": "a click",
    "hover": "a hover",
    "mouse_down": "a click",
    "mouse_up": "a click",
}
_LOOKS = {"screen", "screen_text", "snap_compare", "export_screenshot"}
_MOVED = (ast.Gt, ast.GtE, ast.Lt, ast.LtE, ast.NotEq)


def _call_name(call: ast.Call) -> tuple[str, str]:
    f = call.func
    if isinstance(f, ast.Attribute):
        return f.attr, ast.unparse(f.value)
    return getattr(f, "id", ""), ""


def _is_wait(name: str) -> bool:
    return "wait" in name or "until" in name or name in ("eventually", "quiet") or "applied" in name


def _nodes(node: ast.AST):
    """The expression nodes of a statement, not those inside a lambda or a nested definition."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield child
        yield from _nodes(child)


_ENDS_ACTING: dict[str, str] = {}
"""Helpers of the suite whose last act-or-wait is an action (``ask`` types into a prompt and presses
enter): a call of one is that action (filled in by :func:`violations`)."""


def _action(call: ast.Call, awaited: bool) -> str | None:
    name, owner = _call_name(call)
    if isinstance(call.func, ast.Name) and name in _ENDS_ACTING:
        return _ENDS_ACTING[name]
    if awaited and name in _ACTS:
        return _ACTS[name]
    if awaited and name == "pause":
        return "a fixed pilot.pause(N)" if call.args else "a bare pilot.pause()"
    if name == "sleep" and owner in ("asyncio", "time"):
        return f"{owner}.sleep"
    if name in ("keys", "send_keys") or any(isinstance(a, ast.Constant) and a.value == "send-keys" for a in call.args):
        return "keys sent to a terminal"
    return None


class _Rule:
    def __init__(self, where: str, found: set[str]) -> None:
        self.where = where
        self.found = found
        self.last: tuple[str, str] | None = None  # ("act", what) or ("wait", its source)
        self.saved: dict[str, str] = {}  # a local name -> the expression it copied
        self.straight_after = False  # only asserts since the last wait
        self.captured: str | None = None  # the name the screen of the last wait went to
        self.wait_texts: set[str] = set()  # the texts the last wait looked for
        self.settled = False  # the last wait was for every queued message to be handled, not for a text
        self.poll_depth = 0  # inside a polling loop, a sleep is the poll's interval

    def _flag(self, line: int, why: str) -> None:
        self.found.add(f"{self.where}:{line}: {why}")

    def _look(self, line: int, what: str) -> None:
        if self.last is not None and self.last[0] == "act":
            self._flag(line, f"{what} after {self.last[1]}, with no wait on a condition in between")

    def _moved_on(self, stmt: ast.Assert) -> None:
        """An assert that a live value moved on from an earlier copy, straight after a wait on a condition
        (a lambda) that does not name that value: the test waited for something else."""
        if not self.straight_after or self.last is None or self.last[0] != "wait" or "lambda" not in self.last[1]:
            return
        waited = self.last[1]
        for node in _nodes(stmt):
            if not isinstance(node, ast.Compare) or len(node.ops) != 1 or not isinstance(node.ops[0], _MOVED):
                continue
            left, right = node.left, node.comparators[0]
            for live, copy in ((left, right), (right, left)):
                copied = self.saved.get(copy.id) if isinstance(copy, ast.Name) else None
                if copied is not None and ast.unparse(live) == copied and copied not in waited:
                    self._flag(stmt.lineno, f"an assert that {copied} moved on, after waiting for something else")

    def _shown_later(self, stmt: ast.Assert) -> None:
        """An assert that a literal text is on a screen captured straight after a wait for other texts."""
        if not self.straight_after or self.last is None or self.last[0] != "wait" or self.settled:
            return
        waited = self.wait_texts
        for node in _nodes(stmt):
            if not isinstance(node, ast.Compare) or len(node.ops) != 1 or not isinstance(node.ops[0], ast.In):
                continue
            text, screen = node.left, node.comparators[0]
            if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                continue
            held = isinstance(screen, ast.Name) and screen.id == self.captured
            fresh = isinstance(screen, ast.Call) and _call_name(screen)[0] in _LOOKS
            if (held or fresh) and not any(text.value in w for w in waited):
                self._flag(stmt.lineno, f"an assert that {text.value!r} is on a screen, after waiting for other text")

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assert):
            self._look(stmt.lineno, "an assert")
            self._moved_on(stmt)
            self._shown_later(stmt)
            return
        self.straight_after = False
        self.captured = None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if isinstance(stmt.value, (ast.Attribute, ast.Name, ast.Subscript)):
                self.saved[stmt.targets[0].id] = ast.unparse(stmt.value)
        awaited = {id(n.value) for n in _nodes(stmt) if isinstance(n, ast.Await)}
        kind: tuple[str, str] | None = None
        looks = False
        for node in _nodes(stmt):
            if isinstance(node, ast.Await) and not isinstance(node.value, ast.Call):
                kind = ("wait", ast.unparse(stmt))
            if not isinstance(node, ast.Call):
                continue
            name, _ = _call_name(node)
            if _is_wait(name):
                kind = ("wait", ast.unparse(stmt))
            elif (act := _action(node, id(node) in awaited)) is not None:
                if self.poll_depth and _sleeps(node):
                    continue
                kind = kind if kind and kind[0] == "wait" else ("act", act)
            elif id(node) in awaited:
                kind = kind or ("wait", ast.unparse(stmt))
            elif name in _LOOKS:
                looks = True
        if looks:
            self._look(stmt.lineno, "a capture of the screen")
        if kind is not None:
            self.last = kind
            self.straight_after = kind[0] == "wait"
            if kind[0] == "wait":
                self.wait_texts = _texts(stmt)
                self.settled = _settles(stmt)
                named = any(isinstance(n, ast.Call) and _is_wait(_call_name(n)[0]) for n in _nodes(stmt))
                if named and isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                    self.captured = stmt.targets[0].id  # what a wait returned: the screen it saw

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                self.statement(ast.Expr(stmt.iter if not isinstance(stmt, ast.While) else stmt.test))
                poll = _polls(stmt)
                self.poll_depth += poll
                self.block(stmt.body)
                self.block(stmt.body)  # the end of the body leads back to its start
                self.poll_depth -= poll
                if poll:
                    self.last = ("wait", "the poll " + ast.unparse(stmt).splitlines()[0])
                    self.wait_texts = _texts(stmt)
                self.block(stmt.orelse)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    self.statement(ast.Expr(item.context_expr))
                if isinstance(stmt, ast.AsyncWith):
                    self.last = ("wait", "entering " + ast.unparse(stmt.items[0].context_expr))
                self.block(stmt.body)
                if isinstance(stmt, ast.AsyncWith):
                    self.last = ("wait", "the end of " + ast.unparse(stmt.items[0].context_expr))
            elif isinstance(stmt, ast.If):
                self.statement(ast.Expr(stmt.test))
                self.block(stmt.body)
                self.block(stmt.orelse)
            elif isinstance(stmt, (ast.Try, ast.TryStar)):
                self.block(stmt.body)
                for handler in stmt.handlers:
                    self.block(handler.body)
                self.block(stmt.orelse)
                self.block(stmt.finalbody)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self.block(case.body)
            else:
                self.statement(stmt)


def _texts(node: ast.AST) -> set[str]:
    """The string constants of an expression, lambdas included (what a wait's condition looks for), but not
    a wait's description of its condition (``until(pilot, cond, "what")``, ``what=``): naming a text there
    does not wait for it."""
    said: set[int] = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and _is_wait(_call_name(call)[0]):
            after_condition = False
            for arg in call.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    if after_condition:
                        said.add(id(arg))
                else:
                    after_condition = True
            said.update(id(kw.value) for kw in call.keywords if kw.arg == "what")
    return {
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in said
    }


_SETTLES = {"quiet", "input_applied", "idle", "settle"}
"""The suite's waits for the app to handle everything queued so far (tests/waiting.py): after one, what
the screen shows is what the last input made, whatever text an assert then looks for."""


def _settles(stmt: ast.stmt) -> bool:
    return any(isinstance(n, ast.Call) and _call_name(n)[0] in _SETTLES for n in _nodes(stmt))


def _sleeps(call: ast.Call) -> bool:
    name, owner = _call_name(call)
    return name == "pause" or (name == "sleep" and owner in ("asyncio", "time"))


def _polls(loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """A loop that polls a condition: it ends on one (a ``while`` test, a ``break`` or a ``return``) and
    its only actions are sleeps (a loop that presses keys until something shows is not a poll)."""
    inner = [n for stmt in loop.body for n in [stmt, *_nodes(stmt)]]
    ends = (isinstance(loop, ast.While) and not (isinstance(loop.test, ast.Constant) and loop.test.value)) or any(
        isinstance(n, (ast.Break, ast.Return)) for n in inner
    )
    acts = [n for n in inner if isinstance(n, ast.Call) and _action(n, True) is not None]
    return ends and bool(acts) and all(_sleeps(n) for n in acts)


def _hooks(tree: ast.AST) -> set[str]:
    """Names of functions handed to a snapshot as ``run_before=`` (the snapshot is taken right after them)."""
    return {
        kw.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "run_before" and isinstance(kw.value, ast.Name)
    }


def _helpers_that_end_acting(tree: ast.Module) -> dict[str, str]:
    """Each module-level helper (not a test, not a wait) whose body ends on an action, with what that
    action is; repeated so a helper that ends on a call of another such helper is found too."""
    acting: dict[str, str] = {}
    for _ in range(3):
        _ENDS_ACTING.clear()
        _ENDS_ACTING.update(acting)
        for node in tree.body:
            if (
                not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                or node.name.startswith("test_")
                or _is_wait(node.name)
            ):
                continue
            rule = _Rule(node.name, set())
            rule.block(node.body)
            if rule.last is not None and rule.last[0] == "act":
                acting[node.name] = f"{node.name}(), which ends on {rule.last[1]}"
    return acting


def violations(root: Path = TESTS) -> list[str]:
    found: set[str] = set()
    trees = {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.py"))}
    by_module: dict[str, dict[str, str]] = {}
    for path, tree in trees.items():
        dotted = ".".join(path.relative_to(root).with_suffix("").parts)
        by_module[dotted] = by_module["tests." + dotted] = by_module[path.stem] = _helpers_that_end_acting(tree)
    for path, tree in trees.items():
        # The helpers of this file, and those it imports from the suite, that end on an action.
        acting = dict(by_module[".".join(path.relative_to(root).with_suffix("").parts)])
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module in by_module:
                acting.update(
                    {
                        a.asname or a.name: by_module[node.module][a.name]
                        for a in node.names
                        if a.name in by_module[node.module]
                    }
                )
        _ENDS_ACTING.clear()
        _ENDS_ACTING.update(acting)
        hooks = _hooks(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                where = f"{path.relative_to(root)}::{node.name}"
                if where in STALLS or _is_wait(node.name):  # a wait's own poll loop
                    continue
                rule = _Rule(where, found)
                rule.block(node.body)
                if node.name in hooks or node.name == "run_before":
                    rule._look(node.end_lineno or node.lineno, "a snapshot (the end of run_before)")
    return sorted(found, key=lambda f: (f.split(":")[0], int(f.split("::")[1].split(":")[1])))


def test_no_look_waits_on_time():
    found = violations()
    assert found == [], "\n".join(found)


def _found(tmp_path: Path, source: str) -> list[str]:
    (tmp_path / "test_case.py").write_text(source)
    return [f.split("::", 1)[1] for f in violations(tmp_path)]


def test_the_rule_catches_each_pattern(tmp_path):
    (tmp_path / "test_bad.py").write_text(
        "import asyncio, time\n"
        "async def test_a(pilot):\n    await pilot.press('x')\n    assert 1\n"
        "async def test_b(pilot):\n    await pilot.pause()\n    assert 1\n"
        "async def test_c(pilot):\n    await pilot.pause(0.2)\n    assert 1\n"
        "async def test_d():\n    await asyncio.sleep(1)\n    assert 1\n"
        "def test_e():\n    time.sleep(1)\n    x = 1\n    assert x\n"
        "async def test_ok(pilot):\n    await pilot.press('x')\n    await until(pilot, f, 'f')\n    assert 1\n"
    )
    found = violations(tmp_path)
    assert [f.split("::")[1].split(":")[0] for f in found] == ["test_a", "test_b", "test_c", "test_d", "test_e"], found


# The escapes the one-block rule let through (issue 45), each as a snippet shaped like the original.


def test_presses_in_a_loop_then_an_assert_after_it(tmp_path):
    # tests/ui/test_monitor_logs.py:135-137
    assert _found(
        tmp_path,
        (
            "async def test_levels(pilot, view):\n"
            "    await input_applied(pilot)\n"
            "    for _ in range(4):\n"
            "        await pilot.press('L')\n"
            "    assert view.row_count == 4\n"
        ),
    ) == ["test_levels:5: an assert after pilot.press, with no wait on a condition in between"]


def test_a_pause_then_a_look_inside_a_loop(tmp_path):
    # tests/ui/test_monitor_logs.py:43-46
    assert _found(
        tmp_path,
        (
            "async def test_tabs(pilot, app):\n"
            "    await pilot.pause()\n"
            "    text = screen_text(app)\n"
            "    for tab in ('trainer', 'all'):\n"
            "        assert tab in text\n"
        ),
    ) == [
        "test_tabs:3: a capture of the screen after a bare pilot.pause(), with no wait on a condition in between",
        "test_tabs:5: an assert after a bare pilot.pause(), with no wait on a condition in between",
    ]


def test_a_press_in_a_loop_that_breaks_then_an_assert(tmp_path):
    # tests/ui/test_sweep_compare.py:98-102: the loop reads sort_key right after each press
    assert _found(
        tmp_path,
        (
            "async def test_sort(pilot, screen):\n"
            "    await until(pilot, lambda: screen.ready, 'ready')\n"
            "    for _ in range(9):\n"
            "        if screen.sort_key == 'lr':\n"
            "            break\n"
            "        await pilot.press('s')\n"
            "    assert screen.sort_key == 'lr'\n"
        ),
    ) == ["test_sort:7: an assert after pilot.press, with no wait on a condition in between"]


def test_a_snapshot_after_a_bare_pause_in_run_before(tmp_path):
    # tests/snapshots/test_editor_find_snapshot.py:25
    assert _found(
        tmp_path,
        (
            "def test_bar(snap_compare):\n"
            "    async def before(pilot):\n"
            "        await pilot.press('f3')\n"
            "        await pilot.pause()\n"
            "    assert snap_compare(App(), run_before=before)\n"
        ),
    ) == [
        "before:4: a snapshot (the end of run_before) after a bare pilot.pause(), with no wait on a condition in "
        "between"
    ]


def test_a_sleep_then_a_capture_of_each_tab(tmp_path):
    # tests/e2e/test_hostile_text.py:176-186: keys, a sleep, a capture that never proves the tab showed
    found = _found(
        tmp_path,
        (
            "def test_tabs(tmux):\n"
            "    screens = [tmux.wait('Lifecycle')]\n"
            "    for tab in '234567':\n"
            "        tmux.keys(tab)\n"
            "        time.sleep(1.0)\n"
            "        screens.append(tmux.screen())\n"
            "    try:\n"
            "        tmux.run('send-keys', '-t', 'h', '-l', 'Open')\n"
            "        time.sleep(1.5)\n"
            "    finally:\n"
            "        tmux.run('kill-server')\n"
            "    assert screens\n"
        ),
    )
    assert found == [
        "test_tabs:6: a capture of the screen after time.sleep, with no wait on a condition in between",
        "test_tabs:12: an assert after time.sleep, with no wait on a condition in between",
    ]


def test_an_assert_that_a_count_moved_on_after_waiting_for_something_else(tmp_path):
    # tests/ui/test_terminal_pane_parity.py:143
    found = _found(
        tmp_path,
        (
            "async def test_repaint(pilot, view, lost, notes):\n"
            "    frames = view.frames\n"
            "    await until(pilot, lambda: lost.stopped, 'the watchdog giving up the lost timer')\n"
            "    assert 'stopped drawing' in notes[-1]\n"
            "    assert view.frames > frames\n"
        ),
    )
    assert found == ["test_repaint:5: an assert that view.frames moved on, after waiting for something else"]


def test_a_helper_that_ends_on_a_press_is_a_press(tmp_path):
    # tests/ui/test_monitor_logs.py's ask(): types into a prompt, presses enter, and the test asserted at once
    (tmp_path / "scenes.py").write_text(
        "async def prepare(pilot):\n    await pilot.press('s')\n    await pilot.pause()\n"
    )
    found = _found(
        tmp_path,
        (
            "from scenes import prepare\n"
            "async def ask(pilot, key):\n"
            "    await pilot.press(key)\n"
            "async def test_filter(pilot, view):\n"
            "    await ask(pilot, 'f')\n"
            "    assert view.row_count == 10\n"
            "def test_scene(snap_compare):\n"
            "    async def run_before(pilot):\n"
            "        await prepare(pilot)\n"
            "    assert snap_compare(App(), run_before=run_before)\n"
        ),
    )
    assert found == [
        "test_filter:6: an assert after ask(), which ends on pilot.press, with no wait on a condition in between",
        "run_before:9: a snapshot (the end of run_before) after prepare(), which ends on a bare "
        "pilot.pause(), with no wait on a condition in between",
    ]


def test_what_the_rule_lets_through(tmp_path):
    assert (
        _found(
            tmp_path,
            (
                "async def test_waits(pilot, view, app):\n"
                "    frames = view.frames\n"
                "    for _ in range(4):\n"
                "        await pilot.press('L')\n"
                "    await until(pilot, lambda: view.row_count == 4, 'four rows')\n"
                "    assert view.row_count == 4\n"
                "    await until(pilot, lambda: view.frames > frames, 'a repaint')\n"
                "    assert view.frames > frames\n"
                "    async with app.run_test() as p:\n"
                "        await p.press('q')\n"
                "    assert app.return_code == 0\n"  # the end of run_test waited for the app to end
                "def test_polls(lp):\n"
                "    while not lp.ready():\n"  # a poll loop: its sleep is the interval, its end a condition
                "        assert time.monotonic() < 9\n"
                "        time.sleep(0.1)\n"
                "    assert lp.ready()\n"
                "def wait(tmux, needle):\n"  # a wait's own poll
                "    text = tmux.screen()\n"
                "    time.sleep(0.2)\n"
                "    return tmux.screen()\n"
                "def test_synchronous(fol):\n"
                "    grown = fol.tail_lines\n"
                "    fol.poll()\n"
                "    assert fol.tail_lines < grown\n"
            ),
        )
        == []
    )


def test_an_assert_that_a_text_is_on_a_screen_a_wait_took_for_another_text(tmp_path):
    # tests/e2e/test_dashboard_tmux.py: the screen of the step-10 checkpoint's line did not yet show 10/10
    found = _found(
        tmp_path,
        (
            "def test_walkthrough(tmux):\n"
            "    screen = tmux.wait('prime volumes get research runs/')\n"
            "    assert '10/10' in screen\n"
            "    assert 'Traceback' not in screen\n"
            "async def test_help(pilot, app):\n"
            "    await until(pilot, lambda: isinstance(app.screen, HelpScreen), 'help')\n"
            "    assert 'volumes.stop_live_rw' in screen_text(app)\n"
            "def test_described(tmux):\n"  # named in the wait's description only: not waited for
            "    screen = tmux.wait(lambda s: 'Full terminal' in s, 'the dashboard back, after-20 shown')\n"
            "    assert 'after-20' in screen\n"
        ),
    )
    assert found == [
        "test_walkthrough:3: an assert that '10/10' is on a screen, after waiting for other text",
        "test_help:7: an assert that 'volumes.stop_live_rw' is on a screen, after waiting for other text",
        "test_described:10: an assert that 'after-20' is on a screen, after waiting for other text",
    ]


def test_texts_a_wait_named_or_a_settled_app_pass(tmp_path):
    assert (
        _found(
            tmp_path,
            (
                "def test_named(tmux):\n"
                "    screen = tmux.wait('Step 20', 'Problem')\n"
                "    assert 'Problem' in screen and 'Step 20' in screen\n"
                "    screen = tmux.wait(lambda s: 'full-9' in s and '30 100' in s, 'the output')\n"
                "    assert '30 100' in screen\n"
                "async def test_settled(pilot, app):\n"
                "    await pilot.press('s')\n"
                "    await input_applied(pilot)\n"
                "    assert 'smoothing 0.8' in screen_text(app)\n"
                "async def test_not_a_screen(client, run):\n"  # a reply read once, not a screen drawn over time
                "    logs = (await client.get_logs(run)).logs\n"
                "    assert 'Step 6' in logs\n"
            ),
        )
        == []
    )
