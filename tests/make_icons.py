"""Draws the add-in's icons (``xlfuncs/icons/battle-ledger-16.png`` ... ``-80.png``): a
ledger, its ruled page and a red ribbon, on a dark blue tile. Plain Python (zlib), so
nothing needs installing: ``python tests/make_icons.py``; ``tests/test_icons.py`` checks
the packaged pictures are what it draws."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

__all__ = ["ICONS", "SIZES", "icon_png", "main"]

SIZES = (16, 32, 64, 80)
#: Where the package keeps them (package data of battle_ledger.xlfuncs).
ICONS = Path(__file__).resolve().parent.parent / "xlfuncs" / "icons"
_TILE, _PAGE, _INK, _RIBBON = (31, 58, 95), (244, 236, 214), (70, 70, 80), (178, 34, 52)
_SAMPLES = 4  # supersampling a side: the edges come out smooth


def _colour(x: float, y: float) -> tuple[int, int, int, int]:
    """The colour at (x, y) of the unit square (0..1, y down)."""
    r = 0.18  # the tile's rounded corners
    cx, cy = min(max(x, r), 1 - r), min(max(y, r), 1 - r)
    if (x - cx) ** 2 + (y - cy) ** 2 > r * r:
        return (0, 0, 0, 0)
    if 0.62 <= x <= 0.72 and 0.12 <= y <= 0.92 - 0.08 * (abs(x - 0.67) < 0.03):
        return (*_RIBBON, 255)
    if 0.22 <= x <= 0.78 and 0.16 <= y <= 0.84:
        ruled = any(abs(y - line) < 0.025 for line in (0.32, 0.46, 0.60, 0.74))
        return (*(_INK if ruled and x <= 0.58 else _PAGE), 255)
    return (*_TILE, 255)


def icon_png(size: int) -> bytes:
    """The icon as a PNG of ``size`` x ``size`` pixels (RGBA)."""
    rows = []
    n = _SAMPLES
    for j in range(size):
        row = bytearray([0])  # filter: none
        for i in range(size):
            samples = [_colour((i + (a + 0.5) / n) / size, (j + (b + 0.5) / n) / size)
                       for a in range(n) for b in range(n)]  # fmt: skip
            alpha = sum(s[3] for s in samples)
            rgb = [sum(s[k] * s[3] for s in samples) // alpha if alpha else 0 for k in range(3)]
            row += bytes([*rgb, alpha // len(samples)])
        rows.append(bytes(row))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 9)) + chunk(b"IEND", b""))  # fmt: skip


def main() -> None:
    for size in SIZES:
        (ICONS / f"battle-ledger-{size}.png").write_bytes(icon_png(size))


if __name__ == "__main__":
    main()
