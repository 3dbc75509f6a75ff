"""``python -m primetui.sft.worker``: check sft.toml texts sent over stdin, answer on stdout.

The editor runs one of these for big files so that validation never competes with the UI thread
for the GIL. Frames are a 4-byte big-endian length and a pickle: requests ``(text, CheckContext)``,
answers a ``Report`` without spans. Only the editor that started the process talks to it.
"""

from __future__ import annotations

import pickle
import struct
import sys
from typing import IO, Any


def write_frame(stream: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(struct.pack(">I", len(data)) + data)
    stream.flush()


def read_frame(stream: IO[bytes]) -> Any:
    head = stream.read(4)
    if len(head) < 4:
        raise EOFError("the other side closed the pipe")
    (size,) = struct.unpack(">I", head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other side closed the pipe mid-frame")
    return pickle.loads(data)  # noqa: S301 - frames come only from the editor that spawned us


def main() -> int:
    from primetui.sft.check import check_text_portable

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            text, ctx = read_frame(stdin)
        except EOFError:
            return 0
        write_frame(stdout, check_text_portable(text, ctx))


if __name__ == "__main__":
    sys.exit(main())
