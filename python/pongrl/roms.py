"""pongrl.roms: ale-py's `ale_py.roms` for the one game pongrl plays, so that ale-py's loading
line runs with the import switched:

    from pongrl import ALEInterface, roms
    ale = ALEInterface()
    ale.loadROM(roms.get_rom_path("pong"))

pongrl needs no ROM file: get_rom_path("pong") is the name "pong", which loadROM takes as
Pong itself. Where $ALE_ROMS_DIR holds pong.bin (ale-py's variable and file name), its path is
returned instead and its md5 checked, as ale-py does. Any other name is not supported: a
warning and None, as ale-py answers a name it does not know.
"""
import hashlib
import os
import pathlib
import warnings

__all__ = ["get_rom_path", "get_all_rom_ids"]

# Video Olympics (CX2621), the ROM ALE plays as "pong": docs/pong-spec.md, ALE's
# src/ale/games/supported/Pong.cpp
PONG_ROM_MD5 = "60e0ea3cbe0913d39803477945e9e5ec"
ROM_IDS = ("pong",)


def get_all_rom_ids():
    """The ids of the games there are: ['pong']."""
    return list(ROM_IDS)


def rom_md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def get_rom_path(name):
    """What ALEInterface.loadROM takes for the game `name`: "pong" (no file needed), or
    $ALE_ROMS_DIR/pong.bin when that folder holds it (an OSError if its md5 is not Pong's).
    A name that is not a game here: a warning and None, as ale-py."""
    if name not in ROM_IDS:
        warnings.warn("Rom %s not supported. pongrl plays only %s" % (name, ", ".join(ROM_IDS)))
        return None
    roms_dir = os.environ.get("ALE_ROMS_DIR")
    if roms_dir:
        path = pathlib.Path(roms_dir) / ("%s.bin" % name)
        if path.is_file():
            md5 = rom_md5(path)
            if md5 != PONG_ROM_MD5:
                raise OSError("pongrl: %s is not the Pong ROM (md5 %s, expected %s)" % (path, md5, PONG_ROM_MD5))
            return path
    return name


def __getattr__(name):
    """ale-py before 0.9: roms.Pong / roms.pong as attributes."""
    if name.lower() in ROM_IDS:
        return get_rom_path(name.lower())
    raise AttributeError("module 'pongrl.roms' has no attribute %r (games: %s)" % (name, ", ".join(ROM_IDS)))
