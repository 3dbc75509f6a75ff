"""The pre-flight's look at the dataset on the volume, through the volume's storage route.

Line by line: the path exists; its files are something the trainer loads (parquet, jsonl or json
in ``hf download``'s layout); the first row's columns are SFT-shaped (prompt/completion or
messages, the seed's limitation); the splits the config names exist. Reads stay small: one listing
(capped), a HEAD, and the head of one file (a parquet file's footer).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from primetui.sft import dataset_layout as layout

State = Literal["ok", "fail", "warn", "skip"]
Line = tuple[str, State, str]

MAX_LISTED = 5000
HEAD_BYTES = 256 * 1024
MISSING_TEXT = (
    "The trainer reads data.name from the volume mount — a path that is empty or missing fails at startup. "
    "Re-run step 2 and check the name matches: the directory you create under /volume/datasets/<name> in the SSH "
    "session is exactly the datasets/<name> you point data.name at (relative paths resolve under /volume, so "
    "datasets/<name> and /volume/datasets/<name> are the same location)."
)


def _size(n: int) -> str:
    from primetui.sft.sizing import human_bytes

    return human_bytes(n)


def first_row_columns(storage: Any, rel: str, size: int) -> list[str] | None:
    """The column names of the first row of the data file ``rel`` (None: the file has no rows)."""
    if rel.endswith(".parquet"):
        from primetui.sft.parquet import parquet_file

        with storage.ranged(rel, size) as fh:
            return list(parquet_file(fh).schema_arrow.names)
    head = storage.read(rel, 0, HEAD_BYTES)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff").lstrip()
    if rel.endswith(".json") and text.startswith("["):
        try:
            row, _ = json.JSONDecoder().raw_decode(text[1:].lstrip())
        except json.JSONDecodeError:
            raise ValueError(
                f"the first record of {rel.rsplit('/', 1)[-1]} is not complete JSON within {HEAD_BYTES // 1024} KiB"
            ) from None
    else:
        line = next((ln for ln in text.split("\n") if ln.strip()), None)
        if line is None:
            return None
        if "\n" not in text and len(head) == HEAD_BYTES:
            raise ValueError(f"the first line of {rel.rsplit('/', 1)[-1]} is longer than {HEAD_BYTES // 1024} KiB")
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the first line of {rel.rsplit('/', 1)[-1]} is not valid JSON ({exc.msg})") from None
    if not isinstance(row, dict):
        raise ValueError(f"the first record of {rel.rsplit('/', 1)[-1]} is not an object with named columns")
    return list(row)


def sft_shaped(columns: list[str]) -> bool:
    return "messages" in columns or ("prompt" in columns and "completion" in columns)


def _listing(storage: Any, rel: str) -> tuple[dict[str, Any] | None, list[str], dict[str, int], str]:
    """(the single file's head or None, file names, their sizes, the folder they sit in) for ``rel``."""
    single = storage.head(rel) if rel else None
    if single is not None:
        names = [rel.rsplit("/", 1)[-1]]
        sizes = {names[0]: single["size"] or 0}  # no Content-Length: size unknown
        return single, names, sizes, rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
    folder = rel.rstrip("/") + "/"
    items = list(storage.list(folder, recursive=True, limit=MAX_LISTED))
    sizes = {i.key[len(folder) :]: i.size or 0 for i in items if not i.is_dir}
    return None, sorted(sizes), sizes, folder


def _kinds_text(files: list[str]) -> str:
    kinds: dict[str, int] = {}
    for name in files:
        kind = name.rsplit(".", 1)[-1]
        kinds[kind] = kinds.get(kind, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + " the trainer can load"


def _splits(data: dict[str, Any], files: list[str], single: bool, shown: str) -> tuple[list[str], Line | None]:
    """The files the configured subsets/splits pick, and the Splits line (None when none are named)."""
    subsets, splits = data.get("subsets"), data.get("splits")
    pairs = layout.split_pairs(
        subsets if isinstance(subsets, list) else None, splits if isinstance(splits, list) else None
    )
    chosen: list[str] = []
    missing: list[str] = []
    for subset, split in pairs:
        base = f"{subset}/" if subset else ""
        under = [n[len(base) :] for n in files if n.startswith(base)] if not single else files
        picked = layout.split_files(under, split)
        if picked:
            chosen.extend(base + p for p in picked)
        else:
            missing.append(f"{subset}/{split}" if subset else split)
    if missing:
        present = sorted({n.split("/")[-1].split(".")[0].split("-")[0] for n in files})
        return chosen, (
            "Splits",
            "fail",
            f"no files for split {', '.join(repr(m) for m in missing)} in {shown} (its "
            f"files are named {', '.join(present[:6])}); set data.splits to what exists.",
        )
    if isinstance(splits, list) or isinstance(subsets, list):
        return chosen, ("Splits", "ok", ", ".join(f"{s}" for _, s in pairs) + " found")
    return chosen, None


def _columns_line(storage: Any, key: str, size: int, first: str) -> Line:
    try:
        columns = first_row_columns(storage, key, size)
    except Exception as exc:  # noqa: BLE001 - an unreadable file is one warn line, the trainer will say more
        return ("Columns", "warn", f"could not read the first row of {first} ({exc}).")
    if columns is None:
        return ("Columns", "fail", f"{first} has no rows; put the dataset's rows there.")
    if sft_shaped(columns):
        return (
            "Columns",
            "ok",
            f"{', '.join(c for c in columns if c in ('messages', 'prompt', 'completion'))} in {first}",
        )
    return (
        "Columns",
        "fail",
        f"{first} has columns {', '.join(columns[:8])}; SFT needs prompt/completion or messages columns.",
    )


def dataset_lines(storage: Any, rel: str, data: dict[str, Any]) -> list[Line]:
    """The Data, Files, Columns and Splits lines for the dataset at volume path ``rel``."""
    shown = "/volume/" + rel
    single, names, sizes, folder = _listing(storage, rel)
    if not names:
        return [("Data", "fail", f"Dataset missing on the volume: {shown} does not exist or is empty. {MISSING_TEXT}")]
    files = layout.data_files(names)
    lines: list[Line] = [("Data", "ok", f"{shown}: {len(names)} file(s), {_size(sum(sizes.values()))}")]
    if not files:
        found = ", ".join(names[:4]) + (", …" if len(names) > 4 else "")
        lines.append(
            (
                "Files",
                "fail",
                f"{shown} holds no .parquet, .jsonl or .json files (found: {found}); the trainer "
                "loads only those. Put the dataset as `hf download` lays it out.",
            )
        )
        return lines
    lines.append(("Files", "ok", _kinds_text(files)))
    chosen, splits_line = _splits(data, files, single is not None, shown)
    if splits_line is not None:
        lines.append(splits_line)
    first = (chosen or files)[0]
    key = folder + first if single is None else rel
    lines.append(_columns_line(storage, key, sizes.get(first, (single["size"] or 0) if single else 0), first))
    return lines
