"""How a metric value is written where a column is narrow: the run's final loss in every table.

A diverged loss (7.2e19) must not widen a column past the screen, and a NaN or infinite last loss
must read as NaN with its step, never as the last finite value before it.
"""

from __future__ import annotations

import math


def nonfinite_mark(value: float | None) -> str | None:
    """``"NaN"``, ``"+Inf"`` or ``"-Inf"`` for a non-finite value; None for a number (or nothing)."""
    if value is None or math.isfinite(value):
        return None
    return "NaN" if value != value else ("+Inf" if value > 0 else "-Inf")


def fmt_eng(value: float) -> str:
    """Engineering notation, 4 significant digits, exponent a multiple of 3: ``72.06e+18``."""
    if value == 0 or not math.isfinite(value):
        return nonfinite_mark(value) or "0"
    exp = int(math.floor(math.log10(abs(value)) / 3) * 3)
    mantissa = value / 10**exp
    if abs(float(f"{mantissa:.4g}")) >= 1000:  # 999.96e+3 rounds up to the next exponent
        exp, mantissa = exp + 3, mantissa / 1000
    return f"{mantissa:.4g}e{exp:+d}"


def fmt_loss(value: float | None, step: int | None = None) -> str:
    """A loss for a table: ``5.5602``; ``72.06e+18`` when huge or tiny; ``NaN @12`` when not finite."""
    if value is None:
        return "-"
    mark = nonfinite_mark(value)
    if mark is not None:
        return f"{mark} @{step}" if step is not None else mark
    if value != 0 and not 1e-3 <= abs(value) < 1e5:
        return fmt_eng(value)
    return f"{value:.4f}"


def fmt_loss_json(value: float | None, mark: str | None, step: int | None) -> str:
    """``fmt_loss`` of a loss as JSON carries it: null plus its mark (``"NaN"``) when not finite."""
    return f"{mark} @{step}" if mark else fmt_loss(value)


def fit_number(value: float, width: int, preferred: str) -> str:
    """``preferred`` when it fits ``width``, else the same number in fewer digits: ``-2.88e18``,
    never a cut ``-2.88e+1``."""
    if len(preferred) <= width:
        return preferred
    for digits in (3, 2, 1, 0):
        text = f"{value:.{digits}e}"
        mantissa, _, exp = text.partition("e")
        text = f"{mantissa}e{int(exp)}"  # e+18 -> e18, e-05 -> e-5
        if len(text) <= width:
            return text
    return preferred[:width]
