"""The bundled Hub repos: one folder per repo under ``primetui.local.datasets``, found by manifest.

A folder is a repo when it holds ``manifest.json`` with ``repo_id`` and ``repo_type``; every other
file in it (``__pycache__`` aside) is a file of the repo at the same relative path. The commit id
is derived from the files' content, so it changes exactly when a file does.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging

from primetui.config.fileio import atomic_write
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable  # importlib.abc.Traversable is gone in Python 3.14

log = logging.getLogger("primetui.local.hub")

PACKAGE = "primetui.local.datasets"
MANIFEST = "manifest.json"
REPO_TYPES = ("model", "dataset", "space")
# Small text files are plain git blobs on the Hub; everything else is stored with LFS.
_TEXT_SUFFIXES = (".md", ".json", ".txt", ".gitattributes", ".py", ".yaml", ".yml", ".csv")


@dataclass(frozen=True)
class RepoFile:
    path: str
    size: int
    blob_id: str  # git blob sha1, as the Hub's tree gives it
    sha256: str
    lfs: bool
    resource: Traversable

    @property
    def etag(self) -> str:
        return self.sha256 if self.lfs else self.blob_id


@dataclass(frozen=True)
class BundledRepo:
    slug: str
    repo_id: str
    repo_type: str
    sha: str
    files: tuple[RepoFile, ...]

    def file(self, path: str) -> RepoFile | None:
        return next((f for f in self.files if f.path == path), None)

    def folders(self) -> list[str]:
        found = set()
        for f in self.files:
            parts = f.path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                found.add("/".join(parts[:i]))
        return sorted(found)


def _walk(folder: Traversable, prefix: str = ""):
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name == "__pycache__" or (not prefix and entry.name in (MANIFEST, "__init__.py")):
            continue
        rel = f"{prefix}{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, rel + "/")
        elif entry.is_file():
            yield rel, entry


def _load(folder: Traversable) -> BundledRepo | None:
    try:
        manifest = json.loads(folder.joinpath(MANIFEST).read_text(encoding="utf-8"))
        repo_id = str(manifest["repo_id"]).strip()
        repo_type = str(manifest.get("repo_type", "dataset"))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.warning("bundled dataset %s: unreadable %s (%s); skipped", folder.name, MANIFEST, exc)
        return None
    if repo_type not in REPO_TYPES or not repo_id or repo_id.count("/") > 1:
        log.warning("bundled dataset %s: bad repo_id/repo_type in %s; skipped", folder.name, MANIFEST)
        return None
    files = []
    commit = hashlib.sha1(f"{repo_type}:{repo_id}".encode())
    for rel, entry in _walk(folder):
        data = entry.read_bytes()
        blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        sha256 = hashlib.sha256(data).hexdigest()
        lfs = not rel.lower().endswith(_TEXT_SUFFIXES)
        files.append(RepoFile(rel, len(data), blob, sha256, lfs, entry))
        commit.update(f"{rel}\0{sha256}\n".encode())
    return BundledRepo(folder.name, repo_id, repo_type, commit.hexdigest(), tuple(files))


@functools.lru_cache(maxsize=1)
def bundled() -> dict[tuple[str, str], BundledRepo]:
    """Every bundled repo, keyed by (repo_type, repo_id)."""
    return discover(resources.files(PACKAGE))


def discover(root: Traversable) -> dict[tuple[str, str], BundledRepo]:
    """The repos in ``root``: each sub-folder holding a manifest."""
    repos: dict[tuple[str, str], BundledRepo] = {}
    for folder in sorted(root.iterdir(), key=lambda e: e.name):
        if folder.is_dir() and folder.joinpath(MANIFEST).is_file():
            repo = _load(folder)
            if repo is not None:
                repos[(repo.repo_type, repo.repo_id)] = repo
    return repos


def find(repo_type: str, repo_id: str) -> BundledRepo | None:
    return bundled().get((repo_type, repo_id))


def by_slug(slug: str) -> BundledRepo | None:
    return next((r for r in bundled().values() if r.slug == slug), None)


def copy_to(slug: str, dest) -> None:
    """Write bundled repo ``slug``'s files under ``dest`` as ``hf download --local-dir`` lays them out."""
    from pathlib import Path

    repo = by_slug(slug)
    if repo is None:
        raise LookupError(f"no bundled dataset folder '{slug}' in {PACKAGE}")
    for f in repo.files:
        target = Path(dest) / f.path
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, f.resource.read_bytes())
