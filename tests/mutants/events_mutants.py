"""Mutants of part C: realistic buggy variants of ``solutions/agstate/events.py``.

Each ``Mutant`` (the shape of part A's corpus) is one mistake, written as exact
text edits of the reference, with the set of part-C tasks the grader must fail
for it: exactly those. When one mistake breaks two tasks (``call_tool`` is used
by the invoice graph; ``project_state`` by ``call_tool``) both are listed and
``why`` says so. An edit whose old text does not occur exactly once raises
``StaleMutant``, naming the mutant and ``events.py``.
"""

from support.corpus import Mutant
from support.corpus import mutant as _m

__all__ = ["MUTANTS", "EXAMPLES", "MIN_MUTANTS"]

APPEND = "events.append"
IDEMPOTENT = "events.idempotent"
CONCURRENCY = "events.concurrency"
DURABLE = "events.durable"
PROJECT = "events.project"
RESUME = "events.resume"
GRAPH = "events.graph"

EXAMPLES = 20  # random examples per rule when the corpus is graded
MIN_MUTANTS = 15


CACHE_HIT = """\
    done = project_state(store.list(task_id), task_id).tool_results
    if call_id in done:
        return done[call_id]
    name = getattr(tool, "__name__", type(tool).__name__)
"""
RETRY = """\
                    if same_content(stored, type, body):
                        return stored  # a retry: the stored event, nothing written
"""
CONFLICT = """raise ConcurrencyError(task_id, last + 1, seq, f"seq {seq} already holds another {stored.type!r} event")
                if seq != last + 1:"""
GAP = """\
                if seq != last + 1:
                    raise ConcurrencyError(task_id, last + 1, seq, "a gap: events must be numbered without holes")
                event = Event("""
SCHEMA = """"type TEXT NOT NULL, payload TEXT NOT NULL, ts REAL NOT NULL, PRIMARY KEY (task_id, seq))")"""
BEGIN = '''            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db'''
SQLITE_INSERT = '''                self._db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)", (task_id, seq, type, body, event.ts))
                self._db.execute("COMMIT")
                return event'''
RUNNING = """\
        else:
            state["status"] = "running"
            if event.type == "tool.result":
                results[event.payload["call_id"]] = event.payload.get("result")
"""
KEY = """        kwargs["idempotency_key"] = f"{task_id}:{call_id}"\n"""
CRASH = """\
    except Exception as exc:
        store.append(task_id, store.last_seq(task_id) + 1, "agent.crashed", {"reason": f"{type(exc).__name__}: {exc}"})
        raise
"""

MUTANTS: list[Mutant] = [
    # -- the store ---------------------------------------------------------------------------------
    _m("no_validation", {APPEND},
       [("        body = check_new_event(task_id, seq, type, payload)  # before any write\n",
         "        body = json.dumps(payload, sort_keys=True)\n")],
       "never validates: an unknown type is stored, seq True passes as 1, a list payload is written"),
    _m("validates_after_writing", {APPEND},
       [("        body = check_new_event(task_id, seq, type, payload)  # before any write\n",
         "        body = json.dumps(payload, sort_keys=True, default=str)\n"),
        (SQLITE_INSERT, SQLITE_INSERT.replace('                self._db.execute("COMMIT")\n',
                                              '                self._db.execute("COMMIT")\n'
                                              '                check_new_event(task_id, seq, type, payload)\n'))],
       "checks the event only after committing it: the refused event is in the log anyway"),
    _m("non_idempotent_append", {IDEMPOTENT},
       [(RETRY, "")],
       "an existing seq is always a conflict: a retried append after a lost reply raises ConcurrencyError"),
    _m("ts_in_the_comparison", {IDEMPOTENT},
       [(RETRY, RETRY.replace("if same_content(stored, type, body):",
                              "if same_content(stored, type, body) and stored.ts == time.time():"))],
       "compares the retry's new timestamp with the stored one: a retry never matches"),
    _m("key_order_matters", {IDEMPOTENT},
       [(RETRY, RETRY.replace("if same_content(stored, type, body):",
                              "if stored.type == type and json.dumps(stored.payload) == json.dumps(payload):"))],
       "compares payloads as JSON text without sort_keys: an equal payload with its keys in another order is a conflict"),
    _m("on_conflict_do_nothing", {CONCURRENCY},
       [(CONFLICT, "return stored\n                if seq != last + 1:")],
       "a different event at a taken seq is silently ignored (ON CONFLICT DO NOTHING) and the stored one returned"),
    _m("gaps_accepted", {CONCURRENCY},
       [(GAP, "                event = Event(")],
       "never checks seq == last_seq + 1: seq 5 after seq 1 is stored and the log has holes"),
    _m("no_transaction", {CONCURRENCY},
       [(BEGIN, "            try:\n                row = self._db"),
        (SQLITE_INSERT, SQLITE_INSERT.replace('                self._db.execute("COMMIT")\n', ""))],
       "checks then inserts without a write transaction: two processes both see seq n free; one gets IntegrityError"),
    _m("deferred_transaction", {CONCURRENCY},
       [(BEGIN, BEGIN.replace("BEGIN IMMEDIATE", "BEGIN"))],
       "a deferred BEGIN reads before locking: a racing writer fails with 'database is locked' instead of a ConcurrencyError"),
    _m("no_unique_key", {DURABLE},
       [(SCHEMA, '"type TEXT NOT NULL, payload TEXT NOT NULL, ts REAL NOT NULL)")')],
       "(task_id, seq) is unique only because the code checks it: the schema lets another writer store a duplicate"),
    _m("never_commits", {DURABLE, CONCURRENCY},
       [("isolation_level=None, check_same_thread=False", "check_same_thread=False"),
        (BEGIN, "            try:\n                row = self._db"),
        (SQLITE_INSERT, SQLITE_INSERT.replace('                self._db.execute("COMMIT")\n', "")),
        ('                if self._db.in_transaction:\n                    self._db.execute("ROLLBACK")\n',
         "                pass\n")],
       "relies on Python's implicit transaction and never commits: its own connection sees every event, but a killed "
       "writer loses them all, and its open transaction locks other writers out"),
    _m("payload_compared_with_eq", {CONCURRENCY},
       [("                    if same_content(stored, type, body):",
         "                    if stored.type == type and stored.payload == json.loads(body):")],
       "compares payloads with ==: {'n': True} passes for a retry of {'n': 1}, and the conflicting event is dropped"),
    _m("no_rollback", {IDEMPOTENT, CONCURRENCY},
       [('                if self._db.in_transaction:\n                    self._db.execute("ROLLBACK")\n',
         "                pass\n")],
       "never rolls back: a retry or a refused append leaves its transaction open, so the next BEGIN IMMEDIATE fails "
       "and a rival writer waits for the write lock forever"),
    _m("path_ignored", {DURABLE, CONCURRENCY},
       [("        self._db = sqlite3.connect(path, isolation_level=None",
         "        self._db = sqlite3.connect(\":memory:\", isolation_level=None")],
       "always opens an in-memory database: nothing survives the process, and each writer has its own log"),
    # -- the fold ------------------------------------------------------------------------------------
    _m("projection_pops_results", {PROJECT},
       [(RUNNING, RUNNING.replace('event.payload.get("result")', 'event.payload.pop("result", None)'))],
       "takes each result out of its event's payload: the fold mutates the events, and a second fold finds None"),
    _m("crashed_status_sticks", {PROJECT},
       [(RUNNING, RUNNING.replace('state["status"] = "running"',
                                  'state["status"] = "crashed" if state["status"] == "crashed" else "running"'))],
       "once crashed, a task stays crashed although tool events came after the crash"),
    _m("projection_drops_falsy_results", {PROJECT, RESUME, GRAPH},
       [(RUNNING, RUNNING.replace('            if event.type == "tool.result":',
                                  '            if event.type == "tool.result" and event.payload.get("result"):'))],
       "keeps only truthy results: call_tool (which asks project_state) re-runs a call whose result was 0 or None, "
       "e.g. validate_amounts for an amount of 0"),
    # -- resuming ------------------------------------------------------------------------------------
    _m("cache_by_tool_name", {RESUME},
       [(CACHE_HIT, """\
    name = getattr(tool, "__name__", type(tool).__name__)
    by_tool = {e.payload["tool"]: e.payload["call_id"] for e in store.list(task_id) if e.type == "tool.called"}
    done = project_state(store.list(task_id), task_id).tool_results
    if name in by_tool and by_tool[name] in done:
        return done[by_tool[name]]
""")],
       "the seed's cache keyed by tool name: a second call with other arguments gets the first call's result "
       "(the invoice graph's call ids are tool names, so it still works)"),
    _m("truthiness_check", {RESUME, GRAPH},
       [(CACHE_HIT, CACHE_HIT.replace("if call_id in done:", "if done.get(call_id):"))],
       "the seed's truthiness check: a logged result of 0, '', None, [] or False is run again on resume"),
    _m("no_idempotency_key", {RESUME, GRAPH},
       [(KEY, KEY.replace('kwargs["idempotency_key"] = f"{task_id}:{call_id}"', "pass  # the tool can do without it"))],
       "never passes idempotency_key: a send re-run after a crash is a second send"),
    _m("key_by_tool_name", {RESUME},
       [(KEY, KEY.replace("{call_id}", "{name}"))],
       "idempotency_key from the tool's name: two charges of one run share a key, so the provider drops the second "
       "(the graph's call ids are tool names, so it still works)"),
    _m("crash_not_logged", {RESUME},
       [(CRASH, "    except Exception:\n        raise\n")],
       "re-raises without logging agent.crashed: the log cannot tell a crash from a run still going"),
    _m("started_again_on_resume", {RESUME},
       [('        if state.status == "new":\n            store.append(task_id, 1,',
         '        if state.status != "completed":\n            store.append(task_id, store.last_seq(task_id) + 1,')],
       "logs agent.started again on every resume"),
    _m("completed_task_runs_again", {RESUME},
       [('    if state.status == "completed":\n        return state.output\n', "")],
       "does not return a completed task's stored output: a second task.completed is logged"),
    _m("graph_calls_tools_directly", {GRAPH},
       [("            return {key: call_tool(store, state[\"task_id\"], name, tools[name], args)}",
         "            return {key: tools[name](**args, **({'idempotency_key': None} if name == 'send_invoice' else {}))}")],
       "the graph's nodes call the tools directly: LangGraph's resume re-runs the interrupted node, and the send repeats"),
    # -- what the docs promise and only these rules check (tests/doc_rules/events.py) -------------------------
    _m("events_not_frozen", {APPEND},
       [("    model_config = ConfigDict(frozen=True)\n", "")],
       "Event is a mutable model: whoever reads an event from the store can rewrite a stored fact in place"),
    _m("called_without_args", {RESUME},
       [('"tool.called", {"call_id": call_id, "tool": name, "args": args})', '"tool.called", {"call_id": call_id})')],
       "logs tool.called with its call id only: the log cannot say which tool ran with which arguments"),
    _m("started_without_input", {RESUME},
       [('"agent.started", {"input": input})', '"agent.started", {})')],
       "logs agent.started without the run's input: a resumed or audited run cannot tell what it was asked"),
    _m("crash_without_reason", {RESUME},
       [('"agent.crashed", {"reason": f"{type(exc).__name__}: {exc}"})', '"agent.crashed", {"error": type(exc).__name__})')],
       "logs agent.crashed under another key than reason: the log's readers find no reason for the crash"),
    _m("nodes_bind_late", {GRAPH},
       [("        builder.add_node(name, node(name, arguments, key))",
         "        builder.add_node(name, lambda state: node(name, arguments, key)(state))")],
       "nodes defined in a loop without default arguments: the closures bind late, every node is send_invoice"),
]
