"""Turn any exception from a network call into the one sentence the user sees."""

from __future__ import annotations


def describe(exc: BaseException) -> str:
    """A one-sentence, actionable message; never a traceback, never the API key.

    Platform errors (``primetui.api.errors.PrimeAPIError``) already carry that sentence.
    Anything else is a bug or an unexpected reply: say so plainly and point at the log.
    """
    from primetui.api.errors import PrimeAPIError

    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]  # a TaskGroup's "unhandled errors in a TaskGroup" says nothing: its first error does
    if isinstance(exc, PrimeAPIError):
        return str(exc)
    from primetui.config.mistakes import SettingsMistake

    if isinstance(exc, SettingsMistake):
        return str(exc)
    if isinstance(exc, (ConnectionError, OSError)):
        return f"Could not reach the platform ({exc.__class__.__name__}); check the network, it retries by itself."
    from primetui.config.crash import known_secrets, redact

    text = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
    return f"Unexpected problem: {redact(text, known_secrets())[:300]}. Retry, and report it if it keeps happening."


def bad_setting(exc: BaseException) -> str | None:
    """Which setting cannot work when ``exc`` says one cannot (``API key``, ``PRIME_BASE_URL``), else None."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    from primetui.api.errors import BadSettingError
    from primetui.config.mistakes import SettingsMistake

    if isinstance(exc, BadSettingError):
        return exc.setting or "settings"
    if isinstance(exc, SettingsMistake):
        return exc.where
    return None


def is_refusal(exc: BaseException) -> bool:
    """The platform answered and said no (a 4xx such as 409): the connection itself is fine."""
    status = getattr(exc, "status_code", None)
    return isinstance(status, int) and 400 <= status < 500 and status not in (401, 403, 408, 429)
