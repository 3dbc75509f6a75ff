"""Record the RL reply set the RL snapshots replay (run once by hand; the output is committed).

    uv run python tests/snapshots/rl_data/record.py BASE_URL TOKEN HEALTHY_ID HOT_ID \\
        > tests/snapshots/rl_data/replies.json

HEALTHY_ID and HOT_ID are COMPLETED reverse-text RL runs on that local platform (prime-rl's
examples/basic/reverse-text/rl.toml, lr 3e-6 and 3e-4: ``tests/ui/test_rl_dashboard.py`` dispatches
the same). Ids and timestamps are pinned; every number, log line and config is the real run's.
"""

from __future__ import annotations

import json
import sys

import httpx

IDS = ("rlhealthy000000000000000", "rlhot0000000000000000000")
T0, T_START, T_END = "2026-12-06T08:30:00Z", "2026-12-06T08:30:05Z", "2026-12-06T08:30:15Z"
KEPT = (
    "step",
    "time",
    "train/agg/effective/agent/reward/",
    "train/agg/effective/agent/rewards/",
    "train/agg/effective/num_output_tokens/mean",
    "train/agg/effective/agent/is_truncated/mean",
    "train/agg/all/agent/solved_",
    "train/agg/all/has_error/mean",
    "off_policy/mean",
    "off_policy/max",
    "off_policy/dropped",
    "time/step",
    "time/wait_for_policy",
    "batch/",
    "progress/total_rollouts",
    "eval/",
)
"""The keys kept (what the charts, the Overview and the health rules read), so the file stays small."""
COMPONENTS = {
    "orchestrator": {"component": "orchestrator"},
    "trainer": {"component": "trainer"},
    "inference": {"component": "inference"},
    "env-server/reverse-text": {"component": "env-server", "env_name": "reverse-text"},
}


def main(base_url: str, token: str, *run_ids: str) -> None:
    http = httpx.Client(base_url=base_url + "/api/v1", headers={"Authorization": f"Bearer {token}"})

    def get(path: str, **params):
        reply = http.get(path, params=params or None)
        reply.raise_for_status()
        text = reply.text
        for real, fixed in zip(run_ids, IDS):
            text = text.replace(real, fixed)
        return json.loads(text)

    data: dict = {"clock": "2026-12-06T08:31:00Z", "runs": {}, "metrics": {}, "logs": {}, "env_servers": {}}
    for n, (real, fixed) in enumerate(zip(run_ids, IDS)):
        run = get(f"/rft/runs/{real}")["run"]
        run.update(createdAt=T0, updatedAt=T_END, startedAt=T_START, completedAt=T_END, userId="user-1")
        data["runs"][fixed] = run
        metrics = get(f"/rft/runs/{real}/metrics")["metrics"]
        for i, row in enumerate(metrics):
            row["time"] = 1796546405 + 0.5 * i + 60 * n
            for key in [k for k in row if not k.startswith(KEPT)]:
                del row[key]
        data["metrics"][fixed] = metrics
        data["logs"][fixed] = {
            name: get(f"/rft/runs/{real}/logs", tail_lines=400, **params)["logs"] for name, params in COMPONENTS.items()
        }
        data["env_servers"][fixed] = get(f"/rft/runs/{real}/env-servers")
    json.dump(data, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(*sys.argv[1:])
