"""The local stand-in of ``PrimeIntellect/INTELLECT-3-SFT-10K`` (split ``math``), generated here.

The seed's multi-node example trains on ``datasets/intellect-3-sft-10k`` with ``splits = ["math"]``.
The real dataset cannot ship with primetui, so the demo volume holds a small, honestly labelled
stand-in in the same ``hf download`` layout: 400 deterministic arithmetic word problems, each a
``prompt`` (one user message) and a ``completion`` (one assistant message working it out step by
step). ``python -m primetui.local.math_standin`` rewrites the folder's Parquet shard.
"""

from __future__ import annotations

import random
import sys
from importlib import resources
from pathlib import Path
from typing import Any

FOLDER = "intellect-3-sft-10k"
SPLIT_FILE = "data/math-00000-of-00001.parquet"
ROWS = 400
SEED = 20261203

_ITEMS = ["apples", "books", "tickets", "marbles", "pencils", "bottles", "crates", "stamps", "coins", "seeds"]
_NAMES = ["Ada", "Bruno", "Chen", "Dara", "Elif", "Femi", "Greta", "Hiro", "Ines", "Jonas"]


def _problem(rng: random.Random) -> tuple[str, str]:
    name, item = rng.choice(_NAMES), rng.choice(_ITEMS)
    kind = rng.randrange(4)
    a, b = rng.randint(12, 96), rng.randint(2, 11)
    if kind == 0:
        c = rng.randint(3, 40)
        q = f"{name} has {a} {item}, buys {b} more boxes of {c} {item} each. How many {item} does {name} have now?"
        s = (
            f"Each box holds {c} {item}, so {b} boxes hold {b} x {c} = {b * c}.\n"
            f"Adding the {a} {item} {name} had: {a} + {b * c} = {a + b * c}.\n"
            f"The answer is {a + b * c}."
        )
    elif kind == 1:
        total = a * b
        q = f"{total} {item} are shared equally among {b} friends. How many does each friend get?"
        s = f"Divide the {total} {item} by the {b} friends: {total} / {b} = {a}.\nThe answer is {a}."
    elif kind == 2:
        c = rng.randint(1, a - 1)
        q = f"{name} had {a} {item} and gave away {c}. Then {name} doubled what was left. How many {item} now?"
        s = (
            f"After giving away {c}: {a} - {c} = {a - c}.\n"
            f"Doubling: 2 x {a - c} = {2 * (a - c)}.\nThe answer is {2 * (a - c)}."
        )
    else:
        pct = rng.choice([10, 20, 25, 50, 75])
        base = rng.randint(1, 20) * 20
        part = base * pct // 100
        q = f"A shop has {base} {item} and sells {pct}% of them. How many {item} are left?"
        s = (
            f"{pct}% of {base} is {base} x {pct} / 100 = {part}.\n"
            f"Left: {base} - {part} = {base - part}.\nThe answer is {base - part}."
        )
    return q, s


def math_rows(n: int = ROWS, seed: int = SEED) -> list[dict[str, Any]]:
    """``n`` rows of {"prompt": [user message], "completion": [assistant message]}."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        q, s = _problem(rng)
        rows.append({"prompt": [{"role": "user", "content": q}], "completion": [{"role": "assistant", "content": s}]})
    return rows


def packaged_folder() -> Path:
    """The stand-in folder shipped inside the package (manifest.json, README.md, data/)."""
    return Path(str(resources.files("primetui.local").joinpath("datasets", FOLDER)))


def write_shard(dest: Path, rows: list[dict[str, Any]]) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = dest / SPLIT_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


if __name__ == "__main__":  # pragma: no cover - the maintainer's regeneration step
    out = write_shard(Path(sys.argv[1]) if len(sys.argv) > 1 else packaged_folder(), math_rows())
    print(f"wrote {out}")
