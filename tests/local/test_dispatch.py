"""T4 dispatch refusals: the hosted platform's texts (seed) and schema errors as 422 loc/msg lists."""

from __future__ import annotations

import httpx

from primetui.local.dispatch import DATA_NAME_NEEDS_VOLUME, INFERENCE_WITHOUT_EVAL
from primetui.local.testing import LocalPlatform
from tests.local.conftest import walkthrough_config


def post(api: httpx.Client, config: dict, volume: str | None = "research", mode: str | None = "sft") -> httpx.Response:
    body: dict = {"config": config}
    if mode:
        body["mode"] = mode
    if volume:
        body["volume"] = volume
    return api.post("/training/runs", json=body)


def test_model_not_in_the_cache_has_the_seed_text(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform, model={"name": "PrimeIntellect/Qwen3-0.6B"}))
    assert reply.status_code == 400
    assert reply.json()["detail"] == (
        "Model 'PrimeIntellect/Qwen3-0.6B' is not available on this cluster. "
        "Reach out to Prime support to get it added."
    )


def test_data_name_without_a_volume_has_the_seed_text(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform), volume=None)
    assert reply.status_code == 400
    assert reply.json()["detail"] == DATA_NAME_NEEDS_VOLUME
    assert DATA_NAME_NEEDS_VOLUME == (
        "data.name requires `--volume <name>`. Create a volume with `prime volumes create <name>`, "
        "then rerun `prime train sft.toml --volume <name>`."
    )


def test_inference_without_eval_has_the_seed_text(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = walkthrough_config(local_platform)
    config["inference"] = {"vllm": {"tensor_parallel_size": 1}}
    reply = post(api, config)
    assert reply.status_code == 400
    assert reply.json()["detail"] == INFERENCE_WITHOUT_EVAL
    assert INFERENCE_WITHOUT_EVAL == "[inference] is only used for online evals — add an [eval] block or remove it."


def test_schema_errors_are_422_with_loc_below_config(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = walkthrough_config(local_platform, data={"seq_len": "long"})
    reply = post(api, config)
    assert reply.status_code == 422, reply.text
    items = reply.json()["detail"]
    assert any(item["loc"] == ["body", "config", "data", "seq_len"] and item["msg"] for item in items), items
    unknown = post(api, walkthrough_config(local_platform, optim={"learning_rate": 1e-5}))
    assert unknown.status_code == 422
    assert any(item["loc"][:3] == ["body", "config", "optim"] for item in unknown.json()["detail"])


def test_multi_node_beyond_what_is_simulated_is_refused(local_platform: LocalPlatform, api: httpx.Client) -> None:
    config = walkthrough_config(local_platform)
    config["deployment"] = {"type": "multi_node", "num_train_nodes": 17, "gpus_per_node": 8}
    reply = post(api, config)
    assert reply.status_code == 400
    assert "num_train_nodes = 17" in reply.json()["detail"] and "hosted platform" in reply.json()["detail"]


def rl_config(**orchestrator: object) -> dict:
    """prime-rl's reverse-text example (the RL template) with ``orchestrator`` keys replaced."""
    import tomllib

    from primetui.sft.templates import RL_REVERSE_TEXT

    config = tomllib.loads(RL_REVERSE_TEXT)
    config["orchestrator"].update(orchestrator)
    return config


def test_rl_configs_get_the_hosted_refusals_as_422(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, rl_config(batch_size=100), volume=None, mode=None)  # prime train sends no mode for RL
    assert reply.status_code == 422, reply.text
    assert {
        "loc": ["body", "config", "orchestrator"],
        "type": "value_error",
        "msg": "Value error, Batch size must be divisible by the number of samples per problem",
    } in reply.json()["detail"]
    unknown = rl_config()
    unknown["orchestrator"]["train"]["source"][0]["env"]["taskset"]["id"] = "primeintellect/no-such-env"
    reply = post(api, unknown, volume=None, mode=None)
    assert reply.status_code == 422, reply.text
    assert reply.json()["detail"][0]["msg"].startswith(
        "taskset 'primeintellect/no-such-env' not found (tried to import 'no_such_env')."
    )
    k8s = {**rl_config(), "k8s": {}}
    reply = post(api, k8s, volume=None, mode=None)
    assert reply.status_code == 422 and reply.json()["detail"][0]["msg"] == (
        "[k8s] is not supported for hosted runs: Platform manages deployment settings. Remove the [k8s] table."
    )


def test_missing_volume_and_bad_body(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform), volume="nope")
    assert reply.status_code == 404 and "prime volumes create nope" in reply.json()["detail"]
    reply = api.post("/training/runs", json={"mode": "sft"})
    assert reply.status_code == 422 and reply.json()["detail"][0]["loc"] == ["body", "config"]


def test_a_missing_volume_hosted_model_is_refused_plainly(local_platform: LocalPlatform, api: httpx.Client) -> None:
    reply = post(api, walkthrough_config(local_platform, model={"name": "/volume/models/mine"}))
    assert reply.status_code == 400 and "does not exist on volume 'research'" in reply.json()["detail"]


def test_data_name_escaping_the_volume_is_refused(local_platform: LocalPlatform, api: httpx.Client) -> None:
    for name in ("../../../etc", "/volume/../outside", "datasets/../../x"):
        reply = post(api, walkthrough_config(local_platform, data={"name": name}))
        assert reply.status_code == 400, name
        assert "outside the volume" in reply.json()["detail"]


def test_every_config_path_must_stay_inside_the_volume(local_platform: LocalPlatform, api: httpx.Client) -> None:
    for section, key, value in (
        ("ckpt", "output_dir", "/tmp/elsewhere"),
        ("ckpt", "output_dir", "../../up"),
        ("resume", "dir", "/etc/step_1"),
        ("resume", "dir", "/volume/../../x/step_2"),
        ("val", "data", {"name": "/home/someone/data"}),
    ):
        config = walkthrough_config(local_platform)
        config[section] = {key: value}
        reply = post(api, config)
        assert reply.status_code == 400, (section, key, value, reply.text)
        assert "points outside the volume" in reply.json()["detail"]
    config = walkthrough_config(local_platform)
    config["data"] = {"type": "fake"}
    config["ckpt"] = {"output_dir": "somewhere"}
    reply = post(api, config, volume=None)
    assert reply.status_code == 400 and "needs a volume" in reply.json()["detail"]


def test_data_name_through_a_symlink_out_of_the_volume_is_refused(
    local_platform: LocalPlatform, api: httpx.Client, tmp_path
) -> None:
    assert api.post("/training/volumes", json={"name": "linky", "size": "1Gi"}).status_code == 200
    (local_platform.data_dir / "volumes" / "linky" / "escape").symlink_to(tmp_path)
    reply = post(api, walkthrough_config(local_platform, data={"name": "escape/data"}), volume="linky")
    assert reply.status_code == 400 and "outside the volume" in reply.json()["detail"]
    assert api.delete("/training/volumes/linky").status_code == 204
    assert tmp_path.exists()


def test_unknown_run_ids_are_404_everywhere(api: httpx.Client) -> None:
    for method, url in (
        ("GET", "/rft/runs/nope"),
        ("PUT", "/rft/runs/nope/stop"),
        ("DELETE", "/rft/runs/nope"),
        ("PUT", "/rft/runs/nope/restart"),
        ("GET", "/rft/runs/nope/checkpoints"),
        ("GET", "/rft/runs/nope/logs"),
        ("GET", "/rft/runs/nope/env-servers"),
        ("GET", "/rft/runs/nope/metrics"),
        ("GET", "/rft/runs/nope/progress"),
        ("GET", "/billing/runs/nope/usage"),
        ("POST", "/training/runs/nope/pause"),
        ("POST", "/training/runs/nope/resume"),
    ):
        reply = api.request(method, url)
        assert reply.status_code == 404, url
        assert "nope" in reply.json()["detail"]


def test_models_and_gpu_types_say_what_runs_here(api: httpx.Client) -> None:
    models = api.get("/training/available-fft-models").json()
    names = [m["name"] for m in models["models"]]
    assert "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT" in names
    cluster = models["models"][0]["clusters"][0]
    assert cluster["gpuType"] == "local-cpu" and "stand-in" in cluster["clusterName"]
    assert api.get("/training/available-gpu-types").json() == {"gpuTypes": ["local-cpu"]}


def test_model_cache_edits_apply_and_a_broken_file_is_reported(
    local_platform: LocalPlatform, api: httpx.Client
) -> None:
    path = local_platform.data_dir / "models.toml"
    original = path.read_text()
    try:
        path.write_text(original + '\n[[models]]\nname = "acme/Tiny-1B"\n[models.standin]\nhidden = 64\n')
        assert "acme/Tiny-1B" in [m["name"] for m in api.get("/training/available-fft-models").json()["models"]]
        path.write_text(original + "\n[[models]\nname = \n")
        broken = api.get("/training/available-fft-models")
        assert broken.status_code == 500
        assert "models.toml is not valid TOML" in broken.json()["detail"]
        assert path.read_text().endswith("name = \n")  # never overwritten
    finally:
        path.write_text(original)
    assert api.get("/training/available-fft-models").status_code == 200
