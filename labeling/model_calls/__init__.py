"""Calls to language models over the OpenAI-compatible chat-completions protocol, shared by the
synthetic-question generator and the machine judge. Imports nothing of ours but the errors."""
