"""Generation runs: sample passages, generate, score, pick and store, as one recorded batch.

A batch is recorded before its first passage (``synthetic_batches``: generator and settings;
``synthetic_batch_passages``: the sampled passages in order). A passage is marked done in the
transaction that stores its candidates, so an interrupted batch (a crash, a closed page, the
call cap) resumes from the passages not done (``resume``) and repeats nothing.

Offline batches generate every passage's questions, score them all and pick, best first, up to
``per_chunk`` per passage in the team's form mix (``forms.allocate``; forms the passages cannot
supply are filled from the others), one question per answer span, and one per repeated
paragraph: a paragraph already asked about in another passage (this batch or a stored,
unrejected candidate) is not asked about again; nor what an acronym stands for when more than
1% of the workspace's passages write it (``common_acronym``: many passages answer it). LLM
batches ask the model for each passage's share of the mix, then the critic; every passage with
enough words may be sent.

``progress(done, total)`` is called after each passage.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pandas as pd

from labeling.errors import ScorecardError
from labeling.model_calls import chat
from labeling.synthetic import features, forms, llm, offline, review, sampling
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.settings import get_settings
from labeling.workspace import connections
from labeling.workspace import synthetic_batches as stored_batches
from labeling.workspace import synthetic_candidates as stored_candidates
from labeling.workspace.store import utc_now, write_transaction

if TYPE_CHECKING:
    import sqlite_utils

Progress = Callable[[int, int], None]
GENERATORS = ("offline", "llm")


@dataclass
class BatchResult:
    """What a run stored: its batch id, the candidate ids, error messages, the calls made,
    the replies whose answer was not found and the passages still waiting for a resume; for
    the offline rules, the passages ``drawn`` and how many the sampler read to find them
    (``looked_at``: the others have nothing the rules ask about)."""

    batch: str
    ids: list[int] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    calls: int = 0
    unmatched: int = 0
    waiting: int = 0
    drawn: int = 0
    looked_at: int = 0

    def coverage_sentence(self) -> str:
        """What share of the passages read the offline rules could ask about ("" when they
        could ask about all of them, or a model server generated)."""
        if self.looked_at <= self.drawn:
            return ""
        return (f"The offline rules found something to ask in {self.drawn} of the "
                f"{self.looked_at} passages read ({self.drawn / self.looked_at:.0%}); they ask "
                "only where a question names its subject and its answer, so a model server can "
                "cover the rest.")


def plan(db: sqlite_utils.Database, n: int, *, generator: str = "offline", seed: int = 0,
         strategy: str = "random", segment: str | None = None) -> sampling.Drawn:
    """The passages a batch would send (the same for the same seed), and how many the sampler
    read to find them."""
    if generator not in GENERATORS:
        raise ScorecardError(f"generator must be offline or llm, not {generator!r}")
    return sampling.sample_chunks(db, n, strategy=strategy, seed=seed, segment=segment,
                                  every=generator == "llm")


def client_for(db: sqlite_utils.Database, client: llm.LlmClient | None = None, *,
               connection: connections.Connection | None = None) -> llm.LlmClient:
    """``client`` (default: one for the stored ``connection``, else from the environment, for
    the owner), capped by the team's setting and the connection's ceiling, with the team's
    domain and persona. In the app only a stored connection may be used
    (``connections.check_use``)."""
    settings = get_settings(db)
    if client is None:
        cap = int(settings["llm_max_calls"])
        if connection is not None:
            client = chat.client_for(connection, cls=llm.LlmClient,
                                     max_calls=min(cap, connection.call_ceiling))
        else:
            client = llm.LlmClient.from_env(max_calls=cap)
    connections.check_use(db, client.connection_id, client.base_url, client.model,
                          client.max_calls if client.connection_id else None)
    client.domain, client.persona = settings["llm_domain"], settings["llm_persona"]
    return client


def estimate(db: sqlite_utils.Database, n: int, *, per_chunk: int = 2, seed: int = 0,
             strategy: str = "random", segment: str | None = None,
             client: llm.LlmClient | None = None,
             connection: connections.Connection | None = None) -> llm.Estimate:
    """Calls and tokens of an LLM batch before it runs."""
    chunks = plan(db, n, generator="llm", seed=seed, strategy=strategy, segment=segment)
    return client_for(db, client, connection=connection).estimate(chunks, per_chunk)


def form_plan(mix: dict[str, float], total: int) -> list[str]:
    """``total`` forms in the proportions of ``mix``, interleaved so that each stretch of the
    list follows the mix (the form furthest behind its share comes next)."""
    counts = forms.allocate(mix, total)
    used: Counter = Counter()
    out = []
    for j in range(total):
        form = max(forms.FORMS, key=lambda f: (counts[f] * (j + 1) / max(1, total) - used[f],
                                               -forms.FORMS.index(f)))
        if used[form] >= counts[form]:
            form = next(f for f in forms.FORMS if used[f] < counts[f])
        used[form] += 1
        out.append(form)
    return out


def run(db: sqlite_utils.Database, n: int, *, generator: str = "offline", seed: int = 0,
        strategy: str = "random", segment: str | None = None, per_chunk: int = 2, k: int = 10,
        client: llm.LlmClient | None = None, progress: Progress | None = None) -> BatchResult:
    """Sample ``n`` passages and run a batch on them (see the module docstring)."""
    if per_chunk < 1:
        raise ScorecardError("questions per passage must be at least 1")
    chunks = plan(db, n, generator=generator, seed=seed, strategy=strategy, segment=segment)
    settings = get_settings(db)
    if generator == "llm":
        client = client_for(db, client)
    mix = forms.normalise_mix(settings["form_mix"])
    recorded = {"seed": seed, "strategy": strategy, "segment": segment, "per_chunk": per_chunk,
                "k": k, "form_mix": mix,
                "forms": form_plan(mix, per_chunk * len(chunks)) if generator == "llm" else []}
    if generator == "llm":
        recorded.update(model=client.model, domain=client.domain, persona=client.persona,
                        max_calls=client.max_calls)
    batch = _record(db, generator if generator == "offline" else client.generator, recorded,
                    chunks)
    if generator == "offline":
        result = _offline(db, batch, chunks, per_chunk, k, mix, progress)
        result.drawn, result.looked_at = len(chunks), chunks.looked_at
        return result
    return _llm(db, batch, client, progress)


def _record(db: sqlite_utils.Database, generator: str, settings: dict,
            chunks: Sequence[sampling.Chunk]) -> str:
    batch = review.new_batch_id()
    with write_transaction(db, action="add_candidates") as conn:
        stored_batches.add_batch(conn, batch, generator, settings, [c.id for c in chunks],
                                 utc_now())
    return batch


# ---------------------------------------------------------------------------------------------
# Offline


def _offline(db: sqlite_utils.Database, batch: str, chunks: Sequence[sampling.Chunk],
             per_chunk: int, k: int, mix: dict[str, float], progress: Progress | None
             ) -> BatchResult:
    found: list[Candidate] = []
    for done, chunk in enumerate(chunks, 1):
        found += [c for c in offline.generate(chunk.id, chunk.text, title=chunk.title,
                                              max_per_chunk=0) if c.well_formed]
        if progress:
            progress(done, len(chunks))
    space = features.Workspace.read(db)
    scored = review.score_candidates(db, found, k=k, space=space)
    keep = pick(db, found, [s[2] for s in scored], space, per_chunk, mix)
    result = BatchResult(batch)
    with write_transaction(db, action="add_candidates") as conn:
        result.ids = review.add_candidates(db, [found[i] for i in keep], batch=batch,
                                           scored=[scored[i] for i in keep])
        stored = Counter(found[i].chunk_id for i in keep)
        stored_batches.mark_passages_done(conn, batch,
                                          [(i, stored[c.id]) for i, c in enumerate(chunks)])
        stored_batches.finish_batch(conn, batch, utc_now())
    return result


ACRONYM_QUESTION = re.compile(r"^What does (\S+) stand for\?$|^(\S+) abbreviation$")
COMMON_SHARE = 0.01  # an acronym written in more than 1% of the workspace's passages


def common_acronym(question: str, space: features.Workspace) -> bool:
    """Whether ``question`` asks what an acronym stands for that more than ``COMMON_SHARE`` of
    the workspace's passages write: many passages answer it, so it is not specific ("What does
    ARN stand for?" among AWS CLI examples was graded vague, 4 such questions of 4)."""
    match = ACRONYM_QUESTION.match(question)
    if match is None or space.n_chunks == 0:
        return False
    acronym = (match.group(1) or match.group(2)).lower()
    return space.document_frequency.get(acronym, 0) > COMMON_SHARE * space.n_chunks


def pick(db: sqlite_utils.Database, candidates: Sequence[Candidate], scores: Sequence[float],
         space: features.Workspace, per_chunk: int, mix: dict[str, float]) -> list[int]:
    """Indices of the candidates to store, best first (see the module docstring)."""
    owners = stored_candidates.paragraph_owners(db)
    seen = {q.lower() for q in stored_candidates.open_candidate_questions(db)}
    chunks = {c.chunk_id for c in candidates}
    quota = forms.allocate(mix, per_chunk * len(chunks))
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    taken: list[int] = []
    per: Counter = Counter()
    by_form: Counter = Counter()
    spans: set[tuple[str, int | None, int | None]] = set()
    for respect_mix in (True, False):
        for i in order:
            cand = candidates[i]
            form = cand.form or forms.form_of(cand.question)
            key = features.paragraph_of(cand, space.texts.get(cand.chunk_id, ""))
            span = (cand.chunk_id, cand.answer_start, cand.answer_end)
            if i in taken or per[cand.chunk_id] >= per_chunk or cand.question.lower() in seen \
                    or common_acronym(cand.question, space) \
                    or span in spans or (respect_mix and by_form[form] >= quota[form]) \
                    or (key is not None and owners.get(key, cand.chunk_id) != cand.chunk_id):
                continue
            taken.append(i)
            per[cand.chunk_id] += 1
            by_form[form] += 1
            seen.add(cand.question.lower())
            spans.add(span)
            if key is not None:
                owners[key] = cand.chunk_id
    return taken


# ---------------------------------------------------------------------------------------------
# LLM


def _llm(db: sqlite_utils.Database, batch: str, client: llm.LlmClient,
         progress: Progress | None) -> BatchResult:
    settings = stored_batches.batch_settings(db, batch)
    per_chunk, k = int(settings.get("per_chunk", 2)), int(settings.get("k", 10))
    planned = settings.get("forms") or []
    rows = stored_batches.passages_not_done(db, batch)
    total = stored_batches.batch_passage_count(db, batch)
    done = total - len(rows)
    result = BatchResult(batch)
    space = features.Workspace.read(db)
    for number, (position, cid, doc_id, title, text) in enumerate(rows):
        if client.max_calls - client.calls < llm.CALLS_PER_PASSAGE:
            result.waiting = len(rows) - number
            result.errors.append(
                f"stopped at the call cap ({client.max_calls} calls); {result.waiting} "
                f"passages wait: resume batch {batch} to send them"
            )
            break
        chunk = sampling.Chunk(cid, doc_id, title, text)
        wanted = planned[position * per_chunk:(position + 1) * per_chunk] or \
            ["what-why"] * per_chunk
        before = client.calls
        try:
            reply = client.passage(chunk, wanted)
        except llm.LlmError as error:
            result.calls += client.calls - before
            _failed(db, batch, position, client.calls - before, str(error))
            # What the server said, for an admin's client only; never stored.
            result.errors.append(f"passage {cid}: {error.described(client.show_error_bodies)}")
            continue
        calls = client.calls - before
        result.calls += calls
        result.unmatched += len(reply.unmatched)
        scored = review.score_candidates(db, reply.candidates, k=k, space=space)
        with write_transaction(db, action="add_candidates") as conn:
            result.ids += review.add_candidates(db, reply.candidates, batch=batch,
                                                scored=scored)
            stored_batches.record_passage_reply(conn, batch, position, cid, calls,
                                                len(reply.candidates), reply.unmatched)
        done += 1
        if progress:
            progress(done, total)
    _finish(db, batch)
    return result


def _failed(db: sqlite_utils.Database, batch: str, position: int, calls: int, error: str
            ) -> None:
    with write_transaction(db, action="add_candidates") as conn:
        stored_batches.record_passage_failure(conn, batch, position, calls, error)


def _finish(db: sqlite_utils.Database, batch: str) -> None:
    if not stored_batches.passages_left(db, batch):
        with write_transaction(db, action="add_candidates") as conn:
            stored_batches.finish_batch(conn, batch, utc_now())


def resume(db: sqlite_utils.Database, batch: str, *, client: llm.LlmClient | None = None,
           progress: Progress | None = None) -> BatchResult:
    """Send the passages of ``batch`` not done yet (pending, or failed before); the done ones
    are not sent again. Offline batches are finished in one transaction: nothing to resume."""
    generator = stored_batches.batch_generator(db, batch)
    if generator is None:
        raise ScorecardError(f"no batch {batch!r}")
    if not generator.startswith("llm"):
        raise ScorecardError(f"batch {batch} was generated offline: it has nothing to resume")
    return _llm(db, batch, client_for(db, client), progress)


def unfinished(db: sqlite_utils.Database) -> list[dict]:
    """Batches with passages not done: id, generator, passages, done, calls, unmatched."""
    return stored_batches.unfinished_batches(db)


def batches_frame(db: sqlite_utils.Database) -> pd.DataFrame:
    """Every batch: id, generator, passages, done, calls, unmatched, candidates, created_at,
    finished_at (newest first)."""
    return stored_batches.batches_frame(db)


def unmatched_frame(db: sqlite_utils.Database, batch: str | None = None) -> pd.DataFrame:
    """The replies whose answer was not found in their passage: batch, chunk_id, question,
    answer."""
    return stored_batches.unmatched_frame(db, batch)


def progress_text(done: int, total: int) -> tuple[float, str]:
    """(fraction done, "passage 3 of 10") for a progress bar."""
    return (done / total if total else 1.0), f"passage {done} of {total}"
