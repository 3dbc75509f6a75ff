"""The hostile-platform fuzz of the RL reads (R11 samples, R12 progress, R13 distributions).

The fake platform of tests/ui/test_wire_fuzz.py (real HTTP on 127.0.0.1) answers an RL run's
progress, a sample step in the hosted row shape (its JSON columns as strings, as prime-rl uploads
them) and each step's histograms, and mutates one RL route per case with each kind of
:data:`tests.wire_fuzz.KINDS` (wrong types, huge and deep values, non-finite numbers, hostile
strings, 100,000 rows, HTTP errors, cut, gzip-bombed, trickled and non-JSON bodies).

- ``primetui rollouts`` and ``primetui distributions`` (text and ``--json``) exit 0 or 1, print no
  control byte, say a failure in one ``primetui: …`` sentence, write no crash report;
- the Rollouts and Distributions tabs, driven by their keys, keep the app running with no crash
  report and no "Unexpected problem" toast.
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from tests.cli_zygote import python
from tests.e2e.test_hostile_text import foreign_controls
from tests.ui.test_wire_fuzz import HEADLESS_DEADLINE, REPLY_DEADLINE, WRAPPER, _env
from tests.wire_fuzz import KINDS, Scenario, mutate, route_of
from tests.wire_platform import RUN_ID, Reply, baseline

pytestmark = pytest.mark.timeout(240)

RL_ROUTES = ["samples", "progress", "distributions"]


def sample_row(i: int) -> dict[str, Any]:
    prompt = f"The river was built in 1884 number {i // 4}"
    text = f"<reversed_text>{prompt[::-1]}</reversed_text>"
    messages = [{"role": "user", "content": prompt}, {"role": "assistant", "content": text}]
    return {
        "run_id": RUN_ID,
        "step": 10,
        "tag": "",
        "problem_id": i // 4,
        "sample_id": i,
        "prompt": "",
        "completion": json.dumps(messages),
        "trajectory": json.dumps([{"messages": messages}]),
        "answer": "",
        "env_name": "reverse-text",
        "task": json.dumps({"idx": i // 4, "prompt": prompt, "answer": prompt[::-1]}),
        "info": json.dumps(
            {"native_wrapper": {"traces": [{"rewards": {"lcs": {"score": 0.5 + i / 100, "weight": 1.0}}}]}}
        ),
        "reward": 0.5 + i / 100,
        "advantage": i / 100 - 0.04,
        "metrics": "{}",
        "timing": "{}",
        "num_input_tokens": 40,
        "num_output_tokens": len(text),
        "created_at": "2026-01-02T03:04:05Z",
    }


def rl_baseline(method: str, path: str, query: dict[str, str]) -> Any:
    route = route_of(path)
    if route == "progress":
        return {
            "latestStep": 10,
            "stepsWithSamples": [10],
            "stepsWithDistributions": [9, 10],
            "lastUpdatedAt": "2026-01-02T03:04:05Z",
        }
    if route == "samples":
        rows = [sample_row(i) for i in range(8)] if query.get("page", "1") == "1" else []
        return {
            "run_id": RUN_ID,
            "samples": rows,
            "total": 8,
            "page": int(query.get("page", 1)),
            "limit": 100,
            "total_pages": 1,
        }
    if route == "distributions":
        step = int(query.get("step", 10))
        return {
            "chartData": {
                "histogramData": [
                    {
                        "binStart": i / 5,
                        "binEnd": (i + 1) / 5,
                        "count": i + step,
                        "range": f"{i / 5:.3f}-{(i + 1) / 5:.3f}",
                    }
                    for i in range(5)
                ],
                "stats": {
                    "avgReward": 0.6,
                    "medianReward": 0.6,
                    "minReward": 0.0,
                    "maxReward": 1.0,
                    "totalResults": 60,
                },
            },
            "step": step,
        }
    return baseline(method, path, query)


class RLScenario(Scenario):
    """One RL route mutated with one kind; every other route answers its baseline."""

    def reply(self, method: str, path: str, query: dict[str, str]) -> Reply:
        data = rl_baseline(method, path, query)
        route = route_of(path)
        if data is None:
            return Reply.json({"detail": "Not Found"}, 404)
        if route not in self.mutations:
            return Reply.json(data)
        kind, sub = self.mutations[route]
        return mutate(data, kind, random.Random(sub))


CASES = [(3000 + i, RL_ROUTES[i % 3], KINDS[i % len(KINDS)]) for i in range(len(KINDS) + 1)]
"""Every mutation kind, each RL route several times (a fixed list: a failure names its seed)."""
COMMANDS = [
    ["rollouts", RUN_ID],
    ["rollouts", RUN_ID, "--json"],
    ["distributions", RUN_ID],
    ["distributions", RUN_ID, "--json"],
]


def scenario(seed: int, route: str, kind: str) -> RLScenario:
    return RLScenario(seed, {route: (kind, random.Random(seed).randrange(2**32))})


def test_the_cases_cover_every_rl_route_and_every_kind():
    assert {k for _, _, k in CASES} == set(KINDS) and {r for _, r, _ in CASES} == set(RL_ROUTES)


@pytest.mark.parametrize(("seed", "route", "kind"), CASES, ids=[f"{s}-{r}={k}" for s, r, k in CASES])
def test_rl_commands_survive_a_hostile_platform(seed, route, kind, tmp_path):
    from tests.wire_platform import WirePlatform

    case = scenario(seed, route, kind)
    command = COMMANDS[seed % len(COMMANDS)]
    if route == "distributions" and command[0] == "rollouts":
        command = ["distributions", *command[1:]]
    if route == "samples" and command[0] == "distributions":
        command = ["rollouts", *command[1:]]
    with WirePlatform(case.reply) as wp:
        out = python(["-c", WRAPPER, *command], _env(tmp_path, wp.base_url), timeout=HEADLESS_DEADLINE + 30)
    err = re.sub(r"\nRSS_KB=\d+\n", "\n", out.stderr.decode("utf-8", "replace")).strip()
    what = f"{case.describe()} · primetui {' '.join(command)} · exit {out.returncode}\n{err[:2000]}"
    assert out.returncode in (0, 1), what
    assert "Traceback" not in err and "Unexpected problem" not in err, what
    assert foreign_controls(out.stdout) == [] and foreign_controls(out.stderr) == [], what
    assert not (tmp_path / "crashes").exists(), what
    if out.returncode == 1:
        assert re.search(r"^primetui: \S.*[.]$", err, re.M), what
    elif "--json" in command:
        json.loads(out.stdout)


@pytest.mark.parametrize(("seed", "route", "kind"), CASES[::2], ids=[f"{s}-{r}={k}" for s, r, k in CASES[::2]])
async def test_the_rl_tabs_survive_a_hostile_platform(seed, route, kind, tmp_path, monkeypatch):
    from primetui.api.client import PrimeClient
    from primetui.ui.monitor.distributions_pane import DistributionsPane
    from primetui.ui.monitor.rollouts_pane import RolloutsPane
    from tests.ui.monitor_helpers import PaneApp
    from tests.waiting import input_applied, until
    from tests.wire_platform import WirePlatform, baseline_run

    monkeypatch.setenv("PRIMETUI_REPLY_DEADLINE", str(REPLY_DEADLINE))
    monkeypatch.setenv("PRIMETUI_CRASH_DIR", str(tmp_path / "crashes"))
    case = scenario(seed, route, kind)
    run = baseline_run(RUN_ID)
    with WirePlatform(case.reply) as wp:
        for pane in (RolloutsPane, DistributionsPane):
            client = PrimeClient(wp.base_url, "k")
            app = PaneApp(lambda pane=pane, client=client: pane(client, run))
            async with app.run_test(size=(120, 36)) as pilot:
                before = len(wp.requests)
                await until(
                    pilot,
                    lambda before=before: len(wp.requests) > before + 1,
                    what=f"the tab's reads · {case.describe()}",
                    timeout=REPLY_DEADLINE * 4 + 10,
                )
                for key in ("s", "t", "v", "c", "y", "left_square_bracket", "o", "left", "right", "f"):
                    await pilot.press(key)
                await input_applied(pilot)
                assert app.is_running, case.describe()
            await client.aclose()
    assert not (tmp_path / "crashes").exists(), case.describe()
