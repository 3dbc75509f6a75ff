"""A local platform killed mid-upload (kill -9) leaves no partial upload on disk once it restarts (issue 41,
finding 11: 88 MB of a cut-off put stayed across restarts)."""

from __future__ import annotations

import pytest

from primetui.local.testing import LocalPlatform
from tests.local.conftest import http
from tests.local.test_volume_room import _s3

pytestmark = pytest.mark.timeout(300)

MiB = 1024 * 1024


def test_a_restart_after_a_kill_mid_upload_clears_the_partial_upload(fresh_platform: LocalPlatform) -> None:
    lp = fresh_platform
    with http(lp) as api:
        assert api.post("/training/volumes", json={"name": "cut", "size": "64Mi", "warm": False}).status_code == 200
        reply = api.post("/training/volumes/cut/transfer", json={"mode": "put", "path": "big/"})
        assert reply.status_code == 200, reply.text
        r = reply.json()
    s3 = _s3(r)
    key = "cut/big/weights.bin"
    upload_id = s3.create_multipart_upload(Bucket=r["bucket"], Key=key)["UploadId"]
    s3.upload_part(Bucket=r["bucket"], Key=key, UploadId=upload_id, PartNumber=1, Body=b"w" * (5 * MiB))
    staging = lp.data_dir / "storage-uploads"
    (staging / ".incoming-cut-off").write_bytes(b"x" * MiB)  # a PUT's body cut off by the kill
    held = sum(f.stat().st_size for f in staging.rglob("*") if f.is_file())
    assert held >= 6 * MiB  # the part and the cut-off body are on disk before the kill
    lp.kill()  # SIGKILL mid-upload: no cleanup at all
    lp.restart()
    with http(lp) as api:
        assert api.get("/training/volumes").status_code == 200
    left = [str(p.relative_to(staging)) for p in staging.rglob("*")] if staging.exists() else []
    assert left == [], f"partial uploads left on disk after the restart: {left}"
    assert not (lp.data_dir / "volumes" / "cut" / "big" / "weights.bin").exists()
