"""Errors whose message is already the one-sentence reason a user sees in status.json and the log."""


class RunFailure(RuntimeError):
    """The run cannot continue; ``str()`` says why and what to do."""
