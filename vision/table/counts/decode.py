"""The trains' counts decoded together under the set: every tile exists once.

A train's counts are the counts at its joints: where two tiles meet, the far half of
one and the near half of the next show one count (a double lying across shows the
same count on both its sides: one joint). Each joint's count has a likelihood from
the halves showing it (the reader's ``half_certainty`` for the count it read, the
rest spread over the counts its ``ranges`` allow). Where the table holds one tile
twice, the joint whose change to another count removes the repeat at the least loss
of likelihood takes that count, with both tiles it joins, provided no half it
changes was read surely (``SURE_HALF``) and no tile it makes is on the table already.
A repeat read surely stays, for the rules (``duplicate-tile``): an alert still needs
a confident reading. Each tile changed is reported (``set-decoded``) and listed in
:attr:`TableBuild.decoded`.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from vision.table.build import TableBuild, end_ranges, lies_along
from vision.table.look_again import SURE_HALF
from vision.table.reading import Uncertainty

#: Likelihood floor of a count a half's ``ranges`` allow (keeps logs finite).
FLOOR = 1e-3
#: Repeats resolved per table at most (each move removes one).
MAX_MOVES = 16

Kind = tuple[int, int]


@dataclass
class _Half:
    """One half showing a joint's count: its tile, the count read, how surely, its range."""

    idx: int
    read: int
    sure: float
    low: int
    high: int

    def log_p(self, v: int) -> float:
        if not self.low <= v <= self.high:
            return -math.inf
        if v == self.read:
            return math.log(max(self.sure, FLOOR))
        if self.sure >= SURE_HALF:
            return -math.inf
        return math.log(max((1.0 - self.sure) / max(self.high - self.low, 1), FLOOR))


@dataclass
class _Joint:
    value: int
    halves: list[_Half] = field(default_factory=list)
    fixed: bool = False

    def log_p(self, v: int) -> float:
        return sum(h.log_p(v) for h in self.halves)

    def options(self) -> range:
        low = max((h.low for h in self.halves), default=self.value)
        high = min((h.high for h in self.halves), default=self.value)
        return range(low, high + 1)


@dataclass
class _Laid:
    """A tile on a train: its chain and place, and its near and far joints."""

    chain: int
    k: int
    idx: int
    near: int
    far: int


def _halves(b: TableBuild, idx: int, near: int, far: int) -> tuple[_Half, _Half]:
    tile = b.tiles[idx]
    (nlo, nhi), (flo, fhi) = end_ranges(tile, near, far)
    read = (int(tile.values[0]), int(tile.values[1]))
    sure = tuple(float(c) for c in tile.half_certainty)
    if (near, far) not in (read, read[::-1]):
        return _Half(idx, near, 1.0, near, near), _Half(idx, far, 1.0, far, far)
    k = 0 if read == (near, far) else 1
    return _Half(idx, near, sure[k], nlo, nhi), _Half(idx, far, sure[1 - k], flo, fhi)


def _joints(b: TableBuild) -> tuple[list[_Joint], list[_Laid]]:
    """The joints of every train (the engine's count first, fixed) and its tiles."""
    joints = [_Joint(b.e, fixed=True)]
    laid: list[_Laid] = []
    for ci, chain in enumerate(b.chains):
        prev = 0
        for k, (idx, near, far) in enumerate(chain.tiles):
            near_half, far_half = _halves(b, idx, near, far)
            if near != joints[prev].value:  # a mismatch left for the rules: its own joint
                joints.append(_Joint(near))
                prev = len(joints) - 1
            joints[prev].halves.append(near_half)
            n = prev
            if near == far and not lies_along(chain, k, b.w):
                joints[n].halves.append(far_half)  # a double across: one count both sides
            else:
                joints.append(_Joint(far, [far_half]))
            prev = len(joints) - 1
            laid.append(_Laid(ci, k, idx, n, prev))
    return joints, laid


def _kind(joints: list[_Joint], t: _Laid, moved: int = -1, value: int = 0) -> Kind:
    a = value if t.near == moved else joints[t.near].value
    c = value if t.far == moved else joints[t.far].value
    return (min(a, c), max(a, c))


def _best_move(joints: list[_Joint], laid: list[_Laid], seen: Counter[Kind]
               ) -> tuple[float, int, int] | None:
    """The joint and count that remove a repeat at the least loss: (gain, joint, count)."""
    repeats = {k for k, n in seen.items() if n > 1}
    best: tuple[float, int, int] | None = None
    for j, joint in enumerate(joints):
        touching = [t for t in laid if j in (t.near, t.far)]
        if joint.fixed or not any(_kind(joints, t) in repeats for t in touching):
            continue
        now = joint.log_p(joint.value)
        for v in joint.options():
            if v == joint.value:
                continue
            gain = joint.log_p(v) - now
            if gain == -math.inf or (best is not None and gain <= best[0]):
                continue
            after = seen.copy()
            for t in touching:
                after[_kind(joints, t)] -= 1
                after[_kind(joints, t, j, v)] += 1
            if all(after[_kind(joints, t, j, v)] == 1 for t in touching):
                best = (gain, j, v)
    return best


def decode_set(b: TableBuild) -> None:
    """Take the counts that make every tile on the table one of its kind, where the
    reader's doubt allows (see the module's docstring)."""
    joints, laid = _joints(b)
    seen: Counter[Kind] = Counter(_kind(joints, t) for t in laid)
    seen[(b.e, b.e)] += 1
    changed: set[int] = set()
    for _ in range(MAX_MOVES):
        move = _best_move(joints, laid, seen)
        if move is None:
            break
        _, j, v = move
        for t in laid:
            if j in (t.near, t.far):
                seen[_kind(joints, t)] -= 1
                seen[_kind(joints, t, j, v)] += 1
                changed.add(id(t))
        joints[j].value = v
    for t in laid:
        if id(t) not in changed:
            continue
        chain = b.chains[t.chain]
        idx, near, far = chain.tiles[t.k]
        new = (joints[t.near].value, joints[t.far].value)
        if new == (near, far):
            continue
        chain.tiles[t.k] = (idx, *new)
        read = (int(b.tiles[idx].values[0]), int(b.tiles[idx].values[1]))
        b.decoded[idx] = new
        b.report(Uncertainty(
            "set-decoded", f"tile {idx} was read {read[0]}-{read[1]}, a tile already on "
            f"the table; taken as {new[0]}-{new[1]}, the likeliest counts its reading allows "
            "that repeat no tile", (idx,), (chain.owner,)))
