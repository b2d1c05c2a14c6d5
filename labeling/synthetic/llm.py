"""The LLM question generator over an OpenAI-compatible chat-completions API.

The client and its settings are ``labeling.model_calls.chat``'s. The prompt is
``prompts/synthetic_questions.md``. Replies must be JSON ``{"questions": [{"question",
"answer"}]}``; an answer not found in the passage is dropped (no question without its span).
A batch makes at most ``max_calls`` calls. Failures become messages, and the questions of the
chunks that succeeded are kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labeling.model_calls import chat
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.rubric import rubric
from labeling.synthetic.sampling import Chunk
from labeling.synthetic.text import split_sentences

PROMPT_FILE = Path(__file__).resolve().parents[2] / "prompts" / "synthetic_questions.md"
ENV_BASE_URL, ENV_MODEL, ENV_KEY = chat.ENV_BASE_URL, chat.ENV_MODEL, chat.ENV_KEY
LlmError = chat.ChatError


@dataclass
class BatchResult:
    """Candidates from the chunks that succeeded, and one message per chunk that failed."""

    candidates: list[Candidate] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    calls: int = 0


@dataclass
class LlmClient(chat.ChatClient):
    """The chat client (``labeling.model_calls.chat``) with question generation; ``max_calls``
    caps the calls of one batch."""

    max_calls: int = 50

    # -- a batch -----------------------------------------------------------------------------

    def generate(self, chunk: Chunk, *, per_chunk: int = 2) -> list[Candidate]:
        """Questions for one chunk; ``LlmError`` when the reply is not the promised JSON."""
        prompt = (
            PROMPT_FILE.read_text(encoding="utf-8")
            .replace("{per_chunk}", str(per_chunk))
            .replace("{title}", chunk.title or "")
            .replace("{text}", chunk.text)
        )
        return parse_reply(self.chat(prompt), chunk, f"llm:{self.model}")[:per_chunk]

    def generate_batch(self, chunks: Sequence[Chunk], *, per_chunk: int = 2) -> BatchResult:
        """One call per chunk, at most ``max_calls``; failures are reported, not raised."""
        result = BatchResult()
        for chunk in chunks:
            if result.calls >= self.max_calls:
                result.errors.append(
                    f"stopped after {self.max_calls} calls (the per-batch limit); "
                    f"{len(chunks) - result.calls} chunks not sent"
                )
                break
            result.calls += 1
            try:
                result.candidates.extend(self.generate(chunk, per_chunk=per_chunk))
            except LlmError as error:
                result.errors.append(f"chunk {chunk.id}: {error}")
        return result


def parse_reply(content: str, chunk: Chunk, generator: str) -> list[Candidate]:
    """Validate a reply and turn it into candidates whose answer is found in the chunk."""
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)  # some servers fence JSON
    if fenced:
        text = fenced.group(1)
    try:
        data = json.loads(text)
    except ValueError as error:
        raise LlmError(f"the reply is not JSON: {content[:80]!r}") from error
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise LlmError('the reply has no "questions" list')
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise LlmError('each entry of "questions" needs a "question" string')
        question = item["question"].strip()
        answer = str(item.get("answer") or "").strip()
        start = chunk.text.find(answer) if answer else -1
        if not question or start < 0:
            continue  # no question is kept whose answer is not in the passage
        sentence = next(
            (chunk.text[a:b] for a, b in split_sentences(chunk.text) if a <= start < b), ""
        )
        out.append(Candidate(
            chunk_id=chunk.id, question=question, generator=generator, sentence=sentence,
            answer=answer, answer_start=start, answer_end=start + len(answer), kind="llm",
            problems=rubric(question, sentence),
        ))
    return out
