"""Frames -> ``TrackerEvent``s: frames in, still views picked, known tiles kept,
a table settled by vote (``tracker.Tracker``)."""
