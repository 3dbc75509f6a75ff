"""The base install (without ``primetui[local]``): everything but the local platform works, and
``--local`` says which command adds the extra.

Each test runs Python in a subprocess whose import system refuses the extra's modules, as an
environment without them would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from primetui import __version__
from primetui.local.extra import LOCAL_DISTRIBUTIONS

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = sorted(LOCAL_DISTRIBUTIONS.values()) + ["starlette"]  # starlette comes only with fastapi

BLOCKER = """
import sys
BLOCKED = set(sys.argv.pop(1).split(","))
ASKED = []
class RefuseTheLocalExtra:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            ASKED.append(name)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, RefuseTheLocalExtra())
import atexit
atexit.register(lambda: print("ASKED-FOR-EXTRA:" + ",".join(ASKED), file=sys.stderr))
"""


def without_extra(
    code: str, *args: str, env: dict[str, str] | None = None, home: Path
) -> tuple[int, str, str, list[str]]:
    """Run ``code`` with the extra's modules refused: (exit code, stdout, stderr without the probe, modules asked
    for)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PRIME")}
    environ.update(
        HOME=str(home),
        PRIMETUI_CONFIG_DIR=str(home / "cfg"),
        PRIMETUI_LOCAL_DATA_DIR=str(home / "local"),
        XDG_CACHE_HOME=str(home / "cache"),
        **(env or {}),
    )
    out = subprocess.run(
        [sys.executable, "-c", BLOCKER + code, ",".join(BLOCKED), *args],
        check=False,
        capture_output=True,
        text=True,
        env=environ,
        timeout=120,
    )
    lines = out.stderr.splitlines()
    probe = next(line for line in lines if line.startswith("ASKED-FOR-EXTRA:"))
    stderr = "\n".join(line for line in lines if line != probe)
    asked = [m for m in probe.removeprefix("ASKED-FOR-EXTRA:").split(",") if m]
    return out.returncode, out.stdout, stderr, asked


CLI = "import sys\nfrom primetui.commands.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"


def test_the_extra_lists_what_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {
        req.split(">")[0].split("=")[0].split("<")[0].strip() for req in project["optional-dependencies"]["local"]
    }
    assert declared == set(LOCAL_DISTRIBUTIONS)


def test_every_module_outside_the_local_platform_imports_without_the_extra(tmp_path):
    code = """
import importlib, pkgutil, primetui
failed = []
for info in pkgutil.walk_packages(primetui.__path__, "primetui."):
    if info.name.startswith("primetui.local") or info.name == "primetui.__main__":
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as exc:
        failed.append(f"{info.name}: {exc}")
print("\\n".join(failed))
"""
    code_, out, err, asked = without_extra(code, home=tmp_path)
    assert code_ == 0, err
    assert out.strip() == "", f"these modules need the extra primetui[local] to import:\n{out}"
    assert asked == []


def test_runs_once_against_a_platform_never_asks_for_the_extra(local_platform, tmp_path):
    env = {"PRIME_BASE_URL": local_platform.base_url, "PRIME_API_KEY": local_platform.token}
    code, out, err, asked = without_extra(CLI, "runs", "--once", "--json", env=env, home=tmp_path)
    assert code == 0, err
    assert json.loads(out)["page"] == 1
    assert asked == []


@pytest.mark.parametrize(
    "args",
    [
        ["--local"],
        ["local", "serve", "--demo"],
        ["runs", "--once", "--local"],
        ["edit", "sft.toml", "--local"],
        ["serve", "--local"],
        ["wait", "some-run", "--local"],
        ["dispatch", "sft.toml", "--volume", "research", "--local"],
    ],
)
def test_local_without_the_extra_names_the_command_that_adds_it(args, tmp_path):
    code, out, err, _ = without_extra(CLI, *args, home=tmp_path)
    assert code == 78  # configuration (docs/ops.md, exit codes)
    assert out == ""
    assert err.count("\n") == 0 and "Traceback" not in err
    assert err.startswith("primetui: the local platform needs fastapi, uvicorn, pyarrow, huggingface-hub, ")
    requirement = f"'primetui[local]=={__version__}'"
    assert err.endswith(
        (
            f"add them with: uv pip install --python {sys.executable} {requirement}",
            f"add them with: {sys.executable} -m pip install {requirement}",
        )
    )
    assert not (tmp_path / "local").exists(), "nothing of the platform is started or created"


def test_the_first_run_screen_gets_the_same_sentence_from_the_launcher(tmp_path):
    code = """
from primetui.local.launcher import LauncherError, ensure_running
try:
    ensure_running()
except LauncherError as exc:
    print(exc)
"""
    rc, out, err, _ = without_extra(code, home=tmp_path)
    assert rc == 0, err
    assert out.startswith(
        "The local platform needs fastapi, uvicorn, pyarrow, huggingface-hub, boto3, which this install leaves out; "
    )
    assert "primetui[local]" in out


def test_a_uv_tool_install_is_told_to_reinstall_the_tool_with_the_extra(tmp_path):
    (tmp_path / "uv-receipt.toml").write_text("[tool]\n", encoding="utf-8")
    code = (
        f"import sys\nsys.prefix = {str(tmp_path)!r}\nfrom primetui.local.extra import "
        f"install_command\nprint(install_command())\n"
    )
    rc, out, err, _ = without_extra(code, home=tmp_path)
    assert rc == 0, err
    assert out.strip() == f"uv tool install 'primetui[local]=={__version__}'"
