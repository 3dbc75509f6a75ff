"""The Hub routes ``hf download`` uses, at the root of the local platform's address (no API token).

- ``GET /api/{type}s/{repo}[/revision/{rev}]``: repo info (``sha``, ``siblings``);
- ``GET /api/{type}s/{repo}/tree/{rev}[/{path}]``: the file listing (``recursive`` honoured);
- ``HEAD|GET /[{type}s/]{repo}/resolve/{rev}/{file}``: the file, with ``X-Repo-Commit``, ``ETag``
  (and ``X-Linked-Etag``/``X-Linked-Size`` for LFS files) and ``Content-Length``; ranges work, so an
  interrupted download resumes.

Only the repos in :mod:`.registry` are served. Any other repo gets the Hub's 404
(``X-Error-Code: RepoNotFound``) and a sentence saying so, unless the platform was started with
``PRIMETUI_HF_PASSTHROUGH=1``: then the request is passed to the real Hub (:mod:`.passthrough`).
"""

from __future__ import annotations

import os
import re
from importlib import resources

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from primetui.local.hub import registry
from primetui.local.paths import PathEscapeError, canonical_parts
from primetui.local.hub.registry import BundledRepo

PASSTHROUGH_ENV = "PRIMETUI_HF_PASSTHROUGH"
_CREATED = "2026-01-01T00:00:00.000Z"

_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_REPO = r"(?P<repo>[^/]+(?:/[^/]+)?)"
_API = re.compile(rf"^api/(?P<kind>models|datasets|spaces)/{_REPO}(?:/revision/(?P<rev>[^/]+))?$")
_TREE = re.compile(rf"^api/(?P<kind>models|datasets|spaces)/{_REPO}/tree/(?P<rev>[^/]+)(?:/(?P<path>.*))?$")
_RESOLVE = re.compile(rf"^(?:(?P<kind>datasets|spaces)/)?{_REPO}/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")

router = APIRouter()


def passthrough_enabled() -> bool:
    return os.environ.get(PASSTHROUGH_ENV, "").strip() in ("1", "true", "yes")


def _bundled_names() -> str:
    names = sorted(r.repo_id for r in registry.bundled().values())
    return ", ".join(names) or "none"


def _error(status: int, code: str, message: str, detail: str) -> JSONResponse:
    return JSONResponse(
        status_code=status, content={"error": detail}, headers={"X-Error-Code": code, "X-Error-Message": message}
    )


def _repo_not_found(repo_type: str, repo_id: str) -> JSONResponse:
    return _error(
        404,
        "RepoNotFound",
        "Repository not found",
        f"The local platform serves only its bundled datasets ({_bundled_names()}), and not the "
        f"{repo_type} repo '{repo_id}'; start it with {PASSTHROUGH_ENV}=1 to ask the real Hub.",
    )


def _revision_ok(repo: BundledRepo, rev: str) -> bool:
    return rev in ("main", repo.sha)


def _revision_not_found(repo: BundledRepo, rev: str) -> JSONResponse:
    return _error(
        404,
        "RevisionNotFound",
        "Invalid rev id",
        f"Revision {rev[:80]!r} not found in {repo.repo_id}: the local copy has only 'main' ({repo.sha}).",
    )


def _repo_info(repo: BundledRepo) -> dict:
    author = repo.repo_id.split("/")[0] if "/" in repo.repo_id else None
    return {
        "_id": repo.sha[:24],
        "id": repo.repo_id,
        "author": author,
        "sha": repo.sha,
        "lastModified": _CREATED,
        "createdAt": _CREATED,
        "private": False,
        "gated": False,
        "disabled": False,
        "downloads": 0,
        "likes": 0,
        "tags": ["local-stand-in"],
        "cardData": {},
        "siblings": [{"rfilename": f.path, "size": f.size} for f in repo.files],
        "usedStorage": sum(f.size for f in repo.files),
    }


def _tree(repo: BundledRepo, path: str, recursive: bool) -> list[dict]:
    base = path.strip("/")
    inside = [f for f in repo.files if not base or f.path.startswith(base + "/")]
    folders = [d for d in repo.folders() if not base or d.startswith(base + "/")]
    depth = base.count("/") + 1 if base else 0

    def shown(p: str) -> bool:
        return recursive or p.count("/") == depth

    out: list[dict] = [{"type": "directory", "oid": "0" * 40, "size": 0, "path": d} for d in folders if shown(d)]
    for f in inside:
        if not shown(f.path):
            continue
        entry: dict = {"type": "file", "oid": f.blob_id, "size": f.size, "path": f.path}
        if f.lfs:
            entry["lfs"] = {"oid": f.sha256, "size": f.size, "pointerSize": 134}
        out.append(entry)
    return out


def _repo_path(path: str) -> str | None:
    """A file or folder path of a repo, decided as every route decides paths (``paths.canonical_parts``), or None."""
    try:
        return "/".join(canonical_parts(path)[0])
    except PathEscapeError:
        return None


def _file_response(repo: BundledRepo, path: str, head: bool) -> Response:
    name = _repo_path(path)
    f = repo.file(name) if name else None
    if f is None:
        return _error(
            404,
            "EntryNotFound",
            "Entry not found",
            f"{repo.repo_id} has no file {path[:200]!r} (it has: {', '.join(x.path for x in repo.files)}).",
        )
    headers = {"X-Repo-Commit": repo.sha, "ETag": f'"{f.etag}"', "Accept-Ranges": "bytes"}
    if f.lfs:
        headers["X-Linked-Etag"] = f'"{f.sha256}"'
        headers["X-Linked-Size"] = str(f.size)
    if head:
        headers["Content-Length"] = str(f.size)
        return Response(status_code=200, headers=headers, media_type="application/octet-stream")
    with resources.as_file(f.resource) as local:  # an installed wheel: the file itself
        return FileResponse(local, headers=headers, media_type="application/octet-stream")


async def hub(request: Request) -> Response:
    # Decoded once, by the server (``url.path`` re-quotes some characters, and a second unquote of it
    # would turn a name's literal ``%2e`` into ``.``); ``raw`` is what a passthrough forwards.
    raw = request.url.path.lstrip("/")
    rest = str(request.scope.get("path") or request.url.path).lstrip("/")
    head = request.method == "HEAD"
    if m := _TREE.match(rest):
        kind, repo_id, rev = _TYPES[m["kind"]], m["repo"], m["rev"]
        repo = registry.find(kind, repo_id)
        if repo is None:
            return await _elsewhere(request, raw, kind, repo_id)
        if not _revision_ok(repo, rev):
            return _revision_not_found(repo, rev)
        recursive = request.query_params.get("recursive", "").lower() in ("1", "true")
        folder = _repo_path(m["path"] or "")
        if folder is None:
            return _error(404, "EntryNotFound", "Entry not found", f"{repo.repo_id} has no folder {m['path'][:200]!r}.")
        return JSONResponse(_tree(repo, folder, recursive))
    if m := _API.match(rest):
        kind, repo_id, rev = _TYPES[m["kind"]], m["repo"], m["rev"] or "main"
        repo = registry.find(kind, repo_id)
        if repo is None:
            return await _elsewhere(request, raw, kind, repo_id)
        if not _revision_ok(repo, rev):
            return _revision_not_found(repo, rev)
        return JSONResponse(_repo_info(repo))
    if m := _RESOLVE.match(rest):
        kind = _TYPES[m["kind"]] if m["kind"] else "model"
        repo = registry.find(kind, m["repo"])
        if repo is None:
            return await _elsewhere(request, raw, kind, m["repo"])
        if not _revision_ok(repo, m["rev"]):
            return _revision_not_found(repo, m["rev"])
        return _file_response(repo, m["path"], head)
    if passthrough_enabled():
        return await _elsewhere(request, raw, "", "")
    return _error(
        404,
        "EntryNotFound",
        "Not found",
        f"The local platform's Hub endpoint does not serve '/{rest}'; it answers only what "
        "`hf download` asks for its bundled datasets.",
    )


# The Hub's own paths at the root of the platform's address (HF_ENDPOINT is the base URL, so the
# client names the repo in its errors as it does on the Hub). None can meet the API under /api/v1.
for _path in (
    "/api/models/{rest:path}",
    "/api/datasets/{rest:path}",
    "/api/spaces/{rest:path}",
    "/datasets/{rest:path}",
    "/spaces/{rest:path}",
    "/{name}/resolve/{rest:path}",
    "/{namespace}/{name}/resolve/{rest:path}",
):
    router.add_api_route(_path, hub, methods=["GET", "HEAD", "POST"], include_in_schema=False)


async def _elsewhere(request: Request, rest: str, kind: str, repo_id: str) -> Response:
    if passthrough_enabled():
        from primetui.local.hub.passthrough import forward

        return await forward(request, rest)
    return _repo_not_found(kind or "model", repo_id)
