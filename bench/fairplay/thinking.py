"""How long a synthetic person thinks before each decision.

Each player draws their own pace once (:meth:`Pace.draw`), then every decision's think time
from it (:meth:`Pace.think`):

- a **log-normal** think time around the player's median (2 to 4 s, uniform over players),
  with a spread ``sigma`` of 0.5 to 0.9 (natural log units, per player): most decisions take
  one to eight seconds, a few much longer;
- **kinds of decision** scale the median: reading the board before the first move is slow
  (x3), an obvious follow-up (a run that completes, the card that was just freed going onto
  its parent) is quick (x0.45), taking back a move that was tried (undo) is quick (x0.6), a
  restart is a considered decision (x2);
- **pauses**: with a per-player chance of 2 to 6% a decision also waits a pause of 10 to 60 s
  (a drink, a look elsewhere, a long think on a hard position);
- a **motor floor** of 0.25 s: nobody reads a move and clicks it faster.

The numbers come from no measurement of real players; they are a plausible model, spread
wide on purpose, so the evidence is judged against varied paces and not one.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Final, Literal

Kind = Literal["first", "move", "obvious", "undo", "restart"]

#: Multiplier of the player's median by kind of decision.
KIND_SCALE: Final[dict[str, float]] = {
    "first": 3.0,
    "move": 1.0,
    "obvious": 0.45,
    "undo": 0.6,
    "restart": 2.0,
}
MOTOR_FLOOR: Final = 0.25  # seconds
MEDIAN_RANGE: Final = (2.0, 4.0)
SIGMA_RANGE: Final = (0.5, 0.9)
PAUSE_CHANCE_RANGE: Final = (0.02, 0.06)
PAUSE_RANGE: Final = (10.0, 60.0)


@dataclass(frozen=True, slots=True)
class Pace:
    """One player's pace: see the module's docstring."""

    median: float  # seconds
    sigma: float
    pause_chance: float

    @classmethod
    def draw(cls, rng: random.Random) -> Pace:
        return cls(
            median=rng.uniform(*MEDIAN_RANGE),
            sigma=rng.uniform(*SIGMA_RANGE),
            pause_chance=rng.uniform(*PAUSE_CHANCE_RANGE),
        )

    def think(self, rng: random.Random, kind: Kind = "move") -> float:
        """Seconds before one decision of ``kind``."""
        seconds = self.median * KIND_SCALE[kind] * math.exp(rng.gauss(0.0, self.sigma))
        if rng.random() < self.pause_chance:
            seconds += rng.uniform(*PAUSE_RANGE)
        return max(MOTOR_FLOOR, seconds)


__all__ = ["KIND_SCALE", "MOTOR_FLOOR", "Kind", "Pace"]
