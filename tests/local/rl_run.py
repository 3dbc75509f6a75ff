"""One finished reverse-text RL run on the local platform, for the RL views' tests (one per module).

The config is prime-rl's own ``examples/basic/reverse-text/rl.toml`` (research §1.4 a): 20 steps,
batch 128 in groups of 16, lr 3e-6; its samples land at steps 10 and 20, its histograms every step.
"""

from __future__ import annotations

import tomllib
from typing import Any

from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status

REVERSE_TEXT_RL = """
max_steps = 20
seq_len = 2048

[model]
name = "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"

[orchestrator]
batch_size = 128
group_size = 16

[orchestrator.train.sampling]
max_completion_tokens = 128

[[orchestrator.train.source]]
name = "reverse-text"

[orchestrator.train.source.env.taskset]
id = "reverse-text"

[orchestrator.train.source.env.agent.harness]
id = "null"

[orchestrator.train.source.env.agent.runtime]
type = "subprocess"

[trainer.optim]
lr = 3e-6

[ckpt]

[inference]

[orchestrator.renderer]
name = "prime-qwen3"
"""


def finished_rl_run(lp: LocalPlatform, config: str = REVERSE_TEXT_RL, name: str = "reverse-text") -> dict[str, Any]:
    """Dispatch ``config`` as ``prime train`` sends an RL run (no mode) and wait until it is COMPLETED."""
    with http(lp) as c:
        reply = c.post("/training/runs", json={"config": tomllib.loads(config), "name": name})
        assert reply.status_code == 200, reply.text
        run = wait_status(c, reply.json()["runId"], timeout=240)
    assert run["status"] == "COMPLETED", run.get("errorMessage")
    return run
