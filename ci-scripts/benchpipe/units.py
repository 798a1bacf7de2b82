"""How numbers are written, in one place (benchstat's benchunit is the model): the
terminal, the Markdown reports and the site all show a time, a size or a ratio the same
way. A missing figure is an en dash everywhere.

    seconds(0.0123)      '12.3 ms'     (s, ms, µs; three significant figures)
    bytes_(3.5 * 2**20)  '3.50 MiB'    (binary units)
    ratio(1.0204)        '1.020×'      B relative to A: how many times A's figure
    ratio(1.0204, 2)     '1.02×'
    percent(1.0163)      '+1.6%'       the same ratio as a change, as the seed tables show it
    p_value(0.00012)     '1.2e-04'
    count(1.23e7, "instructions")  '12.3 M instructions'   (SI steps, three significant figures)
    value(x, unit)       a metric's value in its unit (benchpipe.metrics): seconds, bytes, else a count
"""

from __future__ import annotations

import math

MISSING = "–"


def _three(x: float) -> str:
    """Three significant figures in fixed notation (12.3, 1.23, 123; never 1e+03)."""
    return f"{x:.0f}" if x >= 99.95 else (f"{x:.1f}" if x >= 9.995 else f"{x:.2f}")


def time_unit(s: float) -> tuple[float, str]:
    """The scale and unit a time of s seconds is written in (s, ms or µs; at the edges
    the unit its rounding needs: 0.99951 s is 1.00 s). Chart axes take theirs from it."""
    if s >= 0.9995:
        return 1.0, "s"
    if s >= 0.0009995:
        return 1e3, "ms"
    return 1e6, "µs"


def seconds(s: float | None) -> str:
    """The site's script (gh-pages/static/site.js, fmtTime) writes times the same way."""
    if s is None or not math.isfinite(s):
        return MISSING
    scale, unit = time_unit(s)
    return f"{_three(s * scale)} {unit}"


def microseconds(us: float | None) -> str:
    return MISSING if us is None else seconds(us / 1e6)


def bytes_(b: float | None) -> str:
    """The site's script (fmtBytes) writes sizes the same way."""
    if b is None or not math.isfinite(b):
        return MISSING
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if abs(b) >= size:
            return f"{b / size:.2f} {unit}"
    return f"{b:.0f} B"


def count_unit(x: float) -> tuple[float, str]:
    """The scale and SI prefix a count of x is written with (1e-6, "M" for 12.3e6; at the
    edges the one its rounding needs). Chart axes take theirs from it."""
    for prefix, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= size * 0.9995:
            return 1 / size, prefix
    return 1.0, ""


def count(x: float | None, unit: str) -> str:
    """The site's script (fmtCount) writes counts the same way."""
    if x is None or not math.isfinite(x):
        return MISSING
    scale, prefix = count_unit(x)
    return f"{_three(x * scale)} {prefix} {unit}" if prefix else f"{x:.0f} {unit}"   # (counts are never negative)


def value(x: float | None, unit: str) -> str:
    """A metric's value in its unit (benchpipe.metrics: "s", "bytes", or what it counts)."""
    return seconds(x) if unit == "s" else bytes_(x) if unit == "bytes" else count(x, unit)


def ratio(r: float | None, digits: int = 3) -> str:
    if r is None:
        return MISSING
    if r == math.inf:
        return "∞"
    return f"{r:.{digits}f}×"


def percent(r: float | None) -> str:
    return MISSING if r is None else f"{(r - 1) * 100:+.1f}%"


def change_pct(r: float | None, suffix: str = " %") -> str:
    """A ratio's change in percent, two decimals: "+1.20 %" (never "-0.00 %")."""
    return MISSING if r is None else f"{round((r - 1) * 100, 2) + 0.0:+.2f}{suffix}"


def p_value(p: float | None) -> str:
    return MISSING if p is None else (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}")
