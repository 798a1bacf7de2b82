"""benchpipe.stat_columns: a trend series' figures as three arrays read back as they went in."""

from __future__ import annotations

import marshal

import pytest

from benchpipe.stat_columns import StatColumn

POINTS = [(1.5, 1.25, 2.0), None, (3.0, 2.5, 4.0), (0.5, 0.25, 0.75), None]


def test_points_read_back_as_tuples_or_none():
    c = StatColumn(POINTS)
    assert len(c) == 5 and c.triples() == POINTS and list(c) == POINTS
    assert [c[i] for i in range(5)] == POINTS and c[-1] is None and c[-2] == POINTS[3]
    assert c[1:4] == POINTS[1:4] and c[3:] == POINTS[3:] and c[::2] == POINTS[::2]
    assert c.medians() == [1.5, None, 3.0, 0.5, None]
    full = StatColumn(p for p in POINTS if p)
    assert full.medians() == [1.5, 3.0, 0.5] and full.triples() == [p for p in POINTS if p]
    with pytest.raises(IndexError):
        c[5]


def test_built_appended_reordered_and_kept_as_bytes():
    c = StatColumn()
    for p in POINTS:
        c.append(p)
    assert c == POINTS and c == StatColumn(POINTS) and c != StatColumn(POINTS[:4])
    c += [(9.0, 8.0, 10.0)]
    c += StatColumn([None])
    assert c.triples() == [*POINTS, (9.0, 8.0, 10.0), None]
    assert c.take([5, 0, 1]).triples() == [(9.0, 8.0, 10.0), POINTS[0], None]
    # the series cache's form: bytes marshal writes, read back whole
    back = StatColumn.frombytes(marshal.loads(marshal.dumps(c.tobytes())))
    assert back == c and back.triples() == c.triples()
    none = StatColumn([None] * 3)   # a metric not measured: kept as its length
    assert none.tobytes() == 3 and StatColumn.frombytes(3) == none and StatColumn.frombytes(0) == StatColumn()
    assert StatColumn().tobytes() == 0
    with pytest.raises(ValueError):
        StatColumn.frombytes((b"\0" * 8, b"", b""))
    # cut back to its first n points (a series cache whose newest months changed)
    assert StatColumn.frombytes(c.tobytes(), 2) == POINTS[:2] and StatColumn.frombytes(c.tobytes(), 0) == StatColumn()
    assert StatColumn.frombytes(3, 2) == StatColumn([None] * 2)
    for parts, n in ((c.tobytes(), len(c) + 1), (3, 4)):
        with pytest.raises(ValueError):   # fewer points than asked for
            StatColumn.frombytes(parts, n)
    # in stretches (the series cache's chunks): each stretch's bytes, or its length where no
    # point has figures, read back one after another, and cut back across them
    parts = [c.tobytes(0, 2), StatColumn([None] * 2).tobytes(), c.tobytes(2, 5), c.tobytes(5)]
    assert parts[1] == 2 and c.tobytes(1, 2) == 1 and c.tobytes(9) == 0
    both = StatColumn.frombytes(marshal.loads(marshal.dumps(parts)))
    assert both.triples() == [*POINTS[:2], None, None, *POINTS[2:5], (9.0, 8.0, 10.0), None]
    for n in range(len(both) + 1):
        assert StatColumn.frombytes(parts, n).triples() == both.triples()[:n]
    with pytest.raises(ValueError):
        StatColumn.frombytes(parts, len(both) + 1)
    assert StatColumn.fromlists([1, 2], [0.5, 1.5], [1.5, 2.5]).triples() == [(1.0, 0.5, 1.5), (2.0, 1.5, 2.5)]
    with pytest.raises(TypeError):   # a point without figures: the general way (trends._metric_triples)
        StatColumn.fromlists([1.0, None], [0.5, None], [1.5, None])
