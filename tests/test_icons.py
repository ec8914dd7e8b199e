"""The add-in's icons (the served manifest's) are the pictures ``tests/make_icons.py``
draws: committed pictures and their drawing never part."""

from __future__ import annotations

import pytest

from tests.make_icons import ICONS, SIZES, icon_png


@pytest.mark.parametrize("size", SIZES)
def test_each_icon_is_the_drawing(size: int) -> None:
    assert (ICONS / f"battle-ledger-{size}.png").read_bytes() == icon_png(size)


def test_no_other_picture_is_packaged() -> None:
    assert sorted(p.name for p in ICONS.glob("*.png")) == [
        f"battle-ledger-{s}.png" for s in sorted(SIZES)
    ]
