"""The vision commands: ``read``, ``score``, ``calibrate``, ``watch``, ``camera-plan``, ``mat``."""
