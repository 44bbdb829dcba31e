"""One provider budget per endpoint and key, shared through the ledger's PostgreSQL database.

Two `SharedRoom`s on one row stand for two workers (on one machine or two): after one reply says
the provider has 5 requests left of 10 (reset in ten minutes, so nothing refills meanwhile), the two
together start exactly as many calls as one process alone would before both wait; two `LocalRoom`s
reading the same reply start twice that, which is how N independent runs on one key go N times over
its limit. The row is named by digests only: the key is nowhere in the database. A room whose
database cannot be reached paces alone, saying so once.
"""

from __future__ import annotations

import uuid

import pytest

from benchledger.adapters.models.budget_room import BUDGET_SCHEMA, LocalRoom, SharedRoom, room_name
from benchledger.adapters.models.scheduler import EndpointScheduler

pytest.importorskip("psycopg", reason="the shared budget needs the postgres extra: pip install -e '.[postgres]'")

READING = {"x-ratelimit-limit-requests": "10", "x-ratelimit-remaining-requests": "5",
           "x-ratelimit-reset-requests": "10m0s"}
KEY = "sk-budget-room-test-0123456789"


def _starts_until_wait(rooms, first_stamp, first_room, limit: int = 50) -> int:
    """Calls the rooms start, taking turns, after `first_room`'s first call's reply was read."""
    first_room.settle(first_stamp, 0.0, READING, None, 0.0)
    started = 0
    for turn in range(limit):
        wait, stamp = rooms[turn % len(rooms)].take(0.0, 0.0, force=False)
        if stamp is None:
            assert wait > 0
            return started
        started += 1
    raise AssertionError("the rooms never waited")


def test_two_workers_sharing_a_row_start_what_one_would_and_independent_ones_twice(postgres_server) -> None:
    url = postgres_server.url()
    name = room_name("http://127.0.0.1:9/v1", f"{KEY}-{uuid.uuid4().hex}")
    a, b = SharedRoom(url, name), SharedRoom(url, name)
    _, first = a.take(0.0, 0.0, force=True)  # the call whose reply brings the reading
    assert first is not None
    shared = _starts_until_wait([a, b], first, a)

    alone = LocalRoom()
    _, stamp = alone.take(0.0, 0.0, force=True)
    one = _starts_until_wait([alone], stamp, alone)

    x, y = LocalRoom(), LocalRoom()
    _, sx = x.take(0.0, 0.0, force=True)
    _, sy = y.take(0.0, 0.0, force=True)
    y.settle(sy, 0.0, READING, None, 0.0)
    independent = _starts_until_wait([x, y], sx, x)

    assert one > 0 and shared == one  # both workers together: what one process alone may start
    assert independent == 2 * one  # each believing it has the whole budget
    [(requests,)] = postgres_server.sql(f"SELECT requests FROM {BUDGET_SCHEMA}.rooms WHERE room = '{name}'")
    assert requests == 1 + shared  # every call either worker started is counted in the row
    a.close()
    b.close()


def test_the_key_never_reaches_the_database_and_rooms_are_per_endpoint_and_key(postgres_server) -> None:
    secret = f"{KEY}-{uuid.uuid4().hex}"
    room = SharedRoom(postgres_server.url(), room_name("https://api.example.com/v1", secret))
    room.take(0.0, 0.0, force=True)
    rows = postgres_server.sql(f"SELECT room, state FROM {BUDGET_SCHEMA}.rooms")
    assert rows and not any(secret in (r + s) or secret[:12] in (r + s) for r, s in rows)
    assert room_name("https://api.example.com/v1", secret) != room_name("https://api.example.com/v1", secret + "x")
    assert room_name("https://api.example.com/v1", secret) != room_name("https://other.example.com/v1", secret)
    assert room_name("https://api.example.com/v1/", secret) == room_name("https://api.example.com/v1", secret)
    room.close()


def test_a_scheduler_on_a_shared_room_paces_and_an_unreachable_database_leaves_it_pacing_alone(
        postgres_server, tmp_path) -> None:
    name = room_name("http://127.0.0.1:9/v1", f"{KEY}-{uuid.uuid4().hex}")
    scheduler = EndpointScheduler(8, room=SharedRoom(postgres_server.url(), name))
    with scheduler.call(10.0) as ticket:
        ticket.done(READING)
    [(requests, tokens)] = postgres_server.sql(f"SELECT requests, tokens FROM {BUDGET_SCHEMA}.rooms "
                                               f"WHERE room = '{name}'")
    assert (requests, tokens) == (1, 10)

    gone = SharedRoom(f"postgresql://nobody@/postgres?host={tmp_path}", name)  # no server listens there
    alone = EndpointScheduler(8, room=gone)
    with alone.call(10.0) as ticket:
        ticket.done(READING)
    assert gone._local is not None and gone._local.requests == 1  # paced in the process from then on


def test_every_room_of_a_process_shares_one_connection(postgres_server) -> None:
    """A sweep's runs and a worker's cells each make a room: their connections must not pile up."""
    from benchledger.adapters.models import budget_room

    url = postgres_server.url()
    rooms = [SharedRoom(url, room_name(f"http://127.0.0.1:{port}/v1", KEY)) for port in range(9, 14)]
    for room in rooms:
        room.take(0.0, 0.0, force=True)
    assert len({id(room._conn) for room in rooms}) == 1 and budget_room._OPEN[url] is rooms[0]._conn
    rooms[0].close()  # the next use opens the process's connection again
    rooms[1].take(0.0, 0.0, force=True)
    assert budget_room._OPEN[url] is rooms[1]._conn and not rooms[1]._conn.closed
