"""A hosted run whose platform dropped the NaN loss (prime-rl's monitor drops non-finite metrics):
only the trainer's ``Step 5 | … | Loss nan`` line says it. The run screen and ``run ID --once --json``
read the trainer log and say NaN @5, over real HTTP from a platform that serves exactly that."""

from __future__ import annotations

import json

import pytest
from dash_helpers import screen_text
from tests.cli_zygote import headless
from tests.waiting import until
from tests.wire_platform import RUN_ID, Reply, WirePlatform, baseline

from primetui.api.client import PrimeClient
from primetui.ui.app import PrimeApp
from primetui.ui.screens.run import RunScreen

pytestmark = pytest.mark.timeout(120)

LOG = "\n".join(
    [
        *(
            f"03:04:0{s} SUCCESS Step {s} |   1.0s | Loss {2 - s / 10:.4f} | Grad. Norm 0.5 | LR 1.00e+12"
            for s in range(1, 5)
        ),
        "03:04:05 WARNING Local loss is nan, excluding this micro step from backward (step 5)",
        "03:04:05 SUCCESS Step 5 |   1.0s | Loss nan | Grad. Norm nan | LR 1.00e+12",
    ]
)


def reply(method: str, path: str, query: dict[str, str]) -> Reply:
    if path.endswith(f"/rft/runs/{RUN_ID}/metrics"):  # step 5 came with no loss at all (dropped), and no count
        rows = [{"step": s, "time": 1.767e9 + s, "loss/mean": 2 - s / 10} for s in range(1, 5)]
        return Reply.json({"metrics": [*rows, {"step": 5, "time": 1.767e9 + 5, "optim/lr": 1e12}]})
    if path.endswith(f"/rft/runs/{RUN_ID}/logs"):
        return Reply.json({"logs": LOG})
    data = baseline(method, path, query)
    return Reply.json(data) if data is not None else Reply.json({"detail": "Not Found"}, 404)


async def test_the_run_screen_reads_nan_from_the_trainer_log():
    with WirePlatform(reply) as wp:
        app = PrimeApp(PrimeClient(wp.base_url, "k"), None, None, poll_scale=0.1, platform_label="wire")
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.state.runs_loaded, "the runs list")
            app.open_run(RUN_ID)
            await until(
                pilot, lambda: isinstance(app.screen, RunScreen) and "Lifecycle" in screen_text(app), "the run screen"
            )
            await until(pilot, lambda: "NaN @5" in screen_text(app), "NaN @5 from the trainer's Loss nan line")


def test_run_once_json_reads_nan_from_the_trainer_log(tmp_path):
    with WirePlatform(reply) as wp:
        out = headless(["run", RUN_ID, "--once", "--json"], tmp_path, 60, PRIME_BASE_URL=wp.base_url, PRIME_API_KEY="k")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert (d["loss"], d["loss_nonfinite"], d["loss_step"]) == (None, "NaN", 5), d
