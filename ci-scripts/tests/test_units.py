"""One way of writing times, sizes and ratios (benchpipe.units), used by the summary, the
compare report and the site."""

import pytest

from benchpipe import units
from benchpipe.report import compare_md, summary


@pytest.mark.parametrize("s, text", [
    (None, "–"), (float("nan"), "–"), (1.23e-5, "12.3 µs"), (0.000999, "999 µs"), (0.0009996, "1.00 ms"),
    (0.0123, "12.3 ms"), (0.1234, "123 ms"), (0.9997, "1.00 s"), (12.34, "12.3 s"), (1234.0, "1234 s"),
])
def test_seconds_three_figures_never_exponent(s, text):
    assert units.seconds(s) == text


@pytest.mark.parametrize("b, text", [(None, "–"), (512, "512 B"), (1536, "1.50 KiB"), (3.5 * 2**20, "3.50 MiB"),
                                     (5 * 2**30, "5.00 GiB")])
def test_bytes(b, text):
    assert units.bytes_(b) == text


def test_ratios_and_p_values():
    assert units.ratio(1.0204) == "1.020×" and units.ratio(1.0204, 2) == "1.02×" and units.ratio(None) == "–"
    assert units.ratio(float("inf")) == "∞" and units.percent(1.0163) == "+1.6%" and units.percent(0.9) == "-10.0%"
    assert units.p_value(0.0123) == "0.012" and units.p_value(0.00012) == "1.2e-04"


def test_reports_write_numbers_one_way():
    assert summary.fmt_time(0.0123) == compare_md.fmt_value(0.0123, "time") == units.seconds(0.0123)
    assert summary.fmt_mem(3 * 2**20) == compare_md.fmt_value(3 * 2**20, "memory") == "3.00 MiB"


def test_time_unit_is_the_one_seconds_writes_in():
    for s, want in ((0.9995, (1.0, "s")), (0.0123, (1e3, "ms")), (0.00099949, (1e6, "µs"))):
        assert units.time_unit(s) == want
        assert units.seconds(s).endswith(" " + want[1])


@pytest.mark.parametrize("x, text", [(None, "–"), (0, "0 instructions"), (999, "999 instructions"),
                                     (999.6, "1.00 k instructions"), (1.23e7, "12.3 M instructions"),
                                     (999.96e6, "1.00 G instructions"), (4.5e12, "4.50 T instructions")])
def test_counts_in_si_steps(x, text):
    """A metric counted in its own unit (benchpipe.metrics), as the charts' axes scale it."""
    assert units.count(x, "instructions") == text == units.value(x, "instructions")
    if x:
        scale, prefix = units.count_unit(x)
        assert text.endswith(f"{prefix} instructions")


def test_value_writes_each_unit_its_way():
    assert units.value(0.0123, "s") == "12.3 ms" and units.value(3 * 2**20, "bytes") == "3.00 MiB"
