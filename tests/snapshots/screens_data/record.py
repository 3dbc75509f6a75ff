"""Record the reply set the screen snapshots replay (run once by hand; the output is committed).

    uv run python tests/snapshots/screens_data/record.py BASE_URL TOKEN RUN_ID \\
        > tests/snapshots/screens_data/replies.json

RUN_ID is a COMPLETED walkthrough run on that local platform (volume ``research``). The real
replies are then pinned for determinism: ids and timestamps are replaced by fixed values, and a
few variants are derived from the real run (one RUNNING at step 6, one FAILED with its failure
analysis, one QUEUED) so every state the runs screen can show is in one picture.
"""

from __future__ import annotations

import copy
import json
import sys

import httpx

FIXED_ID = "kqeggj5dl7k85bc0mk1i4y5i"
T0 = "2026-09-28T20:33:00Z"
T_START = "2026-09-28T20:34:00Z"
T_END = "2026-09-28T20:37:00Z"


def main(base_url: str, token: str, run_id: str) -> None:
    http = httpx.Client(base_url=base_url + "/api/v1", headers={"Authorization": f"Bearer {token}"})

    def get(path: str, **params):
        reply = http.get(path, params=params or None)
        reply.raise_for_status()
        return json.loads(reply.text.replace(run_id, FIXED_ID))

    run = get(f"/rft/runs/{run_id}")["run"]
    metrics = get(f"/rft/runs/{run_id}/metrics")["metrics"]
    checkpoints = get(f"/rft/runs/{run_id}/checkpoints")["checkpoints"]
    logs = get(f"/rft/runs/{run_id}/logs", tail_lines=200, component="trainer")["logs"]
    models = get("/training/available-fft-models")
    volumes = [v for v in get("/training/volumes")["volumes"] if v["name"] == "research"]

    run.update(
        createdAt=T0, updatedAt=T_END, startedAt=T_START, completedAt=T_END, userId="user-1", name="reverse-text-smoke"
    )
    for i, row in enumerate(metrics):
        row["time"] = 1790800440 + 18 * i
    for ck in checkpoints:
        ck.update(createdAt=T_END, uploadedAt=T_END, id="ck-10")
    for v in volumes:
        v.update(createdAt="2026-09-28T20:10:00Z", size="100Gi")

    running = copy.deepcopy(run)
    running.update(
        id="r2unning0000000000000000",
        name="reverse-text-lr-sweep",
        status="RUNNING",
        maxSteps=10,
        completedAt=None,
        updatedAt="2026-09-28T20:39:00Z",
        startedAt="2026-09-28T20:38:00Z",
        createdAt="2026-09-28T20:37:30Z",
    )
    failed = copy.deepcopy(run)
    failed.update(
        id="f4iled000000000000000000",
        name="reverse-text-no-data",
        status="FAILED",
        completedAt="2026-09-28T20:31:00Z",
        startedAt="2026-09-28T20:30:00Z",
        createdAt="2026-09-28T20:29:00Z",
        updatedAt="2026-09-28T20:31:00Z",
        errorMessage="trainer exited with code 1: dataset 'datasets/reverse-txt' not found on volume research",
        failureAnalysis={
            "rootCause": "data.name points at a directory that does not exist on the volume",
            "evidence": ["FileNotFoundError: /volume/datasets/reverse-txt", "datasets/ holds: reverse-text"],
            "confidence": 0.92,
        },
    )
    queued = copy.deepcopy(run)
    queued.update(
        id="qu3ued000000000000000000",
        name="reverse-text-8gpu",
        status="QUEUED",
        startedAt=None,
        completedAt=None,
        createdAt="2026-09-28T20:39:30Z",
        updatedAt="2026-09-28T20:39:30Z",
        runsAhead=2,
        queueReason="waiting for 8 free GPUs on local-cpu",
    )
    for r in (running, failed, queued):
        r["runConfig"] = copy.deepcopy(run.get("runConfig"))
    runs = [queued, running, run, failed]
    for r in runs:
        for key in [k for k, v in r.items() if v is None]:
            del r[key]

    sessions = {
        "research": [
            {
                "id": "vs_2f9c01",
                "volumeName": "research",
                "status": "RUNNING",
                "readOnly": False,
                "phase": "staging",
                "progress": "Transferred: 1.204 GiB / 2.410 GiB, 50%, 58.9 MiB/s, ETA 21s (4/7 files)",
                "createdAt": "2026-09-28T20:38:30Z",
            },
            {
                "id": "vs_1a7e44",
                "volumeName": "research",
                "status": "STOPPED",
                "readOnly": True,
                "phase": "stopped",
                "createdAt": "2026-09-28T20:12:00Z",
            },
        ]
    }
    out = {
        "clock": "2026-09-28T20:40:00Z",
        "GET /training/volumes": {"volumes": volumes},
        "GET /training/volumes/research/sessions": {"sessions": sessions["research"]},
        "GET /training/available-fft-models": models,
        "GET /rft/runs": {"runs": runs, "total": 4, "page": 1, "limit": 20, "total_pages": 1},
        "metrics": {FIXED_ID: metrics, running["id"]: metrics[:6], failed["id"]: []},
        "runs": {r["id"]: r for r in runs},
        "checkpoints": {FIXED_ID: checkpoints},
        "logs": {FIXED_ID: logs},
    }
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main(*sys.argv[1:4])
