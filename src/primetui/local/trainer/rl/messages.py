"""prime-rl's own message texts for the RL components (HEAD f-strings, research section 3)."""

from __future__ import annotations

from primetui.local.trainer.logs import format_time
from primetui.local.trainer.rl.metrics import by_env, mean
from primetui.local.trainer.rl.rollouts import Episode


def _rates(episodes: list[Episode]) -> tuple[float, float]:
    """(reward mean, truncation rate) over the shipped rollouts."""
    return mean([e.reward for e in episodes]), mean([float(e.truncated) for e in episodes])


def orchestrator_step(step: int, seconds: float, episodes: list[Episode], off_policy: int, env_names: list[str]) -> str:
    """``Step N | t | Reward … | Trainable k/n (p%) | …``, plus one ``╰─`` line per env when there are several."""
    reward, trunc = _rates(episodes)
    n = len(episodes)
    k = sum(e.advantage != 0.0 for e in episodes)
    head = (
        f"Step {step} | {format_time(seconds):>7} | Reward {reward:.4f} | Trainable {k}/{n} ({k / n:.1%}) | "
        f"Turns 1.0 | Branches 1.0 | Max Off-Policy {off_policy} | Error 0.0% | Cancelled 0.0% | "
        f"Truncation {trunc:.1%}"
    )
    if len(env_names) <= 1:
        return head
    groups = by_env(episodes)
    width = max(len(name) for name in env_names)
    lines = [head]
    for name in sorted(env_names):
        mine = groups.get(name, [])
        r, t = _rates(mine)
        lines.append(
            f"╰─ {name:<{width}} | Ratio {len(mine) / n:.1%} | Reward {r:.4f} | Turns 1.0 | Branches 1.0 | "
            f"Max Off-Policy {off_policy if mine else 0} | Error 0.0% | Cancelled 0.0% | Truncation {t:.1%}"
        )
    return "\n\t\t ".join(lines)


def pipeline(done: int, target: int, per_env: dict[str, int], inflight: dict[str, int]) -> str:
    """The orchestrator's pipeline view: the train batch so far and the rollouts in flight, per env when several."""
    part = f"Train batch {done}/{target} ({done / target if target else 0.0:.1%})"
    if len(per_env) > 1:
        part += " (" + ", ".join(f"{n}={v}" for n, v in per_env.items()) + ")"
    total = sum(inflight.values())
    tail = f"{total} inflight episodes (train={total}, eval=0"
    if len(inflight) > 1:
        tail += " | " + ", ".join(f"{n}={v}" for n, v in inflight.items())
    return f"{part}; {tail})"


def evaluated(env_name: str, step: int, version: int, seconds: float, episodes: list[Episode]) -> str:
    reward, trunc = _rates(episodes)
    return (
        f"Evaluated {env_name} (Step {step}) | Policy v{version} | {format_time(seconds):>7} | Reward {reward:.4f} | "
        f"Turns 1.0 | Branches 1.0 | Error 0.0% | Truncation {trunc:.1%}"
    )


def trainer_step(
    step: int,
    seconds: float,
    loss: float,
    entropy: float,
    mismatch_kl: float,
    grad_norm: float | None,
    lr: float,
    tokens_per_s: float,
    mfu: float,
    peak_gib: float,
) -> str:
    """``Step N | t | Loss … | Entropy … | Mismatch KL … | Grad. Norm … | LR … | Throughput … | MFU … | Peak Mem.
    …``."""
    msg = (
        f"Step {step} | {format_time(seconds):>7} | Loss {loss:.4f} | Entropy {entropy:.4f} | "
        f"Mismatch KL {mismatch_kl:.4f}"
    )
    if grad_norm is not None:
        msg += f" | Grad. Norm {grad_norm:.4f}"
    return (
        msg + f" | LR {lr:.2e} | Throughput {tokens_per_s:.0f} tokens/s | MFU {mfu:.1f}% | Peak Mem. {peak_gib:.1f} GiB"
    )


def inference_stats(prompt_tps: float, gen_tps: float, running: int, waiting: int) -> str:
    """vLLM's periodic engine line. The local engine has no GPU KV cache and no prefix cache, so
    those parts of vLLM's line are left out (newer vLLM builds the line from the parts it has)."""
    return (
        f"Engine 000: Avg prompt throughput: {prompt_tps:.1f} tokens/s, Avg generation throughput: {gen_tps:.1f} "
        f"tokens/s, Running: {running} reqs, Waiting: {waiting} reqs"
    )
