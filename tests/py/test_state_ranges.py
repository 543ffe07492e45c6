"""test_state_ranges.py: a crafted ALEState is refused by restoreState, whatever its crc says.

An ALEState is bytes a user may load from anywhere (a file, a pickle): a header (ALE's frame
numbers, the flavour) and the C library's state, which carries a crc32. Crafted here through
the public API (cloneState, serialize, ALEState(bytes)), each with its crc32 fixed up so only
the range checks can catch it: the header's frame number -12345, the state's steps at
INT64_MAX, a score of 22, the header's episode frames or mode unlike the state's. Each must raise a
RuntimeError naming the field and leave the game exactly as it was; states of real play (a
whole episode, cloned along the way, and pickled) must still restore.
Exit 0 pass, 77 skip (library not built), anything else fail.
"""
import os
import pickle
import struct
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pongrl_under_test import pongrl, raises, run  # noqa: E402

from pongrl import _lib  # noqa: E402

HEADER = 40  # ALEState's header: magic, episode frames, frame number, mode, difficulty (int64 each)
GAME_AT = 130  # where the C state holds the game (src/env/env.c's layout); RAM first


def craft(state, header=None, at=None, value=None, fmt="<q"):
    """state's bytes with one header field (header: (offset, int64)) or one field of the C state
    (at, value, fmt) rewritten, the C state's crc32 fixed up."""
    raw = bytearray(state.serialize())
    if header is not None:
        struct.pack_into("<q", raw, header[0], header[1])
    if at is not None:
        blob = raw[HEADER:]
        struct.pack_into(fmt, blob, at, value)
        struct.pack_into("<I", blob, len(blob) - 4, zlib.crc32(bytes(blob[:-4])))
        raw[HEADER:] = blob
    return pongrl.ALEState(bytes(raw))


def snapshot(ale):
    return (ale.cloneState(include_rng=True).serialize(), ale.getFrameNumber(), ale.getEpisodeFrameNumber())


def new_ale():
    ale = pongrl.ALEInterface()
    ale.setInt("random_seed", 3)
    ale.loadROM("pong")
    ale.reset_game()
    return ale


def test_crafted_states_are_refused_naming_the_field():
    ale = new_ale()
    rng = np.random.default_rng(1)
    for a in rng.integers(0, 6, 400):
        ale.act(int(a))
    state = ale.cloneState()
    system = ale.cloneSystemState()
    for a in rng.integers(0, 6, 150):  # the game moves on from the clone
        ale.act(int(a))
    before = snapshot(ale)
    cases = [
        ("frame number -12345", craft(state, header=(16, -12345)), "frame number"),
        ("frame number 2^63 - 1", craft(state, header=(16, 2**63 - 1)), "frame number"),
        ("episode frames unlike the state's", craft(state, header=(8, 7)), "episode frame number"),
        ("another mode in the header", craft(state, header=(24, 1)), "mode"),
        ("steps INT64_MAX", craft(state, at=_lib.ENV_STATE_STEPS_AT, value=2**63 - 1), "steps"),
        ("steps INT64_MAX, with the stream", craft(system, at=_lib.ENV_STATE_STEPS_AT, value=2**63 - 1), "steps"),
        ("frames -1", craft(state, at=_lib.ENV_STATE_FRAMES_AT, value=-1), "frames"),
        (
            "frame number -12345 in the state",
            craft(state, at=_lib.ENV_STATE_FRAME_NUMBER_AT, value=-12345),
            "frame number",
        ),
        ("CPU score 22", craft(state, at=GAME_AT + 0x0D, value=22, fmt="<B"), "score"),
        ("agent's bat 250", craft(state, at=GAME_AT + 0x33, value=250, fmt="<B"), "agent's bat"),
    ]
    for what, bad, field in cases:
        msg = raises(RuntimeError, ale.restoreState, bad)
        assert field in msg and "must be" in msg and "crc" not in msg, (what, msg)
        assert "\n" not in msg, (what, msg)
        assert snapshot(ale) == before, "%s: a refused restore changed the game" % what
    # the frame number as the issue reproduced it: refused, and ALE's count stays
    raises(RuntimeError, ale.restoreState, craft(state, header=(16, -12345)))
    assert ale.getFrameNumber() == before[1] >= 0
    # the same bytes uncrafted go in
    ale.restoreState(state)
    assert ale.getFrameNumber() == state.getFrameNumber()


def test_the_env_refuses_them_too():
    env = pongrl.make("ALE/Pong-v5")
    env.reset(seed=2)
    for a in np.random.default_rng(2).integers(0, 6, 100):
        env.step(int(a))
    state = env.clone_state(include_rng=True)
    msg = raises(RuntimeError, env.restore_state, craft(state, at=_lib.ENV_STATE_STEPS_AT, value=2**63 - 1))
    assert "steps" in msg and "ALE/Pong-v5" in msg, msg
    msg = raises(RuntimeError, env.restore_state, craft(state, header=(16, -12345)))
    assert "frame number" in msg, msg
    env.restore_state(state)
    env.close()


def test_states_of_real_play_are_accepted():
    # a whole episode through ALE's low level, cloned every 97 frames and restored at once,
    # then the last state (21 points) restored into a fresh game and pickled
    ale = new_ale()
    rng = np.random.default_rng(5)
    states = 0
    while not ale.game_over():
        ale.act(int(rng.integers(0, 6)))
        if ale.getEpisodeFrameNumber() % 97 == 0:
            s = ale.cloneState(include_rng=states % 2 == 1)
            ale.restoreState(pongrl.ALEState(s.serialize()))
            states += 1
    ram = ale.getRAM()
    assert max(ram[0x0D], ram[0x0E]) == 21
    last = ale.cloneSystemState()
    other = new_ale()
    other.restoreState(pickle.loads(pickle.dumps(last)))
    assert other.game_over() and np.array_equal(other.getRAM(), ram)
    assert other.getFrameNumber() == ale.getFrameNumber() > 3000
    assert states > 30


if __name__ == "__main__":
    sys.exit(
        run(
            [
                test_crafted_states_are_refused_naming_the_field,
                test_the_env_refuses_them_too,
                test_states_of_real_play_are_accepted,
            ]
        )
    )
