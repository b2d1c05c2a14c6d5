"""The machine judge's prompts: the templates, what a prompt for one pair says, and what a reply
must be.

Conventions
- Prompts are templates in ``prompts/`` named ``relevance_judge_<version>.md`` (the version is
  what follows the prefix); ``{query}``, ``{narrative}``, ``{title}``, ``{passage}``,
  ``{scale}`` and ``{grades}`` are filled in. The hash is the SHA-256 of the template's text:
  an edited template is another prompt, even under the same version name (give it a new one).
  The people's texts (query, narrative, title, passage) are untrusted: ``v2`` (the default)
  puts each between its own tags and explains them, and every text is filled in with ``&``,
  ``<`` and ``>`` written as ``&amp;``, ``&lt;`` and ``&gt;``, so no text can close its tag or
  pass for the instructions around it (``v1``, kept to reproduce earlier labels, has no tags).
- A reply is one JSON object ``{"grade": <a grade of the scale>, "reason": "..."}`` (a fenced
  code block is accepted): no repeated key, the grade an integer written in ASCII digits (a
  JSON integer or a string of digits; ``1.0``, ``1e0`` or other scripts' digits are refused),
  nested at most ``strict_json.MAX_DEPTH`` deep. Anything else is malformed
  (``MalformedReply``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from labeling import product_files
from labeling.errors import InputError
from labeling.model_calls import chat, strict_json

PROMPTS_DIR = product_files.prompts_folder()
PROMPT_PREFIX = "relevance_judge_"
DEFAULT_VERSION = "v2"
NO_NARRATIVE = "(none given)"
PLACEHOLDERS = ("{query}", "{narrative}", "{title}", "{passage}", "{scale}", "{grades}")
DIGITS = re.compile(r"-?[0-9]+", re.ASCII)
_UNTRUSTED = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})

class MalformedReply(chat.ChatError):
    """The model replied, but not with a grade of the scale in the promised JSON."""


@dataclass(frozen=True)
class Prompt:
    """A prompt template: its ``version`` name, its text and the SHA-256 of the text."""

    version: str
    template: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.template.encode("utf-8")).hexdigest()


def prompt_versions(folder: Path = PROMPTS_DIR) -> list[str]:
    """The versions of the judge prompts in ``folder`` (``relevance_judge_<version>.md``)."""
    return sorted(p.stem[len(PROMPT_PREFIX):] for p in folder.glob(f"{PROMPT_PREFIX}*.md"))


def load_prompt(version: str = DEFAULT_VERSION, folder: Path = PROMPTS_DIR) -> Prompt:
    """The prompt of ``version`` from ``folder``, or from a file when ``version`` names one
    (its version is then the file's stem)."""
    path = Path(version)
    if path.suffix == ".md" and path.is_file():
        name = path.stem
        version = name[len(PROMPT_PREFIX):] if name.startswith(PROMPT_PREFIX) else name
    else:
        path = folder / f"{PROMPT_PREFIX}{version}.md"
        if not path.is_file():
            known = ", ".join(prompt_versions(folder)) or "none"
            raise InputError(f"no judge prompt {version!r} (known: {known})", source="prompt")
    template = path.read_text(encoding="utf-8")
    missing = [p for p in ("{query}", "{passage}", "{scale}") if p not in template]
    if missing:
        raise InputError(f"{path.name}: the template lacks {', '.join(missing)}",
                         source="prompt")
    return Prompt(version, template)


def scale_text(scale: Sequence[tuple[int, str, str]]) -> str:
    """The scale as the prompt lists it: one ``grade = name: description`` line per grade."""
    return "\n".join(f"{grade} = {name}" + (f": {text}" if text else "")
                     for grade, name, text in sorted(scale))


def render(prompt: Prompt, texts: dict[str, str], scale: Sequence[tuple[int, str, str]]) -> str:
    """The prompt for one pair (placeholders filled in one pass: a passage that contains
    ``{scale}`` stays as written; the people's texts escaped, see the module conventions)."""
    values = {
        "{query}": _untrusted(texts["query"]),
        "{narrative}": _untrusted(texts["narrative"].strip() or NO_NARRATIVE),
        "{title}": _untrusted(texts["title"]), "{passage}": _untrusted(texts["passage"]),
        "{scale}": scale_text(scale), "{grades}": ", ".join(str(g) for g, _, _ in sorted(scale)),
    }
    pattern = "|".join(re.escape(p) for p in PLACEHOLDERS)
    return re.sub(pattern, lambda match: values[match.group(0)], prompt.template)


def _untrusted(text: str) -> str:
    """A person's text as a prompt carries it: ``&``, ``<`` and ``>`` as entities."""
    return text.translate(_UNTRUSTED)


def parse_reply(content: str, grades: Iterable[int]) -> tuple[int, str]:
    """(grade, reason) from a reply (see the module conventions); ``MalformedReply`` naming the
    problem otherwise."""
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    try:
        data = strict_json.loads(text)
    except strict_json.JsonRejected as error:
        raise MalformedReply(str(error)) from None
    if not isinstance(data, dict) or "grade" not in data:
        raise MalformedReply('the reply has no "grade"')
    raw = data["grade"]
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise MalformedReply(f"the grade {raw!r} is not a whole number in digits 0-9")
    if isinstance(raw, str) and not DIGITS.fullmatch(raw.strip()):
        raise MalformedReply(f"the grade {raw!r} is not a whole number in digits 0-9")
    number, allowed = int(raw), sorted(grades)
    if number not in allowed:
        raise MalformedReply(f"the grade {raw!r} is not on the scale {allowed}")
    reason = data.get("reason", "")
    return number, reason.strip() if isinstance(reason, str) else json.dumps(reason)
