"""A sweep's grid as a whole, before any of its runs starts.

The pre-flight (:mod:`primetui.sft.preflight`) checks each run alone; the runs of one sweep share
one volume, so their checkpoints add up there. This check sums them (refused as the single-run
Space check is, with its wording), counts the GPUs the grid holds, prices it from the on-demand
GPU types the platform lists (the rate per hour: no run's length is known before it starts), and
names the runs whose name the platform or the grid already has. One line, like a pre-flight line.
No textual, no rich: ``primetui sweep`` and the editor's sweep dialog share it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from primetui.sft.preflight import Check, State, space_need, space_verdict
from primetui.sft.sizing import gpus, human_bytes
from primetui.sft.sweep import name_clashes

# Runs on the platform a sweep's names are checked against: 100 pages of 100 (a page is one request).
NAME_PAGES = 100
NAME_PAGE_SIZE = 100


@dataclass(frozen=True)
class Price:
    """One on-demand GPU type and its rate."""

    gpu_type: str
    per_gpu_hour: float


@dataclass(frozen=True)
class GridCheck:
    """The grid's totals and its verdict: ``space`` is the Space line for all runs together."""

    runs: int
    gpus: int
    space: Check
    need_bytes: int  # the runs' checkpoints whose size is known, added up
    unknown: int  # runs whose checkpoint size is unknown or unbounded (not in need_bytes)
    prices: tuple[Price, ...]
    taken: tuple[str, ...]  # names a run on the platform already has
    twice: tuple[str, ...]  # names the grid gives to more than one run

    @property
    def state(self) -> State:
        return self.space.state

    @property
    def blocked(self) -> bool:
        return self.space.state == "fail"

    def cost_per_hour(self) -> tuple[float, float] | None:
        """(lowest, highest) USD an hour for every GPU of the grid on the listed on-demand types."""
        if not self.prices:
            return None
        rates = [p.per_gpu_hour * self.gpus for p in self.prices]
        return min(rates), max(rates)

    def cost_text(self) -> str:
        cost = self.cost_per_hour()
        if cost is None:
            return "cost: no on-demand GPU price listed"
        if len(self.prices) == 1:
            return f"cost: ${cost[0]:,.2f}/h on on-demand {self.prices[0].gpu_type}"
        return f"cost: ${cost[0]:,.2f}–{cost[1]:,.2f}/h on on-demand GPUs ({len(self.prices)} types)"

    def line(self) -> str:
        """The one line: runs, GPUs, space, cost (the space verdict's fix when it fails)."""
        return f"{self.runs} runs · {self.gpus} GPUs · {self.cost_text()} · {self.space.detail}"

    def to_json(self) -> dict[str, Any]:
        cost = self.cost_per_hour()
        return {
            "runs": self.runs,
            "gpus": self.gpus,
            "checkpoint_bytes": self.need_bytes,
            "unknown_size": self.unknown,
            "space": self.space.state,
            "cost_per_hour": list(cost) if cost else None,
            "line": self.line(),
            "names_taken": list(self.taken),
            "names_twice": list(self.twice),
        }

    def clash_sentence(self, prefix: str, offer: str | None) -> str | None:
        """The warning about names already taken, ending with ``offer``; None when every name is new."""
        return clash_sentence(self.runs, self.taken, self.twice, prefix, offer)


def clash_sentence(runs: int, taken: Sequence[str], twice: Sequence[str], prefix: str, offer: str | None) -> str | None:
    """One sentence on the grid's names that the platform (``taken``) or the grid (``twice``) already has."""
    if not taken and not twice:
        return None
    parts = []
    if taken:
        shown = ", ".join(taken[:3]) + (", …" if len(taken) > 3 else "")
        verb = "is" if len(taken) == 1 else "are"
        parts.append(
            f"{len(taken)} of the {runs} run names {verb} already on the platform ({shown}), so the runs "
            f"list would mix this sweep with the earlier one under {prefix!r}"
        )
    if twice:
        parts.append(f"the grid gives {', '.join(twice[:3])} to more than one run")
    return "; ".join(parts) + (f"; {offer} makes every name new" if offer else "") + "."


def grid_check(
    configs: Sequence[dict[str, Any]],
    names: Sequence[str],
    volume_bytes: int | None,
    prices: Sequence[Price] = (),
    existing: set[str] | frozenset[str] = frozenset(),
) -> GridCheck:
    """The grid of ``configs`` (named ``names``) on a volume of ``volume_bytes``, priced at ``prices``."""
    needs = [space_need(c) for c in configs]
    known = [n.need for n in needs if n.need is not None]
    unknown = len(needs) - len(known)
    total = sum(known)
    writing = [n for n in needs if n.need]
    if not writing and not unknown:
        space = Check("Space", "ok", "no run keeps a checkpoint on the volume")
    else:
        sizes = sorted({n.need for n in writing if n.need})
        if not writing:
            what = "checkpoints 0 B"
        elif len(sizes) == 1:
            what = f"checkpoints {len(writing)} × {human_bytes(sizes[0])} = {human_bytes(total)}"
        else:
            what = f"checkpoints {human_bytes(sizes[0])}–{human_bytes(sizes[-1])} each, {human_bytes(total)} in all"
        space = space_verdict(what, total, volume_bytes, fix="expand the volume, lower keep_last or split the sweep")
        if unknown:
            worst: State = "warn" if any(n.state == "warn" for n in needs) else "skip"
            detail = f"{space.detail}; {unknown} run(s) of unknown size not counted"
            space = Check("Space", "fail" if space.state == "fail" else worst, detail)
    taken, twice = name_clashes(list(names), existing)
    return GridCheck(
        len(configs), sum(gpus(c) for c in configs), space, total, unknown, tuple(prices), tuple(taken), tuple(twice)
    )


def prices_from(reply: Any) -> list[Price]:
    """The on-demand GPU types and rates of a model-cache reply (T1); none when it lists none."""
    out = []
    for entry in getattr(reply, "on_demand", None) or []:
        rate = getattr(entry, "price_per_gpu_hour", None)
        if isinstance(rate, (int, float)) and rate >= 0:
            out.append(Price(str(getattr(entry, "gpu_type", "?")), float(rate)))
    return out


async def platform_run_names(client: Any) -> set[str]:
    """Every run name the platform lists (page by page, up to NAME_PAGES pages)."""
    names: set[str] = set()
    for page in range(1, NAME_PAGES + 1):
        reply = await client.list_runs(page=page, limit=NAME_PAGE_SIZE)
        names.update(r.name for r in reply.runs if r.name)
        pages = reply.total_pages
        if (
            not reply.runs
            or (pages is not None and page >= pages)
            or (pages is None and len(reply.runs) < NAME_PAGE_SIZE)
        ):
            break
    return names
