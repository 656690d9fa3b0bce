"""The move-path bench plays real moves through a real server in each of its variants."""

from __future__ import annotations

import asyncio

import pytest

from bench.move_path import VARIANTS, measure


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_answers_every_move_and_measures_its_cpu(variant: str) -> None:
    # measure() raises if any move is answered with anything but "moved"
    measured = asyncio.run(measure(variant, players=4, rounds=3, seed=1))
    assert measured.seconds > 0
