"""The pre-flight lists data.name on the volume through the storage route, line by line, and a missing
dataset blocks dispatch with the seed's troubleshooting text."""

from __future__ import annotations

import json
import tomllib

import pytest

from primetui.api.volume_storage import VolumeStorage
from primetui.sft.preflight import run_preflight
from primetui.sft.preflight_data import MISSING_TEXT
from primetui.local.testing import LocalPlatform


def _config(lp: LocalPlatform, **data) -> tuple[dict, str]:
    text = (lp.data_dir / "sft.toml").read_text()
    config = tomllib.loads(text)
    config["data"].update(data)
    return config, text


async def _lines(client, lp, **data) -> dict[str, tuple[str, str]]:
    volume = next(v for v in await client.list_volumes() if v.name == "research")
    config, text = _config(lp, **data)
    result = await run_preflight(client, volume, config, text)
    return {c.name: (c.state, c.detail) for c in result.checks}, result


async def _put(client, rel: str, body: bytes, tmp_path) -> None:
    route = await client.route_transfer("research", "put", rel)
    local = tmp_path / rel.replace("/", "_")
    local.write_bytes(body)
    with VolumeStorage(route) as storage:
        storage.upload(local, rel)
    await client.release_transfer("research", route.lease_id)


async def test_the_walkthrough_dataset_is_found_loadable_and_sft_shaped(client, local_platform) -> None:
    lines, result = await _lines(client, local_platform)
    assert lines["Data"][0] == "ok" and lines["Data"][1].startswith("/volume/datasets/reverse-text: 2 file(s)")
    assert lines["Files"] == ("ok", "1 parquet the trainer can load")
    assert lines["Columns"][0] == "ok" and "in data/train-00000-of-00001.parquet" in lines["Columns"][1]
    assert not any(c.state == "fail" for c in result.checks if c.name in ("Data", "Files", "Columns", "Splits"))


async def test_a_missing_dataset_blocks_with_the_seed_text(client, local_platform) -> None:
    lines, result = await _lines(client, local_platform, name="datasets/reverse-txt")
    assert lines["Data"] == (
        "fail",
        f"Dataset missing on the volume: /volume/datasets/reverse-txt does not exist or is empty. {MISSING_TEXT}",
    )
    assert result.blocked


async def test_splits_must_name_what_exists(client, local_platform) -> None:
    lines, _ = await _lines(client, local_platform, name="datasets/intellect-3-sft-10k", splits=["test"])
    assert lines["Splits"][0] == "fail" and "'test'" in lines["Splits"][1] and "math" in lines["Splits"][1]
    lines, _ = await _lines(client, local_platform, name="datasets/intellect-3-sft-10k", splits=["math"])
    assert lines["Splits"] == ("ok", "math found") and lines["Columns"][0] == "ok"


@pytest.mark.parametrize(
    ("rel", "body", "state", "words"),
    [
        ("datasets/pf-text/train.jsonl", b'{"text": "hi"}\n', "fail", "SFT needs prompt/completion or messages"),
        (
            "datasets/pf-msgs/train.jsonl",
            json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode() + b"\n",
            "ok",
            "messages in train.jsonl",
        ),
        ("datasets/pf-notes/readme.txt", b"notes", None, "holds no .parquet, .jsonl or .json files"),
    ],
)
async def test_files_and_columns(client, local_platform, tmp_path, rel, body, state, words) -> None:
    await _put(client, rel, body, tmp_path)
    lines, _ = await _lines(client, local_platform, name=rel.rsplit("/", 1)[0])
    if state is None:
        assert lines["Files"][0] == "fail" and words in lines["Files"][1]
    else:
        assert lines["Columns"][0] == state and words in lines["Columns"][1]
