"""The optional engines and the extra of ``retrieval-scorecard`` that installs each one.

The base install serves the app and runs every command on this machine; a distributed engine's
libraries come with an extra (``pyproject.toml``, ``[project.optional-dependencies]``). A command
that needs one checks for it first, so a missing library is one sentence naming the extra to
install (exit status 2), never an import traceback.
"""

from __future__ import annotations

import importlib

from labeling.errors import ScorecardError

DISTRIBUTION = "retrieval-scorecard"
# engine -> (the extra that installs it, the modules the engine imports)
ENGINE_EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "dask": ("cluster", ("dask", "dask.dataframe", "distributed")),
    "spark": ("spark", ("pyspark", "pyspark.sql")),
}


def require_engine(engine: str) -> None:
    """Import ``engine``'s libraries, or raise one sentence naming the extra that installs them."""
    extra, modules = ENGINE_EXTRAS[engine]
    for module in modules:
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing = error.name or module
            raise ScorecardError(
                f"--engine {engine} needs {missing}, which is not installed here: install "
                f"the {extra} extra with pip install '{DISTRIBUTION}[{extra}]'"
            ) from None
