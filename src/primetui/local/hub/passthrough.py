"""``PRIMETUI_HF_PASSTHROUGH=1``: a repo the platform does not bundle is asked of the real Hub.

The request is sent on as it came (method, path, query, the client's own headers such as its
token), and the reply comes back as it is; a relative redirect stays on this endpoint, which
passes it on in turn. No network: a 502 saying so.
"""

from __future__ import annotations

import httpx
from fastapi import Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.background import BackgroundTask

UPSTREAM = "https://huggingface.co"
_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "proxy-authorization",
    "proxy-authenticate",
    "content-encoding",
    "content-length",
}


async def forward(request: Request, rest: str, upstream: str = UPSTREAM, transport=None) -> Response:
    url = f"{upstream}/{rest}"
    headers = {k: v for k, v in request.headers.items() if k.lower() not in _HOP}
    headers["accept-encoding"] = "identity"
    body = await request.body()
    client = httpx.AsyncClient(transport=transport, timeout=60.0, follow_redirects=False)
    try:
        upstream_req = client.build_request(
            request.method, url, params=request.query_params, headers=headers, content=body
        )
        reply = await client.send(upstream_req, stream=True)
    except httpx.HTTPError as exc:
        await client.aclose()
        return JSONResponse(
            status_code=502,
            content={
                "error": f"The local platform could not reach the Hugging Face Hub ({type(exc).__name__}); "
                "check the machine's network, or use a bundled dataset."
            },
            headers={"X-Error-Message": "Hub unreachable"},
        )
    out = {k: v for k, v in reply.headers.items() if k.lower() not in _HOP}
    if "content-length" in reply.headers:
        out["content-length"] = reply.headers["content-length"]

    async def close() -> None:
        await reply.aclose()
        await client.aclose()

    if request.method == "HEAD":
        await close()
        return Response(status_code=reply.status_code, headers=out)
    return StreamingResponse(
        reply.aiter_raw(), status_code=reply.status_code, headers=out, background=BackgroundTask(close)
    )
