"""``primetui serve``: the dashboard in a browser through textual-serve, behind a random token.

textual-serve has no access control of its own and the served app acts with the user's API key,
so every request needs the token made at start: the page as ``/?token=…`` (the reply then sets an
HttpOnly, SameSite=Strict cookie for the page's scripts and styles), and the websocket as
``/ws/<token>``. Without it the page answers 401 (no token) or 403 (a wrong one), and a websocket
is refused before any app process starts. A token in the URL (path or query) decides on its own:
the cookie counts only when the URL carries none. Each websocket (one per browser tab) runs its own
``primetui`` process, ended when the tab closes.

One process is kept ready ahead of the next tab (:class:`Spares`, ``primetui.commands.spare``): it
has imported the dashboard and waits for a tab's size, so a tab's first frame does not wait for
Python's imports. ``--no-spare`` turns it off (one idle process less, ~0.6 s more per new tab).

Loopback only unless ``--allow-remote`` is given with ``--host``; without it, a request whose Host
header is not a loopback name is refused too (a DNS-rebinding page names its own host there).

The URL with the token is printed only to a terminal; otherwise it goes to a 0600 file whose path
is printed. The access log is off, so no request line (which would carry it) is ever logged.
"""

from __future__ import annotations

import asyncio
import hmac
import html
import ipaddress
import logging
import secrets
import shlex
import signal
import socket
import sys
from asyncio.subprocess import Process
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from aiohttp import web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from primetui.config.fileio import atomic_write_text
from primetui.config.logcap import RepeatFilter, capture_output, install_repeat_filter
from primetui.local.connwall import ACCEPT_FAILED, HEAD_TIMEOUT, FirstHeadGate, Limits, ListeningSocket

log = logging.getLogger("primetui.commands.serve")

COOKIE = "primetui_serve"
STOP_GRACE = 5.0
"""Seconds a tab's app process gets to quit after its websocket closes before it is killed."""
REFILL_AFTER_FRAME = 1.0
"""Seconds after a tab's first frame before the next spare starts (its imports would slow that tab)."""
REFILL_LATEST = 15.0
"""Seconds after a tab took the spare when the next one starts even if the tab drew nothing yet."""

PAGE = """<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<link rel="stylesheet" href="/static/css/xterm.css">
<script src="/static/js/textual.js"></script>
<style>
  html, body {{ margin: 0; height: 100%; background: #0c181f; color: #e0e0e0; font-family: monospace; }}
  #terminal {{ position: absolute; inset: 0; }}
  .closed {{ display: none; position: absolute; inset: 0; align-items: center; justify-content: center; z-index: 10;
             background: #0c181f; }}
  body.-closed .closed {{ display: flex; }}
  #start {{ display: none; }}
</style>
</head>
<body>
<div class="closed"><p>Session ended. Reload the page to start a new one.</p></div>
<button type="button" id="start">Start</button>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{ws_url}" data-font-size="{font_size}"></div>
</body>
</html>
"""


class ServeError(Exception):
    """``primetui serve`` cannot start; ``str()`` is one sentence saying what to do."""


def is_loopback(host: str) -> bool:
    """True for localhost and any loopback address (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a Host header, without its port (an IPv6 address without its brackets)."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else ""
    return header.rsplit(":", 1)[0] if ":" in header else header


def url_host(host: str) -> str:
    """The host as it goes in a URL (IPv6 in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def app_command(local: bool, python: str | None = None) -> str:
    """The shell command one tab runs: the dashboard itself (``exec``: one process per tab)."""
    argv = [python or sys.executable, "-m", "primetui"] + (["--local"] if local else [])
    return "exec " + shlex.join(argv)


def _matches(presented: str | None, token: str) -> bool:
    return bool(presented) and hmac.compare_digest(str(presented).encode(), token.encode())


def tab_environment(width: int = 80, height: int = 24) -> dict[str, str]:
    """The environment textual-serve gives a tab's app process (its driver, colours and size)."""
    return AppService._build_environment(SimpleNamespace(debug=False), width=width, height=height)  # type: ignore[arg-type]


class Spares:
    """At most one app process started ahead of the next tab (see ``primetui.commands.spare``).

    The spare is this server's child, with its pipes, exactly as a process started for a tab; a tab
    takes it with ``go <width> <height>``. The next one starts :data:`REFILL_AFTER_FRAME` seconds
    after that tab's first frame (at most :data:`REFILL_LATEST` after it was taken), so its imports
    never compete with a tab's first frame for the CPU. A spare that ended by itself before a tab
    took it is reported when a tab finds it; that tab starts its own process, and the next spare
    follows it as usual (at most one new spare per tab: no restart loop).
    """

    def __init__(self, command: str, enabled: bool = True) -> None:
        self.command = command
        self.enabled = enabled
        self._next: asyncio.Future[Process] | None = None
        """The next tab's spare: being started, or started and waiting (one slot, so a tab that comes
        while the spare is still being started waits for it instead of starting a process of its own)."""
        self._refill: asyncio.Task[None] | None = None

    async def start(self) -> None:
        if not self.enabled or self._next is not None:
            return
        from primetui.commands.spare import MARKER

        env = tab_environment()
        env[MARKER] = "1"
        self._next = asyncio.ensure_future(
            asyncio.create_subprocess_shell(
                self.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
            )
        )
        try:
            await asyncio.shield(self._next)
        except Exception as exc:  # noqa: BLE001 - no spare: tabs start their own process, as without one
            log.warning("the spare app process could not be started (%s); tabs start their own", type(exc).__name__)

    async def _claim(self) -> Process | None:
        """The slot's process (waited for if it is still being started), the slot emptied; None when empty."""
        pending, self._next = self._next, None
        if pending is None:
            return None
        try:
            return await pending
        except Exception:  # noqa: BLE001 - reported by start()
            return None

    async def take(self) -> Process | None:
        """The spare (waited for if it is still being started), now the caller's; None when there is none alive."""
        process = await self._claim()
        if process is not None and process.returncode is not None:
            log.warning(
                "the spare app process ended before a tab took it (status %s); tabs start their own", process.returncode
            )
            return None
        return process

    def refill_after(self, first_frame: asyncio.Event) -> None:
        """Start the next spare once this tab has drawn (or after REFILL_LATEST seconds)."""
        if not self.enabled or (self._refill is not None and not self._refill.done()):
            return

        async def refill() -> None:
            try:
                await asyncio.wait_for(first_frame.wait(), REFILL_LATEST)
                await asyncio.sleep(REFILL_AFTER_FRAME)
            except TimeoutError:
                pass
            await self.start()

        self._refill = asyncio.create_task(refill())

    async def close(self) -> None:
        """End the waiting spare: end of input tells it to go; killed if it has not within STOP_GRACE."""
        if self._refill is not None:
            self._refill.cancel()
        process = await self._claim()
        if process is None or process.returncode is not None:
            return
        if process.stdin is not None:
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), STOP_GRACE)
        except TimeoutError:
            try:
                process.kill()
            except ProcessLookupError:
                pass
            await process.wait()


class TabService(AppService):
    """A tab's app process: the spare when one waits (told the tab's size), else started as textual-serve does."""

    def __init__(self, *args: Any, spares: Spares | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spares = spares
        self.first_frame = asyncio.Event()
        self.from_spare = False

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        process = await self.spares.take() if self.spares is not None else None
        if process is not None and process.stdin is not None:
            try:
                process.stdin.write(f"go {width} {height}\n".encode())
                await process.stdin.drain()
            except (ConnectionError, RuntimeError):  # it died just now: start one the old way
                process = None
        if process is None:
            process = await super()._open_app_process(width, height)
        else:
            self._process = process
            self._stdin = process.stdin
            self.from_spare = True
        if self.spares is not None:
            self.spares.refill_after(self.first_frame)
        return process

    async def on_data(self, payload: bytes) -> None:
        self.first_frame.set()
        await super().on_data(payload)


class TokenServer(Server):
    """textual-serve's server with a token on every route, its own page, and no access log."""

    def __init__(
        self,
        command: str,
        host: str,
        port: int,
        token: str,
        title: str = "primetui",
        allow_remote: bool = False,
        spare: bool = True,
        head_timeout: float = HEAD_TIMEOUT,
    ) -> None:
        super().__init__(command, host=host, port=port, title=title)
        self.head_timeout = head_timeout
        """Seconds a connection has to send its first request head (``PRIMETUI_LOCAL_HEAD_TIMEOUT``)."""
        self.token = token
        self.allow_remote = allow_remote
        self.sessions: set[AppService] = set()
        self.spares = Spares(command, enabled=spare)

    # --- access control ------------------------------------------------------------------------

    def presented(self, request: web.Request) -> list[str]:
        """The tokens that decide: those in the URL (path and query); the cookie only when it has none."""
        in_url = [t for t in (request.match_info.get("token"), request.query.get("token")) if t is not None]
        if in_url:
            return in_url
        cookie = request.cookies.get(COOKIE)
        return [cookie] if cookie else []

    def host_allowed(self, request: web.Request) -> bool:
        """The Host header names this machine's loopback (localhost, 127.0.0.1, [::1]), unless --allow-remote."""
        if self.allow_remote:
            return True
        name = host_name(request.headers.get("Host", ""))
        return bool(name) and is_loopback(name)

    @web.middleware
    async def guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        if not self.host_allowed(request):
            return web.Response(
                status=403,
                text="403: this dashboard answers only at localhost, 127.0.0.1 or [::1] "
                "(start it with --allow-remote to reach it by another name).\n",
            )
        tokens = self.presented(request)
        if not tokens:
            return web.Response(
                status=401,
                text="401: this dashboard needs the token: open the URL that `primetui serve` printed (or wrote to "
                "its URL file).\n",
            )
        if not all(_matches(t, self.token) for t in tokens):
            return web.Response(
                status=403,
                text="403: wrong token: open the URL that `primetui serve` printed (or wrote to its URL file).\n",
            )
        if request.path.startswith("/ws/"):
            origin = request.headers.get("Origin")
            if origin and origin not in (f"http://{request.host}", f"https://{request.host}"):
                return web.Response(status=403, text="403: this websocket only opens from the dashboard's own page.\n")
        response = await handler(request)
        if response.prepared:  # a websocket: its handshake (and headers) went out long ago
            return response
        if _matches(request.query.get("token"), self.token):
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        response.headers["Referrer-Policy"] = "no-referrer"
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["Cache-Control"] = "no-store"
        return response

    # --- routes --------------------------------------------------------------------------------

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self.guard])
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        return app

    async def handle_index(self, request: web.Request) -> web.Response:  # type: ignore[override]
        font_size = 16
        try:
            font_size = max(6, min(48, int(request.query.get("fontsize", "16"))))
        except ValueError:
            pass
        scheme = "wss" if request.secure else "ws"
        ws_url = f"{scheme}://{request.host}/ws/{self.token}"
        body = PAGE.format(title=html.escape(self.title), ws_url=html.escape(ws_url, quote=True), font_size=font_size)
        return web.Response(text=body, content_type="text/html")

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        """One tab: start its app process, pump messages, and end the process when the tab goes."""
        websocket = web.WebSocketResponse(heartbeat=15)

        def size(key: str, default: int) -> int:
            try:
                return max(10, min(1000, int(request.query.get(key, default))))
            except ValueError:
                return default

        await websocket.prepare(request)
        service = TabService(
            self.command,
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=websocket.close,
            download_manager=self.download_manager,
            spares=self.spares,
        )
        self.sessions.add(service)
        try:
            await service.start(size("width", 80), size("height", 24))
            await self._process_messages(websocket, service)
        except asyncio.CancelledError:
            pass
        except Exception as exc:  # noqa: BLE001 - one broken tab must not stop the server
            log.warning("a browser session ended with an error: %s", type(exc).__name__)
        finally:
            await self.end_session(service)
            if not websocket.closed:
                await websocket.close()
        return websocket

    async def end_session(self, service: AppService) -> None:
        """Ask the tab's app to quit; kill it if it has not gone within STOP_GRACE seconds."""
        self.sessions.discard(service)
        process = service._process
        try:
            await asyncio.wait_for(asyncio.shield(service.stop()), STOP_GRACE)
        except (TimeoutError, asyncio.CancelledError, Exception):  # noqa: BLE001 - killed below if it has not gone
            pass
        if process is not None and process.returncode is None:
            try:
                process.kill()
            except ProcessLookupError:
                pass
            try:
                await asyncio.wait_for(process.wait(), STOP_GRACE)
            except (TimeoutError, asyncio.CancelledError):
                pass


def make_token() -> str:
    return secrets.token_urlsafe(24)


def url_file_path(port: int) -> Path:
    """Where the URL goes when the output is not a terminal: primetui's config dir, one file per port."""
    from primetui.config.prefs_file import config_dir

    return config_dir() / f"serve-{port}.url"


def announce(url: str, port: int, to_terminal: bool) -> Path | None:
    """Print where the dashboard is; returns the 0600 file holding the URL when it was not printed.

    Like ``local serve``'s token, the URL is printed only to a terminal: output sent to a pipe or a
    file (a CI log, a service's journal) would keep a credential that acts with the user's API key.
    """
    path = None
    if to_terminal:
        print(f"primetui serve: the dashboard is at {url}", flush=True)
    else:
        path = url_file_path(port)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        atomic_write_text(path, url + "\n", mode=0o600)
        print(
            f"primetui serve: the dashboard's URL, with its token, is in {path} "
            "(not printed: output is not a terminal)",
            flush=True,
        )
    print("Anyone with this URL acts with your API key. Ctrl+C stops the server and every tab.", flush=True)
    return path


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on the first address of ``host``, whose accepts pause when out of file descriptors.

    (``primetui.local.connwall.ListeningSocket``: without it one burst of failed accepts logs thousands of
    tracebacks a second.)
    """

    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    sock = ListeningSocket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


KEEP_ALIVE_SECONDS = 75
"""Idle seconds before an idle kept-alive connection is closed (aiohttp's default is an hour)."""


class GuardedSite(web.SockSite):
    """aiohttp's site on our socket, each connection behind a first-head gate (aiohttp has no head timeout)."""

    def __init__(self, runner: web.AppRunner, sock: socket.socket, gate: FirstHeadGate) -> None:
        super().__init__(runner, sock)
        self.gate = gate

    async def start(self) -> None:
        await web.BaseSite.start(self)  # SockSite.start, with the protocol factory wrapped
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            self.gate.wrap(server), sock=self._sock, backlog=self._backlog
        )


REPORT_EVERY = 60.0
"""Seconds between the lines that count log records left out (primetui.config.logcap.RepeatFilter)."""


async def _report_repeats(repeats: RepeatFilter) -> None:
    while True:
        await asyncio.sleep(REPORT_EVERY)
        repeats.report(log)


async def run_server(server: TokenServer, ready: Any = None, repeats: RepeatFilter | None = None) -> None:
    """Serve until SIGINT/SIGTERM; the URL (with the token) is printed once or written to a file.

    ``repeats``, when given, gets its pending counts written once a minute.
    """
    app = await server._make_app()
    runner = web.AppRunner(app, access_log=None, handle_signals=False, keepalive_timeout=KEEP_ALIVE_SECONDS)
    await runner.setup()
    try:
        sock = listen(server.host, server.port)
        site = GuardedSite(runner, sock, FirstHeadGate(server.head_timeout))
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        raise ServeError(
            f"cannot listen on {server.host}:{server.port} ({exc.strerror or exc}); pick another --port."
        ) from exc
    port = sock.getsockname()[1]
    server.port = port
    url = f"http://{url_host(server.host)}:{port}/?token={server.token}"
    try:
        url_file = announce(url, port, sys.stdout.isatty())
    except OSError as exc:
        await runner.cleanup()
        raise ServeError(
            f"cannot write the URL file ({exc.strerror or exc}); set PRIMETUI_CONFIG_DIR to a writable "
            "folder, or run it in a terminal, where the URL is printed."
        ) from exc
    await server.spares.start()
    if ready is not None:
        ready(url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    reporter = asyncio.create_task(_report_repeats(repeats)) if repeats is not None else None
    try:
        await stop.wait()
    finally:
        if reporter is not None:
            reporter.cancel()
        await asyncio.gather(
            server.spares.close(), *(server.end_session(s) for s in list(server.sessions)), return_exceptions=True
        )
        await runner.cleanup()
        if url_file is not None:
            url_file.unlink(missing_ok=True)  # the token dies with the server


def settings_mistake(local: bool) -> str | None:
    """The sentence of a setting that cannot work (``primetui.config.mistakes``), neutralised; None when all can."""
    from primetui.config.mistakes import first_mistake
    from primetui.config.settings import load_settings
    from primetui.monitor_core.escapes import clean

    mistake = first_mistake(load_settings(), local=local)
    return clean(str(mistake)) if mistake is not None else None


def serve(args: Any) -> int:
    """Entry point of ``primetui serve``; returns the exit code (:mod:`primetui.commands.exits`)."""
    from primetui.commands.exits import EXIT_CONFIG, EXIT_REFUSED, EXIT_USAGE

    host = str(getattr(args, "host", None) or "127.0.0.1")
    port = int(getattr(args, "port", None) or 0)
    local = bool(getattr(args, "local", False))
    if not is_loopback(host):
        if not getattr(args, "allow_remote", False):
            print(
                f"primetui serve: {host} is not a loopback address; add --allow-remote to serve beyond this machine "
                "(anyone who gets the URL acts with your API key).",
                file=sys.stderr,
            )
            return EXIT_USAGE
        print(
            f"primetui serve: WARNING: serving on {host}, reachable from other machines, over plain HTTP: "
            "the token travels unencrypted. Prefer an SSH tunnel to 127.0.0.1.",
            file=sys.stderr,
            flush=True,
        )
    elif getattr(args, "allow_remote", False):
        print(
            "primetui serve: WARNING: --allow-remote: requests under any Host name are answered, so a web page "
            "whose name resolves to this machine can reach the server (it still needs the token).",
            file=sys.stderr,
            flush=True,
        )
    if not (0 <= port <= 65535):
        print(f"primetui serve: --port {port} is not a port number (0 to 65535).", file=sys.stderr)
        return EXIT_USAGE
    mistake = settings_mistake(local)
    if mistake:
        print(f"primetui serve: {mistake}", file=sys.stderr)  # each tab would only show the same sentence
        return EXIT_CONFIG
    if local:
        try:
            from primetui.local.launcher import ensure_running
            from primetui.commands.launch import load_prefs, local_data_dir

            # Once here, on the data dir the tabs will use, so they share one platform instead of racing.
            ensure_running(data_dir=local_data_dir(load_prefs()[0]), demo=True)
        except Exception as exc:  # noqa: BLE001
            print(
                f"primetui serve: the local platform did not start ({exc}); try `primetui local serve` to see why.",
                file=sys.stderr,
            )
            return 1
    log_file = getattr(args, "log_file", None)
    if log_file:
        try:
            capture_output(Path(log_file))
        except OSError as exc:
            print(
                f"primetui serve: cannot write the log file {log_file} ({exc.strerror}); pass a writable --log-file.",
                file=sys.stderr,
            )
            return EXIT_REFUSED
    logging.basicConfig(level=logging.WARNING, format="primetui serve: %(message)s")
    repeats = install_repeat_filter(quiet=(ACCEPT_FAILED,))
    try:
        head_timeout = Limits.from_environment().head_timeout
    except ValueError as exc:
        print(f"primetui serve: {exc}", file=sys.stderr)  # a PRIMETUI_SERVE_* value that cannot work
        return EXIT_CONFIG
    server = TokenServer(
        app_command(local),
        host,
        port,
        make_token(),
        allow_remote=bool(getattr(args, "allow_remote", False)),
        spare=not getattr(args, "no_spare", False),
        head_timeout=head_timeout,
    )
    try:
        asyncio.run(run_server(server, repeats=repeats))
    except ServeError as exc:
        print(f"primetui serve: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


__all__ = [
    "COOKIE",
    "ServeError",
    "Spares",
    "TabService",
    "TokenServer",
    "tab_environment",
    "announce",
    "app_command",
    "host_name",
    "is_loopback",
    "make_token",
    "serve",
    "url_file_path",
    "url_host",
]
