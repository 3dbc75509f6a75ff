"""A real S3 server for the transfer tests: moto in server mode over HTTP on 127.0.0.1, in its own process.

Started and stopped by its pid (never an in-process fake of the client). With ``auth=True`` it checks
signatures and IAM policies (moto's ``INITIAL_NO_AUTH_ACTION_COUNT``): the first requests create a
user with an S3 policy and its access key, and from then on only that key is accepted, so a wrong
key is refused as a real S3 would refuse it.

:class:`Relay` is a TCP relay in front of it that can hold the bytes it relays (a transfer stays
live as long as the test needs) and be cut (the endpoint dies mid-transfer).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field

import boto3
from botocore.config import Config

from tests.waiting import wait_for_sync

ADMIN_ACTIONS = 3  # create_user, put_user_policy, create_access_key: the requests moto lets through unsigned
_MOTO_MAIN = """
import sys
import moto.backends
from moto.server import main

# moto's dispatcher lists its own package folder (a listdir and ~90 stat calls) to route each request;
# the folder does not change while the server runs, so it is read once. A third of moto's CPU per PUT.
_modules = tuple(moto.backends.list_of_moto_modules())
moto.backends.list_of_moto_modules = lambda: _modules

# moto writes each object's LastModified into a listing by parsing its own ISO 8601 string with dateutil
# (a third of moto's CPU to list 10,000 objects); the standard library reads that form, same instant.
import datetime
import moto.core.serialize
from botocore.utils import parse_to_aware_datetime

def _aware(value):
    if isinstance(value, str):
        try:
            parsed = datetime.datetime.fromisoformat(value)
        except ValueError:
            return parse_to_aware_datetime(value)
        utc = datetime.timezone.utc
        return parsed.replace(tzinfo=utc) if parsed.tzinfo is None else parsed.astimezone(utc)
    return parse_to_aware_datetime(value)

moto.core.serialize.parse_to_aware_datetime = _aware

# werkzeug logs a line per request to the server's stderr (sent to /dev/null here): a tenth of moto's
# CPU per PUT, formatting and locking for nothing.
import logging
logging.getLogger("werkzeug").disabled = True

main(sys.argv[1:])
"""
"""``python -m moto.server``, less a per-request scan of moto's own files and a dateutil parse per listed
object, both of which buy nothing here."""

POLICY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


@dataclass
class S3Server:
    """One moto server process; ``key``/``secret`` are the credentials it accepts."""

    port: int
    proc: subprocess.Popen
    key: str = "AKIAIOSFODNN7EXAMPLE"
    secret: str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    extra: dict = field(default_factory=dict)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def start(cls, auth: bool = False) -> S3Server:
        port = free_port()
        env = dict(os.environ)
        env.pop("INITIAL_NO_AUTH_ACTION_COUNT", None)
        if auth:
            env["INITIAL_NO_AUTH_ACTION_COUNT"] = str(ADMIN_ACTIONS)
        proc = subprocess.Popen(
            [sys.executable, "-c", _MOTO_MAIN, "-H", "127.0.0.1", "-p", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        server = cls(port, proc)
        wait_for_sync(lambda: proc.poll() is not None or _listening(port), "moto server to listen", timeout=60)
        if proc.poll() is not None:
            raise RuntimeError(f"moto server exited with {proc.returncode}")
        if auth:
            iam = boto3.client(
                "iam",
                endpoint_url=server.endpoint,
                region_name="us-east-1",
                aws_access_key_id="admin",
                aws_secret_access_key="admin",
            )
            iam.create_user(UserName="tester")
            iam.put_user_policy(UserName="tester", PolicyName="s3", PolicyDocument=json.dumps(POLICY))
            created = iam.create_access_key(UserName="tester")["AccessKey"]
            server.key, server.secret = created["AccessKeyId"], created["SecretAccessKey"]
        return server

    def client(self, endpoint: str | None = None):
        return boto3.client(
            "s3",
            endpoint_url=endpoint or self.endpoint,
            region_name="us-east-1",
            aws_access_key_id=self.key,
            aws_secret_access_key=self.secret,
            config=Config(s3={"addressing_style": "path"}, max_pool_connections=16),
        )

    def credentials(self) -> dict:
        return {"accessKeyId": self.key, "secretAccessKey": self.secret, "sessionToken": None}

    def kill(self) -> None:
        """SIGKILL by pid, as a crash."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class Relay:
    """A TCP relay on 127.0.0.1 to ``port``: it passes bytes until :meth:`hold` (or ``hold_after`` bytes),
    and :meth:`cut` ends it."""

    def __init__(self, port: int, hold_after: int | None = None) -> None:
        self.target = port
        self.hold_after = hold_after  # hold by itself once this many bytes went through
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.relayed = 0
        self.passing = threading.Event()
        self.passing.set()
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._socks += [client, upstream]
            threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                while not self.passing.wait(0.05):
                    if self._closed:
                        return
                dst.sendall(data)
                self.relayed += len(data)
                if self.hold_after is not None and self.relayed >= self.hold_after:
                    self.passing.clear()
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def hold(self) -> None:
        self.passing.clear()

    def release(self) -> None:
        self.passing.set()

    def cut(self) -> None:
        """The endpoint dies: the listener closes and every relayed connection is reset."""
        self._closed = True
        self.listener.close()
        with self._lock:
            socks = list(self._socks)
        for s in socks:
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                s.close()
            except OSError:
                pass
