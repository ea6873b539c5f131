"""The app's blueprints: ``live`` (table, alerts, access), ``games``, ``scores``, ``hands``."""
