# Loaded through PYTHONPATH by bench/serve_trace.py only (Python imports sitecustomize at start): a
# measuring aid, never on a normal run. Off unless TRACE_FILE is set.
# temporary tracer (not part of the repo): timestamps to $TRACE_FILE
import os, sys, time, functools

_F = os.environ.get("TRACE_FILE")
if _F:
    _T0 = time.time()
    _RUNS = [r for r in os.environ.get("TRACE_RUNS", "").split(",") if r]
    _fd = os.open(_F, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    _role = "serve" if "serve" in sys.argv else ("app-web" if os.environ.get("TEXTUAL_DRIVER") else "app")

    def T(tag, extra=""):
        os.write(_fd, f"{time.time():.4f} {os.getpid()} {_role} {tag} {extra}\n".encode())

    T("python-start", " ".join(sys.argv[:3]))
    _seen = set()

    def has_run(data):
        if isinstance(data, (bytes, bytearray)):
            data = bytes(data).decode("utf-8", "replace")
        return any(r in data for r in _RUNS)

    def wrap(cls, name, before=None, once=False, arg=None):
        orig = getattr(cls, name)
        import inspect

        if inspect.iscoroutinefunction(orig):

            @functools.wraps(orig)
            async def w(self, *a, **k):
                key = (cls.__name__, name)
                if not (once and key in _seen):
                    _seen.add(key)
                    T(f"{cls.__name__}.{name}", arg(*a) if arg else "")
                r = await orig(self, *a, **k)
                if not once:
                    T(f"{cls.__name__}.{name}:done")
                return r
        else:

            @functools.wraps(orig)
            def w(self, *a, **k):
                key = (cls.__name__, name)
                if not (once and key in _seen):
                    _seen.add(key)
                    T(f"{cls.__name__}.{name}", arg(*a) if arg else "")
                return orig(self, *a, **k)

        setattr(cls, name, w)

    _written = {"n": 0, "runs": False}

    def wdata(data, *a):
        _written["n"] += len(data)
        hr = has_run(data)
        tag = "RUNID" if hr else ""
        return f"len={len(data)} total={_written['n']} {tag}"

    def patch(modname, mod):
        if modname == "textual.drivers.web_driver":
            C = mod.WebDriver
            wrap(C, "start_application_mode", once=True)
            wrap(C, "on_meta", arg=lambda t, p: f"{t} {p}")
            orig = C.write

            def write(self, data):
                d = wdata(data)
                if "RUNID" in d or _written["n"] == len(data) or os.environ.get("TRACE_ALL_WRITES"):
                    T("WebDriver.write", d)
                return orig(self, data)

            C.write = write
        elif modname == "textual.drivers.linux_driver":
            C = mod.LinuxDriver
            wrap(C, "start_application_mode", once=True)
            orig = C.write

            def write(self, data):
                d = wdata(data)
                if "RUNID" in d or _written["n"] == len(data) or os.environ.get("TRACE_ALL_WRITES"):
                    T("LinuxDriver.write", d)
                return orig(self, data)

            C.write = write
        elif modname == "textual_serve.app_service":
            C = mod.AppService
            wrap(C, "_open_app_process")
            wrap(C, "set_terminal_size", arg=lambda w, h: f"{w}x{h}")
            orig = C.on_data

            async def on_data(self, payload):
                T("AppService.on_data", f"len={len(payload)} {'RUNID' if has_run(payload) else ''}")
                return await orig(self, payload)

            C.on_data = on_data
        elif modname == "primetui.commands.serve":
            wrap(mod.TokenServer, "handle_index")
            wrap(mod.TokenServer, "handle_websocket", arg=lambda r: r.query_string)
        elif modname == "primetui.ui.screens.runs":
            wrap(mod.RunsScreen, "on_mount", once=True)
            wrap(mod.RunsScreen, "paint_cached", once=True)
            wrap(mod.RunsScreen, "on_runs_page", once=True)
            timed(mod.RunsScreen, "render_rows")
            timed(mod.RunsScreen, "on_resize")
        elif modname == "primetui.ui.app":
            wrap(mod.PrimeApp, "on_mount", once=True)
        elif modname == "primetui.commands.launch":
            wrap_f(mod, "run_app")
            wrap(mod.LazyClient, "list_runs")
            wrap(mod.LazyClient, "ready", once=True)
        elif modname == "primetui.viewmodel.cache":
            orig_load = mod.load_runs

            def load_runs(*a, **k):
                data = orig_load(*a, **k)
                T("cache.load_runs", f"runs={len((data or {}).get('runs') or [])} dir={mod.cache_dir()}")
                return data

            mod.load_runs = load_runs
        elif modname == "primetui.api.prefetch":
            orig_fetch = mod.fetch_runs_page

            def fetch_runs_page(*a, **k):
                T("prefetch.start")
                r = orig_fetch(*a, **k)
                T("prefetch.done", "None" if r is None else f"runs={len(r.get('runs', []))}")
                return r

            mod.fetch_runs_page = fetch_runs_page
        elif modname == "primetui.api.client":
            wrap(mod.PrimeClient, "list_runs")
        elif modname == "textual.message_pump":
            orig_dispatch = mod.MessagePump._dispatch_message

            async def _dispatch_message(self, message):
                t = time.time()
                r = await orig_dispatch(self, message)
                took = time.time() - t
                if took > 0.05:
                    T("slow-message", f"{type(self).__name__} {type(message).__name__} took={took * 1000:.0f}ms")
                return r

            mod.MessagePump._dispatch_message = _dispatch_message
        elif modname == "textual.app":
            wrap(mod.App, "_process_messages", once=True)
            orig_watch = mod.App._watch_app_focus

            @functools.wraps(orig_watch)
            def _watch_app_focus(self, focus):
                t = time.time()
                r = orig_watch(self, focus)
                T(
                    "App._watch_app_focus",
                    f"focus={focus} screen={type(self.screen).__name__} took={(time.time() - t) * 1000:.0f}ms",
                )
                return r

            mod.App._watch_app_focus = _watch_app_focus

    def timed(cls, name):
        orig = getattr(cls, name)

        @functools.wraps(orig)
        def w(self, *a, **k):
            t = time.time()
            r = orig(self, *a, **k)
            T(f"{cls.__name__}.{name}", f"took={(time.time() - t) * 1000:.0f}ms")
            return r

        setattr(cls, name, w)

    def wrap_f(mod, name):
        orig = getattr(mod, name)

        def w(*a, **k):
            T(f"{mod.__name__}.{name}")
            return orig(*a, **k)

        setattr(mod, name, w)

    TARGETS = {
        "textual.drivers.web_driver",
        "textual.drivers.linux_driver",
        "textual_serve.app_service",
        "primetui.commands.serve",
        "primetui.ui.screens.runs",
        "primetui.ui.app",
        "primetui.commands.launch",
        "textual.app",
        "primetui.viewmodel.cache",
        "primetui.api.client",
        "primetui.api.prefetch",
        "textual.message_pump",
    }
    import importlib.abc, importlib.machinery

    class Hook(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name not in TARGETS:
                return None
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None or spec.loader is None:
                return spec
            loader = spec.loader
            orig_exec = loader.exec_module

            def exec_module(module):
                orig_exec(module)
                try:
                    patch(name, module)
                except Exception as e:
                    T("patch-error", f"{name} {e!r}")

            loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, Hook())

    if os.environ.get("PYTHONASYNCIODEBUG"):  # asyncio's slow-callback warnings (>0.1 s) go to the trace
        import logging

        class _ToTrace(logging.Handler):
            def emit(self, record):
                T("asyncio-slow", record.getMessage()[-200:].replace("\n", " "))

        logging.getLogger("asyncio").addHandler(_ToTrace())
