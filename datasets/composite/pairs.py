"""Two still photos of one table taken by hand: the bare table, then the table with tiles.

``mtrain read IMAGE --empty EMPTY`` (``vision.stills.bare_photo``) lays a photo of the
bare table on a photo of the tiles. :func:`compose_pair` makes such a pair from a seed:
the table photo is composed as :func:`datasets.composite.compose.compose_frame` composes
a frame (a table, or with ``hands`` one player's hand), on a surface and with or without
the printed mat as asked; the bare photo is the same table top under the same light (the
cloth, the mat, the lamp's fall-off and glare) with nothing on it, taken again by a phone
held a little differently (:class:`Shot`: shifted, turned, scaled and tilted a little, a
homography; exposed brighter or darker), each photo with its own noise and JPEG. Where
the second shot sees past the first, the table top is mirrored out (a strip that lies
outside the table photo). The labels are the table photo's, with ``"pair"``: the shot's
homography (bare photo pixels to table photo pixels), its gain, the surface and the mat.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.composite.compose import (
    HAND_KIND,
    HAND_SET,
    KIND,
    _background,
    _Canvas,
    _draw_objects,
    _glare,
    _light_field,
    finish,
    hand_values,
)
from datasets.composite.hand_plan import HAND_FRAME, plan_hand
from datasets.composite.library import SpriteLibrary
from datasets.composite.plan import FRAME, plan_frame, set_shown

#: The surfaces a pair is laid on (``datasets.surfaces``).
PAIR_SURFACES = ("stripes", "checks", "gingham", "leather", "wood", "felt")
#: The second shot: shifted up to this share of the frame's width each way, turned up to
#: ``TURN_DEG``, scaled by up to ``SCALE`` either way, each corner tilted up to ``TILT``
#: of the width, exposed by a gain within ``GAIN``.
SHIFT = 0.04
TURN_DEG = 4.0
SCALE = 0.06
TILT = 0.012
GAIN = (0.7, 1.35)
#: Tries at a seed's plan before a pair with no tile in view is taken as it is.
TRIES = 8


@dataclass(frozen=True)
class Shot:
    """How the bare photo was taken against the table photo: ``homography`` (3x3) maps its
    pixels to the table photo's, ``gain`` its exposure against the table photo's."""

    homography: np.ndarray
    gain: float

    @classmethod
    def hand_held(cls, rng: np.random.Generator, size: tuple[int, int]) -> Shot:
        """A second shot by a phone held by hand over a ``size`` (w, h) frame."""
        w, h = size
        centre = np.array([w / 2, h / 2])
        turn = np.radians(rng.uniform(-TURN_DEG, TURN_DEG))
        scale = float(np.exp(rng.uniform(-SCALE, SCALE)))
        shift = rng.uniform(-SHIFT, SHIFT, 2) * w
        c, s = np.cos(turn) * scale, np.sin(turn) * scale
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        moved = (src - centre) @ np.array([[c, s], [-s, c]]) + centre + shift
        moved += rng.uniform(-TILT, TILT, (4, 2)) * w
        matrix = cv2.getPerspectiveTransform(src.astype(np.float32), moved.astype(np.float32))
        return cls(matrix / matrix[2, 2], float(rng.uniform(*GAIN)))

    def take(self, picture: np.ndarray) -> np.ndarray:
        """The float picture as this shot sees it: each of its pixels shows what lies at
        ``homography`` of it in ``picture``; exposed by ``gain``."""
        h, w = picture.shape[:2]
        seen = cv2.warpPerspective(picture, self.homography, (w, h),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REFLECT_101)
        return np.asarray(seen * self.gain, np.float32)


def pair_rng(seed: int, index: int, attempt: int) -> np.random.Generator:
    return np.random.default_rng([int(seed), int(index), int(attempt), 0x70616972])


def compose_pair(library: SpriteLibrary, seed: int, index: int, surface: str, mat: bool,
                 hands: bool = False) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Pair ``index`` of ``seed`` on ``surface`` (with the mat when ``mat``; a hand photo
    when ``hands``, never on the mat): the bare photo, the table photo (BGR uint8) and the
    table photo's labels (see the module's notes)."""
    for attempt in range(TRIES):
        bare, photo, labels = _compose(library, pair_rng(seed, index, attempt), surface,
                                       mat and not hands, hands)
        if labels["tiles"]:
            break
    labels["composite"] = {"seed": seed, "index": index, "attempt": attempt,
                           "surface": labels.pop("surface"), "mat": mat and not hands}
    return bare, photo, labels


def _compose(library: SpriteLibrary, rng: np.random.Generator, surface: str, mat: bool,
             hands: bool) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    size = HAND_FRAME if hands else FRAME
    plan = (plan_hand(rng, hand_values(library), HAND_SET, size) if hands
            else plan_frame(rng, size, mat=mat))
    img, name = _background(rng, plan.camera, library, plan, surface)
    light = _light_field(rng, size)
    table, empty = _Canvas(img, light), _Canvas(img, light)
    w, h = size
    labels: dict[str, Any] = {"width": w, "height": h, "kind": HAND_KIND if hands else KIND,
                              "tiles": [], "pips": [], "markers": [], "face_down": []}
    exact = _draw_objects(table, plan, library, rng, 0.0 if hands else 0.3, labels)
    shadows = int(rng.integers(1 << 31))
    photo = table.compose(np.random.default_rng(shadows))
    bare = empty.compose(np.random.default_rng(shadows))
    if rng.random() < 0.25:  # the lamp's glare lies on the table in both
        glare = int(rng.integers(1 << 31))
        _glare(photo, np.random.default_rng(glare))
        _glare(bare, np.random.default_rng(glare))
    shot = Shot.hand_held(rng, size)
    bare_photo = finish(shot.take(bare), rng)
    top = HAND_SET if hands else set_shown(plan.set_max, labels["tiles"])
    labels.update({"set": top, "players": plan.players,
                   "table": plan.table if exact and not hands else None, "surface": name,
                   "pair": {"homography": [[float(v) for v in row] for row in shot.homography],
                            "gain": round(shot.gain, 4)}})
    return bare_photo, finish(photo, rng), labels
