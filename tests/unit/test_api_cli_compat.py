"""Our wire models against the official `prime` CLI 0.18.0's own pydantic models.

The local platform serialises with our models, so whatever they dump must parse in the real CLI,
and every wire name the CLI knows must exist in ours with the same spelling.
"""

from __future__ import annotations

import pytest

from primetui.api import models as m

cli_training = pytest.importorskip("prime_cli.api.training")
cli_rl = pytest.importorskip("prime_cli.api.rl")
cli_billing = pytest.importorskip("prime_cli.api.billing")

PAIRS = [
    (m.Volume, cli_training.Volume),
    (m.VolumeSession, cli_training.VolumeSession),
    (m.VolumeSessionGateway, cli_training.VolumeSessionGateway),
    (m.VolumeTransferRoute, cli_training.VolumeTransferRoute),
    (m.VolumeTransfer, cli_training.VolumeTransfer),
    (m.VolumeTransferProgress, cli_training.VolumeTransferProgress),
    (m.HostedTrainingRunResponse, cli_training.HostedTrainingRunResponse),
    (m.AvailableGpuTypesResponse, cli_training.AvailableGpuTypesResponse),
    (m.FFTModelCluster, cli_training.FFTModelClusterInfo),
    (m.AvailableFFTModel, cli_training.AvailableFFTModel),
    (m.OnDemandGpuType, cli_training.OnDemandGpuTypeAvailability),
    (m.AvailableFFTModelsResponse, cli_training.AvailableFFTModelsResponse),
    (m.RLRun, cli_rl.RLRun),
    (m.RLCheckpoint, cli_rl.RLCheckpoint),
    (m.EnvServer, cli_rl.EnvServerInfo),
    (m.RLRunPage, cli_rl.RLRunPage),
    (m.RunUsage, cli_billing.RunUsage),
    (m.RunUsageBreakdown, cli_billing.RunUsageBreakdown),
    (m.RunPricing, cli_billing.RunPricing),
]


def _wire_names(model) -> dict[str, bool]:
    """Wire name -> required, for validation (first alias choice wins)."""
    out = {}
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        if alias is not None and not isinstance(alias, str):
            alias = alias.choices[0]
        out[alias or info.alias or name] = info.is_required()
    return out


@pytest.mark.parametrize("ours,theirs", PAIRS, ids=[p[0].__name__ for p in PAIRS])
def test_same_wire_names_and_required_fields(ours, theirs):
    mine, cli = _wire_names(ours), _wire_names(theirs)
    assert set(cli) <= set(mine), f"wire names the CLI reads but we do not: {set(cli) - set(mine)}"
    required_cli = {k for k, req in cli.items() if req}
    required_ours = {k for k, req in mine.items() if req}
    assert required_ours == required_cli


RUN = {
    "id": "r1",
    "userId": "u1",
    "status": "CREATING",
    "createdAt": "2026-01-01T00:00:00Z",
    "updatedAt": "2026-01-01T00:00:01.5Z",
    "startedAt": "2026-01-01T00:00:01+00:00",
    "loss": "sft",
    "teacherConfig": {"m": 1},
    "volumeName": "research",
    "runsAhead": 1,
    "queueReason": "capacity",
}


def test_what_we_dump_the_cli_parses():
    dump = lambda model: model.model_dump(mode="json", by_alias=True, exclude_none=True)  # noqa: E731
    run = m.RLRun.model_validate(RUN)
    theirs = cli_rl.RLRun.model_validate(dump(run))
    assert theirs.status == "CREATING" and theirs.teacher == {"m": 1} and theirs.volume_name == "research"
    page = m.RLRunPage(runs=[run], total=1, page=1, limit=20, total_pages=1)
    assert cli_rl.RLRunPage.model_validate(dump(page)).total_pages == 1
    ck = m.RLCheckpoint(
        id="c", rft_run_id="r1", step=10, storage_url="s", status="READY", created_at="2026-01-01T00:00:00Z"
    )
    assert cli_rl.RLCheckpoint.model_validate(dump(ck)).step == 10
    usage = m.RunUsage(
        run_id="r1", training=m.RunUsageBreakdown(tokens=5), inference=m.RunUsageBreakdown(), pricing=m.RunPricing()
    )
    assert cli_billing.RunUsage.model_validate(dump(usage)).training.tokens == 5
    session = m.VolumeSession(
        id="s",
        volume_name="v",
        status="RUNNING",
        read_only=False,
        phase="ready",
        gateway=m.VolumeSessionGateway(host="127.0.0.1", port=443, cert_sha256="a" * 64),
    )
    assert cli_training.VolumeSession.model_validate(dump(session)).gateway.cert_sha256 == "a" * 64
    models = m.AvailableFFTModelsResponse(
        models=[m.AvailableFFTModel(name="x", clusters=[m.FFTModelCluster(cluster_id="c", cluster_name="n")])],
        on_demand_beta_access=False,
    )
    parsed = cli_training.AvailableFFTModelsResponse.model_validate(dump(models))
    assert parsed.models[0].clusters[0].cluster_name == "n" and parsed.on_demand_beta_access is False
