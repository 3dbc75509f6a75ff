"""The primetui zygote (tests/cli_zygote.py) runs a command as a fresh process would.

The fuzz tests fork their headless commands from it; this proves a forked call gives the same stdout,
stderr and exit code as a fresh ``python`` process, with the call's own environment (the platform URL the
zygote never saw) and its own death by a signal.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.cli_zygote import python, zygote
from tests.ui.test_wire_fuzz import WRAPPER, _env
from tests.wire_fuzz import Scenario
from tests.wire_platform import RUN_ID, WirePlatform


def _fresh(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, timeout=120, stdin=subprocess.DEVNULL, cwd=Path.cwd()
    )


def _same(a: subprocess.CompletedProcess[bytes], b: subprocess.CompletedProcess[bytes]) -> tuple:
    """What a call gave, but the peak memory the wrapper prints (a fork's differs by a few MB)."""
    strip = re.compile(rb"\nRSS_KB=\d+\n")
    return (a.returncode, a.stdout, strip.sub(b"\n", a.stderr)), (b.returncode, b.stdout, strip.sub(b"\n", b.stderr))


def test_a_forked_call_gives_what_a_fresh_process_gives(tmp_path: Path) -> None:
    assert zygote() is not None  # the calls below go through the zygote
    failing = Scenario(1, {"runs": ("status", 7)})  # an HTTP error with a hostile detail: exit 1, one sentence
    for reply, args, code in (
        (Scenario(1, {}).reply, ["-c", WRAPPER, "run", RUN_ID, "--once"], 0),
        (failing.reply, ["-c", WRAPPER, "runs", "--once"], 1),
        (Scenario(1, {}).reply, ["-m", "primetui", "runs", "--once", "--json"], 0),
    ):
        with WirePlatform(reply) as wp:
            env = _env(tmp_path, wp.base_url)
            forked, fresh = _same(python(args, env, timeout=120), _fresh(args, env))
        assert forked == fresh, args
        assert forked[0] == code, forked  # and it reached the platform on a port the zygote never saw
    assert not (tmp_path / "crashes").exists()


def test_a_call_dies_by_its_own_signal(tmp_path: Path) -> None:
    kill = ["-c", "import os, signal; print('before', flush=True); os.kill(os.getpid(), signal.SIGSEGV)"]
    env = _env(tmp_path, "http://127.0.0.1:9")
    forked = python(kill, env, timeout=60)
    assert (forked.returncode, forked.stdout) == (-11, b"before\n") == (_fresh(kill, env).returncode, b"before\n")


def test_a_running_call_streams_its_output_and_ends_by_the_signal_sent_to_its_pid(tmp_path: Path) -> None:
    """``Zygote.popen`` (tests/ops/script_helpers.py's scripts): output as it comes, a signal by pid, its exit code."""
    z = zygote()
    assert z is not None
    code = "import sys, time; print('up', flush=True); print('err', file=sys.stderr, flush=True); time.sleep(120)"
    env = _env(tmp_path, "http://127.0.0.1:9")
    ended = []
    for start in (
        lambda: z.popen(["-c", code], env, Path.cwd()),
        lambda: subprocess.Popen(
            [sys.executable, "-c", code], env=env, text=True, stdin=subprocess.DEVNULL, stdout=-1, stderr=-1
        ),
    ):
        proc = start()
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline() == "up\n" and proc.stderr.readline() == "err\n"  # read while it runs
        assert proc.poll() is None
        proc.send_signal(15)
        ended.append((proc.wait(timeout=60), proc.stdout.read(), proc.poll()))
        proc.stdout.close()
        proc.stderr.close()
    assert ended[0] == ended[1] == (-15, "", -15)
