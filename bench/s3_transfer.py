"""S3 import and export of 1 GiB through the local platform, in bounded memory, next to `aws s3 cp`.

A real S3 server (moto in server mode, its own process on 127.0.0.1) and a real local platform
(`primetui local serve --allow-private-endpoints`). The export sends one file of ``--size`` bytes
from a volume to the bucket (multipart, 8 MiB parts); the import brings the object back onto the
volume. Each leg is timed from V11 to the job's end (polled every 0.1 s), and the platform's
resident memory is sampled every 0.1 s: the figure is its peak above its resident size before the
leg. Baseline on the same files, same server, same run: `aws s3 cp` up and down (rclone too, when
it is installed). The bytes are checked (SHA-256) after the round trip.

    uv run python -m bench.s3_transfer [--size 1GiB]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from primetui.local.testing import LocalPlatform

BUCKET = "bench"
UNITS = {"KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}


def parse_size(text: str) -> int:
    for unit, factor in UNITS.items():
        if text.endswith(unit):
            return int(float(text[: -len(unit)]) * factor)
    return int(text)


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class Peak:
    """The highest RSS of ``pid`` while it is sampled."""

    def __init__(self, pid: int) -> None:
        self.pid, self.base, self.peak = pid, rss_bytes(pid), 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.1):
            self.peak = max(self.peak, rss_bytes(self.pid))

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return max(0, self.peak - self.base)


def start_moto() -> tuple[subprocess.Popen, str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ)
    env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    raise SystemExit("moto server did not start")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def leg(api: httpx.Client, lp: LocalPlatform, body: dict) -> tuple[float, int]:
    peak = Peak(lp.pid)
    start = time.perf_counter()
    reply = api.post("/training/volumes/bench/transfers", json=body)
    reply.raise_for_status()
    tid = reply.json()["id"]
    while True:
        row = api.get(f"/training/volumes/bench/transfers/{tid}").json()
        if row["status"] in ("succeeded", "failed", "cancelled"):
            break
        time.sleep(0.1)
    took, grew = time.perf_counter() - start, peak.stop()
    if row["status"] != "succeeded":
        raise SystemExit(f"{body['direction']} ended {row['status']}: {row.get('errorMessage')}")
    return took, grew


def timed(cmd: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="1GiB")
    args = parser.parse_args()
    size = parse_size(args.size)
    tmp = Path(tempfile.mkdtemp(prefix="s3-bench-"))
    moto, endpoint = start_moto()
    creds = {"accessKeyId": "bench", "secretAccessKey": "bench-secret", "sessionToken": None}
    env = dict(
        os.environ, AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench-secret", AWS_DEFAULT_REGION="us-east-1"
    )
    try:
        import boto3

        boto3.client(
            "s3",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="bench",
            aws_secret_access_key="bench-secret",
        ).create_bucket(Bucket=BUCKET)
        with (
            LocalPlatform.start(tmp, speed=None, serve_args=("--allow-private-endpoints",)) as lp,
            httpx.Client(base_url=lp.api_url, headers=lp.headers, timeout=60) as api,
        ):
            api.post("/training/volumes", json={"name": "bench", "size": "100Gi", "warm": False}).raise_for_status()
            source = lp.data_dir / "volumes" / "bench" / "out" / "blob.bin"
            source.parent.mkdir(parents=True)
            with open(source, "wb") as fh:
                for _ in range(size // (1 << 20)):
                    fh.write(os.urandom(1 << 20))
            base = {"credentials": creds, "endpointUrl": endpoint}
            up, up_rss = leg(api, lp, {**base, "direction": "export", "path": "out", "url": f"s3://{BUCKET}/blob/"})
            down, down_rss = leg(
                api, lp, {**base, "direction": "import", "path": "back", "url": f"s3://{BUCKET}/blob/"}
            )
            same = sha256(source) == sha256(lp.data_dir / "volumes" / "bench" / "back" / "blob.bin")
            rows = [("primetui export (V11)", up, up_rss), ("primetui import (V11)", down, down_rss)]
            if shutil.which("aws"):
                aws = ["aws", "s3", "cp", "--endpoint-url", endpoint, "--only-show-errors"]
                rows.append(("aws s3 cp up", timed([*aws, str(source), f"s3://{BUCKET}/aws/blob.bin"], env), None))
                rows.append(
                    ("aws s3 cp down", timed([*aws, f"s3://{BUCKET}/aws/blob.bin", str(tmp / "aws.bin")], env), None)
                )
            else:
                print("aws CLI not installed: no aws s3 cp baseline")
            if shutil.which("rclone"):
                remote = f":s3,provider=Other,endpoint={endpoint},access_key_id=bench,secret_access_key=bench-secret:"
                rows.append(
                    (
                        "rclone copy up",
                        timed(["rclone", "copyto", str(source), f"{remote}{BUCKET}/rc/blob.bin"], env),
                        None,
                    )
                )
            else:
                print("rclone not installed: no rclone baseline")
    finally:
        os.killpg(moto.pid, signal.SIGTERM)
        moto.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    mib = size / 1024**2
    print(
        f"{args.size} ({size} bytes), round trip intact: {same}; load average {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    print("| leg | seconds | MiB/s | platform RSS growth |")
    print("|---|---|---|---|")
    for name, seconds, grew in rows:
        rss = f"{grew / 1024**2:.0f} MiB" if grew is not None else "-"
        print(f"| {name} | {seconds:.1f} | {mib / seconds:.0f} | {rss} |")


if __name__ == "__main__":
    main()
