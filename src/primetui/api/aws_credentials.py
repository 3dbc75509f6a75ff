"""S3 credentials for an import or export, found where the AWS tools look, and named by where they came from.

The official CLI reads ``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` / ``AWS_SESSION_TOKEN``;
the dashboard also reads a profile (``AWS_PROFILE``, else ``default``) from
``~/.aws/credentials`` (``AWS_SHARED_CREDENTIALS_FILE``). Only the source's *name* is ever shown;
the values go into the V11 request body and nowhere else.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Found:
    """Credentials and where they came from (``source`` is what a screen may show)."""

    source: str
    access_key: str = field(repr=False)
    secret_key: str = field(repr=False)
    session_token: str | None = field(default=None, repr=False)

    def wire(self) -> dict[str, str | None]:
        """The V11 ``credentials`` object."""
        return {"accessKeyId": self.access_key, "secretAccessKey": self.secret_key, "sessionToken": self.session_token}


def find(env: dict[str, str] | None = None) -> Found | None:
    """The credentials the AWS tools would use: the environment first, then the profile; None if neither has them."""
    env = dict(os.environ) if env is None else env
    key, secret = env.get("AWS_ACCESS_KEY_ID", "").strip(), env.get("AWS_SECRET_ACCESS_KEY", "").strip()
    if key and secret:
        token = env.get("AWS_SESSION_TOKEN", "").strip() or None
        names = "AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY" + (", AWS_SESSION_TOKEN" if token else "")
        return Found(f"environment ({names})", key, secret, token)
    profile = env.get("AWS_PROFILE", "").strip() or "default"
    path = Path(
        env.get("AWS_SHARED_CREDENTIALS_FILE") or Path(env.get("HOME", "~")).expanduser() / ".aws" / "credentials"
    )
    parser = configparser.RawConfigParser()
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, configparser.Error, UnicodeDecodeError):
        return None
    if not parser.has_section(profile):
        return None
    section = parser[profile]
    key, secret = section.get("aws_access_key_id", "").strip(), section.get("aws_secret_access_key", "").strip()
    if not key or not secret:
        return None
    return Found(f"profile {profile} ({path})", key, secret, section.get("aws_session_token", "").strip() or None)


def check_s3_url(url: str) -> str | None:
    """None when ``url`` is an ``s3://bucket/prefix`` URL, else one sentence (the dialog's check before start)."""
    import re

    if not url.startswith("s3://"):
        return "The URL must be an S3 URL: s3://bucket/prefix."
    bucket = url[5:].split("/", 1)[0]
    if not re.fullmatch(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", bucket) or ".." in bucket:
        return f"'{bucket[:80]}' is not a bucket name: 3-63 lowercase letters, digits, dots and hyphens."
    return None


def check_volume_path(path: str, direction: str) -> str | None:
    """None when ``path`` is a volume-relative folder the transfer may use, else one sentence."""
    import re

    parts = [p for p in path.strip().strip("/").split("/") if p not in ("", ".")]
    for part in parts:
        if part == ".." or not re.fullmatch(r"[A-Za-z0-9._@%+=,:-]+", part):
            return f"'{path[:80]}' is not a volume path: use letters, digits and ._@%+=,:- in its parts, without '..'."
    if direction == "import" and parts and parts[0] == "runs":
        return "runs/ holds run outputs and is read-only; import elsewhere."
    return None
