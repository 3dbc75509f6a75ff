"""A flood below a fixed top row (a status line above a scroll region) takes the bulk path and
ends as the row-by-row path does: the top rows stay, rows leaving the region keep no history."""

from primetui.shell.term import Terminal


def _flood(n: int, start: int = 1) -> bytes:
    return b"".join(b"%d\r\n" % i for i in range(start, start + n))


def _pair(cols: int = 20, rows: int = 6) -> tuple[Terminal, Terminal]:
    pair = (Terminal(cols, rows, scrollback=100), Terminal(cols, rows, scrollback=100))
    for t in pair:
        t.feed(b"history\r\n" * 8 + b"\x1b[H\x1b[2JSTATUS\x1b[2;%dr\x1b[%d;1H" % (rows, rows))
    return pair


def _same(bulk: Terminal, rowwise: Terminal) -> None:
    assert bulk.display() == rowwise.display()
    assert (bulk.x, bulk.y, bulk.pending_wrap) == (rowwise.x, rowwise.y, rowwise.pending_wrap)
    assert bulk.history_text() == rowwise.history_text()
    assert bulk.history_pushed == rowwise.history_pushed


def test_many_rows_below_a_status_line() -> None:
    bulk, rowwise = _pair()
    data = _flood(1000) + b"end"
    bulk.feed(data)
    for i in range(len(data)):
        rowwise.feed(data[i : i + 1])
    _same(bulk, rowwise)
    assert bulk.display()[0].startswith("STATUS")
    assert bulk.text_lines()[-2:] == ["1000", "end"]


def test_fewer_rows_than_the_region() -> None:
    bulk, rowwise = _pair()
    data = b"a\r\n" + _flood(3)
    bulk.feed(data)
    for i in range(len(data)):
        rowwise.feed(data[i : i + 1])
    _same(bulk, rowwise)


def test_a_status_line_drawn_during_the_flood_stays() -> None:
    bulk, rowwise = _pair()
    data = _flood(500) + b"\x1b7\x1b[1;1H\x1b[2KKEY-x-1\x1b8" + _flood(500, 501)
    bulk.feed(data)
    for i in range(len(data)):
        rowwise.feed(data[i : i + 1])
    _same(bulk, rowwise)
    assert bulk.display()[0].startswith("KEY-x-1")
