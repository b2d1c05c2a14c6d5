"""Token estimates for cost figures shown before a batch of model calls.

Convention: one token per ``CHARS_PER_TOKEN`` characters, rounded up. Four characters per token is
the usual figure for English text under the byte-pair tokenizers of current chat models; it is an
estimate for planning, not a bill (code and other languages tokenize denser).
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text`` (at least 1 for non-empty text, 0 for empty)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
