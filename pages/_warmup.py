"""Import what the pages import, in a background thread, when the server starts.

A page's first run in a new server imports its libraries (Plotly Express, pandas' and NumPy's
parts, the ``labeling`` modules): seconds on a busy machine, paid by the first person to open
the page. ``start()`` (called by ``app.py`` when ``streamlit run`` loads it) reads the import
statements of ``pages/*.py`` and imports those modules in a daemon thread while the server waits
for its first browser. Python's import lock makes a page that needs a module being imported wait
for that import instead of doing it twice; a module that fails to import here is left to fail
where the page imports it (with the page's own message).
"""

from __future__ import annotations

import ast
import importlib
import logging
import threading
from pathlib import Path

from labeling import module_of

PAGES_DIR = Path(__file__).resolve().parent
# The pages a first visit opens first load first (the Overview, then the Dashboard's charts and
# statistics); the other pages follow in name order.
FIRST = ("_common.py", "home.py", "dashboard.py", "label.py")
log = logging.getLogger("scorecard.app")


def page_modules() -> list[str]:
    """The modules ``pages/*.py`` import at their top level (``from X import Y``: ``X`` and
    the module ``Y`` is or lives in), in file order, without repeats."""
    names: dict[str, None] = {}
    paths = sorted(PAGES_DIR.glob("*.py"), key=lambda p: (p.name not in FIRST,
                                                         FIRST.index(p.name) if p.name in FIRST
                                                         else 0, p.name))
    for path in paths:
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names.update(dict.fromkeys(alias.name for alias in node.names))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names[node.module] = None
                names.update(dict.fromkeys(_module_of(node.module, a.name) for a in node.names))
    return list(names)


def _module_of(module: str, name: str) -> str:
    """The module ``from module import name`` loads: for a name of a library facade, the module
    it lives in (``labeling.lazy_names``), else ``module.name`` (a submodule, when it is one)."""
    if module.split(".")[0] == "labeling":
        return module_of(module, name) or f"{module}.{name}"
    return f"{module}.{name}"


def _import_all(modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError:  # ``from X import function``: X.function is not a module
            continue
        except Exception:  # the page that imports it reports the failure
            log.debug("warm-up could not import %s", name, exc_info=True)


def _draw_charts() -> None:
    """Build and serialise one small figure of each kind the Dashboard's first tab draws.

    Plotly loads each trace and layout class, its validators and the default template on first
    use: about half a second the first time a Dashboard is drawn (``benchmarks/results``), the
    same for any data. Nothing is cached here; only Plotly's own lazily loaded parts stay.
    """
    import pandas as pd
    import plotly.express as px

    frame = pd.DataFrame({"segment": ["a", "b"], "value": [0.25, 0.5], "measure": ["m", "n"],
                          "err": [0.1, 0.1]})
    drawn = [px.bar(frame, x="segment", y="value", color="measure", error_y="err",
                    barmode="group", range_y=[0, 1], title="t"),
             px.line(frame, x="segment", y="value", color="measure", markers=True),
             px.box(frame, x="segment", y="value", color="measure", points="all"),
             px.scatter(frame, x="value", y="err"),
             px.imshow([[0.0, 1.0], [1.0, 0.0]], text_auto=".2f", aspect="auto",
                       color_continuous_scale="RdYlGn")]
    for figure in drawn:
        figure.to_json()


def _warm_up(modules: list[str]) -> None:
    _import_all(modules)
    try:
        _draw_charts()
    except Exception:  # a page that draws reports its own failure
        log.debug("warm-up could not draw the charts", exc_info=True)


def start() -> threading.Thread:
    """Import the pages' modules, then draw small charts (``_draw_charts``), in a daemon thread;
    returns the thread."""
    thread = threading.Thread(target=_warm_up, args=(page_modules(),),
                              name="scorecard-warm-up", daemon=True)
    thread.start()
    return thread
