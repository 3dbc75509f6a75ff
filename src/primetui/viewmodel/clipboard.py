"""Copy text to the user's clipboard over OSC 52 and say honestly whether it can arrive.

OSC 52 is the only clipboard that works over SSH. Terminals may silently refuse it, and no
reply comes back, so we detect the known refusers (Apple Terminal, tmux with ``set-clipboard
off``, the Linux console) and then show the text itself so it can be selected by hand.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping


def refusal_reason(env: Mapping[str, str] | None = None) -> str | None:
    """Why the clipboard write will probably not arrive, or None when it should."""
    env = os.environ if env is None else env
    if env.get("TERM_PROGRAM") == "Apple_Terminal":
        return "Apple Terminal ignores OSC 52 clipboard writes"
    if env.get("TERM") == "linux":
        return "the Linux console has no clipboard"
    if env.get("TMUX") and shutil.which("tmux"):
        try:
            out = subprocess.run(
                ["tmux", "show-options", "-gv", "set-clipboard"],
                capture_output=True,
                text=True,
                timeout=1,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return None
        if out == "off":
            return "tmux has set-clipboard off (run: tmux set -g set-clipboard on)"
    return None
