"""Wire models of the Prime platform API, exactly as the `prime` CLI 0.18.0 reads and writes them.

One set of models for both sides: `primetui.api.client` parses replies with them and the embedded
local platform (`primetui.local`) serialises its replies with them
(`model_dump(mode="json", by_alias=True, exclude_none=True)`), so client and server cannot drift.

Rules (see shared/research/prime-cli-contract.md §2 and §7):
- Wire names are camelCase except where the platform speaks snake_case (env servers, usage,
  pagination's `total_pages`); Python attributes are always snake_case. Both spellings are
  accepted on input (`populate_by_name`); output uses the wire names.
- Unknown fields are ignored, so a newer platform never breaks parsing.
- Status fields are plain `str`: a status this code has never seen (e.g. `CREATING`) is kept
  verbatim. The known values live in the constant classes and sets below.
- Every field is documented by the docstring under it (read from the source, not copied into
  pydantic descriptions: that would make importing these models several times slower).
- Timestamps stay ISO strings on the wire (round-trips are exact); `parse_time` reads them
  leniently for display, and `wire_time` writes them.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, PrivateAttr
from pydantic.alias_generators import to_camel

__all__ = [
    "AvailableFFTModel",
    "AvailableFFTModelsResponse",
    "AvailableGpuTypesResponse",
    "CheckpointList",
    "CheckpointStatus",
    "CreateRunRequest",
    "CreateSessionRequest",
    "CreateVolumeRequest",
    "DEAD_SESSION_PHASES",
    "DEAD_SESSION_STATUSES",
    "EnvServer",
    "EnvServerList",
    "ExpandVolumeRequest",
    "FFTModelCluster",
    "HostedTrainingRunResponse",
    "KNOWN_RUN_STATUSES",
    "LOG_LEVELS",
    "LOG_NOT_STARTED_MARKERS",
    "LogComponent",
    "LogsResponse",
    "MetricsResponse",
    "OnDemandGpuType",
    "PauseRunResponse",
    "Progress",
    "RLCheckpoint",
    "RLRun",
    "RLRunPage",
    "ResumeRunRequest",
    "RunEnvelope",
    "RunKind",
    "RunPricing",
    "RunStatus",
    "RunUsage",
    "RunUsageBreakdown",
    "SESSION_PHASES",
    "SessionList",
    "SessionPhase",
    "SessionStatus",
    "TERMINAL_RUN_STATUSES",
    "TERMINAL_TRANSFER_STATUSES",
    "TransferRouteRequest",
    "VOLUME_STATUS_LABELS",
    "Volume",
    "VolumeList",
    "VolumeSession",
    "VolumeSessionGateway",
    "VolumeStatus",
    "VolumeTransfer",
    "VolumeTransferList",
    "VolumeTransferProgress",
    "VolumeTransferRoute",
    "WhoAmI",
    "WhoAmIResponse",
    "is_terminal_run_status",
    "is_dead_session",
    "parse_time",
    "wire_time",
]


# --------------------------------------------------------------------------------------------
# Base classes
# --------------------------------------------------------------------------------------------


class CamelModel(BaseModel):
    """A wire object whose keys are camelCase (most of the platform API)."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="ignore",
        # Build validators on first use, not at import: halves the import time of the core.
        defer_build=True,
    )


class SnakeModel(BaseModel):
    """A wire object whose keys are snake_case (env servers, usage)."""

    model_config = ConfigDict(
        populate_by_name=True,
        serialize_by_alias=True,
        extra="ignore",
        # Build validators on first use, not at import: halves the import time of the core.
        defer_build=True,
    )


from primetui.api.wire import (  # noqa: F401 - re-exported: part of this module's API
    RunStatus,
    KNOWN_RUN_STATUSES,
    TERMINAL_RUN_STATUSES,
    is_terminal_run_status,
    RunKind,
    VolumeStatus,
    VOLUME_STATUS_LABELS,
    SessionStatus,
    DEAD_SESSION_STATUSES,
    SessionPhase,
    SESSION_PHASES,
    DEAD_SESSION_PHASES,
    is_dead_session,
    CheckpointStatus,
    TERMINAL_TRANSFER_STATUSES,
    LogComponent,
    LOG_LEVELS,
    LOG_NOT_STARTED_MARKERS,
    parse_time,
    wire_time,
)


# --------------------------------------------------------------------------------------------
# §2.1 Volumes
# --------------------------------------------------------------------------------------------


class Volume(CamelModel):
    """A named volume (V1 list item, V2/V3 reply)."""

    name: str
    """The volume's name, unique per team (or per user without a team)."""
    status: str
    """Platform status: RUNNING (shown as CREATED), TERMINATING, TOMBSTONED, FAILED, or other."""
    cluster_id: str
    """Id of the cluster holding the volume."""
    pvc_name: str
    """Name of the Kubernetes persistent volume claim behind the volume."""
    size: str | None = None
    """Size cap such as `500Gi` or `5Ti`."""
    cluster: str | None = None
    """Cluster name; absent from older platforms."""
    created_by: str | None = None
    """User id of the creator."""
    created_by_name: str | None = None
    """Display name of the creator."""
    created_by_email: str | None = None
    """Email of the creator."""
    created_at: str | None = None
    """Creation time, ISO 8601 (shown verbatim by the CLI)."""
    used_bytes: int | None = None
    """Bytes stored on the volume; sent by the local platform only (absent: unknown)."""

    @property
    def status_label(self) -> str:
        """The status as `prime volumes list` shows it (RUNNING -> CREATED, ...)."""
        return VOLUME_STATUS_LABELS.get(self.status, self.status)


class VolumeList(CamelModel):
    """V1 reply: `{"volumes": [...]}`."""

    volumes: list[Volume] = Field(default_factory=list)
    """The caller's volumes."""


class VolumeSessionGateway(CamelModel):
    """Public TLS gateway reaching a session from outside the tailnet (SNI = host alias)."""

    host: str
    """Gateway host name."""
    port: int
    """Gateway TCP port (443 on the real platform)."""
    cert_sha256: str
    """SHA-256 of the gateway's DER certificate, 64 hex characters; pinned instead of a CA check."""


class VolumeSession(CamelModel):
    """An SSH session mounting a volume (V5/V6 reply, V8 list item)."""

    id: str
    """Session id."""
    volume_name: str
    """Name of the mounted volume."""
    status: str
    """Platform status (UPPER CASE); see DEAD_SESSION_STATUSES for the dead ones."""
    read_only: bool
    """True when the volume root is mounted read-only."""
    ssh_connection: str | None = None
    """`user@host[ -p PORT]` once SSH is reachable; absent while the session starts."""
    gateway: VolumeSessionGateway | None = None
    """Public gateway, when the platform offers one."""
    host_public_key: str | None = None
    """The session sshd's host key line (`ssh-ed25519 AAAA...`), pinned in known_hosts."""
    error_message: str | None = None
    """Why the session failed (FAILED/TOMBSTONED only)."""
    created_at: str | None = None
    """Creation time, ISO 8601."""
    phase: str | None = None
    """creating | staging | ready | syncing | finalizing | stopped | failed; absent on old platforms."""
    progress: str | None = None
    """Latest rclone stats line while the session copies data in (staging)."""

    @property
    def is_dead(self) -> bool:
        """True when this session will never (again) accept SSH connections."""
        return is_dead_session(self.status, self.phase)


class SessionList(CamelModel):
    """V8 reply: `{"sessions": [...]}`, the caller's own sessions, newest first."""

    sessions: list[VolumeSession] = Field(default_factory=list)
    """The caller's sessions on the volume."""


class VolumeTransferRoute(CamelModel):
    """V9 reply: where a get/put should go — a live session, or scoped bucket credentials."""

    via: str
    """`session` (use `session`) or `r2` (talk to the bucket directly)."""
    session: VolumeSession | None = None
    """The caller's live read-write session, when via == "session"."""
    endpoint: str | None = None
    """S3 endpoint URL, when via == "r2"."""
    bucket: str | None = None
    """Bucket name, when via == "r2"."""
    prefix: str | None = None
    """The volume's key prefix inside the bucket."""
    access_key_id: str | None = Field(default=None, repr=False)
    """Scoped S3 access key id."""
    secret_access_key: str | None = Field(default=None, repr=False)
    """Scoped S3 secret (never logged)."""
    session_token: str | None = Field(default=None, repr=False)
    """Scoped S3 session token (never logged)."""
    expires_at: str | None = None
    """When the credentials expire, ISO 8601."""
    lease_id: str | None = None
    """A put's upload lease id, sent back on refresh and release."""


class VolumeTransferProgress(CamelModel):
    """Latest rclone stats of a running S3 transfer (rclone's own human strings)."""

    transferred: str | None = None
    """Bytes moved so far, e.g. `412.345 GiB`."""
    total: str | None = None
    """Total bytes to move."""
    percentage: int | None = None
    """Percent done, 0..100."""
    rate: str | None = None
    """Current rate, e.g. `182.400 MiB/s`."""
    eta: str | None = None
    """Estimated time left, e.g. `1h48m0s`."""
    errors: int | None = None
    """rclone error count."""


class VolumeTransfer(CamelModel):
    """An S3 import/export job of a volume (V11-V13)."""

    id: str
    """Transfer id."""
    volume_name: str
    """The volume being copied to or from."""
    direction: str
    """`import` or `export`."""
    path: str
    """Volume-relative directory."""
    url: str
    """The S3 URL on the other side."""
    status: str
    """Job status; succeeded, failed and cancelled are terminal."""
    progress: VolumeTransferProgress | None = None
    """Latest rclone stats, once running."""
    created_at: str | None = None
    """Creation time, ISO 8601."""
    started_at: str | None = None
    """Start time, ISO 8601."""
    completed_at: str | None = None
    """End time, ISO 8601."""
    error_message: str | None = None
    """Why the transfer failed."""

    @property
    def is_terminal(self) -> bool:
        """True once the job has ended (succeeded, failed or cancelled)."""
        return self.status in TRANSFER_TERMINAL


TRANSFER_TERMINAL = ("succeeded", "failed", "cancelled")
"""The statuses a transfer never leaves (the CLI's `--follow` stops on them)."""


class VolumeTransferList(CamelModel):
    """V12 reply: `{"transfers": [...]}`, newest first."""

    transfers: list[VolumeTransfer] = Field(default_factory=list)
    """The volume's transfers, finished ones included."""


# --- §2.1 request bodies ---------------------------------------------------------------------


class CreateVolumeRequest(CamelModel):
    """V2 body: `{"name", "size", "warm", "teamId"?, "cluster"?}`."""

    name: str
    """Name of the new volume."""
    size: str
    """Size cap such as `500Gi` or `5Ti` (the CLI's default is `5Ti`)."""
    warm: bool = True
    """Start a background read-only session (stops after 30 min idle)."""
    team_id: str | None = None
    """Team to create the volume for; omitted for the personal account."""
    cluster: str | None = None
    """Deprecated cluster hint; volumes are no longer tied to a cluster."""


class ExpandVolumeRequest(CamelModel):
    """V3 body: `{"size", "teamId"?}`."""

    size: str
    """New size cap, larger than the current one."""
    team_id: str | None = None
    """Team owning the volume."""


class CreateSessionRequest(CamelModel):
    """V5 body: `{"readOnly", "allowWritable"?, "teamId"?}`."""

    read_only: bool
    """Mount the volume root read-only."""
    allow_writable: bool | None = None
    """Sent as true only for a get, so the platform may reuse the caller's live read-write session."""
    team_id: str | None = None
    """Team owning the volume."""


class TransferRouteRequest(CamelModel):
    """V9 body: `{"mode", "path", "entries"?, "leaseId"?, "teamId"?}`."""

    mode: str
    """`get` or `put`."""
    path: str = ""
    """Volume-relative path (empty = root)."""
    entries: list[str] | None = None
    """Top-level names a root put writes."""
    lease_id: str | None = None
    """A put's lease id, when refreshing its credentials."""
    team_id: str | None = None
    """Team owning the volume."""


# --------------------------------------------------------------------------------------------
# §2.2 Dedicated training (models, GPU types, create / pause / resume)
# --------------------------------------------------------------------------------------------


class FFTModelCluster(CamelModel):
    """A cluster that has a model cached and ready for dispatch."""

    cluster_id: str
    """Cluster id."""
    cluster_name: str
    """Cluster display name."""
    gpu_type: str | None = None
    """GPU type of the cluster, e.g. `H200_141GB`."""


class AvailableFFTModel(CamelModel):
    """A model cached on at least one cluster the caller may use."""

    name: str
    """Hugging Face model name, e.g. `PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT`."""
    clusters: list[FFTModelCluster] = Field(default_factory=list)
    """Clusters that have the model cached."""


class OnDemandGpuType(CamelModel):
    """A GPU type purchasable on shared on-demand capacity (bills per GPU-hour)."""

    gpu_type: str
    """GPU type, e.g. `H200_141GB`."""
    price_per_gpu_hour: float
    """Price in USD per GPU-hour."""
    discount_label: str | None = None
    """Marketing label of a discount, if any."""
    available_now: bool = False
    """Coarse capacity hint: the pool reports free headroom (never a start-time promise)."""
    is_beta: bool = False
    """The GPU type is offered as a beta."""


class AvailableFFTModelsResponse(CamelModel):
    """T1 reply (a 404 reads as an empty one)."""

    models: list[AvailableFFTModel] = Field(default_factory=list)
    """Models on reserved capacity."""
    on_demand: list[OnDemandGpuType] = Field(default_factory=list)
    """GPU types on shared on-demand capacity."""
    on_demand_beta_access: bool | None = None
    """True: enrolled in the on-demand beta; False: not enrolled; None: the platform did not say."""


class AvailableGpuTypesResponse(CamelModel):
    """T2 reply: `{"gpuTypes": [...]}`."""

    gpu_types: list[str] = Field(default_factory=list)
    """GPU types the caller may dispatch a run on."""


class CreateRunRequest(CamelModel):
    """T4 body. Optional keys are sent only when set."""

    config: dict[str, Any]
    """The whole sft.toml as a table, minus CLI-only keys."""
    mode: str | None = None
    """`sft` for SFT runs; omitted for RL."""
    name: str | None = None
    """Run name (the TOML's top-level `name`)."""
    team_id: str | None = None
    """Team to run under."""
    image_tag: str | None = None
    """prime-rl image tag."""
    wandb_api_key: str | None = Field(default=None, repr=False)
    """W&B API key secret for the run (never logged)."""
    hf_token: str | None = Field(default=None, repr=False)
    """Hugging Face token secret for the run (never logged)."""
    gpu_type: str | None = None
    """GPU type to dispatch on."""
    volume: str | None = None
    """Volume to mount; outputs land under `runs/<runId>/` on it."""
    source_ref: str | None = None
    """prime-rl source ref overlay (restricted)."""
    resume_from: str | None = None
    """Id of a PAUSED run to continue from."""
    normalized_config: dict[str, Any] | None = None
    """Locally validated config, when local validation succeeded."""


class ResumeRunRequest(CamelModel):
    """T6 body: `{"gpuType"?, "imageTag"?, "wandbApiKey"?, "hfToken"?}`."""

    gpu_type: str | None = None
    """GPU type to resume on; defaults to the paused run's."""
    image_tag: str | None = None
    """Image tag to resume with; defaults to the paused run's."""
    wandb_api_key: str | None = Field(default=None, repr=False)
    """W&B API key (secrets are not kept across a pause)."""
    hf_token: str | None = Field(default=None, repr=False)
    """Hugging Face token (secrets are not kept across a pause)."""


class HostedTrainingRunResponse(CamelModel):
    """T4/T6 reply: the new run's id (T6 makes a new run) and its placement."""

    run_id: str
    """Id of the new run."""
    token_value: str = Field(repr=False)
    """Per-run API token; never shown or logged."""
    on_demand: bool = False
    """The run landed on billed on-demand capacity."""
    gpu_type: str | None = None
    """Resolved GPU type."""
    price_per_gpu_hour: float | None = None
    """USD per GPU-hour, for on-demand runs."""
    estimated_cost_per_hour: float | None = None
    """USD per hour for the whole run, for on-demand runs."""
    is_beta: bool = False
    """The capacity is a beta offering."""


class PauseRunResponse(CamelModel):
    """T5 reply; the CLI reads only `status`."""

    status: str
    """Status after the pause request, typically PAUSING."""
    run_id: str | None = None
    """The paused run's id, when the platform echoes it."""


# --------------------------------------------------------------------------------------------
# §2.3 Run reads and controls (/rft/runs)
# --------------------------------------------------------------------------------------------


class RLRun(CamelModel):
    """A training run (R1 list item; R2/R3/R5 `run`)."""

    id: str
    """Run id."""
    user_id: str
    """Owner's user id."""
    status: str
    """Run status, verbatim (QUEUED, PENDING, CREATING, RUNNING, PAUSING, PAUSED, COMPLETED, ...)."""
    created_at: str
    """Creation time, ISO 8601."""
    updated_at: str
    """Last update time, ISO 8601."""
    name: str | None = None
    """Run name."""
    team_id: str | None = None
    """Team the run belongs to."""
    cluster_id: str | None = Field(default=None, alias="rftClusterId")
    """Shared RFT cluster id (null for dedicated runs)."""
    prime_cluster_id: str | None = None
    """PrimeCluster hosting a dedicated run's release."""
    kind: str | None = None
    """SHARED_RFT_HOSTED | DEDICATED_FULL_FT | EXTERNAL."""
    rollouts_per_example: int | None = None
    """RL rollouts per example."""
    seq_len: int | None = None
    """Sequence length."""
    max_steps: int | None = None
    """Number of training steps the run will take."""
    max_tokens: int | None = None
    """Max generated tokens (RL)."""
    batch_size: int | None = None
    """Batch size."""
    loss: str | None = "rl"
    """Loss kind; `sft` marks an SFT run (the CLI defaults a missing value to `rl`)."""
    teacher: dict[str, Any] | None = Field(
        default=None,
        validation_alias=AliasChoices("teacher", "teacherConfig"),
        serialization_alias="teacher",
    )
    """Teacher model config (wire name `teacher` or `teacherConfig`)."""
    base_model: str | None = None
    """Model being trained."""
    environments: list[dict[str, Any]] = Field(default_factory=list)
    """RL environments (empty for SFT)."""
    run_config: dict[str, Any] | None = None
    """The run's config as dispatched; `runConfig.eval` marks SFT with online evals."""
    eval_config: dict[str, Any] | None = None
    """Eval config (RL)."""
    val_config: dict[str, Any] | None = None
    """Validation config (RL)."""
    buffer_config: dict[str, Any] | None = None
    """Deprecated buffer config, only on historical runs."""
    learning_rate: float | None = None
    """Learning rate."""
    lora_alpha: int | None = None
    """LoRA alpha (shared LoRA runs)."""
    max_inflight_rollouts: int | None = None
    """RL max in-flight rollouts."""
    oversampling_factor: float | None = None
    """RL oversampling factor."""
    max_async_level: int | None = None
    """RL max async level."""
    volume_name: str | None = None
    """Volume the run mounted (set on the run-detail read only)."""
    gpu_count: int | None = None
    """Resolved GPU footprint (trainer + inference)."""
    wandb_entity: str | None = None
    """W&B entity."""
    wandb_project: str | None = None
    """W&B project."""
    wandb_run_name: str | None = None
    """W&B run name."""
    runs_ahead: int | None = None
    """Runs ahead of this one in the queue (QUEUED)."""
    queue_reason: str | None = None
    """Why the run is queued."""
    notice: str | None = None
    """A notice from the platform about this run."""
    started_at: str | None = None
    """Start time, ISO 8601."""
    completed_at: str | None = None
    """End time, ISO 8601."""
    error_message: str | None = None
    """Why the run failed."""
    failure_analysis: dict[str, Any] | None = None
    """Automated failure classification {rootCause, evidence[], confidence, ...} (FAILED runs)."""
    source_commit: str | None = None
    """prime-rl commit overlaid on the image (`--ref`/`--pr` runs)."""

    @property
    def is_terminal(self) -> bool:
        """True when this run will not change any more."""
        return is_terminal_run_status(self.status)

    @property
    def is_sft(self) -> bool:
        """True for SFT runs (`loss == "sft"`, as `prime train components` decides)."""
        return (self.loss or "").lower() == "sft"

    @property
    def has_online_evals(self) -> bool:
        """True for SFT runs with online evals (an `eval` table in `runConfig`)."""
        return bool(self.run_config and self.run_config.get("eval"))


class RunEnvelope(CamelModel):
    """R2/R3/R5 reply: `{"run": RLRun}`."""

    run: RLRun
    """The run."""


class _Noted:
    """A reply the wire boundary changed: ``notes`` says what it dropped or cut, one clause each."""

    _notes: list[str]

    @property
    def notes(self) -> list[str]:
        return self._notes


class RLRunPage(_Noted, CamelModel):
    """R1 reply: one page of runs. Pagination keys are None on platforms without pagination."""

    _notes: list[str] = PrivateAttr(default_factory=list)
    """What the wire boundary dropped or cut from this reply (see `notes`)."""

    runs: list[RLRun] = Field(default_factory=list)
    """Runs on this page."""
    total: int | None = None
    """Number of matching runs."""
    page: int | None = None
    """This page's number (1-based)."""
    limit: int | None = None
    """Runs per page."""
    total_pages: int | None = Field(default=None, alias="total_pages")
    """Number of pages (snake_case on the wire)."""


class RLCheckpoint(CamelModel):
    """A checkpoint of a run (R6 list item)."""

    id: str
    """Checkpoint id."""
    rft_run_id: str
    """Id of the run that wrote it."""
    step: int
    """Training step."""
    storage_url: str
    """Where it is stored."""
    status: str
    """READY | PENDING | UPLOADING | FAILED, or other."""
    created_at: str
    """Creation time, ISO 8601."""
    size_bytes: int | None = None
    """Size in bytes."""
    uploaded_at: str | None = None
    """Upload time, ISO 8601."""


class CheckpointList(CamelModel):
    """R6 reply: `{"checkpoints": [...]}`."""

    checkpoints: list[RLCheckpoint] = Field(default_factory=list)
    """The run's checkpoints."""


class LogsResponse(_Noted, CamelModel):
    """R7 reply: one string of newline-separated lines."""

    _notes: list[str] = PrivateAttr(default_factory=list)
    """What the wire boundary dropped or cut from this reply (see `notes`)."""

    logs: str = ""
    """The log window, lines separated by `\\n`."""

    def lines(self) -> list[str]:
        """The window as a list of raw lines."""
        return self.logs.splitlines()


class EnvServer(SnakeModel):
    """One env-server pod of a run (R8 item, snake_case on the wire)."""

    pod_name: str
    """Kubernetes pod name."""
    status: str
    """Pod status."""
    env_name: str | None = None
    """Environment name."""
    env_index: int | None = None
    """Index among env servers sharing a name (`name/N`)."""


class EnvServerList(SnakeModel):
    """R8 reply: `{"env_servers": [...]}`."""

    env_servers: list[EnvServer] = Field(default_factory=list)
    """The run's env-server pods."""


class MetricsResponse(_Noted, CamelModel):
    """R10 reply: `{"metrics": [row, ...]}`; rows like {"step": 1, "time": 1.7e9, "loss/mean": 1.1}.

    Rows come through `primetui.api.boundary.metric_rows`: every step is an int in range, every
    time and value a number (NaN/inf kept); what it dropped is counted in `notes`.
    """

    _notes: list[str] = PrivateAttr(default_factory=list)
    """What the wire boundary dropped or cut from this reply (see `notes`)."""

    metrics: list[dict[str, Any]] = Field(default_factory=list)
    """Metric rows, in step order."""


class Progress(CamelModel):
    """R12 reply (camelCase)."""

    latest_step: int | None = None
    """Latest step with data."""
    steps_with_samples: list[int] = Field(default_factory=list)
    """Steps that have rollout samples (RL)."""
    steps_with_distributions: list[int] = Field(default_factory=list)
    """Steps that have reward distributions (RL)."""
    last_updated_at: str | None = None
    """When progress last changed, ISO 8601."""


# --------------------------------------------------------------------------------------------
# B1 billing (snake_case)
# --------------------------------------------------------------------------------------------


class RunUsageBreakdown(SnakeModel):
    """Token counts and cost of one side (training or inference)."""

    tokens: int = 0
    """Total tokens."""
    input_tokens: int = 0
    """Input tokens."""
    output_tokens: int = 0
    """Output tokens."""
    cost_usd: float = 0.0
    """Cost in USD."""


class RunPricing(SnakeModel):
    """Token prices applied to a run."""

    training_per_mtok: float | None = None
    """USD per million training tokens."""
    inference_input_per_mtok: float | None = None
    """USD per million inference input tokens."""
    inference_output_per_mtok: float | None = None
    """USD per million inference output tokens."""


class RunUsage(SnakeModel):
    """B1 reply: token usage and cost of one run (token-based; 0 for SFT runs)."""

    run_id: str
    """Run id."""
    training: RunUsageBreakdown
    """Training side."""
    inference: RunUsageBreakdown
    """Inference side."""
    pricing: RunPricing
    """Prices applied."""
    run_name: str | None = None
    """Run name."""
    base_model: str | None = None
    """Model trained."""
    status: str | None = None
    """Run status."""
    total_tokens: int = 0
    """Training + inference tokens."""
    total_cost_usd: float = 0.0
    """Training + inference cost in USD."""
    record_count: int = 0
    """Number of usage records summed."""


# --------------------------------------------------------------------------------------------
# §2.4 whoami
# --------------------------------------------------------------------------------------------


class WhoAmI(SnakeModel):
    """The authenticated user (`GET /user/whoami` -> data)."""

    id: str
    """User id."""
    email: str | None = None
    """Email."""
    name: str | None = None
    """Display name."""
    slug: str | None = None
    """URL slug."""
    scope: Any = None
    """Key scope, as the platform sends it."""


class WhoAmIResponse(SnakeModel):
    """`GET /user/whoami` reply: `{"data": {...}}`."""

    data: WhoAmI
    """The user."""


class Team(CamelModel):
    """One of the user's teams (`GET /user/teams` -> data[]): `{teamId, name, slug, role, createdAt}`."""

    team_id: str
    """The id the endpoints send as `teamId` / `team_id`."""
    name: str = ""
    """Display name."""
    slug: str = ""
    """What `prime switch <slug>` takes."""
    role: str = ""
    """The user's role in the team (e.g. ADMIN, MEMBER)."""
    created_at: str | None = None
    """When the team was created."""
