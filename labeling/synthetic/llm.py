"""The LLM question generator over an OpenAI-compatible chat-completions API.

The client is ``labeling.model_calls.chat``'s, and so are its settings from the environment:
``SCORECARD_LLM_BASE_URL`` (e.g. ``http://127.0.0.1:8080/v1`` for llama.cpp,
``http://127.0.0.1:11434/v1`` for Ollama, a vLLM server or a hosted one), ``SCORECARD_LLM_MODEL``
and ``SCORECARD_LLM_API_KEY`` (optional for local servers). The team's settings
(``labeling.synthetic.settings``) give the domain, the persona asking and the call cap.

A passage takes two calls. The first (``prompts/synthetic_questions.md``) asks for questions
that stand alone and name their subject, in the forms requested, each with an answer copied
from the passage; the reply is JSON ``{"questions": [{"question", "answer", "form"}]}``. The
second, the critic (``prompts/synthetic_critic.md``), scores each question 1-5 for standing
alone, being answerable from the passage alone and being what a real person would type; the
critic score is the mean mapped to [0, 1] (``(mean - 1) / 4``) and joins the quality score.

An answer is found in the passage after normalising whitespace and line breaks (a hyphenated
line end joins), quotes, inline markup and case (``find_span``); a question whose answer is not
found is counted as unmatched and kept for the page to show, never dropped silently.

The client counts its calls; a batch stops before a passage that would pass ``max_calls``.
``estimate`` gives the calls and tokens of a batch before it runs (``labeling.model_calls.tokens``;
replies counted as ``REPLY_TOKENS`` per question).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from labeling import product_files
from labeling.model_calls import chat, strict_json
from labeling.model_calls.tokens import CHARS_PER_TOKEN, estimate_tokens
from labeling.synthetic import forms
from labeling.synthetic.candidate import Candidate
from labeling.synthetic.passage import read_passage
from labeling.synthetic.rubric import rubric
from labeling.synthetic.sampling import Chunk
from labeling.synthetic.spans import tidy

PROMPTS = product_files.prompts_folder()
PROMPT_FILE = PROMPTS / "synthetic_questions.md"
CRITIC_FILE = PROMPTS / "synthetic_critic.md"
ENV_BASE_URL, ENV_MODEL, ENV_KEY = chat.ENV_BASE_URL, chat.ENV_MODEL, chat.ENV_KEY
CALLS_PER_PASSAGE = 2  # the questions and the critic
REPLY_TOKENS = {"questions": 60, "critic": 25}  # per question asked for
FORM_WORDS = {
    "how-to": 'a how-to question ("How do I ...?")',
    "what-why": "a what or why question",
    "comparison": "a question comparing two things the passage names",
    "keyword": "a short keyword query of 2 to 6 words, no question mark",
}

LlmError = chat.ChatError


@dataclass
class Reply:
    """What one passage gave: candidates whose answer was found, and the (question, answer)
    pairs whose answer was not."""

    candidates: list[Candidate]
    unmatched: list[tuple[str, str]]


@dataclass
class Estimate:
    """Before a batch: the passages that will be sent, the calls and the tokens expected."""

    passages: int
    calls: int
    tokens: int
    skipped: int  # passages beyond the call cap

    def sentence(self) -> str:
        text = (f"{self.passages} passages: {self.calls} calls, about {self.tokens:,} tokens "
                f"({CHARS_PER_TOKEN} characters a token)")
        if self.skipped:
            text += f"; {self.skipped} passages are beyond the call cap and wait for a resume"
        return text


@dataclass
class LlmClient(chat.ChatClient):
    """The chat client (``labeling.model_calls.chat``) with question generation: ``max_calls``
    caps the calls of one batch (the client's ``calls`` counts every request sent, retries
    included)."""

    timeout: float = 60.0
    max_calls: int = 50
    domain: str = "technical documentation"
    persona: str = "a developer or administrator using the software"

    @property
    def generator(self) -> str:
        return f"llm:{self.model}"

    # -- prompts -----------------------------------------------------------------------------

    def questions_prompt(self, chunk: Chunk, wanted: Sequence[str]) -> str:
        """The first prompt for ``chunk``, asking for one question of each form in ``wanted``."""
        lines = "\n".join(f"- {FORM_WORDS.get(f, f)} (form: {f})" for f in wanted)
        return _fill(PROMPT_FILE.read_text(encoding="utf-8"), {
            "domain": self.domain, "persona": self.persona, "per_chunk": str(len(wanted)),
            "forms": lines, "title": chunk.title or "", "text": chunk.text,
        })

    def critic_prompt(self, chunk: Chunk, questions: Sequence[str]) -> str:
        listed = "\n".join(f"{i}. {q}" for i, q in enumerate(questions, 1))
        return _fill(CRITIC_FILE.read_text(encoding="utf-8"), {
            "domain": self.domain, "persona": self.persona, "title": chunk.title or "",
            "text": chunk.text, "questions": listed,
        })

    # -- a passage ---------------------------------------------------------------------------

    def generate(self, chunk: Chunk, *, per_chunk: int = 2,
                 wanted: Sequence[str] | None = None) -> list[Candidate]:
        """Questions for one chunk (no critic call); ``LlmError`` when the reply is unusable."""
        return self.passage(chunk, wanted or ["what-why"] * per_chunk, critic=False).candidates

    def passage(self, chunk: Chunk, wanted: Sequence[str], *, critic: bool = True) -> Reply:
        """The questions of one passage (one call) and, when any were found, their critic
        scores (a second call). ``LlmError`` when a reply is unusable."""
        reply = parse_reply(self.chat(self.questions_prompt(chunk, wanted)), chunk,
                            self.generator)
        reply.candidates = reply.candidates[: len(wanted)]
        if critic and reply.candidates:
            content = self.chat(self.critic_prompt(chunk, [c.question for c in
                                                            reply.candidates]))
            for cand, value in zip(reply.candidates, parse_critic(content,
                                                                  len(reply.candidates)),
                                   strict=True):
                cand.critic = value
        return reply

    # -- cost --------------------------------------------------------------------------------

    def estimate(self, chunks: Sequence[Chunk], per_chunk: int) -> Estimate:
        """Calls and tokens for sending ``chunks`` under this client's call cap (counting the
        calls already made)."""
        room = max(0, self.max_calls - self.calls) // CALLS_PER_PASSAGE
        sent = list(chunks)[:room]
        tokens = 0
        for chunk in sent:
            wanted = ["what-why"] * per_chunk
            tokens += estimate_tokens(self.questions_prompt(chunk, wanted))
            tokens += estimate_tokens(self.critic_prompt(chunk, ["x" * 60] * per_chunk))
            tokens += per_chunk * (REPLY_TOKENS["questions"] + REPLY_TOKENS["critic"])
        return Estimate(len(sent), len(sent) * CALLS_PER_PASSAGE, tokens,
                        len(chunks) - len(sent))


UNTRUSTED = ("title", "text", "questions")  # written by people or a model: inside tags
_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _fill(template: str, values: dict[str, str]) -> str:
    """``{name}`` placeholders replaced in one pass (a passage containing "{text}" is kept);
    the untrusted texts with ``&``, ``<`` and ``>`` as entities, so none can close the tags the
    prompt puts them in."""
    def value(match: re.Match) -> str:
        name = match.group(1)
        if name not in values:
            return match.group()
        return values[name].translate(_ENTITIES) if name in UNTRUSTED else values[name]
    return re.sub(r"\{(\w+)\}", value, template)


# ---------------------------------------------------------------------------------------------
# Replies


def _json(content: str) -> object:
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)  # some servers fence JSON
    if fenced:
        text = fenced.group(1)
    try:
        return strict_json.loads(text)
    except strict_json.JsonRejected as error:
        raise LlmError(str(error)) from None


def parse_reply(content: str, chunk: Chunk, generator: str) -> Reply:
    """Validate a reply and turn it into candidates whose answer is found in the chunk."""
    data = _json(content)
    items = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise LlmError('the reply has no "questions" list')
    passage = read_passage(chunk.text, chunk.title)
    out, unmatched = [], []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            raise LlmError('each entry of "questions" needs a "question" string')
        question = item["question"].strip()
        answer = str(item.get("answer") or "").strip()
        if not question:
            continue
        span = find_span(chunk.text, answer) if answer else None
        if span is None:
            unmatched.append((question, answer))
            continue
        start, end = span
        form = str(item.get("form") or "").strip()
        form = form if form in forms.FORMS else forms.form_of(question)
        sentence = passage.sentence_at(start)
        out.append(Candidate(
            chunk_id=chunk.id, question=question, generator=generator, sentence=sentence,
            answer=chunk.text[start:end], answer_start=start, answer_end=end, kind="llm",
            form=form, problems=rubric(question, sentence, form=form),
        ))
    return Reply(out, unmatched)


def parse_critic(content: str, n: int) -> list[float | None]:
    """The critic's score of each of ``n`` questions in [0, 1] (None when the reply has none
    for it): the mean of its 1-5 ratings mapped by ``(mean - 1) / 4``."""
    data = _json(content)
    items = data.get("scores") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise LlmError('the critic reply has no "scores" list')
    out: list[float | None] = [None] * n
    for position, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        index = item.get("id", position + 1)
        try:
            index = int(index) - 1
            ratings = [float(item[k]) for k in ("standalone", "answerable", "realistic")]
        except (KeyError, TypeError, ValueError):
            continue
        if 0 <= index < n and all(1 <= r <= 5 for r in ratings):
            out[index] = round((sum(ratings) / 3 - 1) / 4, 4)
    return out


# ---------------------------------------------------------------------------------------------
# Finding an answer in the passage

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                         "\u00ab": '"', "\u00bb": '"', "`": None, "*": None})


def _normalised(text: str) -> tuple[str, list[int]]:
    """``text`` lower-cased with quotes straightened, markup characters (`` ` ``, ``*``)
    dropped, whitespace runs as one space and hyphenated line ends joined; with the offset in
    ``text`` of each character kept."""
    chars: list[str] = []
    origin: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in "\u2010\u00ad" and re.match(r"[\u2010\u00ad]\s*\n\s*", text[i:]):
            i += len(re.match(r"[\u2010\u00ad]\s*\n\s*", text[i:]).group())
            continue
        if c.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                origin.append(i)
            i += 1
            continue
        mapped = c.translate(_QUOTES)
        if mapped:
            low = mapped.lower()
            chars.append(low if len(low) == 1 else mapped)
            origin.append(i)
        i += 1
    return "".join(chars), origin


def find_span(text: str, answer: str) -> tuple[int, int] | None:
    """The passage offsets of ``answer`` in ``text`` after normalising both (see
    ``_normalised``): the first occurrence, trimmed so it does not end inside brackets or
    quotes; None when it is not there."""
    target, _ = _normalised(answer)
    target = target.strip().strip("\"'").rstrip(".").strip()
    if not target:
        return None
    haystack, origin = _normalised(text)
    at = haystack.find(target)
    if at < 0:
        return None
    start, end = origin[at], origin[at + len(target) - 1] + 1
    return tidy(text, start, end) or (start, end)
