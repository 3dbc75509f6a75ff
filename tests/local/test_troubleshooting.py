"""Every troubleshooting case of the seed, caused on purpose, answered with the seed's own text."""

from __future__ import annotations

import httpx

from primetui.local.cluster import ONLINE_EVALS_UNSUPPORTED
from primetui.local.testing import LocalPlatform
from primetui.local.trainer.testing import online_eval_block
from tests.local.conftest import dispatch, http, wait_status, walkthrough_config

SEED_CHART = (
    "online evals ([eval]) are not supported by the prime-rl-fft chart this deployment installs "
    "(needs 0.24.0 or newer). Remove the [eval] block to run trainer-only SFT."
)
SEED_INFERENCE = "[inference] is only used for online evals — add an [eval] block or remove it."
SEED_MODEL = (
    "Model 'PrimeIntellect/Qwen3-0.6B' is not available on this cluster. Reach out to Prime support to get it added."
)
SEED_VOLUME = (
    "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, then "
    "rerun `prime train sft.toml --volume <name>`."
)


def post(c: httpx.Client, config: dict, volume: str | None = "research") -> httpx.Response:
    body = {"config": config, "mode": "sft", **({"volume": volume} if volume else {})}
    return c.post("/training/runs", json=body)


def with_evals(lp: LocalPlatform) -> dict:
    block = online_eval_block(interval=5)
    return walkthrough_config(
        lp, max_steps=2, eval=block["eval"], inference=block["inference"], deployment=block["deployment"]
    )


def test_online_evals_are_rejected_on_a_chart_older_than_0_24(tmp_path_factory) -> None:
    assert ONLINE_EVALS_UNSUPPORTED == SEED_CHART
    with (
        LocalPlatform.start(
            tmp_path_factory.mktemp("old-chart"), demo=True, env={"PRIMETUI_LOCAL_CHART_VERSION": "0.23.4"}
        ) as lp,
        http(lp) as c,
    ):
        reply = post(c, with_evals(lp))
        assert reply.status_code == 400 and reply.json()["detail"] == SEED_CHART
        # trainer-only SFT still runs on that cluster
        assert post(c, walkthrough_config(lp, max_steps=1)).status_code == 200


def test_inference_without_eval(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = walkthrough_config(local_platform, inference={"vllm": {"tensor_parallel_size": 1}})
    reply = post(api, config)
    assert reply.status_code == 400 and reply.json()["detail"] == SEED_INFERENCE


def test_model_not_in_the_cache(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform, model={"name": "PrimeIntellect/Qwen3-0.6B"}))
    assert reply.status_code == 400 and reply.json()["detail"] == SEED_MODEL


def test_data_name_without_a_volume(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform), volume=None)
    assert reply.status_code == 400 and reply.json()["detail"] == SEED_VOLUME


def test_dataset_missing_on_the_volume_fails_at_startup(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = walkthrough_config(local_platform, max_steps=1, data={"name": "datasets/reverse-txt"})
    run = wait_status(api, dispatch(api, config), {"FAILED"}, timeout=60)  # dispatch accepts it, as hosted does
    assert run["errorMessage"].startswith(
        "Dataset not found on the volume: /volume/datasets/reverse-txt does not exist"
    )
    assert "did you mean /volume/datasets/reverse-text?" in run["errorMessage"]
    logs = api.get(f"/rft/runs/{run['id']}/logs", params={"component": "trainer"}).json()["logs"]
    assert "ERROR Dataset not found on the volume" in logs
    assert api.get(f"/rft/runs/{run['id']}/metrics").json()["metrics"] == []  # failed before any step
