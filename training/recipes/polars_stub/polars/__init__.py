"""Stand-in for polars on the device machine (the real wheel is 54 MB): ultralytics
only reads results.csv with it, inside a try that falls back to {}."""


def read_csv(*args, **kwargs):
    raise RuntimeError("polars stub")


class DataFrame:
    def __init__(self, *args, **kwargs):
        raise RuntimeError("polars stub")
