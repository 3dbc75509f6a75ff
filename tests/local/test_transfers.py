"""S3 import and export (V11-V14) against a real S3 server: moto in server mode, in its own process.

One moto server and one platform (started with ``--allow-private-endpoints``, since moto listens on
loopback) serve the whole module; the nested 10,000-file prefix is exported once and reused.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from primetui.local.teams import LOCAL_TEAM_ID
from tests.cli_zygote import primetui_cli
from primetui.local.testing import LocalPlatform
from tests.local.conftest import http, wait_status
from tests.s3_server import Relay, S3Server
from tests.waiting import wait_for_sync

BUCKET = "datasets"
FILES = 10_000
SECRET = "s3cr3t-never-stored-5b0e"
ENDED = ("succeeded", "failed", "cancelled")


@pytest.fixture(scope="module")
def s3() -> Iterator[S3Server]:
    server = S3Server.start()
    server.secret = SECRET  # moto without auth takes any key: one we can look for on disk afterwards
    server.client().create_bucket(Bucket=BUCKET)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def lp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalPlatform]:
    with LocalPlatform.start(tmp_path_factory.mktemp("transfers"), serve_args=("--allow-private-endpoints",)) as lp:
        with http(lp) as api:
            for name, size in (("data", "1Gi"), ("tiny", "1Mi")):
                assert (
                    api.post("/training/volumes", json={"name": name, "size": size, "warm": False}).status_code == 200
                )
        yield lp


@pytest.fixture
def api(lp: LocalPlatform) -> Iterator[httpx.Client]:
    with http(lp) as c:
        yield c


def volume(lp: LocalPlatform, name: str = "data") -> Path:
    return lp.data_dir / "volumes" / name


def start(
    api: httpx.Client,
    s3: S3Server,
    direction: str,
    path: str,
    url: str,
    *,
    name: str = "data",
    endpoint: str | None = None,
    **extra,
) -> dict:
    body = {
        "direction": direction,
        "path": path,
        "url": url,
        "credentials": s3.credentials(),
        "endpointUrl": endpoint or s3.endpoint,
        **extra,
    }
    reply = api.post(f"/training/volumes/{name}/transfers", json=body)
    assert reply.status_code == 200, reply.text
    return reply.json()


def get(api: httpx.Client, transfer_id: str, name: str = "data") -> dict:
    reply = api.get(f"/training/volumes/{name}/transfers/{transfer_id}")
    assert reply.status_code == 200, reply.text
    return reply.json()


def ended(api: httpx.Client, transfer_id: str, name: str = "data", timeout: float = 240.0) -> dict:
    return wait_for_sync(
        lambda: (row := get(api, transfer_id, name))["status"] in ENDED and row,
        f"transfer {transfer_id} to end",
        timeout=timeout,
        slowest=0.4,  # an export of 10,000 objects runs a minute or more: each poll costs both processes CPU
    )


def nested_name(i: int) -> str:
    return f"d{i % 10}/e{i % 7}/f{i:05d}.txt"


@pytest.fixture(scope="module")
def exported(lp: LocalPlatform, s3: S3Server) -> dict:
    """A nested folder of 10,000 small files on the volume, exported once to s3://datasets/nested/."""
    root = volume(lp) / "nested"
    for i in range(FILES):
        path = root / nested_name(i)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"file {i}\n")
    with http(lp) as api:
        return ended(api, start(api, s3, "export", "nested", f"s3://{BUCKET}/nested")["id"])


def test_export_of_a_nested_folder_of_10000_files(exported: dict, s3: S3Server) -> None:
    assert exported["status"] == "succeeded", exported
    assert exported["progress"]["percentage"] == 100 and exported["direction"] == "export"
    assert exported["progress"]["transferred"] == exported["progress"]["total"]
    pages = s3.client().get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix="nested/")
    keys = {item["Key"] for page in pages for item in page.get("Contents", ())}
    assert keys == {f"nested/{nested_name(i)}" for i in range(FILES)}
    body = s3.client().get_object(Bucket=BUCKET, Key=f"nested/{nested_name(4321)}")["Body"].read()
    assert body == b"file 4321\n"


def test_import_of_a_nested_prefix_then_a_restart_skips_what_is_there(
    exported: dict, lp: LocalPlatform, api: httpx.Client, s3: S3Server
) -> None:
    first = ended(api, start(api, s3, "import", "back", f"s3://{BUCKET}/nested/d3/")["id"])
    assert first["status"] == "succeeded", first
    landed = sorted(p.relative_to(volume(lp) / "back").as_posix() for p in (volume(lp) / "back").rglob("*.txt"))
    wanted = sorted(nested_name(i)[3:] for i in range(FILES) if i % 10 == 3)
    assert landed == wanted and len(landed) == 1000
    assert (volume(lp) / "back" / nested_name(13)[3:]).read_text() == "file 13\n"
    again = ended(api, start(api, s3, "import", "back", f"s3://{BUCKET}/nested/d3/")["id"])
    assert again["status"] == "succeeded" and again["progress"]["total"] == "0 B"  # every file was already there


def test_cancel_mid_way_keeps_only_whole_files_and_stays_cancelled(
    exported: dict, lp: LocalPlatform, api: httpx.Client, s3: S3Server
) -> None:
    transfer = start(api, s3, "import", "partial", f"s3://{BUCKET}/nested/")
    wait_for_sync(lambda: any((volume(lp) / "partial").rglob("*.txt")), "the import to land its first files")
    assert api.delete(f"/training/volumes/data/transfers/{transfer['id']}").status_code == 204
    row = get(api, transfer["id"])
    assert row["status"] == "cancelled" and row["completedAt"], row
    assert api.delete(f"/training/volumes/data/transfers/{transfer['id']}").status_code == 204  # idempotent
    assert get(api, transfer["id"])["status"] == "cancelled"
    files = list((volume(lp) / "partial").rglob("*.txt"))
    assert 0 < len(files) < FILES
    for path in files:
        number = int(path.stem[1:])
        assert path.read_text() == f"file {number}\n"
    assert not list((lp.data_dir / "transfer-staging").glob("*/*"))


def test_a_live_import_holds_the_volume_then_a_dead_endpoint_fails_it_cleanly(
    lp: LocalPlatform, api: httpx.Client, s3: S3Server
) -> None:
    big = os.urandom(3 * 1024 * 1024)
    client = s3.client()
    for i in range(4):
        client.put_object(Bucket=BUCKET, Key=f"big/part{i}.bin", Body=big)
    relay = Relay(s3.port, hold_after=1024 * 1024)
    transfer = start(api, s3, "import", "big", f"s3://{BUCKET}/big/", endpoint=relay.endpoint)
    wait_for_sync(lambda: not relay.passing.is_set(), "the relay to hold after the first MiB")
    assert get(api, transfer["id"])["status"] == "running"
    for reply in (
        api.post("/training/volumes/data/sessions", json={"readOnly": False}),
        api.post("/training/volumes/data/transfer", json={"mode": "put", "path": "x/"}),
        api.delete("/training/volumes/data"),
        api.post(
            "/training/volumes/data/transfers",
            json={
                "direction": "import",
                "path": "other",
                "url": f"s3://{BUCKET}/big/",
                "credentials": s3.credentials(),
                "endpointUrl": s3.endpoint,
            },
        ),
    ):
        assert reply.status_code == 409 and transfer["id"] in reply.json()["detail"], (
            reply.text,
            get(api, transfer["id"]),
        )
    config = {
        "max_steps": 2,
        "model": {"name": "Qwen/Qwen3-0.6B"},
        "data": {"type": "fake", "batch_size": 2, "seq_len": 64},
    }
    run_id = api.post("/training/runs", json={"config": config, "mode": "sft", "volume": "data"}).json()["runId"]
    waiting = wait_for_sync(
        lambda: (run := api.get(f"/rft/runs/{run_id}").json()["run"]).get("queueReason") and run,
        "the run to say why it waits",
    )
    assert f"S3 import {transfer['id']} into volume 'data'" in waiting["queueReason"]
    relay.cut()  # the endpoint dies mid-transfer
    row = ended(api, transfer["id"])
    assert row["status"] == "failed"
    assert row["errorMessage"].startswith("The S3 endpoint"), row
    for path in (volume(lp) / "big").rglob("*") if (volume(lp) / "big").exists() else ():
        assert path.is_dir() or path.read_bytes() == big  # only whole files on the volume
    assert not list((lp.data_dir / "transfer-staging").glob("*/*"))
    assert wait_status(api, run_id)["status"] == "COMPLETED"  # the volume is free: the run started
    put = api.post("/training/volumes/data/transfer", json={"mode": "put", "path": "x/"})  # the volume is free again
    assert put.status_code == 200
    assert (
        api.post("/training/volumes/data/transfer/release", json={"leaseId": put.json()["leaseId"]}).status_code == 204
    )


def test_a_key_with_dotdot_is_refused_and_nothing_lands(lp: LocalPlatform, api: httpx.Client, s3: S3Server) -> None:
    client = s3.client()
    client.put_object(Bucket=BUCKET, Key="evil/ok.txt", Body=b"fine")
    client.put_object(Bucket=BUCKET, Key="evil/../../escape.txt", Body=b"gotcha")
    keys = [o["Key"] for o in client.list_objects_v2(Bucket=BUCKET, Prefix="evil/")["Contents"]]
    assert "evil/../../escape.txt" in keys  # the server kept the key as written
    row = ended(api, start(api, s3, "import", "safe", f"s3://{BUCKET}/evil/")["id"])
    assert row["status"] == "failed"
    assert row["errorMessage"].startswith(
        "Object key 'evil/../../escape.txt' would land outside the volume path 'safe'"
    )
    assert not (volume(lp) / "safe" / "ok.txt").exists()
    assert not [p for p in lp.data_dir.parent.rglob("escape.txt")]


def test_an_import_larger_than_the_volume_fails_and_leaves_nothing(
    lp: LocalPlatform, api: httpx.Client, s3: S3Server
) -> None:
    client = s3.client()
    for i in range(3):
        client.put_object(Bucket=BUCKET, Key=f"large/{i}.bin", Body=b"x" * 400 * 1024)
    row = ended(api, start(api, s3, "import", "in", f"s3://{BUCKET}/large/", name="tiny")["id"], name="tiny")
    assert row["status"] == "failed"
    assert row["errorMessage"].startswith("The import is larger than the room left on volume 'tiny' (1.172 MiB to copy")
    assert "prime volumes expand tiny --size <larger>" in row["errorMessage"]
    assert not [p for p in volume(lp, "tiny").rglob("*") if p.is_file()]


def test_a_missing_bucket_fails_with_its_name(api: httpx.Client, s3: S3Server) -> None:
    row = ended(api, start(api, s3, "import", "x", "s3://no-such-bucket/data/")["id"])
    assert row["status"] == "failed" and "progress" not in row
    assert row["errorMessage"] == (
        "Bucket 'no-such-bucket' does not exist on the S3 endpoint; check the bucket name in the URL and the region."
    )


def test_bad_credentials_are_refused_by_the_server(exported: dict, api: httpx.Client) -> None:
    guarded = S3Server.start(auth=True)
    try:
        guarded.client().create_bucket(Bucket=BUCKET)
        good = ended(api, start(api, guarded, "export", "nested/d1/e1", f"s3://{BUCKET}/ok/")["id"])
        assert good["status"] == "succeeded", good
        guarded.secret = "not-the-secret"
        row = ended(api, start(api, guarded, "import", "x", f"s3://{BUCKET}/ok/")["id"])
    finally:
        guarded.stop()
    assert row["status"] == "failed"
    assert row["errorMessage"].startswith("The S3 endpoint refused the credentials (SignatureDoesNotMatch)")
    assert "not-the-secret" not in row["errorMessage"]


def test_list_is_newest_first_scoped_by_team_and_credentials_are_nowhere(
    exported: dict, lp: LocalPlatform, api: httpx.Client, s3: S3Server
) -> None:
    listed = api.get("/training/volumes/data/transfers").json()["transfers"]
    assert listed and listed[-1]["id"] == exported["id"]
    assert [t["createdAt"] for t in listed] == sorted((t["createdAt"] for t in listed), reverse=True)
    team = {"teamId": LOCAL_TEAM_ID}
    assert api.get(f"/training/volumes/data/transfers/{exported['id']}", params=team).status_code == 404
    assert api.delete(f"/training/volumes/data/transfers/{exported['id']}", params=team).status_code == 404
    assert SECRET not in api.get("/training/volumes/data/transfers").text
    for path in lp.data_dir.parent.rglob("*"):  # the database, its WAL, the server's log
        if path.is_file() and path.stat().st_size < 64 * 1024 * 1024 and "volumes" not in path.parts:
            assert SECRET.encode() not in path.read_bytes(), path


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:9000",
        "http://localhost:9000",
        "http://[::1]:9000",
        "http://169.254.169.254",
        "http://metadata.google.internal",
        "http://10.1.2.3",
    ],
)
def test_private_endpoints_are_refused_without_the_flag(local_platform: LocalPlatform, endpoint: str) -> None:
    with http(local_platform) as api:
        reply = api.post(
            "/training/volumes/research/transfers",
            json={
                "direction": "import",
                "path": "x",
                "url": "s3://bucket/prefix",
                "credentials": {"accessKeyId": "a", "secretAccessKey": "b"},
                "endpointUrl": endpoint,
            },
        )
        assert reply.status_code == 400
        assert reply.json()["detail"].endswith(
            "points at a loopback, link-local, private or cloud-metadata address, "
            "which transfers may not reach; use a public S3 endpoint, or start the "
            "platform with `primetui local serve --allow-private-endpoints` to allow it."
        )
        assert api.get("/training/volumes/research/transfers").json()["transfers"] == []


def _cli_env(lp: LocalPlatform, s3: S3Server, home: Path) -> dict[str, str]:
    from tests.local.test_prime_cli import prime_env

    return dict(prime_env(lp, home), AWS_ACCESS_KEY_ID=s3.key, AWS_SECRET_ACCESS_KEY=s3.secret)


def test_the_official_cli_imports_follows_lists_exports_and_cancels(
    exported: dict, lp: LocalPlatform, api: httpx.Client, s3: S3Server, tmp_path: Path
) -> None:
    import re
    import subprocess

    from tests.local.test_prime_cli import PRIME, run_all

    env = _cli_env(lp, s3, tmp_path / "home")
    relay = Relay(s3.port, hold_after=0)  # holds from its first byte: the import stays live until released
    (started,) = run_all(
        env,
        tmp_path,
        ["volumes", "import", "data", f"s3://{BUCKET}/nested/d5/e5/", "cli-in", "--endpoint-url", relay.endpoint],
    )
    assert started.returncode == 0, started.stdout + started.stderr
    assert f"Started import of data:cli-in from s3://{BUCKET}/nested/d5/e5/" in started.stdout
    transfer_id = re.search(r"Transfer id: (\S+)", started.stdout).group(1)
    follow = subprocess.Popen(
        [PRIME, "--plain", "volumes", "transfers", "list", "data", "--id", transfer_id, "--follow"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    first = follow.stdout.readline()  # the follow's first poll, while the relay holds the job
    assert first.split()[0] == "running", first
    relay.hold_after = None
    relay.release()
    output, _ = follow.communicate(timeout=240)
    assert follow.returncode == 0, first + output
    lines = [line.split()[0] for line in output.splitlines() if line.strip()]
    assert lines[-1] == "succeeded", first + output
    # One folder of the exported tree (143 files): what the CLI drives is the same for 143 files or 1,000.
    landed = sorted(p.relative_to(volume(lp) / "cli-in").as_posix() for p in (volume(lp) / "cli-in").rglob("*.txt"))
    assert landed == sorted(nested_name(i)[6:] for i in range(FILES) if nested_name(i).startswith("d5/e5/"))

    exported_again, listed = run_all(
        env,
        tmp_path,
        ["volumes", "export", "data", "cli-in", f"s3://{BUCKET}/cli-out", "--endpoint-url", s3.endpoint],
        ["volumes", "transfers", "list", "data"],
    )
    assert (
        exported_again.returncode == 0
        and "Started export of data:cli-in to s3://datasets/cli-out" in exported_again.stdout
    )
    assert listed.returncode == 0 and transfer_id in listed.stdout and "succeeded" in listed.stdout

    held = Relay(s3.port, hold_after=0)
    (second,) = run_all(
        env,
        tmp_path,
        ["volumes", "import", "data", f"s3://{BUCKET}/nested/", "cli-cancel", "--endpoint-url", held.endpoint],
    )
    second_id = re.search(r"Transfer id: (\S+)", second.stdout).group(1)
    cancel, again = run_all(
        env,
        tmp_path,
        ["volumes", "transfers", "cancel", "data", second_id],
        ["volumes", "transfers", "cancel", "data", second_id],
    )
    assert cancel.returncode == 0 and f"Cancelling transfer {second_id}." in cancel.stdout
    assert again.returncode == 0
    (shown,) = run_all(env, tmp_path, ["volumes", "transfers", "list", "data", "--id", second_id, "-o", "json"])
    row = json_of(shown.stdout)
    assert row["status"] == "cancelled" and row["errorMessage"].startswith("Cancelled")
    held.cut()
    assert ended(api, exported_again.stdout.split("Transfer id: ")[1].split()[0])["status"] == "succeeded"


def json_of(text: str) -> dict:
    import json

    return json.loads(text)


def test_primetui_transfers_and_wait_headless(
    exported: dict, lp: LocalPlatform, api: httpx.Client, s3: S3Server, tmp_path: Path
) -> None:
    import json

    missing = ended(api, start(api, s3, "import", "y", "s3://not-a-bucket/x/")["id"])

    env = dict(os.environ, PRIME_BASE_URL=lp.base_url, PRIME_API_KEY=lp.token, HOME=str(tmp_path), NO_COLOR="1")
    env.pop("PRIME_TEAM_ID", None)
    listed = primetui_cli(["transfers", "data", "--json"], env)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)["transfers"]
    assert exported["id"] in [r["id"] for r in rows] and all("credentials" not in r for r in rows)
    table = primetui_cli(["transfers", "data"], env)
    assert table.stdout.splitlines()[0].split() == ["ID", "VOLUME", "DIRECTION", "PATH", "URL", "STATUS", "PROGRESS"]
    assert f"{exported['id']}  data" in table.stdout and "succeeded" in table.stdout
    waited = primetui_cli(["wait", f"data/{exported['id']}", "--json"], env)
    assert waited.returncode == 0, waited.stderr
    events = [json.loads(line) for line in waited.stdout.splitlines()]
    assert events[0]["event"] == "transfer" and events[0]["status"] == "succeeded"
    assert events[-1] == {"event": "done", "status": "SUCCEEDED", "exit": 0}
    bare = primetui_cli(["wait", missing["id"]], env)
    assert (
        bare.returncode == 1 and missing["id"] in bare.stdout and "Bucket 'not-a-bucket' does not exist" in bare.stdout
    )


def test_a_small_file_goes_in_one_round_trip_and_a_big_one_asks_first(s3: S3Server, tmp_path: Path) -> None:
    """botocore asks ``Expect: 100-continue`` before every body, a round trip per file that an export of many
    small files pays once each; up to s3io.CONTINUE_ABOVE the body goes at once."""
    from primetui.local.transfers import s3io

    client = s3io.client(s3io.Secret(s3.key, s3.secret), "us-east-1", s3.endpoint)
    sent: dict[str, object] = {}
    client.meta.events.register(
        "before-send.s3.PutObject",
        lambda request, **_: sent.update({request.url.rsplit("/", 1)[1]: request.headers.get("Expect")}),
    )
    sizes = {"small": 10, "limit": s3io.CONTINUE_ABOVE, "over": s3io.CONTINUE_ABOVE + 1, "empty": 0}
    for name, size in sizes.items():
        (tmp_path / name).write_bytes(b"x" * size)
        moved: list[int] = []
        s3io.put_small(client, tmp_path / name, BUCKET, f"expect/{name}", {"mtime": "1.0"}, size, moved.append)
        assert moved == [size]
        assert s3.client().get_object(Bucket=BUCKET, Key=f"expect/{name}")["Body"].read() == b"x" * size
    assert sent == {"small": None, "limit": None, "over": b"100-continue", "empty": None}
