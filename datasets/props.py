"""What lies on the table besides tiles, drawn by a :class:`~datasets.painter.Painter`:
train markers (coins, pawns, toy trains), clutter that is not a tile (cards, paper, a cup,
a pen, a plain block) and arms reaching in over the tiles."""

from __future__ import annotations

import cv2
import numpy as np

from datasets.painter import Painter, blend_polygon
from datasets.scene import RenderedMarker
from datasets.table_scene import PlaneMarker


def draw_marker(painter: Painter, m: PlaneMarker) -> RenderedMarker:
    """A coin, a pawn or a toy train standing on the table; returns its image box."""
    cam, rng = painter.cam, painter.rng
    ring = np.stack(
        [
            np.cos(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
            np.sin(np.linspace(0, 2 * np.pi, 24, endpoint=False)),
        ],
        1,
    )
    pts_all: list[np.ndarray] = []

    def at(points: np.ndarray, z: float) -> np.ndarray:
        return cam.project(np.concatenate([points, np.full((len(points), 1), z)], 1))

    if m.kind == "coin":
        r = m.size / 2
        circ = m.centre + r * ring
        metal = np.array(
            rng.choice([[60, 110, 180], [170, 170, 175], [50, 150, 200]]), np.float32
        )
        metal = metal * rng.uniform(0.8, 1.15)
        body = np.concatenate([at(circ, 0), at(circ, 1.8)])
        blend_polygon(painter.img, body, metal * 0.6)
        blend_polygon(painter.img, at(circ, 1.8), metal)
        blend_polygon(painter.img, at(m.centre + 0.8 * r * ring, 1.8), metal * 0.85)
        blend_polygon(
            painter.img, at(m.centre + 0.4 * r * ring + [0.2 * r, -0.1 * r], 1.8), metal * 1.1
        )
        pts_all.append(body)
    elif m.kind == "pawn":
        r = m.size / 2
        colour = np.array(rng.uniform(20, 235, 3), np.float32)
        tall = m.size * rng.uniform(1.4, 2.2)
        base = np.concatenate(
            [at(m.centre + r * ring, 0), at(m.centre + 0.55 * r * ring, tall * 0.7)]
        )
        blend_polygon(painter.img, base, colour * 0.7)
        head = at(m.centre + 0.55 * r * ring, tall)
        blend_polygon(
            painter.img,
            np.concatenate([head, at(m.centre + 0.45 * r * ring, tall * 0.75)]),
            colour,
        )
        blend_polygon(
            painter.img,
            at(m.centre + 0.2 * r * ring + [0.15 * r, -0.15 * r], tall),
            np.minimum(colour * 1.4 + 40, 255),
        )
        pts_all += [base, head]
    else:  # toy train: a box body, a cab at one end and a chimney
        length, wide = m.size, m.size * rng.uniform(0.38, 0.5)
        d = np.array([np.cos(m.angle), np.sin(m.angle)])
        p = np.array([-d[1], d[0]])
        colour = np.array(rng.uniform(20, 235, 3), np.float32)
        rect = np.array(
            [
                m.centre + sx * length / 2 * d + sy * wide / 2 * p
                for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
            ]
        )
        h_body = wide * rng.uniform(0.8, 1.2)
        body = np.concatenate([at(rect, 0), at(rect, h_body)])
        blend_polygon(painter.img, body, colour * 0.6)
        blend_polygon(painter.img, at(rect, h_body), colour)
        cab_c = m.centre - 0.3 * length * d
        cab = np.array(
            [
                cab_c + sx * 0.2 * length * d + sy * wide / 2 * p
                for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
            ]
        )
        cab_top = at(cab, h_body * 1.5)
        blend_polygon(painter.img, np.concatenate([at(cab, h_body), cab_top]), colour * 0.7)
        blend_polygon(painter.img, cab_top, np.minimum(colour * 1.2 + 20, 255))
        chim = m.centre + 0.3 * length * d + 0.18 * wide * ring
        blend_polygon(
            painter.img,
            np.concatenate([at(chim, h_body), at(chim, h_body * 1.4)]),
            np.array([30, 30, 30], np.float32),
        )
        pts_all += [body, cab_top]
    pts = np.concatenate(pts_all)
    if m.kind == "toy-train":
        box = cv2.boxPoints(cv2.minAreaRect(pts.astype(np.float32)))
    else:
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        box = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return RenderedMarker(kind=m.kind, corners=np.asarray(box, np.float64))


def draw_clutter(painter: Painter, region: np.ndarray, width_mm: float) -> None:
    """Things that are not tiles: playing cards, paper, a cup, a pen (hard negatives)."""
    rng = painter.rng
    lo, hi = region.min(0), region.max(0)
    for _ in range(int(rng.integers(1, 4))):
        c = lo + (hi - lo) * rng.random(2)
        ang = rng.uniform(0, 2 * np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        p = np.array([-d[1], d[0]])
        kind = rng.choice(["card", "paper", "cup", "pen", "block"])
        if kind in ("card", "paper", "block"):
            a, b = {"card": (63, 88), "paper": (105, 148), "block": (1.2, 1.6)}[str(kind)]
            if kind == "block":  # a plain tile-sized block: not a tile without pips and a bar
                a, b = width_mm * a, width_mm * b
            rect = np.array(
                [
                    c + sx * a / 2 * p + sy * b / 2 * d
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                ]
            )
            colour = np.array(
                rng.uniform(200, 250, 3) if kind != "block" else rng.uniform(30, 230, 3),
                np.float32,
            )
            z = 0.3 if kind != "block" else 0.4 * width_mm
            top = painter.cam.project(np.concatenate([rect, np.full((4, 1), z)], 1))
            if kind == "block":
                low = painter.cam.project(np.concatenate([rect, np.zeros((4, 1))], 1))
                blend_polygon(painter.img, np.concatenate([low, top]), colour * 0.7)
            blend_polygon(painter.img, top, colour)
            if kind != "block":
                for k in range(int(rng.integers(0, 8))):  # print: lines or symbols
                    t = (k + 1) / 9
                    line = np.array(
                        [
                            c + (-0.35 * a) * p + (t - 0.5) * b * d,
                            c + (0.35 * a) * p + (t - 0.5) * b * d,
                            c + (0.35 * a) * p + (t - 0.5 + 0.02) * b * d,
                            c + (-0.35 * a) * p + (t - 0.5 + 0.02) * b * d,
                        ]
                    )
                    blend_polygon(
                        painter.img,
                        painter.cam.project(line),
                        np.array(rng.uniform(0, 200, 3), np.float32),
                        0.8,
                    )
        elif kind == "cup":
            r = rng.uniform(35, 45)
            ring = np.stack(
                [np.cos(np.linspace(0, 2 * np.pi, 32)), np.sin(np.linspace(0, 2 * np.pi, 32))],
                1,
            )
            colour = np.array(rng.uniform(30, 250, 3), np.float32)
            h = rng.uniform(60, 100)
            low = painter.cam.project(np.concatenate([c + r * ring, np.zeros((32, 1))], 1))
            high = painter.cam.project(np.concatenate([c + r * ring, np.full((32, 1), h)], 1))
            blend_polygon(painter.img, np.concatenate([low, high]), colour * 0.75)
            blend_polygon(painter.img, high, colour)
            inner = painter.cam.project(
                np.concatenate([c + 0.88 * r * ring, np.full((32, 1), h)], 1)
            )
            blend_polygon(painter.img, inner, np.array(rng.uniform(10, 90, 3), np.float32))
        else:
            rect = np.array(
                [
                    c + sx * 4 * p + sy * 70 * d
                    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
                ]
            )
            blend_polygon(
                painter.img, painter.cam.project(rect), np.array(rng.uniform(0, 255, 3), np.float32)
            )


def draw_arm(painter: Painter) -> None:
    """An arm reaching in from an edge of the image, its hand over the table (what it
    hides is marked in ``painter.occluder``)."""
    rng, w, h = painter.rng, painter.cam.width, painter.cam.height
    side = int(rng.integers(4))
    t = rng.uniform(0.15, 0.85)
    start = [
        np.array([t * w, -20]),
        np.array([w + 20, t * h]),
        np.array([t * w, h + 20]),
        np.array([-20, t * h]),
    ][side]
    inward = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][side], float)
    inward = inward + rng.normal(0, 0.35, 2)
    inward /= np.linalg.norm(inward)
    reach = rng.uniform(0.15, 0.5) * min(w, h)
    end = start + inward * reach
    thick = rng.uniform(0.07, 0.14) * min(w, h)
    skin = np.array(
        rng.choice(
            [[130, 160, 220], [90, 120, 175], [60, 85, 130], [40, 60, 95], [150, 180, 235]]
        ),
        np.float32,
    )
    skin = skin * rng.uniform(0.85, 1.1)
    perp = np.array([-inward[1], inward[0]])
    sleeve = rng.random() < 0.6
    arm_poly = np.array(
        [
            start + perp * thick * 0.6,
            start - perp * thick * 0.6,
            end - perp * thick / 2,
            end + perp * thick / 2,
        ]
    )
    colour = np.array(rng.uniform(20, 220, 3), np.float32) if sleeve else skin
    # shadow first, offset
    off = rng.uniform(5, 25) * np.array([1, 1])
    sh = np.zeros((h, w), np.float32)
    blend_polygon(sh[..., None], arm_poly + off, 1.0)
    palm = end + inward * thick * 0.5
    palm_pts = palm + np.stack(
        [
            np.cos(np.linspace(0, 2 * np.pi, 20)) * thick * 0.7,
            np.sin(np.linspace(0, 2 * np.pi, 20)) * thick * 0.6,
        ],
        1,
    )
    blend_polygon(sh[..., None], palm_pts + off, 1.0)
    blurred = cv2.GaussianBlur(sh, (0, 0), thick * 0.2)
    painter.img *= (1 - 0.4 * blurred)[..., None]
    blend_polygon(painter.img, arm_poly, colour, mask_out=painter.occluder)
    blend_polygon(painter.img, palm_pts, skin, mask_out=painter.occluder)
    for k in range(int(rng.integers(2, 5))):  # fingers
        fd = inward + perp * (k - 1.5) * 0.35 + rng.normal(0, 0.1, 2)
        fd /= np.linalg.norm(fd)
        base = palm + perp * (k - 1.5) * thick * 0.3
        tip = base + fd * thick * rng.uniform(0.7, 1.2)
        fp = np.array(
            [
                base + perp * thick * 0.1,
                base - perp * thick * 0.1,
                tip - perp * thick * 0.08,
                tip + perp * thick * 0.08,
            ]
        )
        blend_polygon(painter.img, fp, skin * rng.uniform(0.9, 1.05), mask_out=painter.occluder)
