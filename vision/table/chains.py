"""Trains grown from the hub: each starts with a tile lying radially by the hub and takes,
tile by tile, the loose box that best continues its end."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from engine import MEXICAN, Owner
from vision.mat.geometry import SLOT_RADIUS_MM
from vision.table.build import Chain, TableBuild
from vision.table.geometry import (
    PlacedTile,
    angle_deg,
    cos_between,
    nearer_half,
    nearest_slot,
    unit,
)
from vision.table.reading import Uncertainty

#: Distance (in tile widths) between one tile's far-half centre and the next tile's
#: near reference is 1; this much either way is still "touching".
TOUCH_LOW, TOUCH_HIGH = 0.6, 1.5
#: Largest angle between where a tile lies and the way it points, for chaining.
MAX_BEND_DEG = 32.0
#: A tile further than this (in widths) beyond a train's end, in line, is a gap.
GAP_WIDTHS = 5.0
#: Score added to a tile lying crosswise that was not read as a double but could be the
#: double of the end it lies at (``attach``): a read double that fits scores nothing.
CROSSWISE_READ_PENALTY = 0.3
#: ... and to one read with doubt whose counts could not be that double's.
CROSSWISE_UNSURE_PENALTY = 0.6
#: Two candidates whose scores differ by less than this are a tie worth reporting.
TIE_MARGIN = 0.25


class End(NamedTuple):
    """A train's open end: where it is, the way on, its count, and whether the train
    ends in the double of that count."""

    ref: np.ndarray
    direction: np.ndarray
    value: int
    after_double: bool = False


@dataclass(frozen=True)
class Attach:
    """How a tile would continue a train: its score (lower is better), the counts it
    would be laid with, and where the train's end would move."""

    score: float
    tile: PlacedTile
    near: int
    far: int
    end_ref: np.ndarray
    direction: np.ndarray

    @property
    def end(self) -> End:
        """The train's end once this tile is laid."""
        return End(self.end_ref, self.direction, self.far, self.near == self.far)


def attach(end: End, t: PlacedTile, w: float) -> Attach | None:
    """How well ``t`` continues a train whose open end is ``end`` (or ``None``).

    ``w`` is the tile width (the median over the table: single tiles' sizes
    are too noisy to scale by). ``end.after_double``: the train ends in the double of
    ``end.value``; a tile lying lengthwise on it read as that same double is a single
    whose far half was misread (a set has one of each tile), and is not taken so.
    """
    end_ref, direction, end_value = end.ref, end.direction, end.value
    options: list[Attach] = []
    # Lengthwise: the nearer half one width away, the tile pointing away from the end.
    k = nearer_half(t, end_ref)
    near_c, far_c = t.halves[k], t.halves[1 - k]
    d = near_c - end_ref
    r = float(np.linalg.norm(d)) / w
    v = far_c - near_c
    cos_dv = cos_between(d, v)
    near, far = t.values[k], t.values[1 - k]
    repeat = end.after_double and near == far == end_value
    if (TOUCH_LOW <= r <= TOUCH_HIGH and cos_dv >= math.cos(math.radians(MAX_BEND_DEG))
            and cos_between(v, direction) >= -0.3 and not repeat):
        score = abs(r - 1) + (1 - cos_dv) + (0.0 if near == end_value else 0.6)
        options.append(Attach(score, t, near, far, far_c, unit(v)))
    # Crosswise (doubles only): the centre one width away, the long side across the train.
    # A tile lying so that could be the end's double (within the reader's doubt), or whose
    # counts the reader doubts, is taken for it: only doubles are laid crosswise, and the
    # halves of a blurred 11-11 are misread apart (12-13). Not so right after that double:
    # a set has one of it, and it is laid already.
    if t.is_double or ((t.could_be(end_value) or t.unsure) and not end.after_double):
        d = t.centre - end_ref
        r = float(np.linalg.norm(d)) / w
        across = abs(cos_between(t.axis, d))
        if TOUCH_LOW <= r <= TOUCH_HIGH and across <= 0.5 and cos_between(d, direction) >= -0.3:
            if t.is_double:
                value, penalty = t.values[0], (0.0 if t.values[0] == end_value else 0.6)
            elif t.could_be(end_value):
                value, penalty = end_value, CROSSWISE_READ_PENALTY
            else:
                value, penalty = end_value, CROSSWISE_UNSURE_PENALTY
            score = abs(r - 1) + across + penalty
            options.append(Attach(score, t, value, value, t.centre, unit(d)))
    return min(options, key=lambda o: o.score) if options else None


def start_trains(b: TableBuild) -> None:
    """Start ``b.chains``: a train from each slot whose nearest tile lies radially by the
    hub, its near half towards it (taken from ``b.pool``)."""
    slots = b.players + 1
    radial: list[tuple[float, PlacedTile, int]] = []
    for t in b.pool.values():
        k = nearer_half(t, b.hub)
        out = t.halves[k] - b.hub
        if cos_between(out, t.halves[1 - k] - t.halves[k]) >= math.cos(math.radians(30)):
            radial.append((float(np.linalg.norm(out)), t, k))
    radial.sort(key=lambda r: r[0])
    if b.on_mat:
        reach = SLOT_RADIUS_MM + 1.8 * b.w
    else:
        matching = [r for r, t, k in radial if t.values[k] == b.e and r <= 9 * b.w]
        reach = (matching[0] if matching else 2.0 * b.w) + 1.3 * b.w
    chains: dict[int, Chain] = {}
    for r, t, k in radial:
        if r > reach:
            break
        angle = angle_deg(t.halves[k] - b.hub)
        slot, off = nearest_slot(angle, slots)
        owner: Owner = MEXICAN if slot == b.players else slot
        if slot in chains:
            b.report(Uncertainty(
                "slot-conflict", f"two trains start in the slot of train {owner}",
                (chains[slot].tiles[0][0], t.index), (owner,)))
            continue
        if off > 0.3:
            b.report(Uncertainty(
                "between-seats", f"a train leaves the hub at {angle:.0f} degrees, between seats; "
                f"took train {owner}", (t.index,), (owner,)))
        near, far = t.values[k], t.values[1 - k]
        chains[slot] = Chain(owner, angle, [(t.index, near, far)], t.halves[1 - k],
                             unit(t.halves[1 - k] - t.halves[k]), t, t,
                             links=[(b.hub, unit(t.halves[k] - b.hub))])
    b.chains = [chains[s] for s in sorted(chains)]
    for chain in b.chains:
        b.pool.pop(chain.tiles[0][0])


#: What a train would take, were it alone: ``(attach, clean, tied)`` per tile (``claim``).
Claim = list[tuple[Attach, bool, bool]]


def claim(chain: Chain, pool: dict[int, PlacedTile], w: float) -> Claim:
    """Grow ``chain`` as if it were alone: ``(attach, clean, tied)`` per tile it would take.

    ``clean`` says every value matched up to and including this tile; ``tied``
    that another tile continued the train about as well (``TIE_MARGIN``): of
    those, the one the train goes on from by the most matching tiles is taken
    (``run_length``; a spurious box read 3-5 on a 5 end, beside the 5-5 the
    rest of a 15-tile train goes on from), on a tie the one fitting best.
    """
    end = End(chain.end_ref, chain.direction, chain.tiles[-1][2],
              chain.tiles[-1][1] == chain.tiles[-1][2])
    clean = True
    taken: set[int] = set()
    out: Claim = []
    while True:
        found = options(end, pool, taken, w)
        if not found:
            return out
        best = found[0]
        tied = len(found) > 1 and found[1].score - best.score < TIE_MARGIN
        if tied:
            # of tiles continuing the train about as well, the one it goes on furthest from
            close = [a for a in found if a.score - best.score < TIE_MARGIN]
            best = max(close, key=lambda a: run_length(a, end.value, pool, taken, w))
        clean = clean and best.near == end.value
        out.append((best, clean, tied))
        taken.add(best.tile.index)
        end = best.end


def options(end: End, pool: dict[int, PlacedTile], taken: set[int], w: float) -> list[Attach]:
    """The loose tiles that could continue a train's end, best first."""
    return sorted((a for t in pool.values() if t.index not in taken
                   and (a := attach(end, t, w))),
                  key=lambda a: a.score)


def run_length(first: Attach, end_value: int, pool: dict[int, PlacedTile], taken: set[int],
               w: float) -> int:
    """How many tiles a train ending in ``end_value`` goes on by, each matching, once
    ``first`` is laid on it (it included; 0 when it does not match): each the best that
    continues it."""
    if first.near != end_value:
        return 0
    used = set(taken) | {first.tile.index}
    n, a = 1, first
    while True:
        found = options(a.end, pool, used, w)
        if not found or found[0].near != a.far:
            return n
        a = found[0]
        used.add(a.tile.index)
        n += 1


def _settle_claims(claims: list[Claim]
                   ) -> tuple[list[int], dict[int, tuple[tuple[bool, int], int]],
                              dict[int, list[int]]]:
    """Cut each claim where another train wins one of its tiles (the train to which the
    tile is clean soonest): the lengths kept, the winner of each tile, and the trains
    that claimed each tile."""
    lengths = [len(c) for c in claims]
    contested: dict[int, list[int]] = {}
    while True:
        winner: dict[int, tuple[tuple[bool, int], int]] = {}
        for ci, claimed in enumerate(claims):
            for k, (a, clean, _) in enumerate(claimed[:lengths[ci]]):
                key = (not clean, k)
                index = a.tile.index
                if len(claims) > 1:
                    contested.setdefault(index, [])
                    if ci not in contested[index]:
                        contested[index].append(ci)
                if index not in winner or key < winner[index][0]:
                    winner[index] = (key, ci)
        changed = False
        for ci, claimed in enumerate(claims):
            for k, (a, _, _) in enumerate(claimed[:lengths[ci]]):
                if winner[a.tile.index][1] != ci:
                    lengths[ci] = k
                    changed = True
                    break
        if not changed:
            return lengths, winner, contested


def grow(b: TableBuild) -> None:
    """Give each train the tiles that continue it; a tile two trains want is reported."""
    chains = b.chains
    claims = [claim(chain, b.pool, b.w) for chain in chains]
    lengths, winner, contested = _settle_claims(claims)
    reported: set[int] = set()
    for index, claimants in contested.items():
        if len(claimants) < 2 or index in reported:
            continue
        owner_ci = winner[index][1] if index in winner else None
        losers = [ci for ci in claimants if ci != owner_ci]
        first_loss = [ci for ci in losers
                      if lengths[ci] < len(claims[ci])
                      and claims[ci][lengths[ci]][0].tile.index == index]
        if owner_ci is None or not first_loss:
            continue
        reported.add(index)
        names = [chains[owner_ci].owner] + [chains[ci].owner for ci in first_loss]
        b.report(Uncertainty(
            "fits-two-trains",
            f"tile {index} fits trains {' and '.join(map(str, names))}; took train {names[0]}",
            (index,), tuple(names)))
    for ci, chain in enumerate(chains):
        for a, _, tied in claims[ci][:lengths[ci]]:
            _lay(b, chain, a, tied)


def _lay(b: TableBuild, chain: Chain, a: Attach, tied: bool) -> None:
    """Lay ``a`` on ``chain``, reporting a tie and a tile taken otherwise than read."""
    if tied:
        b.report(Uncertainty(
            "branch", f"two tiles could continue train {chain.owner} after tile "
            f"{chain.tiles[-1][0]}; took tile {a.tile.index}",
            (a.tile.index,), (chain.owner,)))
    chain.lay((a.tile.index, a.near, a.far), a.end_ref, a.direction, a.tile)
    read = a.tile.values
    if (a.near, a.far) not in (read, read[::-1]):
        b.report(Uncertainty(
            "matched-read", f"tile {a.tile.index} was read {read[0]}-{read[1]}; "
            f"it lies crosswise at the end of train {chain.owner}: taken as "
            f"{a.near}-{a.far}", (a.tile.index,), (chain.owner,)))
    b.pool.pop(a.tile.index)


def report_leftovers(b: TableBuild) -> None:
    """Report each box no train took: beyond a train's end with a gap (``gap``), or
    touching no train (``loose-tile``)."""
    for t in sorted(b.pool.values(), key=lambda t: t.index):
        gap_of: Owner | None = None
        for chain in b.chains:
            k = nearer_half(t, chain.end_ref)
            d = t.halves[k] - chain.end_ref
            r = float(np.linalg.norm(d)) / b.w
            if TOUCH_HIGH < r <= GAP_WIDTHS and cos_between(d, chain.direction) >= math.cos(
                    math.radians(35)):
                gap_of = chain.owner
                break
        if gap_of is not None:
            b.report(Uncertainty(
                "gap", f"tile {t.index} {list(t.values)} lies beyond the end of train {gap_of} "
                "with a gap", (t.index,), (gap_of,)))
        else:
            b.report(Uncertainty(
                "loose-tile", f"tile {t.index} {list(t.values)} touches no train", (t.index,)))
