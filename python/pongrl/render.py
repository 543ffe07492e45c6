"""Watching and playing from Python: render_mode="human" (a pygame window, as Gymnasium's own
pygame envs draw theirs) and ale-py's keyboard map for gymnasium.utils.play.

pygame is Debian's python3-pygame (or any pygame on the path); it is imported only when an env
is made with render_mode="human".
"""
import os
import sys

from .spaces import gymnasium

SCALE = 3  # 160x210 shown as 480x630

# ale-py's AtariEnv.get_keys_to_action (0.11.1 and later, src/ale/python/env.py): w, s, a, d for
# UP, DOWN, LEFT, RIGHT, space for FIRE, e for NOOP; a combined action presses its keys in the
# order of its name (UPRIGHTFIRE: w, d, space).
_KEYS = (("UP", "w"), ("DOWN", "s"), ("LEFT", "a"), ("RIGHT", "d"), ("FIRE", " "))


def keys_to_action(meanings):
    """{keys: action index} for actions named as ALE names them, as ale-py returns it."""

    def keys(name):
        return ("e",) if name == "NOOP" else tuple(k for word, k in _KEYS if word in name)

    return {keys(name): i for i, name in enumerate(meanings)}


_Missing = (gymnasium.error.DependencyNotInstalled, ImportError) if gymnasium is not None else (ImportError,)


class DependencyNotInstalled(*_Missing):
    """pygame is missing: a gymnasium.error.DependencyNotInstalled (with Gymnasium) and an ImportError."""


_said = set()


def _say_once(msg):
    """One line on stderr, once a process: not a warning, which Gymnasium's check_env (it makes
    an env in every declared render mode) would count against the env."""
    if msg not in _said:
        _said.add(msg)
        print(msg, file=sys.stderr)


class HumanWindow:
    """A window showing the env's frames at `fps` frames per second, opened at the first frame.

    As Gymnasium's pygame envs: every reset and step draws, events are pumped so the window
    stays responsive, and the clock holds the rate.
    """

    def __init__(self, fps, title="pongrl"):
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        try:
            import pygame
        except ImportError as e:
            raise DependencyNotInstalled(
                "pongrl: render_mode='human' needs pygame (Debian: apt-get install python3-pygame); "
                "or use render_mode='rgb_array'"
            ) from e
        self._pygame = pygame
        self.fps = fps
        self.title = title
        self._screen = None
        self._clock = None

    def show(self, rgb):
        """Draws rgb, uint8 (210, 160, 3), scaled up, then waits for the next tick."""
        pygame = self._pygame
        if self._screen is None:
            # Without a display, draw nowhere and say so once (Gymnasium's check_env makes an env
            # in every declared mode, headless too): SDL's dummy driver, not its noisy search
            if not any(os.environ.get(k) for k in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")):
                _say_once(
                    "pongrl: render_mode='human' without a display (DISPLAY and WAYLAND_DISPLAY "
                    "are unset): the frames are drawn nowhere; use render_mode='rgb_array'"
                )
                os.environ["SDL_VIDEODRIVER"] = "dummy"
            elif not os.environ.get("SDL_VIDEODRIVER"):
                # only the drivers the environment names a display for, as `pongrl watch`: left to
                # itself SDL would fall back to an offscreen driver and draw nowhere, silently
                wl = os.environ.get("WAYLAND_DISPLAY")
                wayland = bool(wl) and (wl.startswith("/") or bool(os.environ.get("XDG_RUNTIME_DIR")))
                drivers = [d for d, on in (("x11", bool(os.environ.get("DISPLAY"))), ("wayland", wayland)) if on]
                os.environ["SDL_VIDEODRIVER"] = ",".join(drivers) or "x11"
            try:
                pygame.display.init()
                self._screen = pygame.display.set_mode((rgb.shape[1] * SCALE, rgb.shape[0] * SCALE))
            except pygame.error as e:
                pygame.display.quit()
                raise RuntimeError(
                    "pongrl: render_mode='human' cannot open a window: %s; " "use render_mode='rgb_array'" % (e,)
                ) from None
            pygame.display.set_caption(self.title)
            self._clock = pygame.time.Clock()
        surface = pygame.surfarray.make_surface(rgb.swapaxes(0, 1))  # pygame indexes (x, y)
        self._screen.blit(pygame.transform.scale(surface, self._screen.get_size()), (0, 0))
        pygame.event.pump()
        self._clock.tick(self.fps)
        pygame.display.flip()

    def close(self):
        if self._screen is not None:
            self._pygame.display.quit()
            self._screen = None
