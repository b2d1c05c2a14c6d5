"""The machine judge: a language model grades (query, chunk) pairs on the workspace's scale.

Conventions
- A judge is a model, a prompt version and a temperature. Its name, ``model@version``, is the
  annotator and the ``origin_source`` of its judgments, whose ``origin`` is ``machine``; the
  details of each (model, prompt version and hash, temperature, reason, raw reply) are a row of
  ``machine_labels``. A machine judgment is never a person's vote: the label sources of
  ``labeling.evaluation.inputs.label_sets`` keep the two apart, and the queue does not count it.
- Prompts and replies follow ``labeling.machine_judging.judge_prompts`` (templates, escaping
  of the people's texts, the reply's JSON).
- The narrative is the query's description of the information need: a ``narrative`` column of
  ``queries`` when the workspace has one, else the query attribute ``narrative``, else
  "(none given)".
- A malformed reply (``judge_prompts.MalformedReply``): the raw reply is kept with the batch's
  pair, which stays pending for the next run.
- Calls are cached by (server, model, prompt hash, pair) in ``machine_calls``, the server being
  the connection's id and base URL: a run reads the cache first, so running a judge again on
  the same pairs and server calls nothing and, when the judge's current grade is the cached
  one, writes nothing either. Another server with the same model name is another cache.
- Where calls go: in the app (any session, ``roles.current_actor`` not None) only to a stored
  connection (``labeling.workspace.connections``) whose address and model the client carries
  unchanged, at most its ``call_ceiling`` requests a run. The workspace's owner (the command
  line) may also name a server itself.
- A batch (``start_batch``) records its pairs in order; ``run_batch`` labels the pending ones,
  committing each answer at once (cache row, judgment and details in one transaction), so an
  interruption loses nothing and the next ``run_batch`` resumes. A run stops at its call cap
  (retries count), when the server cannot be reached, or when ``should_stop`` says so. A pair
  that timed out or got a malformed reply stays pending with its last error; after
  ``set_aside_after`` such failures of its own (rate limits and an unreachable server are not
  the pair's) it is *set aside*: not sent again, listed by ``batch_failures``, and the batch
  finishes without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import InputError, ScorecardError
from labeling.machine_judging.judge_prompts import MalformedReply, Prompt, parse_reply, render
from labeling.model_calls import chat
from labeling.model_calls.tokens import estimate_tokens
from labeling.workspace import (
    connections,
    contents,
    grading,
    judgments,
    label_queue,
    provenance,
    roles,
    store,
)
from labeling.workspace import machine_labels as machine_tables

if TYPE_CHECKING:
    import sqlite_utils

SET_ASIDE_AFTER = 3  # failures of a pair's own before it is set aside
DEFAULT_TEMPERATURE = 0.0
REPLY_TOKENS = 60  # estimated tokens of one reply: a grade and a sentence or two

Pair = tuple[str, str]
Progress = Callable[[int, int, str], None]


# ---------------------------------------------------------------------------------------------
# Prompts and judges


@dataclass(frozen=True)
class Judge:
    """A model with a prompt and a temperature; ``name`` (``model@version``) is the annotator
    and ``origin_source`` of its judgments. ``base_url`` and ``connection_id`` say which server
    runs the model (the cache is per server; 0 and "" when not known yet)."""

    model: str
    prompt: Prompt
    temperature: float = DEFAULT_TEMPERATURE
    base_url: str = ""
    connection_id: int = 0

    def __post_init__(self) -> None:
        if not self.model.strip():
            raise InputError("name the model", source="machine judge")
        if not 0.0 <= self.temperature <= 2.0:
            raise InputError(f"the temperature is between 0 and 2, not {self.temperature}",
                             source="machine judge")

    @property
    def name(self) -> str:
        return f"{self.model.strip()}@{self.prompt.version}"

    @property
    def server(self) -> tuple[int, str]:
        """(connection id, base URL): the server part of the call cache's key."""
        return self.connection_id, server_url(self.base_url)


def server_url(base_url: str) -> str:
    """A base URL as the cache keys it (no surrounding space or trailing slash)."""
    return base_url.strip().rstrip("/")


def judge_on(connection: connections.Connection, prompt: Prompt,
             temperature: float = DEFAULT_TEMPERATURE) -> Judge:
    """The judge running ``prompt`` on a stored model-server connection."""
    return Judge(connection.model, prompt, temperature, connection.base_url, connection.id)


# ---------------------------------------------------------------------------------------------
# What the model sees


def pair_texts(db: sqlite_utils.Database, pairs: Sequence[Pair]) -> dict[Pair, dict[str, str]]:
    """query, narrative, title and passage of each pair (empty strings where missing)."""
    return contents.pair_texts(db, list(pairs))


def queued_pairs(db: sqlite_utils.Database) -> list[Pair]:
    """The pairs open in the labeling queue, in its shuffled order (a pair set to judge)."""
    return label_queue.open_pairs(db)


# ---------------------------------------------------------------------------------------------
# Planning


@dataclass(frozen=True)
class Plan:
    """What a batch will cost before it runs: ``pairs`` asked for, ``locked`` left out (their
    split is locked), ``cached`` answered from the cache, ``calls`` to make (at least one
    request each), estimated ``prompt_tokens`` and ``reply_tokens`` of those calls, and the
    cost at the given prices (per million tokens; 0 when none were given)."""

    pairs: int
    locked: int
    cached: int
    calls: int
    prompt_tokens: int
    reply_tokens: int
    cost: float


def cached_pairs(db: sqlite_utils.Database, judge: Judge, pairs: Sequence[Pair]) -> set[Pair]:
    """The pairs the call cache holds an answer for, for this server, model and prompt."""
    return set(_cache(db, judge, pairs))


def plan(
    db: sqlite_utils.Database, judge: Judge, pairs: Sequence[Pair], *,
    price_prompt: float = 0.0, price_reply: float = 0.0,
) -> Plan:
    """The cost of judging ``pairs`` (see ``Plan``); prices are per million tokens."""
    pairs = list(dict.fromkeys((str(q), str(c)) for q, c in pairs))
    locked = contents.locked_pairs(db, list(pairs))
    open_pairs = [p for p in pairs if p not in locked]
    cached = cached_pairs(db, judge, open_pairs)
    to_call = [p for p in open_pairs if p not in cached]
    texts = pair_texts(db, to_call)
    scale = grading.get_scale(db)
    prompt_tokens = sum(estimate_tokens(render(judge.prompt, texts[p], scale))
                        for p in to_call if p in texts)
    reply_tokens = REPLY_TOKENS * len(to_call)
    cost = (prompt_tokens * price_prompt + reply_tokens * price_reply) / 1e6
    return Plan(len(pairs), len(locked), len(cached), len(to_call), prompt_tokens,
                reply_tokens, cost)


# ---------------------------------------------------------------------------------------------
# Batches


def start_batch(
    db: sqlite_utils.Database, judge: Judge, pairs: Sequence[Pair], pair_set: str, *,
    created_by: str | None = None, pool_depth: int | None = None,
) -> int:
    """Record a batch of ``pairs`` (in order, repeats dropped) for ``judge``; pairs of a locked
    split are recorded as skipped. ``pool_depth``: the pairs are a pool of runs that deep,
    recorded as each pair's source (``pair_sources``, detail "machine judge batch N: <pair
    set>"), so the report can say where the machine's relevant labels come from. Returns the
    batch id; ``run_batch`` labels it."""
    pairs = list(dict.fromkeys((str(q), str(c)) for q, c in pairs))
    if not pairs:
        raise InputError("the pair set is empty: nothing to judge", source="machine judge")
    known = pair_texts(db, pairs)
    unknown = [p for p in pairs if p not in known]
    if unknown:
        raise InputError(f"unknown query or chunk in {len(unknown)} pair(s), e.g. "
                         f"{unknown[0]!r}", source="machine judge")
    locked = contents.locked_pairs(db, list(pairs))
    with store.write_transaction(db, action="machine_judge") as conn:
        _remember_prompt(conn, judge.prompt)
        batch_id = machine_tables.add_batch(conn, {
            "judge": judge.name, "model": judge.model, "prompt_version": judge.prompt.version,
            "prompt_hash": judge.prompt.hash, "temperature": judge.temperature,
            "pair_set": pair_set, "created_by": created_by, "created_at": store.utc_now(),
            "connection_id": judge.connection_id or None,
            "base_url": server_url(judge.base_url) or None,
        }, [(q, c, "skipped", "its query is in a locked split") if (q, c) in locked
            else (q, c, "pending", None) for q, c in pairs])
        if pool_depth is not None:
            provenance.add_pair_sources(conn, pairs, "pool", pool_depth=int(pool_depth),
                                        detail=f"machine judge batch {batch_id}: {pair_set}")
    return int(batch_id)


def _remember_prompt(conn, prompt: Prompt) -> None:
    machine_tables.remember_prompt(conn, prompt.hash, prompt.version, prompt.template,
                                   store.utc_now())


def batch_judge(db: sqlite_utils.Database, batch_id: int) -> Judge:
    """The judge a batch was started with (its prompt as stored then, its server)."""
    row = machine_tables.batch_setup(db, batch_id)
    if row is None:
        raise ScorecardError(f"no machine batch {batch_id}")
    return Judge(row[0], Prompt(row[1], row[2]), float(row[3]), row[4], int(row[5]))


def batch_connection(db: sqlite_utils.Database, batch_id: int) -> connections.Connection:
    """The stored connection a batch was started on (to resume it there); ``ScorecardError``
    when it was started on a server named on the command line, or the connection is gone."""
    judge = batch_judge(db, batch_id)
    found = connections.connection_by_id(db, judge.connection_id) if judge.connection_id \
        else None
    if found is None:
        raise ScorecardError(f"batch {batch_id} was not started on a stored model-server "
                             "connection (or it was removed): resume it from the command line")
    return found


def check_client(db: sqlite_utils.Database, client: chat.ChatClient,
                 max_calls: int | None = None) -> None:
    """Refuse a client the current actor may not use (``connections.check_use``): in the app,
    only a stored connection, its address and model unchanged, within its call ceiling."""
    connections.check_use(db, client.connection_id, client.base_url, client.model,
                          max_calls if max_calls is not None else client.call_cap)


@dataclass
class BatchResult:
    """What one run of a batch did: pairs ``labeled`` (from a call or the cache), of those
    ``from_cache``; ``unchanged`` (the judge's current grade was already the answer, nothing
    written); ``failed`` attempts (left pending); ``pending`` pairs after the run;
    ``set_aside``: pairs of the batch set aside (``newly_set_aside`` by this run); ``calls``
    (requests sent, retries included); ``stopped``: why the run ended early, if it did."""

    batch_id: int
    labeled: int = 0
    from_cache: int = 0
    unchanged: int = 0
    failed: int = 0
    pending: int = 0
    set_aside: int = 0
    calls: int = 0
    stopped: str | None = None
    errors: list[str] = field(default_factory=list)
    newly_set_aside: list[Pair] = field(default_factory=list)

    def summary(self) -> str:
        """One sentence for a page or the command line."""
        text = (f"batch {self.batch_id}: {self.labeled} pair(s) labeled ({self.from_cache} from "
                f"the cache, {self.unchanged} unchanged), {self.failed} failed, "
                f"{self.pending} pending; {self.calls} call(s)")
        if self.set_aside:
            text += (f"; {self.set_aside} pair(s) set aside after repeated failures, not sent "
                     "again (scorecard judge failures lists them)")
        return text + (f"; stopped: {self.stopped}" if self.stopped else "")


def run_batch(
    db: sqlite_utils.Database,
    batch_id: int,
    client: chat.ChatClient,
    *,
    max_calls: int | None = None,
    progress: Progress | None = None,
    should_stop: Callable[[], bool] | None = None,
    set_aside_after: int = SET_ASIDE_AFTER,
) -> BatchResult:
    """Label the pending pairs of batch ``batch_id`` in order with ``client`` (its model must be
    the batch's); see the module conventions. ``max_calls`` caps this run's requests; a pair is
    set aside at its ``set_aside_after``-th failure."""
    judge = _prepare(db, batch_id, client, max_calls, set_aside_after)
    result = BatchResult(batch_id)
    pending = machine_tables.pending_pairs(db, batch_id)
    scale = grading.get_scale(db)
    texts = pair_texts(db, pending)
    cache = _cache(db, judge, pending)
    start_calls = client.calls
    for done, pair in enumerate(pending):
        if should_stop is not None and should_stop():
            result.stopped = "stopped on request"
            break
        if progress is not None:
            progress(done, len(pending), f"{pair[0]} / {pair[1]}")
        if pair in cache:
            _save_answer(db, batch_id, judge, pair, cache[pair], None, result)
            result.from_cache += 1
            continue
        stop = _call_one(db, batch_id, judge, pair, render(judge.prompt, texts[pair], scale),
                         client, (scale, set_aside_after), result)
        if stop is not None:
            result.stopped = stop if stop else f"reached the cap of {max_calls} calls"
            break
    result.calls = client.calls - start_calls
    result.pending = _count(db, batch_id, "pending")
    result.set_aside = _count(db, batch_id, "set_aside")
    if result.pending == 0:
        with store.write_transaction(db, action="machine_judge") as conn:
            machine_tables.finish_batch(conn, batch_id, store.utc_now())
    if progress is not None:
        progress(len(pending), len(pending), result.summary())
    return result


def _prepare(db: sqlite_utils.Database, batch_id: int, client: chat.ChatClient,
             max_calls: int | None, set_aside_after: int) -> Judge:
    """Check who runs the batch, where and how (one sentence when something is wrong), set the
    client's temperature and cap; the batch's judge on the client's server (the cache's)."""
    if max_calls is not None and max_calls < 0:
        raise InputError("the call cap must be zero or more", source="machine judge")
    if set_aside_after < 1:
        raise InputError("pairs are set aside after 1 failure or more", source="machine judge")
    roles.check_current(db, "machine_judge")  # who may run one, before where it may call
    check_client(db, client, max_calls)
    judge = batch_judge(db, batch_id)
    if client.model != judge.model:
        raise ScorecardError(f"batch {batch_id} is for model {judge.model!r}, not "
                             f"{client.model!r}")
    if judge.connection_id and client.connection_id != judge.connection_id:
        raise ScorecardError(f"batch {batch_id} was started on another model-server "
                             "connection: resume it there")
    client.temperature = judge.temperature
    if max_calls is not None:
        client.call_cap = client.calls + max_calls
    return Judge(judge.model, judge.prompt, judge.temperature, client.base_url,
                 client.connection_id)


def _call_one(db, batch_id: int, judge: Judge, pair: Pair, prompt: str,
              client: chat.ChatClient, rules: tuple, result: BatchResult) -> str | None:
    """Ask for one pair's grade and store what came back; why the run must stop ("" for the
    call cap), or None to go on."""
    scale, set_aside_after = rules
    try:
        reply = client.chat(prompt)
    except chat.CallCapReached:
        return ""
    except chat.ServerUnreachable as error:
        _record_failure(db, batch_id, pair, (str(error), None), 0, result)
        return str(error)
    except chat.RateLimited as error:  # the server's state, not the pair's
        _record_failure(db, batch_id, pair, (str(error), None), 0, result)
        return None
    except chat.ChatError as error:
        _record_failure(db, batch_id, pair, (str(error), None), set_aside_after, result)
        if client.show_error_bodies:  # an admin: what the server said, shown, never stored
            result.errors[-1] = f"{pair[0]} / {pair[1]}: {error.described(True)}"
        return None
    try:
        grade, reason = parse_reply(reply, [g for g, _, _ in scale])
    except MalformedReply as error:
        _record_failure(db, batch_id, pair, (str(error), reply), set_aside_after, result)
        return None
    _save_answer(db, batch_id, judge, pair, (grade, reason, reply), client.last_usage or {},
                 result)
    return None


def _cache(db: sqlite_utils.Database, judge: Judge,
           pairs: Sequence[Pair]) -> dict[Pair, tuple[int, str, str]]:
    wanted = set(pairs)
    connection_id, base_url = judge.server
    rows = machine_tables.cached_calls(db, connection_id, base_url, judge.model,
                                       judge.prompt.hash)
    return {(q, c): (int(g), r, reply) for q, c, g, r, reply in rows
            if (q, c) in wanted and base_url}


def _count(db: sqlite_utils.Database, batch_id: int, state: str) -> int:
    return machine_tables.count_in_state(db, batch_id, state)

def _record_failure(db, batch_id: int, pair: Pair, failure: tuple[str, str | None],
                    set_aside_after: int, result: BatchResult) -> None:
    """Keep the error and raw reply of a failed attempt; count it as the pair's own failure
    unless ``set_aside_after`` is 0, and set the pair aside at that many."""
    error, reply = failure
    counts = int(set_aside_after > 0)
    with store.write_transaction(db, action="machine_judge") as conn:
        failures = machine_tables.record_failure(conn, batch_id, pair, counts, error, reply)
        if counts and failures >= set_aside_after:
            machine_tables.set_aside(conn, batch_id, pair)
            result.newly_set_aside.append(pair)
    result.failed += 1
    result.errors.append(f"{pair[0]} / {pair[1]}: {error}")


def _save_answer(db, batch_id: int, judge: Judge, pair: Pair, answer: tuple[int, str, str],
                 usage: dict | None, result: BatchResult) -> None:
    """Cache the answer (``usage`` is None for one read from the cache, else the server's token
    counts), append the judgment unless the judge's current grade is already this one, and mark
    the pair done: one transaction."""
    grade, reason, reply = answer
    called = usage is not None
    with store.write_transaction(db, action="machine_judge") as conn:
        # OR IGNORE: another run may have cached the same answer meanwhile; it stays as it was.
        machine_tables.cache_call(conn, {
            "connection_id": judge.server[0], "base_url": judge.server[1],
            "model": judge.model, "prompt_hash": judge.prompt.hash, "query_id": pair[0],
            "chunk_id": pair[1], "temperature": judge.temperature, "grade": grade,
            "reason": reason, "reply": reply, "prompt_tokens": _tokens(usage, "prompt_tokens"),
            "completion_tokens": _tokens(usage, "completion_tokens"),
            "created_at": store.utc_now()})
        current = machine_tables.latest_machine_judgment(conn, pair, judge.name)
        if current is not None and current[1] == grade and current[2] == judge.prompt.hash:
            judgment_id = current[0]
            result.unchanged += 1
        else:
            judgment_id = judgments.add_judgment(
                db, pair[0], pair[1], grade, judge.name, origin="machine",
                origin_source=judge.name)
            machine_tables.add_machine_label(conn, {
                "judgment_id": judgment_id, "batch_id": batch_id, "model": judge.model,
                "prompt_version": judge.prompt.version, "prompt_hash": judge.prompt.hash,
                "temperature": judge.temperature, "reason": reason, "reply": reply,
                "cached": int(not called)})
        machine_tables.mark_done(conn, batch_id, pair, judgment_id, called)
    result.labeled += 1


def _tokens(usage: dict | None, key: str) -> int | None:
    value = (usage or {}).get(key)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


# ---------------------------------------------------------------------------------------------
# Reading


def batches(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every batch, newest first: id, judge, pair_set, pairs, done, pending, skipped,
    set_aside, created_at, finished_at."""
    return machine_tables.batches_table(db)

def batch_failures(db: sqlite_utils.Database, batch_id: int | None = None) -> pd.DataFrame:
    """The pairs not done that failed at least once (of one batch, or of every batch), in batch
    and pair order: batch_id, query_id, chunk_id, state (``pending`` or ``set_aside``),
    failures (the pair's own), attempts (requests), error (the last), reply (the raw reply of
    the last malformed answer)."""
    return machine_tables.failed_pairs(db, batch_id)

def judges(db: sqlite_utils.Database) -> list[str]:
    """The names of the machine judges that have labels, in name order."""
    return machine_tables.machine_annotators(db)

def machine_labels(db: sqlite_utils.Database, judge: str) -> pd.DataFrame:
    """The current labels of ``judge``: query_id, chunk_id, grade, reason, model,
    prompt_version, prompt_hash, temperature, judgment_id (pairs it could not grade left out)."""
    return machine_tables.current_machine_labels(db, judge)
