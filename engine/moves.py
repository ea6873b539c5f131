"""Moves: the :class:`Move` value type (play a tile on a train, draw, pass, stop)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.table import MEXICAN, Owner
from engine.tiles import Tile

PLAY = "play"
DRAW = "draw"
PASS = "pass"
#: End a first-turn chain ([001]) without passing.
STOP = "stop"
KINDS = (PLAY, DRAW, PASS, STOP)


@dataclass(frozen=True)
class Move:
    """One action. ``Move.play(Tile(5, 7), 0)``, ``Move.draw()``, ``Move.pass_()``.

    Text form: ``5-7@0``, ``5-7@mexican``, ``draw``, ``pass``, ``stop``.

    >>> Move.parse("7-5@mexican")
    Move(kind='play', tile=Tile(5, 7), train='mexican')
    """

    kind: str
    tile: Tile | None = None
    train: Owner | None = None

    @classmethod
    def play(cls, tile: Tile, train: Owner) -> Move:
        return cls(PLAY, tile, train)

    @classmethod
    def draw(cls) -> Move:
        return cls(DRAW)

    @classmethod
    def pass_(cls) -> Move:
        return cls(PASS)

    @classmethod
    def stop(cls) -> Move:
        return cls(STOP)

    @property
    def is_play(self) -> bool:
        return self.kind == PLAY

    def text(self) -> str:
        if self.kind == PLAY:
            return f"{self.tile}@{self.train}"
        return self.kind

    @classmethod
    def parse(cls, text: str) -> Move:
        text = text.strip()
        if text in (DRAW, PASS, STOP):
            return cls(text)
        tile_text, at, train_text = text.partition("@")
        if not at:
            raise ValueError(f"not a move: {text!r} (expected 'a-b@TRAIN', draw, pass, stop)")
        train: Owner
        if train_text == MEXICAN:
            train = MEXICAN
        elif train_text.isdigit():
            train = int(train_text)
        else:
            raise ValueError(f"not a move: {text!r} (bad train {train_text!r})")
        return cls(PLAY, Tile.parse(tile_text), train)

    def __str__(self) -> str:
        return self.text()

    def sort_key(self) -> tuple[Any, ...]:
        order = KINDS.index(self.kind)
        if self.tile is None:
            return (order,)
        train = (1, 0) if self.train == MEXICAN else (0, self.train)
        return (order, self.tile.a, self.tile.b, train)
