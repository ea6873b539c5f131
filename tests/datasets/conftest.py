"""Rendered scenes shared by the dataset tests (rendering costs ~0.2 s each)."""

from __future__ import annotations

import pytest

from datasets.render import Scene, render_hands, render_table, scene_rng


@pytest.fixture(scope="session")
def hands_scenes() -> list[Scene]:
    return [render_hands(scene_rng(4242, i)) for i in range(4)]


@pytest.fixture(scope="session")
def table_scenes() -> list[Scene]:
    return [render_table(scene_rng(4243, i)) for i in range(2)]
