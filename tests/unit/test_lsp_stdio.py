"""`primetui lsp` answers a real client over stdio: initialize, didOpen, didChange, hover, completion, fixes."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue

import pytest

URI = "file:///work/sft.toml"
WAIT = 60.0  # seconds a reply may take on a loaded machine (a bound, not a sleep)


class Client:
    """A minimal LSP client: Content-Length framing over the server's stdin/stdout."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "primetui.commands.cli", "lsp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.inbox: Queue = Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        while True:
            headers = {}
            while (line := out.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            if not headers:
                return
            self.inbox.put(json.loads(out.read(int(headers["content-length"]))))

    def send(self, msg: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **msg}).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method: str, params: dict) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: dict) -> dict:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id, f"the reply to {method}")
        assert "error" not in reply, reply
        return reply["result"]

    def wait(self, cond, what: str) -> dict:
        while True:
            try:
                msg = self.inbox.get(timeout=WAIT)
            except Empty:
                raise AssertionError(f"gave up waiting for {what}") from None
            if cond(msg):
                return msg

    def diagnostics(self, version_hint: str) -> list[dict]:
        msg = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics", version_hint)
        assert msg["params"]["uri"] == URI
        return msg["params"]["diagnostics"]

    def close(self) -> None:
        self.request("shutdown", {})
        self.notify("exit", {})
        self.proc.wait(timeout=WAIT)


@pytest.fixture(scope="module")
def server():
    """One language server for the module (its start is most of these tests' time): initialized once."""
    c = Client()
    init = c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    assert init["capabilities"]["hoverProvider"] and init["capabilities"]["completionProvider"]
    assert init["capabilities"]["codeActionProvider"]
    c.notify("initialized", {})
    yield c
    c.close()


@pytest.fixture
def client(server):
    """The shared server; each test's document is closed after it, and the server's clearing of its
    diagnostics awaited, so the next test starts with no message of this one waiting."""
    yield server
    server.notify("textDocument/didClose", {"textDocument": {"uri": URI}})
    assert server.diagnostics("the diagnostics cleared after didClose") == []


def test_diagnostics_follow_open_and_change(client):
    text = "max_steps = 10\n[scheduler]\nwarmup_steps = 5\n[ckpt]\n"
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}}
    )
    diags = client.diagnostics("diagnostics after didOpen")
    errors = [d for d in diags if d["severity"] == 1]
    assert [d["range"]["start"] for d in errors] == [{"line": 2, "character": 0}]
    assert "warmup_steps" in errors[0]["message"]
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": URI, "version": 2}, "contentChanges": [{"text": "max_steps = 'ten'\n[ckpt]\n"}]},
    )
    diags = client.diagnostics("diagnostics after didChange")
    assert [(d["range"]["start"]["line"], d["severity"]) for d in diags if d["severity"] == 1] == [(0, 1)]
    assert "max_steps" in diags[0]["message"]


def test_hover_completion_and_code_actions(client):
    text = "max_steps = 100\n[scheduler]\nwarmup_steps = 5\n[ckpt]\n[optim]\n\n"
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}}
    )
    client.diagnostics("diagnostics after didOpen")
    hover = client.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 0, "character": 2}}
    )
    assert "max_steps" in hover["contents"]["value"]
    done = client.request(
        "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": 5, "character": 0}}
    )
    labels = {i["label"]: i for i in done["items"]}
    assert "lr" in labels and labels["lr"]["detail"].startswith("type:")
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": URI},
            "range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}},
            "context": {"diagnostics": []},
        },
    )
    assert actions and actions[0]["kind"] == "quickfix"
    edit = actions[0]["edit"]["changes"][URI][0]
    assert set(edit) == {"range", "newText"}


def test_an_rl_toml_gets_the_rl_schema_over_the_same_server(client):
    """Problems on the right key (an error and a deferred warning), RL hover and completion, a rename fix."""
    from primetui.sft.templates import RL_REVERSE_TEXT

    text = RL_REVERSE_TEXT.replace('id = "reverse-text"', 'id = "no-such-env"').replace(
        "group_size = 16", "rollouts_per_example = 16\n"
    )
    lines = text.split("\n")
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}}
    )
    diags = client.diagnostics("diagnostics of the rl.toml")
    by_line = {d["range"]["start"]["line"]: d for d in diags}
    rollouts = lines.index("rollouts_per_example = 16")
    assert by_line[rollouts]["severity"] == 1 and "renamed to `group_size`" in by_line[rollouts]["message"]
    taskset = lines.index('id = "no-such-env"')
    assert by_line[taskset]["severity"] == 2 and by_line[taskset]["message"].startswith(
        "taskset 'no-such-env' not found"
    )
    assert by_line[taskset]["range"]["start"]["character"] == len("id = ")
    hover = client.request(
        "textDocument/hover",
        {"textDocument": {"uri": URI}, "position": {"line": lines.index("batch_size = 128"), "character": 2}},
    )
    assert "orchestrator.batch_size" in hover["contents"]["value"] and "token_batch_size" in hover["contents"]["value"]
    done = client.request(
        "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": rollouts + 1, "character": 0}}
    )
    assert "max_off_policy_steps" in {i["label"] for i in done["items"]}
    actions = client.request(
        "textDocument/codeAction",
        {
            "textDocument": {"uri": URI},
            "range": {"start": {"line": rollouts, "character": 0}, "end": {"line": rollouts, "character": 0}},
            "context": {"diagnostics": []},
        },
    )
    assert [a["title"] for a in actions][:1] == ["Rename rollouts_per_example to group_size"]


QUOTED_TEN = "'ten'"  # a string where an integer belongs: an error naming max_steps


def test_a_burst_of_changes_is_checked_once_for_the_latest_text(client):
    """Issue 43 finding 6: 30 changes sent in one write are coalesced (debounce, stale checks dropped):
    the diagnostics published are for the last version, never for an older one after a newer one, and
    there are fewer publications than changes (before: one full check and publication per change)."""
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": "max_steps = 10\n[ckpt]\n"}},
    )
    client.diagnostics("diagnostics after didOpen")
    batch = b""
    for version in range(2, 32):
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {
                    "textDocument": {"uri": URI, "version": version},
                    "contentChanges": [{"text": f"max_steps = {QUOTED_TEN if version == 31 else version}\n[ckpt]\n"}],
                },
            }
        ).encode()
        batch += b"Content-Length: %d\r\n\r\n" % len(body) + body
    client.proc.stdin.write(batch)
    client.proc.stdin.flush()
    versions = []
    while not versions or versions[-1] != 31:
        msg = client.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics", "the last version's diagnostics"
        )
        versions.append(msg["params"].get("version"))
    assert versions == sorted(versions) and len(versions) < 30
    assert "max_steps" in msg["params"]["diagnostics"][0]["message"]


def test_hover_and_completion_inside_inline_tables(client):
    """Issue 43 finding 5 over LSP: hover inside `env = { taskset = { … } }` was null, completion in
    `sampling = { temperature = 1.0, ` empty."""
    text = (
        '[[eval.source]]\nname = "e"\nenv = { taskset = { id = "org/task" } }\n[eval]\nsampling = { temperature = '
        "1.0, \n"
    )
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}}
    )
    client.diagnostics("diagnostics after didOpen")
    hover = client.request(
        "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 2, "character": 10}}
    )
    assert hover and "eval.source.env.taskset" in hover["contents"]["value"]
    done = client.request(
        "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": 4, "character": 32}}
    )
    assert "top_p" in {i["label"] for i in done["items"]}


def _big_document(sources: int = 2400) -> str:
    """A ~280,000-character sft.toml: past the size where hover reads only the table around the
    cursor, and where the check goes to the helper process."""
    from primetui.sft.templates import ONLINE_EVAL

    return ONLINE_EVAL + "".join(
        f'\n[[eval.source]]\nname = "env-{i}"\nenv = {{ taskset = {{ id = "org/task-{i}" }} }}\nnum_examples = 32\n'
        for i in range(sources)
    )


def _helpers_of(pid: int) -> list[int]:
    """The pids of the ``primetui.sft.worker`` processes whose parent is ``pid``."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"primetui.sft.worker" in cmdline:
            out.append(int(entry.name))
    return out


def _edit(client: Client, version: int, start: tuple[int, int], end: tuple[int, int], text: str) -> None:
    where = {"start": dict(zip(("line", "character"), start)), "end": dict(zip(("line", "character"), end))}
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": URI, "version": version}, "contentChanges": [{"range": where, "text": text}]},
    )


def test_hover_on_a_big_document_reads_the_edited_text_and_its_check_runs_in_a_helper():
    """Issue 43 finding 6: on a 4.6 MB file a hover waited up to 4.4 s, behind the check holding the
    GIL in a thread and behind pygls's line-by-line copy per change. Now the check runs in the
    editor's helper process (a child of the server, gone when the server exits) and hover reads only
    the table around the cursor: after incremental edits that shift the lines, hover and completion
    deep in the document answer for the edited text, and diagnostics follow the last version."""
    from tests.waiting import wait_for_sync

    c = Client()
    try:
        c.request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
        c.notify("initialized", {})
        text = _big_document()
        c.notify(
            "textDocument/didOpen", {"textDocument": {"uri": URI, "languageId": "toml", "version": 1, "text": text}}
        )
        assert c.diagnostics("the big document's diagnostics") == []
        helpers = _helpers_of(c.proc.pid)
        assert len(helpers) == 1, "the big document was checked in the server's own process"
        lines = text.split("\n")
        last = len(lines) - 1
        _edit(c, 2, (0, 0), (0, 0), "# a comment line above everything\n")  # every line moves down one
        _edit(c, 3, (1, len("max_steps = ")), (1, len("max_steps = 10")), QUOTED_TEN)
        _edit(c, 4, (last + 1, 0), (last + 1, 0), "\n[eval.sampling]\ntemperature = 1.0\n")
        hover = c.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 1}})
        assert hover is not None and hover["contents"]["value"].startswith("**max_steps**")
        env_line = 1 + lines.index('name = "env-2000"') + 1  # its `env = { taskset = … }` line, moved down one
        hover = c.request(
            "textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": env_line, "character": 10}}
        )
        assert hover is not None and "eval.source.env.taskset" in hover["contents"]["value"]
        done = c.request(
            "textDocument/completion", {"textDocument": {"uri": URI}, "position": {"line": last + 4, "character": 0}}
        )
        labels = {i["label"] for i in done["items"]}
        assert "top_p" in labels and "temperature" not in labels
        msg = c.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 4,
            "the diagnostics of the last version",
        )
        errors = [d for d in msg["params"]["diagnostics"] if d["severity"] == 1]
        assert [d["range"]["start"]["line"] for d in errors] == [1] and "max_steps" in errors[0]["message"]
    finally:
        c.close()
    wait_for_sync(
        lambda: not any(Path(f"/proc/{pid}").exists() for pid in helpers), "the helper to end with the server"
    )
