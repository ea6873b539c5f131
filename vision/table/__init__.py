"""From tiles read in one image to the table: the engine, each train, its seat, its marker.

:func:`reconstruct` works on geometry and values alone (no pixels), so it is
tested on laid-out tables without drawing anything.

How a table is read (``vision.table.pipeline``, one module per stage, sharing one
``build.TableBuild``):

0. **Boxes** (``joints``): a box whose halves lie in two other boxes straddles their
   joint, and two boxes each holding the other's halves are one tile boxed twice:
   of overlapping boxes the most that do not overlap are kept.
1. **The engine** (``hub``) is the double in the hub: with the mat, the double on
   the mat's centre (any other box there is a piece of it); without it, a double
   that touches no other tile and from which the most tiles carrying its
   number lead away, radially (or a tile the reader's doubt allows to be a double,
   when more trains leave it with that count).
2. **Trains** (``chains``) start with a tile lying radially near the hub, its near
   half towards the engine, and grow tile by tile: the next tile's near half lies
   one tile width from the previous tile's far half (straight on, or turned a
   right angle against the side of that half), and a double lies crosswise,
   its centre one width on. The values are not needed to chain tiles (a tile
   laid with the wrong number is still on that train, for the rules engine to
   judge), but they break ties. A train that goes on one unseen tile beyond its
   end continues across a tile inferred there (``gaps``): past a box it cannot take,
   onto a double lying across, or across two unseen tiles whose joint a box shows;
   a tile lying a little beyond the end, too close for a tile between, continues it
   across nothing (``short-gap``: laid a little off, or a box off its tile).
3. **Seats**: ``P`` players' trains and the Mexican train leave the hub in
   ``P + 1`` evenly spaced slots, seat 0 towards the bottom of the image (or
   the mat's seat-0 slot), clockwise; the last slot is the Mexican train's.
4. **Counts** (``counts/``, ``consistency``): once the trains are laid, misread counts are
   settled by their neighbours, the set's one tile of each kind and the reader's
   ranges; last, the table is decoded jointly under the set (``decode``): a repeat
   read with doubt takes the likeliest counts that repeat nothing (``set-decoded``,
   :attr:`TableReading.decoded`); one read surely stays, for the rules.
5. **Markers** (``markers``) belong to the train whose end (or empty slot) they lie by.

Given a way to read the image again (``look``), boxes that fit no train are
read again where the table says a tile must lie (``reread-tile``; ``look_again``,
``rereads``).

Whatever cannot be resolved (two possible engines, a tile that fits two
trains, a tile laid after a gap, a tile that touches nothing, a marker between
two trains) is reported in :attr:`TableReading.uncertainties`, never guessed
silently.
"""

from __future__ import annotations

from vision.table.chains import (
    CROSSWISE_READ_PENALTY,
    CROSSWISE_UNSURE_PENALTY,
    GAP_WIDTHS,
    MAX_BEND_DEG,
    TIE_MARGIN,
    TOUCH_HIGH,
    TOUCH_LOW,
)
from vision.table.gaps import (
    BRIDGE_BEND_DEG,
    BRIDGE_DOUBLE,
    BRIDGE_SINGLE,
    BRIDGE_TURN_REACH,
    BRIDGE_TWO,
    JOINT_REACH,
    SHORT_GAP,
)
from vision.table.hub import ENGINE_REACH_WIDTHS, HUB_INSIDE, HUB_TURNS, WIDTH_FACTOR
from vision.table.joints import INSIDE_MARGIN
from vision.table.look_again import (
    EMPTY_OUTLINE_SURE,
    LOOK_AROUND_WIDTHS,
    LOOK_NEAR_WIDTHS,
    OVER_HALF_WIDTHS,
    SURE_HALF,
)
from vision.table.markers import MARKER_REACH_WIDTHS, MARKER_TILE_IOU, PRINT_MARGIN_MM
from vision.table.pipeline import reconstruct
from vision.table.reading import (
    UNPLACED,
    Look,
    TableReading,
    Uncertainty,
    with_unsure_markers,
)
from vision.table.rereads import TURNED_REREAD_SURE

__all__ = [
    "BRIDGE_BEND_DEG",
    "BRIDGE_DOUBLE",
    "BRIDGE_SINGLE",
    "BRIDGE_TWO",
    "BRIDGE_TURN_REACH",
    "CROSSWISE_READ_PENALTY",
    "CROSSWISE_UNSURE_PENALTY",
    "EMPTY_OUTLINE_SURE",
    "ENGINE_REACH_WIDTHS",
    "GAP_WIDTHS",
    "HUB_INSIDE",
    "HUB_TURNS",
    "INSIDE_MARGIN",
    "JOINT_REACH",
    "LOOK_AROUND_WIDTHS",
    "LOOK_NEAR_WIDTHS",
    "Look",
    "MARKER_REACH_WIDTHS",
    "MARKER_TILE_IOU",
    "MAX_BEND_DEG",
    "OVER_HALF_WIDTHS",
    "PRINT_MARGIN_MM",
    "SHORT_GAP",
    "SURE_HALF",
    "TIE_MARGIN",
    "TOUCH_HIGH",
    "TOUCH_LOW",
    "TURNED_REREAD_SURE",
    "UNPLACED",
    "TableReading",
    "Uncertainty",
    "WIDTH_FACTOR",
    "reconstruct",
    "with_unsure_markers",
]
