"""The wire models read what the platform sends, keep what they do not know, and round-trip exactly."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from primetui.api import models as m

RUN_WIRE = {
    "id": "r1",
    "name": "reverse-text",
    "userId": "u1",
    "teamId": "t1",
    "rftClusterId": None,
    "primeClusterId": "pc1",
    "status": "CREATING",
    "kind": "DEDICATED_FULL_FT",
    "rolloutsPerExample": None,
    "seqLen": 2048,
    "maxSteps": 10,
    "maxTokens": None,
    "batchSize": 8,
    "loss": "sft",
    "teacherConfig": {"model": "x"},
    "baseModel": "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT",
    "environments": [],
    "runConfig": {"eval": {"interval": 5}},
    "evalConfig": None,
    "valConfig": None,
    "bufferConfig": None,
    "learningRate": 2e-5,
    "loraAlpha": None,
    "maxInflightRollouts": None,
    "oversamplingFactor": None,
    "maxAsyncLevel": None,
    "volumeName": "research",
    "gpuCount": 1,
    "wandbEntity": None,
    "wandbProject": None,
    "wandbRunName": None,
    "runsAhead": 2,
    "queueReason": "capacity",
    "notice": None,
    "startedAt": "2026-01-01T00:00:05.123456Z",
    "completedAt": None,
    "errorMessage": None,
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:05Z",
    "failureAnalysis": {"rootCause": "oom", "evidence": ["x"], "confidence": 0.9},
    "sourceCommit": None,
    "someNewField": {"nested": True},
}


def _dump(model: BaseModel) -> dict:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_run_reads_every_contract_field_and_ignores_unknown_ones():
    run = m.RLRun.model_validate(RUN_WIRE)
    assert run.status == "CREATING"  # unknown to the CLI, kept verbatim
    assert run.teacher == {"model": "x"} and run.prime_cluster_id == "pc1" and run.cluster_id is None
    assert run.runs_ahead == 2 and run.queue_reason == "capacity" and run.volume_name == "research"
    assert run.failure_analysis["rootCause"] == "oom"
    assert run.is_sft and run.has_online_evals and not run.is_terminal
    assert not hasattr(run, "someNewField")


def test_run_round_trip_is_exact_and_uses_wire_names():
    run = m.RLRun.model_validate(RUN_WIRE)
    wire = _dump(run)
    assert m.RLRun.model_validate(wire) == run
    expected = {k: v for k, v in RUN_WIRE.items() if v is not None and k not in ("someNewField", "teacherConfig")}
    expected["teacher"] = {"model": "x"}
    assert wire == expected


def test_run_required_fields():
    for key in ("id", "userId", "status", "createdAt", "updatedAt"):
        with pytest.raises(PydanticValidationError):
            m.RLRun.model_validate({k: v for k, v in RUN_WIRE.items() if k != key})


def test_minimal_run_defaults_like_the_cli():
    run = m.RLRun.model_validate({k: RUN_WIRE[k] for k in ("id", "userId", "status", "createdAt", "updatedAt")})
    assert run.loss == "rl" and run.environments == [] and not run.is_sft


def test_construct_by_python_names():
    run = m.RLRun(id="r", user_id="u", status="RUNNING", created_at="t", updated_at="t", max_steps=3)
    assert _dump(run)["maxSteps"] == 3 and "userId" in _dump(run)


# Each model with a wire sample straight from the contract: (model, sample, required keys)
SAMPLES = [
    (
        m.Volume,
        {
            "name": "research",
            "size": "100Gi",
            "status": "RUNNING",
            "clusterId": "c",
            "cluster": "rft-1",
            "pvcName": "p",
            "createdBy": "u",
            "createdByName": "U",
            "createdByEmail": "u@x",
            "createdAt": "2026-01-01T00:00:00Z",
        },
        ["name", "status", "clusterId", "pvcName"],
    ),
    (
        m.VolumeSession,
        {
            "id": "vs_1",
            "volumeName": "research",
            "status": "RUNNING",
            "readOnly": False,
            "sshConnection": "root@127.0.0.1 -p 2222",
            "gateway": {"host": "127.0.0.1", "port": 443, "certSha256": "a" * 64},
            "hostPublicKey": "ssh-ed25519 AAAA",
            "createdAt": "2026-01-01T00:00:00Z",
            "phase": "staging",
            "progress": "1 GiB / 2 GiB",
        },
        ["id", "volumeName", "status", "readOnly"],
    ),
    (
        m.VolumeTransferRoute,
        {
            "via": "r2",
            "endpoint": "http://127.0.0.1:1",
            "bucket": "b",
            "prefix": "v/",
            "accessKeyId": "a",
            "secretAccessKey": "s",
            "sessionToken": "t",
            "expiresAt": "2026-01-01T00:00:00Z",
            "leaseId": "l",
        },
        ["via"],
    ),
    (
        m.VolumeTransfer,
        {
            "id": "x",
            "volumeName": "v",
            "direction": "import",
            "path": "p",
            "url": "s3://b/p",
            "status": "running",
            "progress": {"transferred": "1 GiB", "percentage": 40, "errors": 0},
        },
        ["id", "volumeName", "direction", "path", "url", "status"],
    ),
    (
        m.AvailableFFTModelsResponse,
        {
            "models": [
                {
                    "name": "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT",
                    "clusters": [{"clusterId": "c", "clusterName": "n", "gpuType": "H200_141GB"}],
                }
            ],
            "onDemand": [{"gpuType": "H200_141GB", "pricePerGpuHour": 2.5, "availableNow": True, "isBeta": True}],
            "onDemandBetaAccess": True,
        },
        [],
    ),
    (m.AvailableGpuTypesResponse, {"gpuTypes": ["H200_141GB"]}, []),
    (
        m.HostedTrainingRunResponse,
        {"runId": "r", "tokenValue": "t", "onDemand": False, "isBeta": False},
        ["runId", "tokenValue"],
    ),
    (m.PauseRunResponse, {"status": "PAUSING"}, ["status"]),
    (m.RLRunPage, {"runs": [], "total": 0, "page": 1, "limit": 20, "total_pages": 0}, []),
    (
        m.RLCheckpoint,
        {
            "id": "c",
            "rftRunId": "r",
            "step": 10,
            "storageUrl": "volume://research/runs/r/x",
            "status": "READY",
            "sizeBytes": 7,
            "createdAt": "t",
            "uploadedAt": "t",
        },
        ["id", "rftRunId", "step", "storageUrl", "status", "createdAt"],
    ),
    (m.LogsResponse, {"logs": "a\nb"}, []),
    (m.EnvServerList, {"env_servers": [{"env_name": "rt", "env_index": 0, "pod_name": "p", "status": "Running"}]}, []),
    (m.EnvServer, {"env_name": "rt", "env_index": 0, "pod_name": "p", "status": "Running"}, ["pod_name", "status"]),
    (m.MetricsResponse, {"metrics": [{"step": 1, "loss/mean": 1.108, "loss/perplexity": 3.028}]}, []),
    (m.Progress, {"latestStep": 3, "stepsWithSamples": [1], "stepsWithDistributions": [2], "lastUpdatedAt": "t"}, []),
    (
        m.RunUsage,
        {
            "run_id": "r",
            "run_name": "n",
            "training": {"tokens": 1, "input_tokens": 1, "output_tokens": 0, "cost_usd": 0.5},
            "inference": {"tokens": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0},
            "total_tokens": 1,
            "total_cost_usd": 0.5,
            "pricing": {"training_per_mtok": 1.0},
            "record_count": 1,
        },
        ["run_id", "training", "inference", "pricing"],
    ),
]


@pytest.mark.parametrize("model,sample,required", SAMPLES, ids=[s[0].__name__ for s in SAMPLES])
def test_contract_samples_round_trip(model, sample, required):
    parsed = model.model_validate({**sample, "unknownKey": 1})
    assert model.model_validate(_dump(parsed)) == parsed
    # every key of the sample survives under its exact wire name
    wire = _dump(parsed)
    for key, value in sample.items():
        if value is not None and not (isinstance(value, (dict, list))):
            assert wire[key] == value, key
    for key in required:
        with pytest.raises(PydanticValidationError):
            model.model_validate({k: v for k, v in sample.items() if k != key})


def test_request_bodies_use_wire_names_and_omit_unset_keys():
    assert _dump(m.CreateVolumeRequest(name="v", size="5Ti")) == {"name": "v", "size": "5Ti", "warm": True}
    assert _dump(m.ExpandVolumeRequest(size="200Gi", team_id="t")) == {"size": "200Gi", "teamId": "t"}
    assert _dump(m.CreateSessionRequest(read_only=True, allow_writable=True)) == {
        "readOnly": True,
        "allowWritable": True,
    }
    assert _dump(m.CreateRunRequest(config={"a": 1}, mode="sft", resume_from="r0", gpu_type="g")) == {
        "config": {"a": 1},
        "mode": "sft",
        "resumeFrom": "r0",
        "gpuType": "g",
    }
    assert _dump(m.ResumeRunRequest(image_tag="v2", hf_token="h")) == {"imageTag": "v2", "hfToken": "h"}
    assert _dump(m.TransferRouteRequest(mode="put", path="", entries=["d"])) == {
        "mode": "put",
        "path": "",
        "entries": ["d"],
    }


def test_secrets_are_not_in_reprs():
    for obj in (
        m.HostedTrainingRunResponse(run_id="r", token_value="TOKEN-X"),
        m.CreateRunRequest(config={}, wandb_api_key="TOKEN-X", hf_token="TOKEN-X"),
        m.VolumeTransferRoute(via="r2", secret_access_key="TOKEN-X", session_token="TOKEN-X"),
    ):
        assert "TOKEN-X" not in repr(obj)


def test_status_helpers():
    assert m.TERMINAL_RUN_STATUSES == {"COMPLETED", "FAILED", "STOPPED", "PAUSED"}
    assert m.is_terminal_run_status("paused") and not m.is_terminal_run_status("PAUSING")
    assert not m.is_terminal_run_status(None) and not m.is_terminal_run_status("CREATING")
    assert m.is_dead_session("TERMINATING") and m.is_dead_session("RUNNING", "finalizing")
    assert not m.is_dead_session("RUNNING", "syncing") and not m.is_dead_session("PENDING", None)
    assert m.SESSION_PHASES[0] == "creating" and m.SESSION_PHASES[-1] == "failed"
    assert m.Volume(name="v", status="TOMBSTONED", cluster_id="c", pvc_name="p").status_label == "DELETE FAILED"
    assert m.Volume(name="v", status="PENDING", cluster_id="c", pvc_name="p").status_label == "PENDING"


@pytest.mark.parametrize(
    "text,expected",
    [
        ("2026-01-01T00:00:00Z", datetime(2026, 1, 1, tzinfo=timezone.utc)),
        ("2026-01-01T01:00:00+01:00", datetime(2026, 1, 1, tzinfo=timezone.utc)),
        ("2026-01-01T00:00:00", datetime(2026, 1, 1, tzinfo=timezone.utc)),
        ("2026-01-01T00:00:00.5Z", datetime(2026, 1, 1, 0, 0, 0, 500000, tzinfo=timezone.utc)),
        ("yesterday", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_time_is_lenient(text, expected):
    assert m.parse_time(text) == expected


def test_wire_time():
    assert m.wire_time(datetime(2026, 1, 1, 12, tzinfo=timezone.utc)) == "2026-01-01T12:00:00Z"
    assert m.parse_time(m.wire_time(datetime(2026, 5, 1, 1, 2, 3, 4))) == datetime(
        2026, 5, 1, 1, 2, 3, 4, tzinfo=timezone.utc
    )


def test_every_field_has_a_docstring():
    """Each model field is followed by its docstring in the source (the house habit)."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(m))
    undocumented = []
    models = [n for n in tree.body if isinstance(n, ast.ClassDef) and issubclass(getattr(m, n.name), BaseModel)]
    for cls in models:
        body = cls.body
        for i, node in enumerate(body):
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                nxt = body[i + 1] if i + 1 < len(body) else None
                if not (
                    isinstance(nxt, ast.Expr)
                    and isinstance(nxt.value, ast.Constant)
                    and isinstance(nxt.value.value, str)
                    and nxt.value.value.strip()
                ):
                    undocumented.append(f"{cls.name}.{node.target.id}")
    assert undocumented == []
    assert len([c for c in vars(m).values() if isinstance(c, type) and issubclass(c, BaseModel)]) > 30
