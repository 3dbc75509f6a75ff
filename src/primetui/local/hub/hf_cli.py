"""``hf`` in a session shell: huggingface_hub's own CLI, with the endpoint's reason kept in its errors.

The CLI prints its fixed "Dataset 'x' not found" text for a 404 and drops what the server said; on
the local platform that reason ("serves only its bundled datasets ...") is the useful part, so it is
added as the last line. Everything else is ``huggingface_hub.cli.hf.main`` as installed.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from primetui.config.fileio import atomic_write

# A sh script, not a "#!python" one: a shebang line is cut at 127 bytes and breaks on spaces.
LAUNCHER = """#!/bin/sh
# primetui: huggingface_hub's `hf` for volume sessions (HF_ENDPOINT is the local platform)
exec {python} -c 'import sys; from primetui.local.hub.hf_cli import main; sys.exit(main())' "$@"
"""


def _with_server_reason(formatter):
    def formatted(error):
        text = formatter(error)
        reason = getattr(error, "server_message", None)
        if reason and reason.strip() not in text:
            text += "\n" + reason.strip().splitlines()[-1]
        return text

    return formatted


def main() -> int | None:
    from huggingface_hub.cli import _errors
    from huggingface_hub.cli.hf import main as hf_main
    from huggingface_hub.errors import RemoteEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    for kind in (RepositoryNotFoundError, RevisionNotFoundError, RemoteEntryNotFoundError):
        if kind in _errors.CLI_ERROR_MAPPINGS:
            _errors.CLI_ERROR_MAPPINGS[kind] = _with_server_reason(_errors.CLI_ERROR_MAPPINGS[kind])
    sys.argv[0] = "hf"
    return hf_main()


def install_launcher(bin_dir: Path) -> Path:
    """Write ``<bin_dir>/hf`` (for the session shell's PATH) running this module with this Python."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    path = bin_dir / "hf"
    text = LAUNCHER.format(python=shlex.quote(sys.executable))
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        atomic_write(path, text, mode=0o755)
    return path
