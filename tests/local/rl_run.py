"""One finished reverse-text RL run on the local platform, for the RL views' tests (one per module).

The config is prime-rl's own ``examples/basic/reverse-text/rl.toml`` (research §1.4 a): 20 steps,
batch 128 in groups of 16, lr 3e-6; its samples land at steps 10 and 20, its histograms every step.
"""

from __future__ import annotations

import tomllib
from typing import Any

from primetui.local.testing import LocalPlatform
from primetui.sft.templates import RL_REVERSE_TEXT
from tests.local.conftest import http, wait_status

REVERSE_TEXT_RL = RL_REVERSE_TEXT
"""prime-rl's own examples/basic/reverse-text/rl.toml, the template primetui ships."""


def finished_rl_run(lp: LocalPlatform, config: str = REVERSE_TEXT_RL, name: str = "reverse-text") -> dict[str, Any]:
    """Dispatch ``config`` as ``prime train`` sends an RL run (no mode) and wait until it is COMPLETED."""
    with http(lp) as c:
        reply = c.post("/training/runs", json={"config": tomllib.loads(config), "name": name})
        assert reply.status_code == 200, reply.text
        run = wait_status(c, reply.json()["runId"], timeout=240)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    return run


def demo_rl_run(lp: LocalPlatform) -> dict[str, Any]:
    """The demo's own finished reverse-text RL run (the platform queues one at its first start): the
    run every test that only reads a finished RL run shares, so none trains one of its own."""
    from primetui.local.demo import DEMO_RL_NAME

    with http(lp) as c:
        runs = c.get("/rft/runs", params={"limit": 100}).json()["runs"]
        demo = [r for r in runs if r.get("name") == DEMO_RL_NAME]
        assert demo, f"the demo platform has no run named {DEMO_RL_NAME!r}"
        run = wait_status(c, demo[-1]["id"], timeout=240)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    return run
