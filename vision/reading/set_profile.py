"""A player's own set, as calibration learnt it: the colour of each count's pips.

A :class:`SetProfile` holds, for every count ``0..top`` of a double-``top``
set, where its pip colour lies (``vision.reading.pip_colour``: Lab chroma offset and
darkness against the face, mean and spread) and how often a half of that
count shows no measurable pips. A reader given a profile
(``TileReader.with_profile``) weighs each half's count by it: the reader's own
belief (its count, certainty and range) times the likelihood of the colour
seen, under each count. A set whose counts share one colour (black pips)
teaches nothing this way, and its profile leaves readings as they are.

Profiles are JSON files with a ``version``; ``load_profile`` checks every
field and names what is wrong.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from engine.errors import BadInputError

if TYPE_CHECKING:
    from collections.abc import Sequence


class HalfCount(Protocol):
    """A half's count as the reader gives it (``vision.reading.reader.HalfCount``)."""

    @property
    def value(self) -> int: ...
    @property
    def certainty(self) -> float: ...
    @property
    def low(self) -> int: ...
    @property
    def high(self) -> int: ...
    def _replace(self: Half, *, value: int, certainty: float, low: int, high: int) -> Half: ...


Half = TypeVar("Half", bound=HalfCount)

#: The profile file format's version.
PROFILE_VERSION = 1
#: The file a profile is kept in under the user's data folder (``default_profile_path``).
PROFILE_NAME = "set_profile.json"
#: Floor of a count's colour spread, per axis (Lab units): lighting and blur move it.
MIN_SPREAD = 8.0
#: Share of halves whose colour is off for a reason the profile cannot know (an arm, a
#: shadow, glare): their colour is as likely under every count.
COLOUR_OUTLIER = 0.2
#: The colour volume an outlier is spread over (Lab units cubed).
COLOUR_VOLUME = 120.0 * 120.0 * 60.0
#: The reader's belief in a count outside its range: never zero, so colour may overrule.
READER_FLOOR = 1e-3
#: Halves' worth of the reader's own belief mixed into what calibration saw it read.
READS_PRIOR = 2.0
#: A count is in a reweighed half's range while its share is at least this.
RANGE_SHARE = 0.15
#: Counts whose colour means lie this many spreads apart are told apart by colour.
DISTINCT_SPREADS = 3.0
#: A set is colour-coded when at least this share of its count pairs are told apart.
CODED_SHARE = 0.6


@dataclass(frozen=True)
class CountColour:
    """One count's pips: their colour ``(da, db, dark)`` mean and spread (``None`` when
    no half of it showed pips, as for blanks), from ``samples`` halves of which
    ``measured`` had a colour to measure."""

    count: int
    samples: int
    measured: int
    mean: tuple[float, float, float] | None = None
    spread: tuple[float, float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "samples": self.samples, "measured": self.measured,
                "mean": None if self.mean is None else [round(v, 3) for v in self.mean],
                "spread": None if self.spread is None else [round(v, 3) for v in self.spread]}


@dataclass(frozen=True)
class SetProfile:
    """A double-``top`` set's pip colours by count (``colours[n]`` is count ``n``)."""

    top: int
    colours: tuple[CountColour, ...]
    #: Free text: which set, from which photos.
    name: str = ""
    #: ``reads[n][m]``: halves of count ``n`` the reader read as ``m`` at calibration
    #: (``(top + 1)`` rows of ``top + 1``); empty when not known.
    reads: tuple[tuple[int, ...], ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.top <= 18:
            raise ValueError(f"a set's largest half is 1 to 18, got {self.top}")
        if [c.count for c in self.colours] != list(range(self.top + 1)):
            raise ValueError(f"colours must list counts 0 to {self.top} in order")
        if self.reads and (len(self.reads) != self.top + 1
                           or any(len(row) != self.top + 1 for row in self.reads)):
            raise ValueError(f"reads must be {self.top + 1} rows of {self.top + 1}")

    @property
    def colour_coded(self) -> bool:
        """Whether the counts' pip colours tell most of them apart."""
        known = [c for c in self.colours if c.mean is not None and c.spread is not None]
        pairs = apart = 0
        for i, first in enumerate(known):
            for second in known[i + 1:]:
                pairs += 1
                gap = np.subtract(first.mean, second.mean)  # type: ignore[arg-type]
                scale = np.hypot(np.maximum(first.spread, MIN_SPREAD),  # type: ignore[arg-type]
                                 np.maximum(second.spread, MIN_SPREAD))  # type: ignore[arg-type]
                apart += bool(np.sqrt(np.sum((gap / scale) ** 2)) > DISTINCT_SPREADS)
        return pairs > 0 and apart >= CODED_SHARE * pairs

    def colour_likelihood(self, colour: np.ndarray | None) -> np.ndarray:
        """The likelihood of a half's measured pip colour under each count ``0..top``:
        all ones when nothing was measured or the set is not colour-coded. A count with no
        colour of its own (a blank: specks, a shadow or the bevel may show) gets the
        known counts' mean, so that a stray colour neither favours nor rules it out."""
        out = np.ones(self.top + 1)
        if colour is None or not self.colour_coded:
            return out
        known = []
        for c in self.colours:
            if c.mean is None or c.spread is None:
                continue
            var = np.maximum(np.asarray(c.spread), MIN_SPREAD) ** 2
            z = float(np.sum((colour - np.asarray(c.mean)) ** 2 / var))
            gauss = math.exp(-0.5 * z) / math.sqrt((2 * math.pi) ** 3 * float(np.prod(var)))
            out[c.count] = COLOUR_OUTLIER / COLOUR_VOLUME + (1 - COLOUR_OUTLIER) * gauss
            known.append(c.count)
        if known:
            out[[c.count for c in self.colours if c.count not in known]] = out[known].mean()
        return out

    def reader_likelihood(self, half: HalfCount) -> np.ndarray:
        """How likely the reader's reading of a half is under each count ``0..top``: the
        share of that count's halves the reader read so at calibration (``reads``), with
        ``READS_PRIOR`` halves' worth of its own belief (``reader_belief``) mixed in; its
        belief alone without ``reads``. A count the reader misreads on this set the same
        way every time (a layout it never saw) is then as likely as the count read."""
        belief = reader_belief(half, self.top)
        if not self.reads:
            return belief
        seen = np.asarray(self.reads, np.float64)
        read = min(half.value, self.top)
        return (seen[:, read] + READS_PRIOR * belief) / (seen.sum(axis=1) + READS_PRIOR)

    def reweigh(self, halves: Sequence[Half], colours: Sequence[np.ndarray | None]
                ) -> list[Half]:
        """``halves`` as read, each count weighed by the set: ``reader_likelihood`` times
        ``colour_likelihood``; the likeliest count, its share as the certainty, and the
        counts holding ``RANGE_SHARE`` as the range. Unchanged when the profile knows
        neither the reader's readings nor colours that tell the counts apart."""
        if not self.reads and not self.colour_coded:
            return list(halves)
        out = []
        for half, colour in zip(halves, colours, strict=True):
            weight = self.reader_likelihood(half) * self.colour_likelihood(colour)
            total = float(weight.sum())
            if not total > 0:
                out.append(half)
                continue
            share = weight / total
            value = int(np.argmax(share))
            held = np.flatnonzero(share >= RANGE_SHARE).tolist() + [value]
            out.append(half._replace(value=value, certainty=float(share[value]),
                                     low=min(held), high=max(held)))
        return out

    def to_json(self) -> dict[str, Any]:
        return {"version": PROFILE_VERSION, "top": self.top, "name": self.name,
                "colour_coded": self.colour_coded,
                "colours": [c.to_json() for c in self.colours],
                "reads": [list(row) for row in self.reads]}

    @classmethod
    def from_json(cls, data: Any, source: str = "profile") -> SetProfile:
        """The profile in ``data`` (``to_json``'s form); ``BadInputError`` naming
        ``source`` and the field when it is not one."""
        if not isinstance(data, dict):
            raise BadInputError(source, "a set profile is a JSON object")
        if data.get("version") != PROFILE_VERSION:
            raise BadInputError(source, f"not a version {PROFILE_VERSION} set profile "
                                f"(version {data.get('version')!r})")
        top = data.get("top")
        if not isinstance(top, int) or isinstance(top, bool) or not 1 <= top <= 18:
            raise BadInputError(source, f"'top' must be the set's largest half, 1 to 18, "
                                f"not {top!r}")
        name = data.get("name", "")
        if not isinstance(name, str):
            raise BadInputError(source, "'name' must be text")
        rows = data.get("colours")
        if not isinstance(rows, list) or len(rows) != top + 1:
            raise BadInputError(source, f"'colours' must list counts 0 to {top}")
        return cls(top, tuple(_count_colour(row, n, source) for n, row in enumerate(rows)),
                   name, _reads(data.get("reads", []), top, source))


def reader_belief(half: HalfCount, top: int) -> np.ndarray:
    """How much the reader believes each count ``0..top`` of a half: its certainty on its
    count, the rest spread over its range, ``READER_FLOOR`` everywhere (normalised)."""
    belief = np.full(top + 1, READER_FLOOR)
    low, high = min(half.low, top), min(max(half.high, half.low), top)
    belief[low:high + 1] += (1 - half.certainty) / (high - low + 1)
    belief[min(half.value, top)] += half.certainty
    return belief / belief.sum()


def fit_profile(top: int, labelled: Sequence[tuple[int, np.ndarray | None]],
                name: str = "", reads: Sequence[tuple[int, int]] = ()) -> SetProfile:
    """The profile of a double-``top`` set from halves of known count: ``(count, colour)``
    pairs (``colour`` as ``vision.reading.pip_colour.half_colour`` measures it, or None), and
    ``(count, read)`` pairs of what the reader read them as (``SetProfile.reads``).

    A count's mean and spread are the median and the scaled median absolute deviation
    of its colours, so a few mislabelled or shadowed halves do not pull them."""
    colours = []
    for n in range(top + 1):
        seen = [np.asarray(c, np.float64) for k, c in labelled if k == n and c is not None]
        samples = sum(1 for k, _ in labelled if k == n)
        if n == 0 or not seen:  # a blank has no pip colour, whatever specks were measured
            colours.append(CountColour(n, samples, len(seen) if n else 0))
            continue
        stack = np.stack(seen)
        mean = np.median(stack, axis=0)
        spread = 1.4826 * np.median(np.abs(stack - mean), axis=0)
        colours.append(CountColour(n, samples, len(seen),
                                   tuple(float(v) for v in mean),  # type: ignore[arg-type]
                                   tuple(float(v) for v in spread)))  # type: ignore[arg-type]
    tally = np.zeros((top + 1, top + 1), int)
    for count, read in reads:
        tally[count, min(read, top)] += 1
    return SetProfile(top, tuple(colours), name,
                      tuple(tuple(int(v) for v in row) for row in tally) if reads else ())


def _reads(value: Any, top: int, source: str) -> tuple[tuple[int, ...], ...]:
    if value == []:
        return ()
    if (not isinstance(value, list) or len(value) != top + 1
            or not all(isinstance(row, list) and len(row) == top + 1
                       and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                               for v in row) for row in value)):
        raise BadInputError(source, f"'reads' must be {top + 1} rows of {top + 1} whole "
                            "numbers (or empty)")
    return tuple(tuple(row) for row in value)


def _triple(value: Any, field: str, source: str) -> tuple[float, float, float] | None:
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) != 3
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                       and math.isfinite(v) for v in value)):
        raise BadInputError(source, f"{field} must be three numbers or null")
    return (float(value[0]), float(value[1]), float(value[2]))


def _count_colour(row: Any, n: int, source: str) -> CountColour:
    where = f"colours[{n}]"
    if not isinstance(row, dict) or row.get("count") != n:
        raise BadInputError(source, f"{where} must be an object with \"count\": {n}")
    samples, measured = row.get("samples"), row.get("measured")
    if (not isinstance(samples, int) or not isinstance(measured, int)
            or isinstance(samples, bool) or isinstance(measured, bool)
            or not 0 <= measured <= samples):
        raise BadInputError(source, f"{where}: 'samples' and 'measured' must be whole "
                            "numbers with 0 <= measured <= samples")
    mean = _triple(row.get("mean"), f"{where}.mean", source)
    spread = _triple(row.get("spread"), f"{where}.spread", source)
    if (mean is None) != (spread is None):
        raise BadInputError(source, f"{where}: 'mean' and 'spread' go together")
    if spread is not None and min(spread) < 0:
        raise BadInputError(source, f"{where}.spread must not be negative")
    return CountColour(n, samples, measured, mean, spread)


def default_profile_path() -> Path:
    """Where a profile is kept by default: ``$MTRAIN_PROFILE`` when set, else
    ``set_profile.json`` in the user's data folder (``$XDG_DATA_HOME/mtrain``, by
    default ``~/.local/share/mtrain``)."""
    named = os.environ.get("MTRAIN_PROFILE")
    if named:
        return Path(named)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "mtrain" / PROFILE_NAME


def load_profile(path: str | os.PathLike[str]) -> SetProfile:
    """The profile in the JSON file ``path``; ``BadInputError`` when it cannot be read or
    is not a profile."""
    source = os.fspath(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadInputError(source, "no such set profile (run mtrain calibrate)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadInputError(source, f"cannot read the set profile ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInputError(source, f"not JSON ({exc.msg}, line {exc.lineno})") from None
    return SetProfile.from_json(data, source)


def kept_profile(path: str | os.PathLike[str] | None, top: int) -> SetProfile | None:
    """The profile kept at ``path`` when there is one for a double-``top`` set, else None
    (no file, an unusable one, or one for another set size): for readers that go on
    without one rather than stop."""
    if path is None or not Path(path).exists():
        return None
    try:
        profile = load_profile(path)
    except BadInputError:
        return None
    return profile if profile.top == top else None


def save_profile(profile: SetProfile, path: str | os.PathLike[str]) -> None:
    """Write ``profile`` to ``path`` (its folder made when missing), replacing it whole."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_text(json.dumps(profile.to_json(), indent=1) + "\n", encoding="utf-8")
        partial.replace(target)
    except OSError as exc:
        raise BadInputError(os.fspath(path), f"cannot write the set profile ({exc})") from None
