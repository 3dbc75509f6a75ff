"""Base-URL rules shared by settings and the client (contract §1.2-1.3)."""

from __future__ import annotations

API_PREFIX = "/api/v1"
DEFAULT_BASE_URL = "https://api.primeintellect.ai"
DEFAULT_FRONTEND_URL = "https://app.primeintellect.ai"


def normalize_base_url(url: str) -> str:
    """Strip surrounding blanks, trailing slashes and one trailing `/api/v1`, like the CLI.

    `http://127.0.0.1:8000/api/v1/` -> `http://127.0.0.1:8000`.
    """
    url = url.strip().rstrip("/")
    if url.endswith(API_PREFIX):
        url = url[: -len(API_PREFIX)].rstrip("/")
    return url
