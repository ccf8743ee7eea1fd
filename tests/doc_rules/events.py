"""Part C's documented sentences (solutions/agstate/events.py) and the grader rule that checks each."""
from doc_rules import checked, explains

# A sentence that makes several promises names the rule of its main one; the others are checked by
# the rules named on the sentences that state them alone (e.g. gaps and races: events.concurrency).
APPEND_IN_ORDER = "append stores seq = last_seq + 1 with ts set; list returns the events as appended, in order, from from_seq on"
REJECTS = ("append refuses an unknown type, a seq that is not an int >= 1, or a payload that is not a JSON object "
           "(EventStoreError), before writing anything")
IMMUTABLE = "the events append and list return are immutable: setting a field, as an attribute or an item, changes nothing"
RETRY = ("appending an existing seq again with the same type and payload returns the stored event (ts included) "
         "and writes nothing")
CONFLICT = ("an existing seq with another type or payload raises ConcurrencyError(task_id, expected=last_seq + 1, "
            "actual=seq) and changes nothing")
GAP = "a gap (seq > last_seq + 1) raises ConcurrencyError(task_id, expected=last_seq + 1, actual=seq) and writes nothing"
RACE = ("two writers in separate processes racing for one seq, the second coming between the first one's check "
        "and its write: exactly one wins, the other gets ConcurrencyError")
KILLED = ("a writer killed with SIGKILL mid-append loses at most that event: after reopening, every acknowledged "
          "event is there, in order, unchanged")
FOLD = "project_state(events[:k]) gives the state as of seq k: status, last_seq, tool_results by call id, output"
PURE = "project_state is pure: it never changes the events it folds"
EMPTY = "with no events the status is 'new', last_seq 0, no tool results and no output"
BY_CALL_ID = ("call_tool returns a logged result without calling the tool, also a falsy one; another call id runs the "
              "tool, even for the same tool and arguments")
CALL_PAYLOADS = ("call_tool logs tool.called {call_id, tool, args} (tool: the tool's name) and tool.result {call_id, result} "
                 "for each call it runs")
PLAIN = ("run_task returns each step's result, falsy ones included; a tool called again with other arguments is another "
         "call (call id f'{i}:{name}'); each step runs once; a completed task returns its output and calls nothing")
RAISE = ("a tool raising: run_task logs agent.crashed and re-raises; run again, it resumes: logged calls are not "
         "run again (falsy results included), the failed one is")
KILL = ("the process killed at any point (after any append, or inside a tool after its effect): resumed, it "
        "finishes; no step whose tool.result was logged runs again; the in-flight step runs again with the same "
        "idempotency_key f'{task_id}:{call_id}'")
RUN_PAYLOADS = "run_task logs agent.started {input}, a crash as agent.crashed {reason}, and task.completed {output} last"
GRAPH_RUNS = ("the graph runs fetch_client → validate_amounts → create_invoice → send_invoice through call_tool, "
              "writing client, amount, invoice_id and sent")
GRAPH_RESUMES = ("after a crash (a tool raising, or the process killed after a tool's result was logged), invoke(None, config) "
                 "finishes the run; no logged tool runs twice; the invoice is sent at most once per idempotency key")

TABLE = {
    ("module", "Part C — event sourcing for agent runs: log every action once, resume from the log."):
        explains("the part's title: a summary of the rules the docstrings state below, each checked where it is stated"),
    ("module", "An agent that calls tools and then dies cannot be restarted from scratch (it would send the invoice "
               "twice) nor from a status row (which cannot say which tool already ran)."):
        explains("context: why a log of events is needed, a claim about other designs, not about the learner's code"),
    ("module", "Here every action is an immutable event, numbered per task from 1; the run's state is a fold over its "
               "events, and a resumed run asks the log, not the tool, for every result already obtained."):
        checked("events.resume", KILL),  # immutable: events.append IMMUTABLE; numbered: APPEND_IN_ORDER; fold: FOLD
    ("module", "Rules of the store (``EventStore``), checked on every backend:"):
        explains("a heading: each rule is the list item after it and is checked there; 'every backend' is the "
                 "reference's contract (tests/test_event_store_contract.py, SQLite and PostgreSQL), the grader "
                 "checking the learner's SqliteEventStore"),
    ("module", "- ``append`` rejects an unknown type, a seq that is not an int >= 1 or a payload that is not a JSON "
               "object, before writing anything (``EventStoreError``);"):
        checked("events.append", REJECTS),
    ("module", "- ``seq == last_seq + 1``: stored, ``ts`` set by the store from ``time.time()``, read once the seq is "
               "known to be free (a refused or retried append reads no clock; the grader races writers at that read);"):
        checked("events.append", APPEND_IN_ORDER),  # the clock read after the check: RACE (events.concurrency)
    ("module", "- an existing seq with the same type and payload: the stored event comes back and nothing is written "
               "(an idempotent retry; ``ts`` is not compared);"):
        checked("events.idempotent", RETRY),
    ("module", "- an existing seq with another type or payload, or a gap: ``ConcurrencyError``; two writers racing for "
               "one seq: exactly one wins;"):
        checked("events.concurrency", CONFLICT),  # a gap: GAP; racing writers: RACE (same task)
    ("module", "- ``list`` returns the events from ``from_seq`` on, ascending, equal to what was appended; a "
               "file-backed store survives its process being killed."):
        checked("events.append", APPEND_IN_ORDER),  # surviving a kill: events.durable KILLED
    ("module", "Notebooks: 13_invoice_timeout … 19_audit_view."):
        explains("a pointer to the notebooks of the part"),
    ("module", 'Check with ``check("events")``.'):
        explains("a pointer to the checker the learner runs"),
    ("Event", "One immutable fact of a task's run: the ``seq``-th event of ``task_id``."):
        checked("events.append", IMMUTABLE),
    ("EventStoreError", "An event the store refuses: unknown type, bad seq or a payload that is not a JSON object."):
        checked("events.append", REJECTS),
    ("ConcurrencyError", "Another writer got there first: ``actual`` is not the seq the store expected for ``task_id``."):
        checked("events.concurrency", CONFLICT),  # its task_id, expected and actual, also by GAP
    ("check_new_event", "Validate an event before anything is written; its payload as canonical JSON text."):
        checked("events.append", REJECTS),  # canonical text (keys sorted): RETRY sends the payload's keys reordered
    ("same_content", "Is a retry of ``event``: same type and payload."):
        checked("events.idempotent", RETRY),  # another type or payload is no retry: CONFLICT
    ("same_content", "``ts`` is the store's, never compared."):
        checked("events.idempotent", RETRY),
    ("EventStore", "An append-only log of events per task, numbered 1, 2, 3… with no gaps."):
        checked("events.concurrency", GAP),
    ("EventStore.append", "Store event ``seq`` of ``task_id`` (see the module's rules); the stored event."):
        checked("events.append", APPEND_IN_ORDER),
    ("EventStore.list", "The events of ``task_id`` with ``seq >= from_seq``, ascending."):
        checked("events.append", APPEND_IN_ORDER),
    ("EventStore.last_seq", "The highest seq of ``task_id``; 0 when it has no event."):
        checked("events.append", APPEND_IN_ORDER),  # 0 for a task without events: "a task without events has last_seq 0 ..."
    ("SqliteEventStore", 'The store on SQLite: ``":memory:"`` or a file that several processes may open.'):
        checked("events.concurrency", RACE),  # in memory and on a file: the store rules draw both (on_files)
    ("PostgresEventStore", "Provided: the same store on PostgreSQL, e.g."):
        explains("provided code the learner does not write: the grader has no PostgreSQL server and grades the "
                 "learner's SqliteEventStore; tests/test_event_store_contract.py checks this class on a real server"),
    ("PostgresEventStore", '``PostgresEventStore("postgresql://user@host:5432/db")``.'):
        explains("an example of a connection string, the end of the sentence before it"),
    ("open_store", "Provided: ``sqlite:///path``, ``sqlite://`` (in memory) or ``postgresql://…``; default "
                   "``$AGSTATE_EVENTS_URL``, else SQLite in memory."):
        explains("provided code the learner does not write, used by the notebooks to pick a backend; no task grades "
                 "it, tests/test_event_store_contract.py::test_open_store_picks_the_backend checks it"),
    ("TaskState", "What the log says about a task as of its ``last_seq``-th event."):
        checked("events.project", FOLD),
    ("project_state", "Fold ``events`` (ascending) into a ``TaskState``; pure: the events are never changed."):
        checked("events.project", PURE),
    ("project_state", "On any prefix ``events[:k]`` it gives the state as of seq k."):
        checked("events.project", FOLD),
    ("project_state", "``tool_results`` is keyed by call id."):
        checked("events.project", FOLD),
    ("project_state", "Status: ``new`` with no events; ``running`` after ``agent.started`` or a tool event; ``crashed`` "
                      "after ``agent.crashed`` until the next event; ``completed`` after ``task.completed`` "
                      "(``output`` set)."):
        checked("events.project", FOLD),  # no events at all: EMPTY
    ("call_tool", "Run one logical tool call, identified by ``call_id``, at most once per logged result."):
        checked("events.resume", BY_CALL_ID),
    ("call_tool", 'A ``tool.result`` for ``call_id`` already in the log is returned without calling the tool, also when '
                  'it is falsy (0, "", None, [], False).'):
        checked("events.resume", BY_CALL_ID),
    ("call_tool", 'Otherwise: append ``tool.called`` {call_id, tool, args}, call ``tool(**args)`` (plus '
                  '``idempotency_key=f"{task_id}:{call_id}"`` when the tool takes that parameter), append '
                  '``tool.result`` {call_id, result}.'):
        checked("events.resume", CALL_PAYLOADS),  # the idempotency_key: KILL
    ("run_task", 'Run ``plan`` (``[{"tool": name, "args": {...}}, ...]``) as task ``task_id``; resume it if it has a log.'):
        checked("events.resume", KILL),
    ("run_task", 'Step i has call id ``f"{i}:{name}"``.'):
        checked("events.resume", PLAIN),
    ("run_task", "``agent.started`` {input} is logged once; the output, logged as ``task.completed`` {output}, is the "
                 "list of step results."):
        checked("events.resume", RUN_PAYLOADS),  # logged once, and the output returned: PLAIN
    ("run_task", "An exception is logged as ``agent.crashed`` {reason} and re-raised."):
        checked("events.resume", RAISE),  # its payload {reason}: RUN_PAYLOADS
    ("run_task", "A completed task returns its stored output and calls nothing."):
        checked("events.resume", PLAIN),
    ("InvoiceState", "The invoice run: input ``task_id``, ``customer``, ``amount``; each node adds one key."):
        checked("events.graph", GRAPH_RUNS),
    ("build_invoice_graph", "fetch_client → validate_amounts → create_invoice → send_invoice, each through ``call_tool``."):
        checked("events.graph", GRAPH_RUNS),
    ("build_invoice_graph", "Each node calls ``tools[node]`` via ``call_tool`` with call id = the node's name and the "
                            "arguments in ``INVOICE_STEPS``, and writes its key."):
        checked("events.graph", GRAPH_RUNS),
    ("build_invoice_graph", "After a crash, ``invoke(None, config)`` on the same thread finishes the run; no tool whose "
                            "result was logged runs again."):
        checked("events.graph", GRAPH_RESUMES),
}

# The "Your exercise" sections of part C's notebooks (solutions/notebooks/14_append_and_retry.py … 18_checkpointer_vs_log.py).
SCHEMA = "(task_id, seq) is unique in the schema itself (PRIMARY KEY or UNIQUE), and the file is a sound SQLite database"
NOTEBOOKS = {
    ('14_append_and_retry', 'In `agstate/events.py`, write `SqliteEventStore`:'):
        explains('a heading: each item below is its own entry'),
    ('14_append_and_retry',
     '1. **`__init__(path=":memory:")`** — create the table with `PRIMARY KEY (task_id, seq)`: uniqueness in the '
     'schema itself.'):
        checked('events.durable', SCHEMA),
    ('14_append_and_retry',
     'A hint for the connection: `isolation_level=None` lets you write `BEGIN` and `COMMIT` yourself.'):
        explains('a hint on how to connect, marked as one: what it serves is checked by the rules it makes possible '
                 '(BEGIN IMMEDIATE: the race rule; COMMIT: the killed-writer rule)'),
    # also: 'validate with check_new_event first': events.append, REJECTS ('before writing anything'); 'return the
    #   stored event': events.idempotent, RETRY; 'or raise': events.concurrency, CONFLICT and GAP; 'inside BEGIN
    #   IMMEDIATE': events.concurrency, RACE
    ('14_append_and_retry',
     '2. **`append`** — validate with `check_new_event` *first*; then, inside `BEGIN IMMEDIATE` … `COMMIT`: read the '
     'row at `seq` and the last seq, and store, return the stored event, or raise, as the table above says.'):
        checked('events.append', APPEND_IN_ORDER),
    # A transaction left open keeps the write lock: the next append, or another writer's, cannot start (the mutant
    # no_rollback in tests/mutants/events_mutants.py loses these marks).
    ('14_append_and_retry', 'Take `ts` from `time.time()` only then, for the event you insert.'):
        checked('events.concurrency', RACE),  # a refused append that read the clock fails it (expect_clock_after_check)
    ('14_append_and_retry', 'Roll back on every exit that does not commit.'):
        checked('events.concurrency', CONFLICT),
    # also: 'last_seq': events.append, 'a task without events has last_seq 0 and lists no events'
    ('14_append_and_retry', '3. **`list(task_id, from_seq=1)`** and **`last_seq(task_id)`**.'):
        checked('events.append', APPEND_IN_ORDER),
    ('14_append_and_retry',
     'The grader runs random logs on fresh stores (in memory and on files), retries with reordered payloads, '
     'conflicts and gaps, writers in separate processes racing for the same seqs, and writers killed with '
     '`SIGKILL`.'):
        explains('how the check cells grade: the runs the rules above make'),
    ('14_append_and_retry', '### Threads and processes'):
        explains('a sub-heading'),
    ('14_append_and_retry', 'The grader calls each store from one thread at a time.'):
        explains('the thread contract: no rule shares one store between threads (grader/parts/events/probes/ '
                 'calls each store from the probe\'s own thread; racing writers are processes)'),
    ('14_append_and_retry',
     "Writers that race do so from separate processes, each with its own `SqliteEventStore` on the same file: the "
     "database's write lock (`BEGIN IMMEDIATE`) keeps them apart."):
        checked('events.concurrency', RACE),
    ('14_append_and_retry',
     "The grader makes the race happen on every run: it lends each writer's module its own clock, and while one "
     "writer's append reads `time.time()` for its event — its check done, its insert still to come — the other "
     "writer appends the same seq."):
        checked('events.concurrency', RACE),
    ('14_append_and_retry',
     "A store whose check and insert are one transaction makes the rival wait; one that checks, then inserts, meets "
     "the rival's event at its insert."):
        checked('events.concurrency', RACE),
    ('14_append_and_retry',
     "An append that reads the clock before its check could not be raced at all, so the grader refuses that too."):
        checked('events.concurrency', RACE),
    ('14_append_and_retry',
     'A store you share between threads yourself needs a lock of its own (`threading.Lock`) around each '
     'transaction, because one connection runs one transaction at a time — as this cell shows:'):
        explains('advice for the learner\'s own code, shown by the next cell (sqlite3 refuses a second BEGIN on one '
                 'connection); not graded, as the sentence before says'),
    ('15_projection_and_replay', 'In `agstate/events.py`, write **`project_state(events, task_id="")`**:'):
        explains('a heading: each rule of the list below is its own entry'),
    # also: 'status new with no events': events.project, EMPTY
    ('15_projection_and_replay',
     "- status `new` with no events; `running` after `agent.started` or any tool event; `crashed` after "
     "`agent.crashed`, until the next event; `completed` after `task.completed` (and `output` = its payload's "
     "`output`);"):
        checked('events.project', FOLD),
    ('15_projection_and_replay', "- `last_seq` = the last event's seq (0 with none);"):
        checked('events.project', FOLD),
    ('15_projection_and_replay',
     '- `tool_results` keyed by **call id**: a later result for the same call id replaces the earlier one;'):
        checked('events.project', FOLD),
    # also: 'the same events give the same state': every prefix is folded and compared with the model (FOLD)
    ('15_projection_and_replay', '- pure: the same events give the same state, and the events are never changed.'):
        checked('events.project', PURE),
    ('15_projection_and_replay',
     'The grader folds random runs, every prefix of each, and checks the events afterwards.'):
        explains('how the check cell grades: the runs the rules above fold'),
    ('16_tool_cache_bugs',
     'In `agstate/events.py`, write **`call_tool(store, task_id, call_id, tool, args)`** as above.'):
        checked('events.resume', BY_CALL_ID),
    # A counter of one's own starts again in the new process and collides with the logged seqs: ConcurrencyError.
    ('16_tool_cache_bugs',
     'Seq numbers come from the store (`last_seq + 1`), never from a counter of your own: a resumed run in a new '
     'process must continue the same numbering. (It also passes an idempotency key to tools that take one: that is '
     'notebook 17.)'):
        checked('events.resume', KILL),
    ('16_tool_cache_bugs', '`call_tool` is graded with `run_task` as `events.resume`, at the end of notebook 17.'):
        explains('where call_tool is graded'),
    ('17_idempotency_keys', 'In `agstate/events.py`:'):
        explains('a heading: each item below is its own entry'),
    ('17_idempotency_keys',
     '1. **`call_tool`** (notebook 16) also passes `idempotency_key=f"{task_id}:{call_id}"` when '
     '`inspect.signature(tool).parameters` has `idempotency_key`.'):
        checked('events.resume', KILL),
    # also: 'a completed task returns its output': PLAIN; the payloads: RUN_PAYLOADS
    ('17_idempotency_keys',
     '2. **`run_task(store, task_id, input, plan, tools)`** — project the log first: a completed task returns its '
     '`output`; a new one gets `agent.started` {input}; then each step through `call_tool` with call id '
     '`f"{i}:{name}"`; then `task.completed` {output}.'):
        checked('events.resume', PLAIN),
    ('17_idempotency_keys', 'On an exception, append `agent.crashed` {reason} and re-raise.'):
        checked('events.resume', RAISE),
    ('17_idempotency_keys',
     'The grader runs random plans — repeated tools with other arguments, falsy results, some tools taking keys — and '
     'crashes them at random points: a tool raising, the process killed with `SIGKILL` right after any append, or '
     'killed inside a tool after its side effect.'):
        explains('how the check cell grades: the runs the rules above make'),
    ('17_idempotency_keys', 'A ledger of side effects, written by the fake tools, says what really ran, and when.'):
        explains("how the grader knows what ran: its own fake tools' ledger"),
    # also: 'call_tool(store, state["task_id"], name, ...)': the call id is the node's name, checked by the same rule
    ('18_checkpointer_vs_log',
     'In `agstate/events.py`, write **`build_invoice_graph(store, tools, checkpointer=None)`**: '
     '`StateGraph(InvoiceState)` with the nodes of `INVOICE_STEPS` in order; each node calls `tools[name]` through '
     '`call_tool(store, state["task_id"], name, tools[name], args)`, the args taken from the state as '
     '`INVOICE_STEPS` says, and returns its key.'):
        checked('events.graph', GRAPH_RUNS),
    ('18_checkpointer_vs_log',
     'The grader runs it with a `SqliteSaver` on a file, crashes it (a tool raising, the process killed right after '
     'any append, or killed inside a tool), then calls `invoke(None, config)` from a new process.'):
        checked('events.graph', GRAPH_RESUMES),
}
