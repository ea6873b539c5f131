"""Calibration: learn a player's set from photos of the whole set laid out face up.

Every tile of a double-N set appears exactly once, so once the photos are read
(each half's count, certainty and range, ``vision.reading.reader``), the best labelling
of the tiles found is an optimal assignment (``vision.calibration.assignment``) of them to
the set's tiles, costed by the halves' log-beliefs in either orientation. The
pip colours of the halves so labelled give a first profile
(``vision.reading.set_profile.fit_profile``); the assignment is then made again with
each half's colour likelihood under that profile, and the profile fitted
again. Tiles whose label is not clearly better than any other, or differs from
what the reader read, are *doubtful*: the player confirms or corrects them
(``Calibration.corrected``) before the profile is kept.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.errors import BadInputError
from vision.calibration.assignment import assign
from vision.reading.pip_colour import half_colour, pip_blobs
from vision.reading.set_profile import SetProfile, fit_profile, reader_belief

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vision.reading.reader import TileReader, TileReading

#: A label is doubtful when another label is less than this much less likely (a log
#: ratio: e^3, about 20 times).
DOUBT_MARGIN = 3.0
#: Cost of a tile found that no set tile is left for, and of a set tile not found (the
#: assignment's padding): far above any real label's cost.
UNMATCHED_COST = 1e3
#: How far a half's count of pip-coloured spots is trusted to be its count when naming
#: the colour groups (the rest spread over every count).
BLOB_TRUST = 0.4
#: Steps of the balanced k-means that groups the halves' colours (``colour_groups``).
GROUP_STEPS = 6

Pair = tuple[int, int]


@dataclass(frozen=True)
class CalibrationTile:
    """One tile found in a calibration photo: where, what the reader read, its halves'
    pip colours, and the set tile the calibration labels it (``None``: none left)."""

    photo: int
    corners: np.ndarray
    read: Pair
    #: The reader's belief in each count, per half (``vision.reading.set_profile.reader_belief``).
    beliefs: tuple[np.ndarray, np.ndarray]
    colours: tuple[np.ndarray | None, np.ndarray | None]
    #: Pip-coloured spots on each half (``vision.reading.pip_colour.pip_blobs``).
    blobs: tuple[int, int] = (0, 0)
    label: Pair | None = None
    #: How much less likely (log) the next best label is; negative when the tile's own
    #: likeliest label went to another tile.
    margin: float = 0.0
    #: The player confirmed or set the label.
    confirmed: bool = False

    @property
    def doubtful(self) -> bool:
        """Worth the player's look: unlabelled, a thin margin, or labelled otherwise than
        read (and not confirmed)."""
        if self.confirmed:
            return False
        return (self.label is None or self.margin < DOUBT_MARGIN
                or tuple(sorted(self.label)) != tuple(sorted(self.read)))

    def to_json(self) -> dict[str, Any]:
        return {"photo": self.photo,
                "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
                "read": list(self.read),
                "label": None if self.label is None else list(self.label),
                "margin": round(float(self.margin), 2), "doubtful": self.doubtful}


@dataclass(frozen=True)
class Calibration:
    """The tiles found in a set's photos, their labels and the profile they teach."""

    top: int
    tiles: tuple[CalibrationTile, ...]
    profile: SetProfile

    @property
    def doubtful(self) -> list[int]:
        """Indices of the tiles the player should look at."""
        return [i for i, t in enumerate(self.tiles) if t.doubtful]

    @property
    def missing(self) -> list[Pair]:
        """Set tiles no tile found was labelled as."""
        labelled = {t.label for t in self.tiles if t.label is not None}
        return [p for p in set_tiles(self.top) if p not in labelled]

    def corrected(self, labels: dict[int, Pair | None]) -> Calibration:
        """This calibration with the player's word on some tiles (index -> the set tile
        it is, or None: not a tile), those confirmed and the profile fitted again."""
        tiles = list(self.tiles)
        for i, label in labels.items():
            if not 0 <= i < len(tiles):
                raise BadInputError("calibration", f"no tile {i} (there are {len(tiles)})")
            if label is not None:
                label = _in_set(label, self.top)
            tiles[i] = replace(tiles[i], label=label, confirmed=True)
        return Calibration(self.top, tuple(tiles), _fit(self.top, tiles, self.profile.name))

    def state(self) -> dict[str, Any]:
        """Everything needed to take the player's corrections later (``from_state``)."""
        return {"top": self.top, "name": self.profile.name,
                "tiles": [{"photo": t.photo, "corners": t.corners.tolist(), "read": list(t.read),
                           "beliefs": [b.tolist() for b in t.beliefs],
                           "colours": [None if c is None else c.tolist() for c in t.colours],
                           "blobs": list(t.blobs),
                           "label": None if t.label is None else list(t.label),
                           "margin": t.margin, "confirmed": t.confirmed} for t in self.tiles]}

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> Calibration:
        """The calibration ``state`` describes (written by ``state``)."""
        try:
            top = int(state["top"])
            tiles = tuple(CalibrationTile(
                int(t["photo"]), np.array(t["corners"], np.float32),
                (int(t["read"][0]), int(t["read"][1])),
                (np.array(t["beliefs"][0]), np.array(t["beliefs"][1])),
                (None if t["colours"][0] is None else np.array(t["colours"][0]),
                 None if t["colours"][1] is None else np.array(t["colours"][1])),
                (int(t["blobs"][0]), int(t["blobs"][1])),
                None if t["label"] is None else (int(t["label"][0]), int(t["label"][1])),
                float(t["margin"]), bool(t["confirmed"])) for t in state["tiles"])
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise BadInputError("calibration", f"not a saved calibration ({exc})") from None
        return cls(top, tiles, _fit(top, tiles, str(state.get("name", ""))))

    def to_json(self) -> dict[str, Any]:
        """``mtrain calibrate --json``'s form."""
        return {"set": self.top, "found": len(self.tiles),
                "assigned": sum(t.label is not None for t in self.tiles),
                "doubtful": self.doubtful,
                "missing": [list(p) for p in self.missing],
                "tiles": [t.to_json() for t in self.tiles],
                "profile": self.profile.to_json()}


def set_tiles(top: int) -> list[Pair]:
    """The tiles of a double-``top`` set, ``(low, high)``, each once."""
    return [(a, b) for a in range(top + 1) for b in range(a, top + 1)]


def _in_set(label: Pair, top: int) -> Pair:
    a, b = sorted(int(v) for v in label)
    if a < 0 or b > top:
        raise BadInputError("calibration", f"{a}-{b} is not a tile of a double-{top} set")
    return (a, b)


def seen_tiles(photo: int, image: np.ndarray, readings: Sequence[TileReading],
               top: int) -> list[CalibrationTile]:
    """The tiles read in one photo, with each half's belief and pip colour."""
    from vision.models.detections import Detections
    from vision.reading.reader import HalfCount, tile_half_crops

    out = []
    for r in readings:
        ranges = r.ranges or ((r.values[0],) * 2, (r.values[1],) * 2)
        halves = [HalfCount(v, c, Detections.empty(), low, high)
                  for v, c, (low, high) in zip(r.values, r.half_certainty, ranges, strict=True)]
        first, second = tile_half_crops(image, np.asarray(r.corners, np.float32))
        out.append(CalibrationTile(photo, np.asarray(r.corners, np.float32),
                                   (int(r.values[0]), int(r.values[1])),
                                   (reader_belief(halves[0], top), reader_belief(halves[1], top)),
                                   (half_colour(first), half_colour(second)),
                                   (pip_blobs(first), pip_blobs(second))))
    return out


def label_tiles(tiles: Sequence[CalibrationTile], top: int, profile: SetProfile | None = None
                ) -> list[CalibrationTile]:
    """``tiles`` labelled by the optimal assignment to the set's tiles (each once), costed
    by the halves' log-beliefs, times their colour likelihoods under ``profile`` when
    given, in the likelier orientation. Confirmed tiles keep their labels."""
    pairs = set_tiles(top)
    fixed = {t.label for t in tiles if t.confirmed and t.label is not None}
    open_pairs = [p for p in pairs if p not in fixed]
    free = [i for i, t in enumerate(tiles) if not t.confirmed]
    out = list(tiles)
    if not free or not open_pairs:
        return out
    score = np.array([_scores(tiles[i], top, profile) for i in free])  # (free, all pairs)
    columns = [pairs.index(p) for p in open_pairs]
    score = score[:, columns]
    cost = np.minimum(-score, UNMATCHED_COST)
    chosen = assign(cost)
    for row, i in enumerate(free):
        col = int(chosen[row])
        if col < 0:
            out[i] = replace(tiles[i], label=None, margin=0.0)
            continue
        others = np.delete(score[row], col)
        margin = float(score[row, col] - others.max()) if len(others) else float("inf")
        out[i] = replace(tiles[i], label=open_pairs[col], margin=margin)
    return out


def _scores(tile: CalibrationTile, top: int, profile: SetProfile | None) -> np.ndarray:
    """Log-likelihood of ``tile`` being each set tile (``set_tiles`` order)."""
    logs = []
    for belief, colour in zip(tile.beliefs, tile.colours, strict=True):
        weight = belief.copy()
        if profile is not None and profile.colour_coded:
            weight = weight * profile.colour_likelihood(colour)
        logs.append(np.log(np.maximum(weight / max(weight.sum(), 1e-300), 1e-300)))
    first, second = logs
    return np.array([max(first[a] + second[b], first[b] + second[a])
                     for a, b in set_tiles(top)])


def _orient(tile: CalibrationTile, profile: SetProfile | None, top: int) -> Pair | None:
    """``tile``'s label as its halves show it (first half's count first)."""
    if tile.label is None:
        return None
    a, b = tile.label
    scores = []
    for first, second in ((a, b), (b, a)):
        total = 0.0
        for n, belief, colour in zip((first, second), tile.beliefs, tile.colours, strict=True):
            weight = belief[n] * (1.0 if profile is None
                                  else float(profile.colour_likelihood(colour)[n]))
            total += float(np.log(max(weight, 1e-300)))
        scores.append(total)
    return (a, b) if scores[0] >= scores[1] else (b, a)


def _fit(top: int, tiles: Sequence[CalibrationTile], name: str,
         profile: SetProfile | None = None) -> SetProfile:
    labelled: list[tuple[int, np.ndarray | None]] = []
    reads: list[tuple[int, int]] = []
    for t in tiles:
        oriented = _orient(t, profile, top)
        if oriented is not None:
            labelled += list(zip(oriented, t.colours, strict=True))
            reads += list(zip(oriented, t.read, strict=True))
    return fit_profile(top, labelled, name, reads)


def colour_groups(tiles: Sequence[CalibrationTile], top: int, first: SetProfile) -> SetProfile:
    """The profile of the colours' own groups: the halves' pip colours split into ``top``
    groups of ``top + 2`` (each count but 0 shows on that many halves of the set) by a
    balanced k-means (each step an optimal assignment to the groups' places), starting
    from ``first``'s colours; each group then named by an optimal assignment of groups
    to counts, costed by its halves' log-beliefs and spot counts (``BLOB_TRUST``). The
    reader may misread a count it never saw on every tile, but its pips share a colour."""
    halves = [(belief, colour, blobs) for t in tiles
              for belief, colour, blobs in zip(t.beliefs, t.colours, t.blobs, strict=True)]
    coloured = [(b, c, n) for b, c, n in halves if c is not None]
    if len(coloured) < top:
        return first
    points = np.array([c for _, c, _ in coloured])
    rng = np.random.default_rng(0)
    centres = np.array([c.mean if c.mean is not None else points[rng.integers(len(points))]
                        for c in first.colours[1:]], np.float64)
    places = np.repeat(np.arange(top), top + 2)
    group = np.zeros(len(points), int)
    for _ in range(GROUP_STEPS):
        gaps = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        chosen = assign(gaps[:, places])
        group = np.where(chosen >= 0, places[np.maximum(chosen, 0)], -1)
        for k in range(top):
            if np.any(group == k):
                centres[k] = np.median(points[group == k], axis=0)
    logs = np.log(np.array([b for b, _, _ in coloured]))  # (halves, top + 1)
    spots = np.array([n for _, _, n in coloured])[:, None] == np.arange(top + 1)[None, :]
    logs += np.log(BLOB_TRUST * spots + (1 - BLOB_TRUST) / (top + 1))
    cost = np.array([-logs[group == k, 1:].sum(axis=0) for k in range(top)])
    count_of = assign(cost) + 1  # group -> count
    labelled: list[tuple[int, np.ndarray | None]] = [
        (int(count_of[g]), c) for g, (_, c, _) in zip(group, coloured, strict=True) if g >= 0]
    labelled += [(0, None)] * (len(halves) - len(coloured))
    return fit_profile(top, labelled, first.name)


def calibrate_tiles(tiles: Sequence[CalibrationTile], top: int, name: str = "") -> Calibration:
    """Label ``tiles`` (all the photos' tiles) and learn the set's profile from them: by
    the reader alone, then, for a colour-coded set, by the colours' own groups
    (``colour_groups``) and the labels they lead to."""
    if not 1 <= top <= 18:
        raise BadInputError("calibration", f"a set's largest half is 1 to 18, got {top}")
    labelled = label_tiles(tiles, top)
    profile = _fit(top, labelled, name)
    if not profile.colour_coded:
        return Calibration(top, tuple(labelled), profile)
    best: tuple[float, list[CalibrationTile], SetProfile] | None = None
    for start in (profile, colour_groups(labelled, top, profile)):
        again = label_tiles(labelled, top, start)
        fitted = _fit(top, again, name, start)
        total = _explained(again, top, fitted)
        if best is None or total > best[0]:
            best = (total, again, fitted)
    assert best is not None
    return Calibration(top, tuple(best[1]), best[2])


def _explained(tiles: Sequence[CalibrationTile], top: int, profile: SetProfile) -> float:
    """How well ``profile`` and the labels explain the tiles: the sum of the labelled
    tiles' log-likelihoods (the better of two candidate calibrations is kept)."""
    pairs = set_tiles(top)
    return float(sum(_scores(t, top, profile)[pairs.index(t.label)]
                     for t in tiles if t.label is not None))


def calibrate(reader: TileReader, photos: Sequence[str | os.PathLike[str] | np.ndarray],
              top: int, name: str = "") -> Calibration:
    """Read the photos of a whole double-``top`` set (with ``reader`` as it is, without a
    profile) and calibrate to it (``calibrate_tiles``)."""
    from vision.images import load_image

    images = [p if isinstance(p, np.ndarray) else load_image(p) for p in photos]
    plain = reader.for_set(top).with_profile(None)
    tiles: list[CalibrationTile] = []
    for k, image in enumerate(images):
        tiles += seen_tiles(k, image, plain.read(image).tiles.each(), top)
    if not tiles:
        raise BadInputError("calibration", "no tiles found in the photos")
    return calibrate_tiles(tiles, top, name)
