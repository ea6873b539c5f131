"""vision.change.channels: colour channels reduced one against another, as NumPy reduces
over the last axis."""

from __future__ import annotations

import numpy as np
import pytest

from vision.change.channels import channel_max, channel_mean, channel_sum


@pytest.mark.parametrize("channels", [1, 2, 3, 5])
def test_channel_reductions_match_numpys(channels: int) -> None:
    image = np.random.default_rng(channels).normal(size=(7, 9, channels)).astype(np.float32)
    assert np.array_equal(channel_max(image), image.max(axis=2))
    assert np.allclose(channel_sum(image), image.sum(axis=2), atol=1e-5)
    assert np.allclose(channel_mean(image), image.mean(axis=2), atol=1e-6)
    assert channel_max(image).shape == (7, 9)


def test_a_grey_image_is_its_own_reduction() -> None:
    grey = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert channel_max(grey) is grey and channel_mean(grey) is grey
