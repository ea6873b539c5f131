"""Fixtures for the companion app: an app on a temporary database, a client, a runner."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner

from .tablet import Table, make_app


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mtrain.sqlite3"


@pytest.fixture
def app(db_path: Path) -> Iterator[Flask]:
    app = make_app(db_path)
    yield app
    worker = app.extensions.get("mtrain_worker")
    if worker is not None:
        worker.stop()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def table(client: FlaskClient) -> Table:
    return Table(client)


@pytest.fixture
def unlocked(table: Table) -> Table:
    response = table.unlock()
    assert response.status_code == 302
    return table
