"""The `prime` zygote (tests/local/prime_zygote.py) runs the CLI as a fresh process would.

Two proofs: a call's process holds no trace of what the zygote's import saw (its HOME, directory, URL,
keys), and a call gives the same stdout, stderr and exit code as a fresh `prime` process.
"""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from primetui.local.testing import LocalPlatform
from tests.local.prime_zygote import CALL_KEYS, PRIME, Zygote, prime, zygote
from tests.local.test_prime_cli import prime_env


def test_a_call_keeps_no_trace_of_what_the_zygotes_import_saw(local_platform: LocalPlatform, tmp_path: Path) -> None:
    # A zygote of its own, whose import sees a marked value for every key a call may change.
    own = Zygote(**{key: f"/zygote-sentinel/{key}" for key in CALL_KEYS - {"HOME"}})
    try:
        env = prime_env(local_platform, tmp_path / "home")
        assert own.serves(env)
        # Every string any live object holds in the call's process, after the call's setup.
        for needle in ("zygote-sentinel", str(own.dir)):  # the zygote's HOME and working directory are under its dir
            done = own.run([PRIME], env, tmp_path, 120, scan=needle)
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout) == [], f"the call still holds the zygote's {needle!r}"
        # The same scan sees what a call does hold: its own HOME, in `site`'s user base.
        seen = own.run([PRIME], env, tmp_path, 120, scan=str(tmp_path / "home"))
        assert any(hit.startswith("dict: ") for hit in json.loads(seen.stdout)), seen.stdout
        # ... and what the zygote's import made (which it froze for the collector): the CLI's own module file
        made = own.run([PRIME], env, tmp_path, 120, scan=str(Path("prime_cli") / "main.py"))
        assert json.loads(made.stdout), "the scan does not see the objects the zygote's import made"
        config = json.loads((tmp_path / "home" / ".prime" / "config.json").read_text())
        assert config["ssh_key_path"] == str(tmp_path / "home" / ".ssh" / "id_rsa")
    finally:
        own.close()


def test_a_call_gives_what_a_fresh_process_gives(local_platform: LocalPlatform, tmp_path: Path) -> None:
    env = prime_env(local_platform, tmp_path / "home")
    z = zygote()
    assert z is not None and z.serves(env)  # the calls below go through the zygote
    commands = [["volumes", "list"], ["train", "get", "0" * 24], ["train", "--help"]]

    def fresh(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PRIME, "--plain", *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
            stdin=subprocess.DEVNULL,
        )

    with ThreadPoolExecutor(max_workers=2 * len(commands)) as pool:
        forked = list(pool.map(lambda args: prime(args, env, tmp_path), commands))
        started = list(pool.map(fresh, commands))
    listed, missing, helped = forked
    assert listed.returncode == 0 and "research" in listed.stdout, listed.stdout + listed.stderr
    assert missing.returncode != 0 and "0" * 24 in missing.stdout + missing.stderr
    assert helped.returncode == 0 and "Usage: prime train" in helped.stdout
    for a, b in zip(forked, started, strict=True):
        assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
