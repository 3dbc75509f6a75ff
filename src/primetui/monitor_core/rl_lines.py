"""prime-rl's RL log lines, read into numbers (research §3).

- The orchestrator's step line: ``Step 12 |    4.3s | Reward 0.8123 | Trainable 120/128 (93.8%) |
  Turns 1.0 | Branches 1.0 | Max Off-Policy 1 | Error 0.0% | Cancelled 0.0% | Truncation 0.8%``
  (v0.8 has no ``Cancelled``; v0.5/v0.4 write ``Step n | Time: …s | Reward: … | … | Max.
  Off-Policy Level: m``).
- The trainer's step line: ``Step 12 |    3.9s | Loss 0.0012 | Entropy 0.2143 | Mismatch KL 0.0009 |
  Grad. Norm 0.1837 | LR 3.00e-06 | Throughput 21873 tokens/s | MFU 6.4% | Peak Mem. 21.7 GiB``
  (v0.4 puts a colon after each name). Entropy, mismatch KL, grad norm, LR and throughput reach
  the dashboard only here: the platform's ``/metrics`` does not carry the trainer's numbers.
- The orchestrator's warnings about trainable traces, stale episodes and failed traces, and the
  env servers' failed requests.

The text may carry the log's own prefix (``12:00:01 SUCCESS ``, a JSON envelope rendered): the
parsers search, they do not anchor at the start. Pure core: no textual, no rich.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|nan|-?inf"

_ORCH = re.compile(
    r"Step (?P<step>\d+) \|\s+(?P<t>\S+(?: \S+)?) \| Reward (?P<reward>" + _NUM + r") \| "
    r"Trainable (?P<tr>\d+)/(?P<eff>\d+) \((?P<trp>[\d.]+)%\) \| Turns (?P<turns>[\d.]+) \| "
    r"Branches (?P<br>[\d.]+) \| Max Off-Policy (?P<mop>\d+) \| Error (?P<err>[\d.]+)%"
    r"(?: \| Cancelled (?P<can>[\d.]+)%)? \| Truncation (?P<trunc>[\d.]+)%"
)
_ORCH_OLD = re.compile(
    r"Step (?P<step>\d+) \| Time: (?P<t>[\d.]+)s \| Reward: (?P<reward>" + _NUM + r") \|"
    r".*?Max\. Off-Policy Level: (?P<mop>\d+)"
)
_TRAINER = re.compile(r"Step (?P<step>\d+) \|(?P<rest>.*\| (?:Loss|Entropy):? .*)$")
_TRAINER_FIELDS = {
    "loss": re.compile(r"\| Loss:? (" + _NUM + r")"),
    "entropy": re.compile(r"\| Entropy:? (" + _NUM + r")"),
    "mismatch_kl": re.compile(r"\| Mismatch KL:? (" + _NUM + r")"),
    "grad_norm": re.compile(r"\| Grad\. Norm:? (" + _NUM + r")"),
    "lr": re.compile(r"\| LR:? (" + _NUM + r")"),
    "throughput": re.compile(r"\| Throughput:? (" + _NUM + r") tokens/s"),
}
_TRAINABLE_WARN = re.compile(r"Only (?P<k>\d+)/(?P<n>\d+) effective traces are trainable \((?P<p>[\d.]+)%\)")
_STALE = re.compile(
    r"(?P<verb>Cancelled|Dropped) (?P<n>\d+) (?:queued |train )?\w+ past max_off_policy_steps=(?P<k>\d+)"
)
_TRACE_FAILED = re.compile(r"(?:Trace|Episode task) failed in group \S+ \((?P<env>[^)]*)\) — (?P<what>.*)$")
_ENV_SERVER_FAIL = re.compile(r"request failed: |failed to send response: |invalid message: ")


def _float(text: str) -> float:
    return float(text)


@dataclass(frozen=True, slots=True)
class OrchestratorStep:
    step: int
    reward: float
    trainable: int | None = None
    effective: int | None = None
    max_off_policy: int | None = None
    error_pct: float | None = None
    cancelled_pct: float | None = None
    truncation_pct: float | None = None

    @property
    def trainable_share(self) -> float | None:
        if self.trainable is None or not self.effective:
            return None
        return self.trainable / self.effective


@dataclass(frozen=True, slots=True)
class TrainerStep:
    step: int
    loss: float | None = None
    entropy: float | None = None
    mismatch_kl: float | None = None
    grad_norm: float | None = None
    lr: float | None = None
    throughput: float | None = None

    def row(self) -> dict[str, float]:
        """The numbers under the chart keys of :data:`TRAINER_KEYS` (and ``step``)."""
        out: dict[str, float] = {"step": self.step}
        for name, key in TRAINER_KEYS.items():
            value = getattr(self, name)
            if value is not None:
                out[key] = value
        return out


TRAINER_KEYS = {
    "entropy": "trainer log/entropy",
    "mismatch_kl": "trainer log/mismatch KL",
    "grad_norm": "trainer log/grad norm",
    "lr": "trainer log/LR",
    "throughput": "trainer log/throughput",
    "loss": "trainer log/loss",
}
"""Chart keys of the trainer line's numbers: the prefix says where they come from (not ``/metrics``)."""


def orchestrator_step(text: str) -> OrchestratorStep | None:
    """The orchestrator's step line (today's, v0.8's, v0.5's or v0.4's), or None."""
    if "Step " not in text or "Reward" not in text:
        return None
    m = _ORCH.search(text)
    if m:
        can = m.group("can")
        return OrchestratorStep(
            int(m.group("step")),
            _float(m.group("reward")),
            int(m.group("tr")),
            int(m.group("eff")),
            int(m.group("mop")),
            float(m.group("err")),
            float(can) if can is not None else None,
            float(m.group("trunc")),
        )
    m = _ORCH_OLD.search(text)
    if m:
        return OrchestratorStep(int(m.group("step")), _float(m.group("reward")), max_off_policy=int(m.group("mop")))
    return None


def trainer_step(text: str) -> TrainerStep | None:
    """The RL trainer's step line (today's or v0.4's), or None; a field the line lacks stays None."""
    if "Step " not in text:
        return None
    m = _TRAINER.search(text)
    if not m or "Reward" in text:
        return None
    rest = "|" + m.group("rest") + " |"
    values: dict[str, float] = {}
    for name, pattern in _TRAINER_FIELDS.items():
        found = pattern.search(rest)
        if found:
            values[name] = _float(found.group(1))
    if "loss" not in values and "entropy" not in values:
        return None
    return TrainerStep(int(m.group("step")), **values)


@dataclass(frozen=True, slots=True)
class RLWarning:
    """One orchestrator or env-server warning the health rules read."""

    kind: str  # "trainable", "cancelled", "dropped", "trace_failed", "env_request"
    count: int | None = None
    total: int | None = None
    limit: int | None = None
    env: str | None = None
    what: str | None = None


def rl_warning(text: str) -> RLWarning | None:
    """A warning line about trainable traces, stale episodes or failed traces/requests, or None."""
    if "Only " in text:
        m = _TRAINABLE_WARN.search(text)
        if m:
            return RLWarning("trainable", int(m.group("k")), int(m.group("n")))
    if "max_off_policy_steps" in text:
        m = _STALE.search(text)
        if m:
            return RLWarning(m.group("verb").lower(), int(m.group("n")), limit=int(m.group("k")))
    if "failed in group" in text:
        m = _TRACE_FAILED.search(text)
        if m:
            return RLWarning("trace_failed", env=m.group("env"), what=m.group("what").strip())
    if "request failed" in text or "failed to send" in text or "invalid message" in text:
        if _ENV_SERVER_FAIL.search(text):
            return RLWarning("env_request", what=text.strip())
    return None
