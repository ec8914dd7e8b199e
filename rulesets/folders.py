"""The per-user folders the rules read and keep things in, and the key of what is kept.

Light on purpose (no pydantic, no YAML): ``battle-ledger rulesets`` and ``rules show``
read a kept index (``rulesets.index``) through this module alone.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

__all__ = [
    "CACHE_DIR_ENV",
    "CACHE_FORMAT",
    "DATA_DIR",
    "RULES_DIR_ENV",
    "cache_dir",
    "drop_older",
    "kept_file",
    "user_rules_dir",
    "validation_key",
]

#: The packaged data files, one per rule set (``<id>.yaml``).
DATA_DIR = Path(__file__).resolve().parent / "data"

#: Where the parsed and validated packaged data files are kept (``cache_dir``).
CACHE_DIR_ENV = "BATTLE_LEDGER_CACHE_DIR"
CACHE_FORMAT = "v1"  # a new one when the parse itself changes

#: The per-user folder of house-rules files (``user_rules_dir``).
RULES_DIR_ENV = "BATTLE_LEDGER_RULES_DIR"

#: The modules whose classes a validated rule set is made of (``validation_key`` reads them).
_MODEL_SOURCES = ("model.py", "errors.py")


def cache_dir() -> Path:
    """The per-user folder of parsed rule-set data: ``$BATTLE_LEDGER_CACHE_DIR`` when
    set; else the platform's user cache folder (``%LOCALAPPDATA%\\battle-ledger\\Cache``,
    ``~/Library/Caches/battle-ledger``, ``$XDG_CACHE_HOME/battle-ledger`` (``~/.cache``))."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    if sys.platform == "win32":
        root = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return root / "battle-ledger" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "battle-ledger"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "battle-ledger"


def user_rules_dir() -> Path:
    """The per-user folder of house-rules files the Excel functions read.

    ``$BATTLE_LEDGER_RULES_DIR`` when set; else the platform's user config folder:
    ``%APPDATA%\\battle-ledger\\house-rules`` on Windows,
    ``~/Library/Application Support/battle-ledger/house-rules`` on macOS,
    ``$XDG_CONFIG_HOME/battle-ledger/house-rules`` (``~/.config``) elsewhere.
    """
    override = os.environ.get(RULES_DIR_ENV)
    if override:
        return Path(override)
    if sys.platform == "win32":
        root = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        root = Path.home() / "Library" / "Application Support"
    else:
        root = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return root / "battle-ledger" / "house-rules"


def _pydantic_version_source() -> bytes:
    """The text of pydantic's ``version.py`` (its version), read without importing
    pydantic (a third of a light command's start)."""
    spec = importlib.util.find_spec("pydantic")  # a top-level package: not imported
    if spec is None or spec.origin is None:
        return b""
    try:
        return Path(spec.origin).with_name("version.py").read_bytes()
    except OSError:
        return b""


def validation_key(data: bytes) -> str:
    """What a kept validation of a data file of bytes ``data`` is named by: the SHA-256 of
    the bytes, of ``_MODEL_SOURCES``, of pydantic's version and of Python's. Another
    file, another model or another pydantic: another key, and the kept one is not read."""
    digest = hashlib.sha256(data)
    here = Path(__file__).resolve().parent
    for name in _MODEL_SOURCES:
        digest.update((here / name).read_bytes())
    digest.update(_pydantic_version_source())
    digest.update(sys.version.encode())
    return digest.hexdigest()[:32]


def kept_file(path: Path, key: str, suffix: str) -> Path:
    """Where the cache keeps what is made from data file ``path`` under ``key`` (a digest
    of what it is made from), as a ``suffix`` file: named by the file's stem, a tag of the
    folder it is read from, the key and ``CACHE_FORMAT``. The folder's tag keeps two
    installations that share a user (two checkouts, two environments) from replacing each
    other's entries at every command: what is kept names the file it was made from."""
    return cache_dir() / f"{path.stem}-{_folder_tag(path)}-{key}-{CACHE_FORMAT}{suffix}"


def drop_older(kept: Path, path: Path, suffix: str) -> None:
    """Remove what the cache holds of data file ``path`` as ``suffix`` files other than
    ``kept`` (made from older bytes; ``kept_file`` names both). Those of another folder
    and of another stem that starts with this one are not matched (tag, name length)."""
    for old in kept.parent.glob(f"{path.stem}-{_folder_tag(path)}-*-{CACHE_FORMAT}{suffix}"):
        if old != kept and len(old.name) == len(kept.name):
            old.unlink(missing_ok=True)


def _folder_tag(path: Path) -> str:
    """A short digest of the folder ``path`` is in (``kept_file``)."""
    return hashlib.sha256(str(path.resolve().parent).encode()).hexdigest()[:8]
