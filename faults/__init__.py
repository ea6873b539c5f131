"""Rules broken on purpose: breaches injected into observed tables.

Not part of the rules engine: the engine's tests and benchmark, the filmed
rounds of ``datasets.table_game`` and the app's simulated game use it to make
tables that break a rule, and the engine never does. It stands on ``engine``
alone (a layer beside ``vision``, under ``datasets`` and ``companion_app``).

- :func:`inject` follows an observer's current view (:class:`ObservedTable`)
  with the tables that make exactly one breach of a given code;
- :func:`inject_breaches` rewrites a recorded round so that some rules are
  broken at different turns, each :class:`PlantedBreach` saying which alert
  it should raise;
- :func:`mismatched_tile` picks a tile that does not fit a train, and
  :func:`first_mismatch` finds it again in a table.
"""

from __future__ import annotations

from faults.misfit import first_mismatch, mismatched_tile
from faults.observed import Observation, ObservedTable, inject
from faults.recorded import BREACHES, PlantedBreach, inject_breaches

__all__ = [
    "BREACHES",
    "Observation",
    "ObservedTable",
    "PlantedBreach",
    "first_mismatch",
    "inject",
    "inject_breaches",
    "mismatched_tile",
]
