"""Where the product's own files are: the app, its pages, the prompts and the demo sources.

A wheel installs them as the package ``scorecard_app`` (``pyproject.toml`` maps the top of the
repository to it: ``app.py``, ``pages/``, ``.streamlit/``, ``prompts/``, ``data/``), so an
installed ``labeling`` finds them through that package. ``labeling`` imported from a source tree
(a checkout, or an editable install of one) uses that tree's own folders: the same files the
wheel packs, one copy of each.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from labeling.errors import ScorecardError

APP_PACKAGE = "scorecard_app"
_SOURCE_TREE = Path(__file__).resolve().parent.parent


@functools.cache
def product_root() -> Path:
    """The folder holding ``app.py``, ``pages/``, ``prompts/`` and ``data/``."""
    if (_SOURCE_TREE / "app.py").is_file() and (_SOURCE_TREE / "labeling").is_dir():
        return _SOURCE_TREE
    spec = importlib.util.find_spec(APP_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ScorecardError(
            f"the app's files (the package {APP_PACKAGE}) are not installed; reinstall "
            "retrieval-scorecard"
        )
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def app_script() -> Path:
    """The Streamlit entry point, ``app.py``."""
    return product_root() / "app.py"


def demo_data() -> Path:
    """The demo workspace's source files (``data/``)."""
    return product_root() / "data"


def prompts_folder() -> Path:
    """The prompt templates of the machine judge and the synthetic-question generator."""
    return product_root() / "prompts"


def streamlit_config() -> Path:
    """The app's Streamlit settings (theme, toolbar, loopback address, upload limit)."""
    return product_root() / ".streamlit" / "config.toml"
