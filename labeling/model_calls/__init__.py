"""Calls to language models over the OpenAI-compatible chat-completions protocol, shared by the
synthetic-question generator and the machine judge. Imports nothing of ours but the errors."""

from labeling.lazy_names import facade

# The public names the app's pages import; each module is imported on first use.
__getattr__, __all__ = facade(__name__, {
    "chat": "labeling.model_calls.chat",
})
