"""Logs that cannot fill a disk (primetui.config.logcap): capped, rotated files and counted repeats.

The processes are real: a child whose stdout and stderr are captured writes far past the cap
through print, os.write and an uncaught traceback, and the trainer's ``process.out`` is capped
the same way when the supervisor points its output there.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import textwrap
from pathlib import Path

from primetui.config.logcap import CappedFile, RepeatFilter

CHILD = textwrap.dedent("""
    import os, sys
    from pathlib import Path
    from primetui.config.logcap import capture_output
    capture_output(Path(sys.argv[1]), cap=64 * 1024, backups=2)
    for i in range(4000):
        print(f"line {i:05d} " + "x" * 200)
    os.write(2, b"written straight to fd 2\\n")
    print("the last line", flush=True)
    raise SystemExit(0)
""")


def _sizes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in sorted(folder.iterdir())}


def test_captured_output_is_rotated_at_its_cap_and_keeps_the_newest_lines(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    done = subprocess.run([sys.executable, "-c", CHILD, str(log)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == done.stderr == b""  # everything went to the file
    sizes = _sizes(tmp_path)
    assert set(sizes) == {"server.log", "server.log.1", "server.log.2"}, sizes  # ~850 KB written, 3 files kept
    assert all(size <= 64 * 1024 for size in sizes.values()), sizes
    text = log.read_text()
    assert text.endswith("the last line\n")
    assert "written straight to fd 2" in text
    assert "line 03999" in text and "line 00000" not in text + (tmp_path / "server.log.2").read_text()


def test_a_trainers_process_out_is_capped_when_the_supervisor_points_its_output_there(tmp_path: Path) -> None:
    from primetui.config.logcap import LOG_CAP

    out = tmp_path / "process.out"
    script = textwrap.dedent("""
        import os, sys
        from pathlib import Path
        from primetui.local.trainer.__main__ import _cap_output
        _cap_output(Path(sys.argv[1]))
        chunk = b"y" * (1024 * 1024 - 1) + b"\\n"
        for _ in range(20):
            os.write(1, chunk)
    """)
    with open(out, "ab") as fh:
        done = subprocess.run(
            [sys.executable, "-c", script, str(out)], stdout=fh, stderr=subprocess.STDOUT, timeout=120
        )
    assert done.returncode == 0
    sizes = _sizes(tmp_path)
    assert set(sizes) == {"process.out", "process.out.1"}, sizes
    assert all(size <= LOG_CAP for size in sizes.values()), sizes


def test_a_single_write_longer_than_the_cap_is_cut_into_capped_files(tmp_path: Path) -> None:
    capped = CappedFile(tmp_path / "a.log", cap=1000, backups=1)
    capped.write(b"z" * 5000)
    capped.close()
    assert _sizes(tmp_path) == {"a.log": 1000, "a.log.1": 1000}


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _logger(repeat: RepeatFilter, path: Path) -> tuple[logging.Logger, logging.Handler]:
    handler = logging.FileHandler(path)
    handler.addFilter(repeat)
    logger = logging.getLogger(f"logcap-test-{path.name}")
    logger.propagate = False
    logger.addHandler(handler)
    return logger, handler


def test_repeated_records_are_written_once_then_counted_once_a_minute(tmp_path: Path) -> None:
    clock = _Clock()
    repeat = RepeatFilter(window=60.0, quiet=("socket.accept() out of system resource",), clock=clock)
    path = tmp_path / "out.log"
    logger, handler = _logger(repeat, path)
    try:
        for _ in range(10_000):
            try:
                raise OSError(24, "Too many open files")
            except OSError:
                logger.exception("socket.accept() out of system resource")
            logger.warning("closed a connection from %s: no whole request head within %g s", "127.0.0.1", 10)
        clock.now += 61
        repeat.report(logger)
        clock.now += 1
        logger.warning("closed a connection from %s: no whole request head within %g s", "127.0.0.1", 10)
    finally:
        logger.removeHandler(handler)
        handler.close()
    lines = path.read_text().splitlines()
    assert lines == [
        "socket.accept() out of system resource: [Errno 24] Too many open files",
        "closed a connection from 127.0.0.1: no whole request head within 10 s",
        "9,999 more like this in the last 61 s: " + logger.name + ": socket.accept() out of system resource",
        "9,999 more like this in the last 61 s: "
        + logger.name
        + ": closed a connection from %s: no whole request head within %g s",
    ]
