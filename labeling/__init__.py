"""Retrieval Scorecard's core library: workspace store, file formats and the metric engine.

Nothing in this package imports streamlit; the app in ``app.py`` and ``pages/`` is a thin layer
over it, and the ``scorecard`` command line calls the same functions.
"""

__version__ = "0.1.0"
