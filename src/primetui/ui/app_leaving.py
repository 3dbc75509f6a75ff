"""Leaving screens safely: a screen still mounting its widgets is removed only once it has settled.

A mixin of :class:`primetui.ui.app.PrimeApp`.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from textual.app import App, ScreenStackError
from textual.await_complete import AwaitComplete
from textual.screen import Screen

from primetui.ui.screens.base import DashboardScreen

SETTLE_ON_QUIT = 5.0
"""Seconds the app, ending, waits at most for screens still mounting their widgets."""


class ScreenSettling(App):
    """Pop, switch and exit as Textual does them, with screens still mounting kept until they settle."""

    _settling: tuple[DashboardScreen, ...] = ()
    """The screens ``_hold`` installed and has not uninstalled yet (kept until they settle, or put
    on a stack again meanwhile)."""

    @property
    def settling(self) -> bool:
        """Whether a screen taken off the stack is still kept until its widgets have mounted."""
        return bool(self._settling)

    # ---- leaving screens ----------------------------------------------------------------------
    # Textual takes a popped or replaced screen off the stack at once and removes it soon after;
    # removing a screen whose own widgets still mount crashes Textual (the run screen's monitor
    # tabs: "No Tab with id '--content-tab-log-trainer'", "Can't mount widget(s) before Grid() is
    # mounted"). Every way out (Esc, open_run, dismiss, an app binding, quitting) goes through
    # these: the stack changes at once as in Textual (a second pop pops the next screen), and a
    # screen still mounting (``DashboardScreen.mounting``) is kept as an installed screen, which
    # Textual does not remove, until it has settled; then it is removed.
    def pop_screen(self) -> AwaitComplete:
        stack = self.screen_stack
        held = self._hold(stack[-1]) if len(stack) > 1 else None  # the last one: Textual refuses
        return self._remove_when_settled(held, super().pop_screen)

    def switch_screen(self, screen: Screen | str) -> AwaitComplete:
        stack = self.screen_stack
        held = None
        if stack and isinstance(screen, (Screen, str)) and self.get_screen(screen) is not stack[-1]:
            held = self._hold(stack[-1])  # not a switch to the screen shown (Textual's no-op)
        return self._remove_when_settled(held, lambda: super(ScreenSettling, self).switch_screen(screen))

    def exit(self, result: Any = None, return_code: int = 0, message: Any = None) -> None:
        """Textual's exit once the screens' own mounts are done: from the exit on, Textual counts
        every widget as detached, and one still mounting fails ("Can't mount widget(s) before
        Grid() is mounted"); the shutdown that follows removes every screen."""
        if not self._mounting_screens():
            super().exit(result, return_code, message)
            return

        async def exit_when_settled() -> None:
            await self._settle_all()
            App.exit(self, result, return_code, message)

        self.call_next(exit_when_settled)

    async def _shutdown(self) -> None:
        # Textual's shutdown removes every screen: one still mounting crashes it as a pop would.
        # An exit settled them already; this is for an end that did not come through ``exit``
        # (the test harness ends the app so).
        await self._settle_all()
        await super()._shutdown()

    def _mounting_screens(self) -> list[DashboardScreen]:
        stacks = self._screen_stacks.values()  # every mode's: Textual has no public view of them
        screens = [*(s for stack in stacks for s in stack), *self._settling]
        return [s for s in screens if isinstance(s, DashboardScreen) and s.mounting]

    async def _settle_all(self) -> None:
        """Wait for every screen's own mounts, on every stack or kept (``_hold``), a bounded time."""
        if mounting := self._mounting_screens():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*(s.settle() for s in mounting)), SETTLE_ON_QUIT)

    def _hold(self, screen: Screen) -> DashboardScreen | None:
        """Keep ``screen`` from Textual's removal if its own mounts are pending; the screen kept.

        A screen kept before and put on a stack again while it settled is still installed by us:
        it is held again (mounting or not), so that this time it is removed."""
        if any(s is screen for s in self._settling):
            return screen  # type: ignore[return-value]
        if not isinstance(screen, DashboardScreen) or not screen.mounting or self.is_screen_installed(screen):
            return None
        self.install_screen(screen, f"-settling-{id(screen)}")
        self._settling = (*self._settling, screen)
        return screen

    def _let_go(self, screen: DashboardScreen) -> bool:
        """Uninstall a screen ``_hold`` kept; False if it is on a stack again (then it stays installed,
        and stays ours: ``_hold`` takes it again as it leaves that stack)."""
        try:
            self.uninstall_screen(screen)
        except ScreenStackError:
            return False
        self._settling = tuple(s for s in self._settling if s is not screen)
        return True

    def _remove_when_settled(self, held: DashboardScreen | None, leave: Callable[[], AwaitComplete]) -> AwaitComplete:
        """Textual's pop or switch (``leave``), then the removal of ``held`` once it settled."""
        try:
            left = leave()
        except BaseException:
            if held is not None:
                self._let_go(held)
            raise
        if held is None:
            return left

        async def remove_when_settled() -> None:
            await left  # Textual's part: the screen suspended, and kept (it is installed)
            await held.settle()
            if not self._let_go(held) or not held.is_running:
                return  # pushed again meanwhile, or closed (the app quitting closes every node)
            if self.mouse_captured is not None and held in self.mouse_captured.ancestors_with_self:
                self.capture_mouse(None)  # as Textual does as it removes a screen
            await held.remove()

        return AwaitComplete(remove_when_settled()).call_next(self)
