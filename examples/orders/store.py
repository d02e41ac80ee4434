"""The orders API's storage: one SQLite database (a file or ``:memory:``).

Three tables:

- ``idempotency``: one row per key, the entry stoic's server-side decisions
  read and write (fingerprint, in flight or completed, the stored response);
- ``orders``: the orders themselves, unique by idempotency key, written with
  ``INSERT ... ON CONFLICT DO NOTHING`` in the same transaction that marks
  the key completed, so an order and its stored answer commit together;
- ``requests``: every request the server saw, with the fault it injected and
  the answer it gave. The end-to-end suite asserts on this table, never on
  what a client believes.

One connection behind one lock: the server's threads take turns, which
keeps the read-decide-write step on a key atomic without relying on
SQLite's locking modes (and works for ``:memory:``, which is per connection).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('in_flight', 'completed')),
    since_unix REAL NOT NULL,
    status INTEGER,
    body TEXT
);
CREATE TABLE IF NOT EXISTS orders (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    idempotency_key TEXT NOT NULL UNIQUE,
    order_ref TEXT NOT NULL,
    client TEXT NOT NULL,
    sku TEXT NOT NULL,
    quantity INTEGER NOT NULL,
    created_unix REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at REAL NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    key TEXT,
    attempt INTEGER NOT NULL,
    order_ref TEXT,
    fault TEXT,
    status INTEGER,
    answer TEXT NOT NULL,
    hint REAL
);
"""


@dataclass(frozen=True)
class Answer:
    """A response the server sends (or stores, to replay)."""

    status: int
    body: dict[str, Any]


@dataclass(frozen=True)
class RequestRow:
    """One row of ``requests``: what arrived and how it was answered.

    ``at`` is the server's monotonic clock in seconds, when the request
    arrived; ``answer`` says what happened (``created``, ``replayed``,
    ``refused``, ``invalid``, ``fault`` ...; ``pending`` until it is
    known); ``hint`` is the Retry-After the answer carried, in seconds.
    """

    id: int
    at: float
    method: str
    path: str
    key: str | None
    attempt: int
    order_ref: str | None
    fault: str | None
    status: int | None
    answer: str
    hint: float | None


class Store:
    """The database, shared by the server's threads."""

    def __init__(self, path: str = ":memory:") -> None:
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---------------------------------------------------------- idempotency

    def entry(self, key: str) -> dict[str, Any] | None:
        """The stored entry for ``key``, in the shape stoic's decisions read."""
        with self._lock:
            return self._entry(key)

    def _entry(self, key: str) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT fingerprint, state, since_unix, status FROM idempotency WHERE key = ?",
            (key,),
        ).fetchone()
        if row is None:
            return None
        fingerprint, state, since, status = row
        if state == "in_flight":
            return {"fingerprint": fingerprint, "state": {"kind": "in_flight", "since_unix": since}}
        return {
            "fingerprint": fingerprint,
            "state": {"kind": "completed", "at_unix": since, "status": status},
        }

    def claim(self, key: str, fingerprint: str, now: float, replaces: bool) -> bool:
        """Records ``key`` as in flight. False when another request claimed
        it first (the caller reads the winner's entry and decides again)."""
        with self._lock:
            if replaces:
                self._db.execute("DELETE FROM idempotency WHERE key = ?", (key,))
            cursor = self._db.execute(
                "INSERT INTO idempotency (key, fingerprint, state, since_unix) "
                "VALUES (?, ?, 'in_flight', ?) ON CONFLICT (key) DO NOTHING",
                (key, fingerprint, now),
            )
            return cursor.rowcount == 1

    def stored_answer(self, key: str) -> Answer | None:
        """The response stored for a completed key, to replay."""
        with self._lock:
            row = self._db.execute(
                "SELECT status, body FROM idempotency WHERE key = ? AND state = 'completed'",
                (key,),
            ).fetchone()
        if row is None:
            return None
        return Answer(int(row[0]), json.loads(row[1]))

    def create_order(self, key: str, order: dict[str, Any], client: str, now: float) -> Answer:
        """Creates the order and completes the key in one transaction.

        The order insert is keyed by the idempotency key and does nothing on
        conflict: even a request that got past the key check twice (an
        abandoned in-flight entry taken over) cannot create a second order.
        """
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO orders (idempotency_key, order_ref, client, sku, quantity, "
                    "created_unix) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (idempotency_key) DO NOTHING",
                    (key, order["order_ref"], client, order["sku"], order["quantity"], now),
                )
                order_id = self._db.execute(
                    "SELECT id FROM orders WHERE idempotency_key = ?", (key,)
                ).fetchone()[0]
                answer = Answer(
                    201,
                    {
                        "order_id": order_id,
                        "order_ref": order["order_ref"],
                        "sku": order["sku"],
                        "quantity": order["quantity"],
                        "status": "created",
                    },
                )
                self._db.execute(
                    "UPDATE idempotency SET state = 'completed', since_unix = ?, status = ?, "
                    "body = ? WHERE key = ?",
                    (now, answer.status, json.dumps(answer.body), key),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return answer

    # ------------------------------------------------------------- requests

    def arrive(
        self, at: float, method: str, path: str, key: str | None, order_ref: str | None
    ) -> tuple[int, int]:
        """Logs a request as it arrives, before anything is decided (so the
        table holds it even if its handler dies). Returns the row id and the
        request's attempt number: 1 + how many earlier requests carried
        ``key`` (always 1 without a key)."""
        with self._lock:
            attempt = 1
            if key is not None:
                row = self._db.execute("SELECT COUNT(*) FROM requests WHERE key = ?", (key,))
                attempt += int(row.fetchone()[0])
            cursor = self._db.execute(
                "INSERT INTO requests (at, method, path, key, attempt, order_ref, answer) "
                "VALUES (?, ?, ?, ?, ?, ?, 'pending')",
                (at, method, path, key, attempt, order_ref),
            )
            return int(cursor.lastrowid or 0), attempt

    def set_order_ref(self, row_id: int, order_ref: str | None) -> None:
        """Records which order a request carried, once its body is read."""
        with self._lock:
            self._db.execute("UPDATE requests SET order_ref = ? WHERE id = ?", (order_ref, row_id))

    def settle(
        self,
        row_id: int,
        answer: str,
        status: int | None,
        fault: str | None = None,
        hint: float | None = None,
    ) -> None:
        """Records how the request was answered (``status`` None: no answer)."""
        with self._lock:
            self._db.execute(
                "UPDATE requests SET answer = ?, status = ?, fault = ?, hint = ? WHERE id = ?",
                (answer, status, fault, hint, row_id),
            )

    def requests(self) -> list[RequestRow]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, at, method, path, key, attempt, order_ref, fault, status, answer, "
                "hint FROM requests ORDER BY id"
            ).fetchall()
        return [RequestRow(*row) for row in rows]

    def orders(self) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, idempotency_key, order_ref, client, sku, quantity FROM orders "
                "ORDER BY id"
            ).fetchall()
        names = ("order_id", "idempotency_key", "order_ref", "client", "sku", "quantity")
        return [dict(zip(names, row, strict=True)) for row in rows]
