"""The event store's contract (``agstate/events.py``'s docstrings), written once and run on every backend.

``EventStoreContract`` states the rules; each backend subclasses it and
supplies only ``opener``: a function returning a new store (a new connection)
on one shared location. Backends: SQLite in memory, SQLite on a file, and a
real PostgreSQL server started by ``postgres_server.postgres_url``.
"""

import threading
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.event_stores import postgres_opener, reference, sqlite_file_opener
from support.postgres_server import postgres_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.unit

EventStoreError = reference.EventStoreError
ConcurrencyError = reference.ConcurrencyError

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**53, 2**53) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
payloads = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
types = st.sampled_from(reference.EVENT_TYPES)
FEW = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


def new_task() -> str:
    return f"task-{uuid.uuid4().hex[:10]}"


class EventStoreContract:
    """Rules every ``EventStore`` keeps; a backend's subclass supplies ``opener``."""

    @pytest.fixture
    def opener(self):
        raise NotImplementedError("a backend's test class supplies opener")

    @pytest.fixture
    def store(self, opener):
        return opener()

    # -- append and list -------------------------------------------------------------------
    def test_empty_task_has_last_seq_zero_and_no_events(self, store):
        task = new_task()
        assert store.last_seq(task) == 0
        assert store.list(task) == []

    def test_append_stores_and_sets_ts(self, store):
        task = new_task()
        event = store.append(task, 1, "agent.started", {"input": "invoice 7"})
        assert (event.task_id, event.seq, event.type, event.payload) == (task, 1, "agent.started", {"input": "invoice 7"})
        assert isinstance(event.ts, float) and event.ts > 0
        assert store.list(task) == [event]
        assert store.last_seq(task) == 1

    def test_events_are_frozen(self, store):
        event = store.append(new_task(), 1, "agent.started", {})
        with pytest.raises((AttributeError, TypeError, ValueError)):  # a frozen dataclass, a NamedTuple or a pydantic model
            event.seq = 2

    def test_list_from_seq_ascending(self, store):
        task = new_task()
        for seq in range(1, 6):
            store.append(task, seq, "tool.called", {"n": seq})
        assert [e.seq for e in store.list(task, 3)] == [3, 4, 5]
        assert [e.seq for e in store.list(task)] == [1, 2, 3, 4, 5]
        assert store.list(task, 6) == []

    def test_tasks_are_numbered_independently(self, store):
        first, second = new_task(), new_task()
        store.append(first, 1, "agent.started", {})
        store.append(second, 1, "agent.started", {})
        store.append(first, 2, "task.completed", {"output": 1})
        assert (store.last_seq(first), store.last_seq(second)) == (2, 1)

    @FEW
    @given(payload=payloads, type=types)
    def test_payloads_round_trip(self, store, payload, type):
        task = new_task()
        store.append(task, 1, type, payload)
        (event,) = store.list(task)
        assert (event.type, event.payload) == (type, payload)

    # -- validation before any write ---------------------------------------------------------
    @pytest.mark.parametrize("seq, type, payload", [
        (1, "tool.exploded", {}), (1, "", {}), (0, "agent.started", {}), (-1, "agent.started", {}),
        (True, "agent.started", {}), (1.0, "agent.started", {}), ("1", "agent.started", {}),
        (1, "agent.started", ["not", "an", "object"]), (1, "agent.started", None), (1, "agent.started", "{}"),
        (1, "agent.started", {"when": object()}), (1, "agent.started", {"tags": {"a", "b"}}),
        (1, "agent.started", {"x": float("nan")}),
    ])
    def test_invalid_events_are_refused_before_writing(self, store, seq, type, payload):
        task = new_task()
        with pytest.raises(EventStoreError):
            store.append(task, seq, type, payload)
        assert store.list(task) == [] and store.last_seq(task) == 0

    # -- idempotent retries and conflicts ------------------------------------------------------
    def test_retry_with_the_same_content_returns_the_stored_event(self, store):
        task = new_task()
        first = store.append(task, 1, "tool.called", {"call_id": "0:charge", "args": {"amount": 5}})
        again = store.append(task, 1, "tool.called", {"args": {"amount": 5}, "call_id": "0:charge"})
        assert again == first  # same ts: the stored event, not a new one
        assert store.list(task) == [first]

    def test_retry_of_an_earlier_event_is_idempotent_too(self, store):
        task = new_task()
        events = [store.append(task, seq, "tool.result", {"result": seq}) for seq in (1, 2, 3)]
        assert store.append(task, 2, "tool.result", {"result": 2}) == events[1]
        assert store.list(task) == events

    @pytest.mark.parametrize("type, payload", [
        ("tool.called", {"call_id": "0:charge", "args": {"amount": 6}}),
        ("tool.result", {"call_id": "0:charge", "args": {"amount": 5}}),
        ("tool.called", {"call_id": "0:charge", "args": {"amount": 5}, "extra": None}),
        ("tool.called", {"call_id": "0:charge", "args": {"amount": True}}),
    ])
    def test_other_content_at_a_taken_seq_is_a_conflict(self, store, type, payload):
        task = new_task()
        stored = store.append(task, 1, "tool.called", {"call_id": "0:charge", "args": {"amount": 5}})
        store.append(task, 2, "tool.result", {"call_id": "0:charge", "result": "ok"})
        with pytest.raises(ConcurrencyError) as raised:
            store.append(task, 1, type, payload)
        assert (raised.value.task_id, raised.value.expected, raised.value.actual) == (task, 3, 1)
        assert store.list(task)[0] == stored and store.last_seq(task) == 2

    @pytest.mark.parametrize("seq", [2, 3, 10])
    def test_a_gap_is_a_conflict(self, store, seq):
        task = new_task()
        with pytest.raises(ConcurrencyError) as raised:
            store.append(task, seq, "agent.started", {})
        assert (raised.value.expected, raised.value.actual) == (1, seq)
        assert store.list(task) == []

    def test_concurrency_error_is_an_event_store_error(self):
        assert issubclass(ConcurrencyError, EventStoreError)

    # -- several writers -----------------------------------------------------------------------
    def test_racing_writers_exactly_one_wins_each_seq(self, opener):
        task, writers, rounds = new_task(), 4, 5
        stores = [opener() for _ in range(writers)]
        wins = {seq: [] for seq in range(1, rounds + 1)}
        start = threading.Barrier(writers)

        def write(number):
            start.wait()
            for seq in range(1, rounds + 1):
                try:
                    stores[number].append(task, seq, "tool.called", {"writer": number})
                    wins[seq].append(number)
                except ConcurrencyError:
                    pass

        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        events = stores[0].list(task)
        assert [len(winners) for winners in wins.values()] == [1] * rounds
        assert [e.payload["writer"] for e in events] == [wins[seq][0] for seq in range(1, rounds + 1)]

    def test_another_connection_sees_every_event(self, opener):
        task = new_task()
        written = [opener().append(task, seq, "tool.result", {"result": [seq, "é"]}) for seq in (1,)]
        writer = opener()
        written += [writer.append(task, seq, "tool.result", {"result": [seq, "é"]}) for seq in (2, 3)]
        assert opener().list(task) == written

    # -- the store against a model: a list per task (Hypothesis's DatabaseComparison) ---------------
    @FEW
    @given(ops=st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 5), types,
                                  st.sampled_from([{}, {"n": 1}, {"n": 2}])), max_size=12))
    def test_matches_a_list_model(self, store, ops):
        prefix, model = new_task(), {"a": [], "b": []}
        for name, seq, type, payload in ops:
            log = model[name]
            try:
                got = store.append(prefix + name, seq, type, payload)
            except ConcurrencyError:
                assert seq > len(log) + 1 or (1 <= seq <= len(log) and log[seq - 1] != (type, payload))
                continue
            except EventStoreError:
                assert seq < 1
                continue
            assert 1 <= seq <= len(log) + 1 and (seq == len(log) + 1 or log[seq - 1] == (type, payload))
            if seq == len(log) + 1:
                log.append((type, payload))
            assert (got.seq, got.type, got.payload) == (seq, type, payload)
        for name, log in model.items():
            assert [(e.type, e.payload) for e in store.list(prefix + name)] == log
            assert store.last_seq(prefix + name) == len(log)


class TestSqliteInMemory(EventStoreContract):
    @pytest.fixture
    def opener(self):
        store = reference.SqliteEventStore()
        return lambda: store  # one connection is the whole database: its "writers" share it


class TestSqliteFile(EventStoreContract):
    @pytest.fixture
    def opener(self, tmp_path):
        return sqlite_file_opener(tmp_path)


@pytest.mark.slow  # a PostgreSQL server of its own
class TestPostgres(EventStoreContract):
    @pytest.fixture
    def opener(self, postgres_url):  # noqa: F811
        open_one, opened = postgres_opener(postgres_url), []

        def tracked():
            opened.append(open_one())
            return opened[-1]

        yield tracked
        for store in opened:
            store.close()


def test_open_store_picks_the_backend(tmp_path, postgres_url, monkeypatch):  # noqa: F811
    assert isinstance(reference.open_store(f"sqlite:///{tmp_path / 'x.db'}"), reference.SqliteEventStore)
    assert isinstance(reference.open_store("sqlite://"), reference.SqliteEventStore)
    monkeypatch.setenv("AGSTATE_EVENTS_URL", postgres_url)
    store = reference.open_store()
    assert isinstance(store, reference.PostgresEventStore)
    store.close()
    with pytest.raises(EventStoreError, match="unknown store url"):
        reference.open_store("mysql://nowhere")
