"""The platform's volume path rules and endpoint parsing, as the prime CLI 0.18.0 applies them."""

from __future__ import annotations

import pytest

from primetui.api.models import VolumeSession, VolumeSessionGateway
from primetui.shell.endpoint import endpoint_of, gateway_of, parse_gateway
from primetui.shell.errors import InvalidEndpoint, RemotePathError, SessionNotReady
from primetui.shell.paths import check_put_names, remote_path


@pytest.mark.parametrize(
    ("given", "rel", "into"),
    [
        ("/", "", True),
        ("", "", True),
        ("datasets/", "datasets", True),
        ("/datasets/x.jsonl", "datasets/x.jsonl", False),
        ("a/./b/../c", "a/c", False),
        ("a/b/..", "a", True),
        ("/volume/datasets/", "volume/datasets", True),  # volume-relative, like the CLI: not the mount
        ("weird@name%2B=,:-.txt", "weird@name%2B=,:-.txt", False),
    ],
)
def test_remote_path_normalises_like_the_cli(given, rel, into):
    path = remote_path(given)
    assert (path.rel, path.into) == (rel, into)
    assert path.remote == "/volume" + ("/" + rel if rel else "")


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("../x", "'..' climbs above the volume root"),
        ("a/../../x", "'..' climbs above the volume root"),
        ("my data/", "no spaces or shell characters"),
        ("x;rm -rf", "no spaces or shell characters"),
        ("$(id)", "no spaces or shell characters"),
        ("a" * 256, "a name is 256 bytes (at most 255)"),
        ("/".join(["b" * 200] * 6), "the full path is 1205 bytes (at most 1024)"),
    ],
)
def test_remote_path_refusals(given, message):
    with pytest.raises(RemotePathError, match=message.replace("(", r"\(").replace(")", r"\)")):
        remote_path(given)


def test_put_refuses_runs_and_too_many_root_names():
    with pytest.raises(RemotePathError, match="runs/ holds run outputs and is read-only; put elsewhere."):
        check_put_names(remote_path("runs/r1/"), ["x"])
    with pytest.raises(RemotePathError, match="runs/ holds run outputs"):
        check_put_names(remote_path("/"), ["data", "runs"])
    with pytest.raises(RemotePathError, match="at most 256 top-level names; this one writes 257"):
        check_put_names(remote_path("/"), [f"n{i}" for i in range(257)])
    check_put_names(remote_path("datasets/"), ["anything"])


def _session(**over) -> VolumeSession:
    base = {
        "id": "vs_1",
        "volumeName": "research",
        "status": "RUNNING",
        "readOnly": False,
        "sshConnection": "root@vol-ssh-abc.localhost -p 2222",
        "gateway": {"host": "127.0.0.1", "port": 4443, "certSha256": "AB:" + "cd" * 31},
        "hostPublicKey": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIE",
    }
    base.update(over)
    return VolumeSession.model_validate(base)  # as the wire boundary gives it


def test_endpoint_parsing_follows_the_cli():
    ep = endpoint_of(_session())
    assert (ep.user, ep.host, ep.port, ep.alias) == ("root", "vol-ssh-abc.localhost", 2222, "vol-ssh-abc")
    assert ep.gateway is not None and ep.gateway.cert_sha256 == "ab" + "cd" * 31  # colons stripped, lowercased
    assert endpoint_of(_session(sshConnection="ubuntu@host.example")).port == 22
    with pytest.raises(SessionNotReady, match="phase staging"):
        endpoint_of(_session(sshConnection=None, phase="staging"))
    with pytest.raises(InvalidEndpoint):
        endpoint_of(_session(sshConnection="root@host; rm -rf /"))
    with pytest.raises(InvalidEndpoint, match="out of range"):
        endpoint_of(_session(sshConnection="root@host -p 70000"))


@pytest.mark.parametrize(
    "gateway",
    [
        {"host": "-bad", "port": 443, "certSha256": "a" * 64},
        {"host": "gw", "port": 0, "certSha256": "a" * 64},
        {"host": "gw", "port": 443, "certSha256": "a" * 63},
    ],
)
def test_invalid_gateway_means_direct(gateway):
    assert parse_gateway(VolumeSessionGateway.model_validate(gateway)) is None
    assert gateway_of(gateway["host"], gateway["port"], gateway["certSha256"]) is None  # the proxy command's arguments
