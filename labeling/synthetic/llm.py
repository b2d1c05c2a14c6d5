"""The LLM question generator over an OpenAI-compatible chat-completions API (stdlib HTTP).

Settings come from the environment: ``SCORECARD_LLM_BASE_URL`` (e.g. ``http://127.0.0.1:8000/v1``),
``SCORECARD_LLM_MODEL`` and ``SCORECARD_LLM_API_KEY`` (optional for local servers). The prompt is
``prompts/synthetic_questions.md``. Replies must be JSON ``{"questions": [{"question",
"answer"}]}``; an answer not found in the passage is dropped (no question without its span).
Each call has a timeout and is retried with exponential backoff on timeouts, 429 and 5xx; a
batch makes at most ``max_calls`` calls. Failures become messages, and the questions of the
chunks that succeeded are kept.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labeling.errors import ScorecardError
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.rubric import rubric
from labeling.synthetic.sampling import Chunk
from labeling.synthetic.text import split_sentences

PROMPT_FILE = Path(__file__).resolve().parents[2] / "prompts" / "synthetic_questions.md"
ENV_BASE_URL, ENV_MODEL, ENV_KEY = (
    "SCORECARD_LLM_BASE_URL", "SCORECARD_LLM_MODEL", "SCORECARD_LLM_API_KEY"
)


class LlmError(ScorecardError):
    """A call to the chat API failed (after retries) or replied with something unusable."""


@dataclass
class BatchResult:
    """Candidates from the chunks that succeeded, and one message per chunk that failed."""

    candidates: list[Candidate] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    calls: int = 0


@dataclass
class LlmClient:
    """A chat-completions client. ``timeout`` and ``backoff`` are seconds; ``retries`` counts
    extra attempts per call; ``max_calls`` caps the calls of one batch."""

    base_url: str
    model: str
    api_key: str = ""
    timeout: float = 30.0
    retries: int = 2
    backoff: float = 1.0
    max_calls: int = 50
    temperature: float = 0.2
    sleep: Callable[[float], None] = time.sleep

    @classmethod
    def from_env(cls, **overrides) -> LlmClient:
        """A client from ``SCORECARD_LLM_*``; ``ScorecardError`` naming what is missing."""
        base_url = os.environ.get(ENV_BASE_URL, "").strip()
        model = os.environ.get(ENV_MODEL, "").strip()
        if not base_url or not model:
            raise ScorecardError(
                f"the LLM generator needs {ENV_BASE_URL} and {ENV_MODEL} "
                "(an OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1)"
            )
        return cls(base_url, model, os.environ.get(ENV_KEY, ""), **overrides)

    # -- one call ----------------------------------------------------------------------------

    def chat(self, prompt: str) -> str:
        """The assistant message of one chat completion, retried on transient failures."""
        url = self.base_url.rstrip("/") + "/chat/completions"
        body = json.dumps({
            "model": self.model, "temperature": self.temperature,
            "messages": [{"role": "user", "content": prompt}],
            "response_format": {"type": "json_object"},
        }).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self.sleep(self.backoff * 2 ** (attempt - 1))
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload = json.loads(response.read().decode("utf-8"))
                return str(payload["choices"][0]["message"]["content"])
            except urllib.error.HTTPError as error:
                last = f"HTTP {error.code} from {url}"
                if error.code != 429 and error.code < 500:
                    raise LlmError(f"{last}: {error.read()[:200].decode(errors='replace')}") \
                        from error
            except TimeoutError:
                last = f"no reply from {url} within {self.timeout:g} s"
            except urllib.error.URLError as error:
                if isinstance(error.reason, TimeoutError):
                    last = f"no reply from {url} within {self.timeout:g} s"
                else:
                    raise LlmError(f"cannot reach {url}: {error.reason}") from error
            except (ValueError, KeyError, IndexError, TypeError) as error:
                raise LlmError(f"{url} did not reply in the chat-completions format") from error
        raise LlmError(f"{last} (tried {self.retries + 1} times)")

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
