"""The shell channel's window (primetui.shell.flow): it follows what the pane consumes."""

from primetui.shell.flow import MAX_WINDOW, MIN_WINDOW, TARGET_SECONDS, TYPING_SECONDS, ChannelCredit, ReadAhead

KiB = 1024


def test_grows_while_the_link_sets_the_pace() -> None:
    rule = ReadAhead(start=MIN_WINDOW)
    rule.consumed(64 * KiB, 0.001)  # a fast pane: 64 MB/s
    sizes = [rule.on_read(held=0, credit=0) for _ in range(10)]
    assert sizes[:3] == [128 * KiB, 256 * KiB, 512 * KiB]
    assert sizes[-1] == min(MAX_WINDOW, int(rule.rate * TARGET_SECONDS))
    assert max(sizes) <= MAX_WINDOW


def test_does_not_grow_at_an_idle_prompt() -> None:
    rule = ReadAhead(start=MIN_WINDOW)
    for _ in range(10):
        rule.consumed(5, 0.0001)  # an echo now and then; the server still has its credit
        assert rule.on_read(held=0, credit=MIN_WINDOW - 5) == MIN_WINDOW


def test_shrinks_to_what_the_pane_takes_in_the_target_time_when_it_falls_behind() -> None:
    rule = ReadAhead(start=2 * 1024 * KiB)
    for _ in range(20):
        rule.consumed(64 * KiB, 0.05)  # 1.3 MB/s: 64 KiB in 50 ms
    assert rule.on_read(held=600 * KiB, credit=0) == max(MIN_WINDOW, int(rule.rate * TARGET_SECONDS))
    for _ in range(20):
        rule.consumed(64 * KiB, 0.5)  # a very slow pane
    assert rule.on_read(held=64 * KiB, credit=0) == MIN_WINDOW


def test_a_faster_pane_may_queue_more_but_not_past_the_cap() -> None:
    rule = ReadAhead(start=MIN_WINDOW)
    for _ in range(30):
        rule.consumed(64 * KiB, 0.002)  # 33 MB/s
        rule.on_read(held=0, credit=0)
    assert rule.size == min(MAX_WINDOW, int(rule.rate * TARGET_SECONDS))
    size = rule.size
    assert rule.on_read(held=10 * KiB, credit=0) == size  # behind by a little: it stays


def test_grant_tops_up_only_below_half() -> None:
    rule = ReadAhead(start=256 * KiB)
    assert rule.grant(held=100 * KiB, credit=100 * KiB) == 0
    assert rule.grant(held=64 * KiB, credit=32 * KiB) == 160 * KiB
    assert rule.grant(held=0, credit=0) == 256 * KiB
    rule.size = MIN_WINDOW  # shrunk below what is already out: nothing more until it is read
    assert rule.grant(held=200 * KiB, credit=0) == 0


class _Chan:
    def __init__(self) -> None:
        self._init_recv_window = 2 * 1024 * KiB
        self._recv_window = 64 * KiB
        self._recv_buf: list[tuple[bytes, None]] = []
        self._send_state = "open"
        self.adjusts: list[bytes] = []

    def send_packet(self, kind: int, *args: bytes) -> None:
        self.adjusts.append(b"".join(args))


class _Process:
    def __init__(self) -> None:
        self._chan = _Chan()
        self._recv_buf_len = 0


def test_channel_credit_takes_the_window_from_asyncssh_and_grants_what_was_read() -> None:
    process = _Process()
    credit = ChannelCredit(process)
    chan = process._chan
    assert chan._init_recv_window == 0  # asyncssh no longer grants on delivery
    # The server sent the whole window; the pane read 48 KiB of it, 16 KiB are parked in the channel.
    chan._recv_window = 0
    chan._recv_buf = [(b"x" * (16 * KiB), None)]
    credit.after_read(48 * KiB)
    assert chan._recv_window == MIN_WINDOW - 16 * KiB
    assert len(chan.adjusts) == 1
    # Half the window still out: no packet.
    credit.after_read(1)
    assert len(chan.adjusts) == 1


def test_a_key_holds_the_window_at_the_least_then_it_grows_again() -> None:
    process = _Process()
    credit = ChannelCredit(process, ReadAhead(start=MIN_WINDOW))
    chan = process._chan
    credit.rule.consumed(64 * KiB, 0.001)  # a fast pane on a fast link: the window grows
    for _ in range(4):
        chan._recv_window = 0
        credit.after_read(64 * KiB)
    grown = credit.rule.size
    assert grown > MIN_WINDOW
    credit.typed()  # a key: its echo comes behind what the server may still send
    chan._recv_window = 0
    credit.after_read(64 * KiB)
    assert credit.rule.size == MIN_WINDOW
    assert chan._recv_window == MIN_WINDOW  # granted no more than the least window
    credit._typed_at -= TYPING_SECONDS  # the key is past: the link sets the pace again
    chan._recv_window = 0
    credit.after_read(64 * KiB)
    assert credit.rule.size == 2 * MIN_WINDOW


def _distant_link(
    rule: ReadAhead, rtt: float, bandwidth: float, seconds: float, pane: float, packet: int = 32 * KiB
) -> float:
    """Bytes per second a pane that keeps up gets over a link of ``rtt`` and ``bandwidth``.

    The server sends packets back to back while it has credit; each arrives ``rtt / 2`` later and
    is read at once by a pane that draws ``pane`` bytes a second, faster than the link (held before
    the read, nothing after), with the rule judged and credit granted
    around each read as :class:`ChannelCredit` does; a grant reaches the server ``rtt / 2`` later."""
    import heapq

    events: list[tuple[float, int, str, int]] = []  # (time, order, what, bytes)
    order = 0
    server_credit = client_credit = rule.size
    link_free = 0.0
    got = 0

    def send(now: float) -> None:
        nonlocal server_credit, link_free, order
        while server_credit > 0:
            n = min(packet, server_credit)
            server_credit -= n
            link_free = max(link_free, now) + n / bandwidth
            order += 1
            heapq.heappush(events, (link_free + rtt / 2, order, "data", n))

    def grant(now: float, held: int) -> None:
        nonlocal client_credit, order
        rule.on_read(held, client_credit)
        adjust = rule.grant(held, client_credit)
        if adjust > 0:
            client_credit += adjust
            order += 1
            heapq.heappush(events, (now + rtt / 2, order, "adjust", adjust))

    send(0.0)
    while events:
        now, _, what, n = heapq.heappop(events)
        if now > seconds:
            break
        if what == "adjust":
            server_credit += n
            send(now)
            continue
        client_credit -= n
        rule.consumed(n, n / pane)
        grant(now, held=n)  # before the read
        got += n
        grant(now, held=0)  # after it
    return got / seconds


def test_a_pane_that_keeps_up_fills_a_distant_link() -> None:
    """At 100 ms and 10 MB/s the window must cover a megabyte in flight. The server's credit is
    then mostly bytes on their way, and it is topped up at half: a rule that waited for it to fall
    to a quarter never grew past 128 KiB (0.9 MB/s here)."""
    rule = ReadAhead(start=MIN_WINDOW)
    rate = _distant_link(rule, rtt=0.1, bandwidth=10e6, seconds=5.0, pane=40e6)
    assert rate > 7e6, f"{rate / 1e6:.2f} MB/s over a 10 MB/s link at 100 ms"
    assert rule.size <= 40e6 * TARGET_SECONDS, "more than the pane draws in the target time may come at once"


def test_the_window_stays_within_what_the_pane_draws_in_the_target_time() -> None:
    """However near or far the link, no more than TARGET_SECONDS of the pane's drawing is granted:
    that bounds what queues ahead of an echo once the pane falls behind. Within it, the link gets
    half a window per round trip (credit is topped up when half of it is used)."""
    for rtt in (0.0005, 0.025, 0.1):
        rule = ReadAhead(start=MIN_WINDOW)
        rate = _distant_link(rule, rtt=rtt, bandwidth=30e6, seconds=2.0, pane=15e6)
        assert rule.size <= 15e6 * TARGET_SECONDS, f"{rule.size} bytes granted at {rtt * 1000:g} ms"
        assert rate > 0.9 * min(30e6, 15e6 * TARGET_SECONDS / (2 * rtt)), f"{rate / 1e6:.2f} MB/s at {rtt * 1000:g} ms"
