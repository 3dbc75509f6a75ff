"""``primetui rollouts RUN [--step N] [--json]`` and ``primetui distributions RUN [--type T] [--step N] [--json]``.

What the Rollouts and Distributions tabs show, printed: a step's samples grouped by problem (prompt,
answer, mean reward, spread, advantage, no-signal groups; each completion with its reward, rubric
scores, advantage, tokens and truncation), and the reward/advantage histograms of a step with their
stats. The same view model as the tabs (:mod:`primetui.viewmodel.rollouts`,
:mod:`primetui.viewmodel.distributions`). A step's samples are read page by page (R11); no other
step is read.

Text goes through the one neutraliser; ``--json`` is exact (``json.dump`` escapes every control
character). Exit codes as ``run --once``: 0 ok, 1 a platform error or a step without data (one
sentence on stderr), 2 the headless deadline, 78 a setting that cannot work.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from primetui.monitor_core.escapes import clean, clean_block
from primetui.viewmodel import distributions as dv
from primetui.viewmodel import rollouts as rv
from primetui.viewmodel.run_data import fetch_step

__all__ = ["NoData", "fetch_step"]

PREVIEW = 100


class NoData(Exception):
    """The run has no samples or histograms at the step asked for (one sentence)."""


def _pick(steps: list[int], wanted: int | None, what: str, run_id: str) -> int:
    if not steps:
        raise NoData(f"Run {run_id} has no {what} yet (the orchestrator uploads them as the run goes).")
    if wanted is None:
        return steps[-1]
    if wanted not in steps:
        shown = ", ".join(str(s) for s in steps[:20]) + (" …" if len(steps) > 20 else "")
        raise NoData(f"Step {wanted} of run {run_id} has no {what}; steps with {what}: {shown}.")
    return wanted


async def collect_rollouts(client: Any, run_id: str, step: int | None, sort: str, notes: list[str]) -> dict[str, Any]:
    progress = await client.get_progress(run_id)
    steps = sorted(set(progress.steps_with_samples))
    chosen = _pick(steps, step, "samples", run_id)
    held = await fetch_step(client, run_id, chosen, notes)
    groups = held.sorted_groups(sort)
    for group in groups:
        group.completions = rv.sort_by(group.completions, rv.completion_key(sort))
    return {
        "run_id": run_id,
        "step": chosen,
        "steps_with_samples": steps,
        "sort": sort,
        "summary": held.summary(),
        "groups": [g.to_json() for g in groups],
    }


def format_rollouts(data: dict[str, Any]) -> str:
    s = data["summary"]
    head = (
        f"Run {data['run_id']} · step {data['step']} (steps with samples: "
        f"{', '.join(map(str, data['steps_with_samples']))})"
        f" · {s['samples']} samples in {s['groups']} groups"
    )
    if s["mean_reward"] is not None:
        head += f" · mean reward {s['mean_reward']:.3f}"
    if s["no_signal_groups"]:
        head += f" · {s['no_signal_groups']} group{'s' if s['no_signal_groups'] != 1 else ''} with no signal"
    lines = [head]
    for g in data["groups"]:
        lines += [
            "",
            f"Problem {g['problem_id']}  mean {rv.fmt_num(g['mean_reward'])}  spread {rv.fmt_num(g['reward_spread'])}  "
            f"|adv| {rv.fmt_num(g['advantage'])}"
            + ("  NO SIGNAL" if g["no_signal"] else "")
            + (f"  {g['env_name']}" if g["env_name"] else ""),
        ]
        lines.append(f"  Prompt: {clean(g['prompt'])}")
        if g["answer"]:
            lines.append(f"  Answer: {clean(g['answer'])}")
        for c in g["samples"]:
            rubric = " ".join(f"{k}={v:.3f}" for k, v in c["rubric"].items())
            tokens = "-" if c["num_output_tokens"] is None else str(c["num_output_tokens"])
            text = " ".join(c["completion"].split())
            text = text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"
            lines.append(
                f"    #{c['sample_id']!s:<5} reward {rv.fmt_num(c['reward'])}  adv {rv.fmt_signed(c['advantage'])}  "
                f"{tokens:>5} tok{'  CUT' if c['truncated'] else ''}  {rubric}  {clean(text)}".rstrip()
            )
    return "\n".join(lines)


async def collect_distributions(
    client: Any, run_id: str, kinds: list[str], step: int | None, notes: list[str]
) -> dict[str, Any]:
    progress = await client.get_progress(run_id)
    steps = sorted(set(progress.steps_with_distributions))
    chosen = _pick(steps, step, "histograms", run_id)
    out = []
    for kind in kinds:
        dist = await client.get_distribution(run_id, kind, chosen)
        notes.extend(dist.notes)
        out.append(dv.distribution_json(dist))
    return {"run_id": run_id, "step": chosen, "steps_with_distributions": steps, "distributions": out}


def format_distributions(data: dict[str, Any], width: int = 40) -> str:
    from primetui.api.rl import Distribution

    steps = data["steps_with_distributions"]
    lines = [
        f"Run {data['run_id']} · step {data['step']} (histograms for steps {steps[0]}–{steps[-1]}, {len(steps)} steps)"
    ]
    for item in data["distributions"]:
        dist = Distribution.model_validate({k: item[k] for k in ("type", "step", "bins")})
        lines += ["", f"{item['type'].capitalize()}", f"  {dv.stats_line(item['step'], dv.HistStats(**item['stats']))}"]
        if not dist.bins:
            lines.append("  (no bins)")
        for row in reversed(dv.bar_rows(dist, width)):
            lines.append(f"  {row.label:>13}  {row.bar:<{width}} {row.count:g}")
    return "\n".join(lines)


async def _main(args: Any, out: TextIO, notes: list[str]) -> int:
    from primetui.commands.headless import _settings
    from primetui.commands.launch import make_client

    settings = _settings(bool(getattr(args, "local", False)))
    if not getattr(settings, "api_key", ""):
        from primetui.commands.exits import EXIT_CONFIG

        print("No API key configured. Run `prime login`, set PRIME_API_KEY, or add --local.", file=sys.stderr)
        return EXIT_CONFIG
    client = make_client(settings)
    try:
        if args.command == "rollouts":
            data = await collect_rollouts(client, args.run_id, args.step, args.sort, notes)
            text = format_rollouts
        else:
            kinds = [args.type] if args.type else ["rewards", "advantages"]
            data = await collect_distributions(client, args.run_id, kinds, args.step, notes)
            text = format_distributions
    except NoData as exc:
        print(f"primetui: {clean(str(exc))}", file=sys.stderr)
        return 1
    finally:
        await client.aclose()
    if args.json:
        json.dump(data, out, indent=2, allow_nan=False)
        out.write("\n")
    else:
        out.write(clean_block(text(data)) + "\n")
    return 0


def main(args: Any, out: TextIO | None = None) -> int:
    from primetui.commands.headless import run_guarded

    notes: list[str] = []
    return run_guarded(lambda: _main(args, out or sys.stdout, notes), notes, f"primetui {args.command}")
