"""charts.render (issue 40: an unchanged chart is byte-identical): a chart's files do not
depend on the charts drawn before it in the same gnuplot process, nor on how the charts
are shared out over processes, and a gnuplot failure is one line. Real gnuplot."""

from __future__ import annotations

import pytest

from benchpipe import charts
from benchpipe.errors import BenchError


def _chart(name: str, colour: str, n: int) -> charts.Chart:
    # no title: a plot without one ends in a line colour mode, which gnuplot's svg terminal
    # carried into the next plot's first group (a title, drawn last, ends in the default)
    rows = "\n".join(f"{i} {i * n % 7}" for i in range(20))
    script = (f"set border lc rgb '{colour}'\n"
              f"plot '-' using 1:2 with linespoints lc rgb '{colour}' title '{name}', "
              f"'-' using 1:2:(sprintf('%d', $2)) with labels tc rgb '{colour}' notitle\n{rows}\ne\n{rows}\ne")
    return charts.Chart(name=f"t/{name}", script=script, png=n % 2 == 0,
                        narrow=charts.Chart(name=f"t/{name}-narrow", script=script, width=380, height=600))


def _files(out) -> dict[str, bytes]:
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def test_a_chart_is_drawn_the_same_alone_after_other_charts_and_in_any_batching(tmp_path, monkeypatch):
    made = [_chart(f"c{i}", c, i) for i, c in enumerate(["#1f77b4", "black", "#d62728", "#2ca02c", "#9467bd"])]
    renders = {}
    for label, batch, jobs, order in (("alone", 1, 1, made), ("one process", 24, 1, made),
                                      ("reversed", 2, 2, made[::-1]), ("a generator", 3, 2, iter(made))):
        monkeypatch.setattr(charts, "BATCH", batch)
        out, work = tmp_path / label / "out", tmp_path / label / "work"
        out.mkdir(parents=True)
        work.mkdir()
        written = charts.render(order, out, work, jobs=jobs)
        assert sorted(written) == sorted(f for f in _files(out))
        renders[label] = _files(out)
    assert len(renders["alone"]) == 5 * 2 + 3   # a wide and a narrow SVG each, PNGs for c0, c2, c4
    for label, files in renders.items():
        assert files == renders["alone"], label


def test_a_gnuplot_failure_in_a_later_batch_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(charts, "BATCH", 1)
    broken = charts.Chart(name="t/broken", script="plot 'no-such-file.dat' using 1:2 with lines")
    made = [_chart(f"c{i}", "black", i) for i in range(3)] + [broken] + [_chart("c9", "black", 9)]
    (tmp_path / "out").mkdir()
    with pytest.raises(BenchError) as e:
        charts.render(iter(made), tmp_path / "out", tmp_path, jobs=2)
    msg = str(e.value)
    assert "\n" not in msg and "gnuplot failed on" in msg and "no-such-file.dat" in msg
