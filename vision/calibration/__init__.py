"""A whole set's photos -> a set profile (``mtrain calibrate``)."""
