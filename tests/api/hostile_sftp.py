"""A careless or hostile SFTP server for the transfer tests: it lists whatever names, types and
modes a test gives it (``../../x``, ``a/b``, NUL bytes, setuid modes, symlinks, FIFOs) and serves
the same bytes for every file it is asked to read, or answers reads as a test says (more than the
listing said, more than asked, without end) with an open file's size as the test claims. Writes go
to a real folder (``chroot``), so put can be checked too. Runs in-process on loopback, with no
authentication and no host-key check."""

from __future__ import annotations

import contextlib
import stat
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import asyncssh

CONTENT = b"served by the hostile server\n"


def attrs(kind: str = "file", mode: int = 0o644, size: int | None = None, **extra) -> asyncssh.SFTPAttrs:
    """Entry attributes as a server would send them (the type travels in the mode bits in SFTPv3)."""
    fmt = {
        "file": stat.S_IFREG,
        "dir": stat.S_IFDIR,
        "link": stat.S_IFLNK,
        "fifo": stat.S_IFIFO,
        "socket": stat.S_IFSOCK,
        "chr": stat.S_IFCHR,
        "blk": stat.S_IFBLK,
        "none": 0,
    }[kind]
    if size is None and kind == "file":
        size = len(CONTENT)
    return asyncssh.SFTPAttrs(permissions=fmt | mode if kind != "none" else None, size=size, **extra)


@dataclass
class Tree:
    """What the server lists: folder path (as the client asks for it) -> [(name, attrs)], or a
    callable returning an iterator of them (for a listing without end)."""

    listings: dict[bytes, list[tuple[bytes, asyncssh.SFTPAttrs]]] = field(default_factory=dict)
    top: dict[bytes, asyncssh.SFTPAttrs] = field(default_factory=dict)  # stat answers besides folders
    content: bytes = CONTENT
    body: Callable[[int, int], bytes] | None = None
    """Answers a read at (offset, size) of any listed file in place of ``content`` (b"": end of file)."""
    claimed: int | None = None
    """The size an open file's fstat reports (None: the content's real size)."""


class _Served:
    """An open listed file whose reads ``Tree.body`` answers."""

    def close(self) -> None:
        pass


class HostileSFTPServer(asyncssh.SFTPServer):
    def __init__(self, chan: asyncssh.SSHServerChannel, tree: Tree, root: Path) -> None:
        self._tree = tree
        self._content = root.parent / f".{root.name}-content"
        self._content.write_bytes(tree.content)
        super().__init__(chan, chroot=bytes(root))

    def _fake(self, path: bytes) -> bool:
        """Paths under /volume are made up from the tree, unless it is empty (then put writes for real)."""
        return path.startswith(b"/volume") and bool(self._tree.listings or self._tree.top)

    def _listed(self, path: bytes) -> bool:
        return path.rstrip(b"/") in self._tree.listings

    def stat(self, path: bytes):
        if self._listed(path):
            return attrs("dir", 0o755)
        if path in self._tree.top:
            return self._tree.top[path]
        parent, _, name = path.rpartition(b"/")
        for listed, entry in self._tree.listings.get(parent, ()):
            if listed == name:  # the mode the listing claimed (setuid and all)
                return entry
        if self._fake(path):
            return attrs("file")
        return super().stat(path)

    def lstat(self, path: bytes):
        if self._fake(path):
            return self.stat(path)
        return super().lstat(path)

    async def scandir(self, path: bytes) -> AsyncIterator[asyncssh.SFTPName]:
        if not self._listed(path):
            async for name in super().scandir(path):
                yield name
            return
        listing = self._tree.listings[path.rstrip(b"/")]
        entries = listing() if callable(listing) else iter(listing)  # a callable lists without end
        yield asyncssh.SFTPName(b".", attrs=attrs("dir", 0o755))
        yield asyncssh.SFTPName(b"..", attrs=attrs("dir", 0o755))
        for name, entry in entries:
            yield asyncssh.SFTPName(name, attrs=entry)

    def open(self, path: bytes, pflags: int, file_attrs: asyncssh.SFTPAttrs):
        if self._fake(path) and self._tree.body is not None:
            return _Served()
        if self._fake(path):  # every listed file reads as the same bytes, from a real file
            return open(self._content, "rb")  # noqa: SIM115 - the SFTP layer closes it
        return super().open(path, pflags, file_attrs)

    def read(self, file_obj: object, offset: int, size: int) -> bytes:
        if isinstance(file_obj, _Served):
            return self._tree.body(offset, size)  # type: ignore[misc]
        return super().read(file_obj, offset, size)

    def fstat(self, file_obj: object):
        if self._tree.claimed is not None and (isinstance(file_obj, _Served) or self._tree.listings):
            return attrs("file", size=self._tree.claimed)
        return super().fstat(file_obj)


class _NoAuth(asyncssh.SSHServer):
    def begin_auth(self, username: str) -> bool:
        return False


@contextlib.asynccontextmanager
async def hostile_connection(tree: Tree, root: Path, volume: str = "vol"):
    """A connection shaped like ``SessionConnection`` (``.conn``, ``.endpoint``) to the hostile server.

    ``root`` is the server's real folder: paths outside ``/volume`` that the tree does not
    describe (and everything put writes) land under it.
    """
    root.mkdir(parents=True, exist_ok=True)
    key = asyncssh.generate_private_key("ssh-ed25519")
    server = await asyncssh.create_server(
        _NoAuth, "127.0.0.1", 0, server_host_keys=[key], sftp_factory=lambda chan: HostileSFTPServer(chan, tree, root)
    )
    port = server.sockets[0].getsockname()[1]
    conn = await asyncssh.connect(
        "127.0.0.1", port, username="u", known_hosts=None, client_keys=None, agent_path=None, config=None, password=None
    )
    try:
        yield SimpleNamespace(
            conn=conn, endpoint=SimpleNamespace(volume_name=volume, read_only=False, session_id="vs_hostile")
        )
    finally:
        conn.close()
        await conn.wait_closed()
        server.close()
        await server.wait_closed()


def outside(tmp: Path, target: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every path under ``tmp`` that is not under ``target``, with its mode and contents."""
    found: dict[str, tuple[int, bytes | None]] = {}
    for path in sorted(tmp.rglob("*")):
        if path == target or target in path.parents:
            continue
        st = path.lstat()
        data = path.read_bytes() if stat.S_ISREG(st.st_mode) else None
        found[str(path.relative_to(tmp))] = (st.st_mode, data)
    return found
