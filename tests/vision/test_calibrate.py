"""Calibration to a player's set: the assignment, the profile, the colour cue."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from reader_fixtures import MODELS, needs_trained_models

from datasets.set_style import full_set, hand_photo, set_look, set_photos
from engine.errors import BadInputError
from mtrain.cli import main
from vision.calibration.assignment import assign
from vision.calibration.calibrate import Calibration, CalibrationTile, calibrate, calibrate_tiles
from vision.cli.calibrate import calibration_text
from vision.models.detections import Detections
from vision.reading.pip_colour import half_colour
from vision.reading.reader import HalfCount
from vision.reading.set_profile import (
    CountColour,
    SetProfile,
    fit_profile,
    load_profile,
    reader_belief,
    save_profile,
)
from vision.readings import FrameReading


class TestAssignment:
    @pytest.mark.parametrize("shape", [(1, 1), (3, 3), (4, 6), (6, 4), (5, 5), (2, 5)])
    def test_matches_brute_force(self, shape: tuple[int, int]) -> None:
        rng = np.random.default_rng(sum(shape))
        for _ in range(20):
            cost = rng.normal(size=shape).round(1)
            chosen = assign(cost)
            n, m = shape
            k = min(n, m)
            used = chosen[chosen >= 0]
            assert len(used) == len(set(used.tolist())) == k
            best = min(sum(cost[i, j] for i, j in zip(rows, cols, strict=True))
                       for rows in itertools.combinations(range(n), k)
                       for cols in itertools.permutations(range(m), k))
            got = sum(cost[i, chosen[i]] for i in range(n) if chosen[i] >= 0)
            assert got == pytest.approx(best)

    def test_rejects_bad_costs(self) -> None:
        with pytest.raises(ValueError, match="finite"):
            assign(np.array([[0.0, np.inf]]))
        with pytest.raises(ValueError, match="two dimensions"):
            assign(np.zeros(3))


def _coded(top: int = 3, spread: float = 2.0) -> SetProfile:
    """A colour-coded double-``top`` profile: count n's pips at (40 n, -20 n, 30)."""
    return SetProfile(top, (CountColour(0, 5, 0),) + tuple(
        CountColour(n, 5, 5, (40.0 * n, -20.0 * n, 30.0), (spread, spread, spread))
        for n in range(1, top + 1)), "test")


class TestProfile:
    def test_round_trip(self, tmp_path: Path) -> None:
        path = tmp_path / "deep" / "set.json"
        save_profile(_coded(), path)
        assert load_profile(path) == _coded()
        assert json.loads(path.read_text())["version"] == 1

    @pytest.mark.parametrize(("change", "problem"), [
        ({"version": 7}, "version 1"),
        ({"top": 40}, "'top'"),
        ({"colours": []}, "counts 0 to 3"),
        ({"name": 5}, "'name'"),
        ({"reads": [[1, 2]]}, "'reads'"),
    ])
    def test_bad_profiles_are_named(self, tmp_path: Path, change: dict[str, object],
                                    problem: str) -> None:
        data = {**_coded().to_json(), **change}
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        with pytest.raises(BadInputError, match=problem) as caught:
            load_profile(path)
        assert caught.value.source == str(path)

    def test_bad_colour_row_and_not_json(self, tmp_path: Path) -> None:
        data = _coded().to_json()
        data["colours"][2]["mean"] = [1, "x", 3]
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(data))
        with pytest.raises(BadInputError, match=r"colours\[2\]\.mean"):
            load_profile(path)
        path.write_text("{not json")
        with pytest.raises(BadInputError, match="not JSON"):
            load_profile(path)
        with pytest.raises(BadInputError, match="no such set profile"):
            load_profile(tmp_path / "missing.json")

    def test_one_colour_for_all_is_not_colour_coded(self) -> None:
        black = [(n, np.array([0.0, 0.0, 50.0])) for n in range(1, 7) for _ in range(4)]
        profile = fit_profile(6, black + [(0, None)] * 4)
        assert not profile.colour_coded
        half = HalfCount(5, 0.4, Detections.empty(), 4, 6)
        assert profile.reweigh([half], [np.array([0.0, 0.0, 50.0])]) == [half]
        assert _coded().colour_coded


class TestColourCue:
    def test_colour_fixes_a_confusion(self) -> None:
        # the reader is fairly sure of 2 and allows 3; the pips are count 3's colour
        half = HalfCount(2, 0.7, Detections.empty(), 2, 3)
        fixed = _coded().reweigh([half], [np.array([118.0, -61.0, 30.0])])[0]
        assert (fixed.value, fixed.low, fixed.high) == (3, 3, 3)
        assert fixed.certainty > 0.9
        # and a half whose colour agrees keeps its count, surer
        kept = _coded().reweigh([half], [np.array([81.0, -40.0, 30.0])])[0]
        assert kept.value == 2 and kept.certainty > half.certainty

    def test_what_the_reader_misreads_on_this_set_is_weighed(self) -> None:
        # at calibration every 3 was read as 2, every 2 as 2: a sure 2 may be a 3
        reads = tuple(tuple(5 if (n, m) in ((0, 0), (1, 1), (2, 2), (3, 2)) else 0
                            for m in range(4)) for n in range(4))
        profile = SetProfile(3, _coded().colours, "test", reads)
        sure = HalfCount(2, 1.0, Detections.empty(), 2, 2)
        assert profile.reweigh([sure], [np.array([118.0, -61.0, 30.0])])[0].value == 3
        assert profile.reweigh([sure], [np.array([81.0, -40.0, 30.0])])[0].value == 2
        # without the reads, the colour does not overrule a sure reading
        assert _coded().reweigh([sure], [np.array([118.0, -61.0, 30.0])])[0].value == 2

    def test_belief_has_a_floor(self) -> None:
        belief = reader_belief(HalfCount(1, 1.0, Detections.empty(), 1, 1), 3)
        assert belief.sum() == pytest.approx(1.0)
        assert belief.argmax() == 1 and belief.min() > 0

    def test_half_colour_of_painted_crops(self) -> None:
        crop = np.full((96, 96, 3), (215, 235, 240), np.uint8)
        assert half_colour(crop) is None  # a blank half
        for y, x in ((30, 30), (30, 66), (60, 48)):
            crop[y - 7:y + 7, x - 7:x + 7] = (40, 40, 200)  # red pips (BGR)
        colour = half_colour(crop)
        assert colour is not None and colour[0] > 30  # Lab a: red


def _seen(values: tuple[int, int], top: int, colours: dict[int, np.ndarray],
          read: tuple[int, int] | None = None) -> CalibrationTile:
    shown = read or values
    halves = [HalfCount(v, 0.95, Detections.empty(), v, v) for v in shown]
    return CalibrationTile(0, np.zeros((4, 2), np.float32), shown,
                           (reader_belief(halves[0], top), reader_belief(halves[1], top)),
                           (colours.get(values[0]), colours.get(values[1])))


class TestCalibrateTiles:
    def test_a_misread_count_is_labelled_by_its_colour(self) -> None:
        top = 4
        colours = {n: np.array([25.0 * n, -12.0 * n, 30.0]) for n in range(1, top + 1)}
        # every 4 is read as a 3: the reader never saw this set's 4
        tiles = [_seen(t, top, colours, (min(t[0], 3), min(t[1], 3))) for t in full_set(top)]
        result = calibrate_tiles(tiles, top)
        assert sorted(tile.label for tile in result.tiles) == sorted(full_set(top))  # type: ignore[type-var]
        assert all(tile.label == tuple(sorted(t)) for tile, t in
                   zip(result.tiles, full_set(top), strict=True))
        assert result.missing == []
        assert result.doubtful  # the relabelled tiles are for the player to confirm
        assert result.profile.colours[4].mean == pytest.approx(tuple(colours[4]))

    def test_state_round_trip_and_text(self) -> None:
        top = 3
        colours = {n: np.array([40.0 * n, -20.0 * n, 30.0]) for n in range(1, top + 1)}
        tiles = [_seen(t, top, colours, (min(t[0], 2), min(t[1], 2))) for t in full_set(top)]
        result = calibrate_tiles(tiles, top, "mine")
        again = Calibration.from_state(json.loads(json.dumps(result.state())))
        assert [t.label for t in again.tiles] == [t.label for t in result.tiles]
        assert again.doubtful == result.doubtful and again.profile == result.profile
        text = calibration_text(result, ["set.jpg"])
        assert f"{len(tiles)} tiles found, {len(tiles)} assigned" in text
        assert "check tile" in text and "set.jpg" in text and "pip colours (Lab" in text
        with pytest.raises(BadInputError, match="not a saved calibration"):
            Calibration.from_state({"top": 3})

    def test_corrections_are_confirmed(self) -> None:
        top = 2
        tiles = [_seen(t, top, {}) for t in full_set(top)]
        result = calibrate_tiles(tiles, top).corrected({0: (2, 0)})
        assert result.tiles[0].label == (0, 2) and not result.tiles[0].doubtful
        with pytest.raises(BadInputError, match="not a tile"):
            result.corrected({1: (3, 0)})


@needs_trained_models
def test_calibrate_labels_a_rendered_unseen_set(tmp_path: Path) -> None:
    style = set_look(11, "unseen")
    photos = set_photos(style, 12, 11)
    from vision.reading.reader import TileReader

    reader = TileReader(MODELS, max_value=12)
    result = calibrate(reader, [p.image for p in photos], 12)
    right = 0
    for seen in result.tiles:
        near = min(photos[seen.photo].tiles, key=lambda t: float(np.linalg.norm(
            t.corners.mean(axis=0) - seen.corners.mean(axis=0))))
        right += seen.label == tuple(sorted(near.values))
    assert len(result.tiles) == 91 and right == 91
    assert result.profile.colour_coded
    # the reader with the profile reads a hand of this set as well or better
    scene = hand_photo(style, 5)
    plain = reader.read(scene.image)
    with_profile = reader.with_profile(result.profile).read(scene.image)
    truth_values = sorted(tuple(sorted(t.values)) for t in scene.tiles)

    def hits(frame: FrameReading) -> int:
        got = sorted(tuple(sorted(t.values)) for t in frame.tiles.each())
        return sum(min(got.count(v), truth_values.count(v)) for v in set(truth_values))

    assert hits(with_profile) >= hits(plain)
    # the command line writes the profile and reads with it
    paths = []
    for k, photo in enumerate(photos):
        import cv2

        paths.append(str(tmp_path / f"set{k}.png"))
        cv2.imwrite(paths[-1], photo.image)
    out = tmp_path / "profile.json"
    assert main(["calibrate", *paths, "--out", str(out), "--json"]) == 0
    assert load_profile(out).top == 12


@needs_trained_models
def test_no_profile_reads_as_before() -> None:
    from vision.reading.reader import TileReader

    scene = hand_photo(set_look(2, "standard"), 3)
    reader = TileReader(MODELS, max_value=12)
    first = reader.read(scene.image)
    again = reader.with_profile(None).read(scene.image)
    assert [t.values for t in first.tiles.each()] == [t.values for t in again.tiles.each()]
    assert [t.confidence for t in first.tiles.each()] == [t.confidence for t in again.tiles.each()]


def test_profile_for_another_set_is_bad_input(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "p.json"
    save_profile(_coded(), path)
    photo = tmp_path / "x.png"
    import cv2

    cv2.imwrite(str(photo), np.full((64, 64, 3), 200, np.uint8))
    assert main(["read", str(photo), "--profile", str(path)]) == 2
    assert "double-3" in capsys.readouterr().err
