"""Package facades that import nothing until a name is used (PEP 562).

A package's ``__init__`` lists its public names, each with where it lives:
``"name": "labeling.pkg.module"`` (the module itself) or ``"labeling.pkg.module:attribute"``.
``facade(__name__, names)`` gives the package's ``__getattr__`` and ``__all__``:
importing the package imports none of its modules, and the first use of a name imports its
module only. Callers (the app's pages) import the package's public names and never a module
path, so moving a module changes one line of its package's ``__init__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping

_FACADES: dict[str, Mapping[str, str]] = {}  # package -> its names, as given to ``facade``


def facade(package: str, names: Mapping[str, str]) -> tuple[Callable[[str], object], list[str]]:
    """(``__getattr__``, ``__all__``) of ``package`` for ``names`` (see the module docstring)."""
    _FACADES[package] = names

    def __getattr__(name: str) -> object:  # noqa: N807 (the module hook's own name)
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, _, attribute = where.partition(":")
        found = importlib.import_module(module)
        return getattr(found, attribute) if attribute else found

    return __getattr__, sorted(names)


def module_of(package: str, name: str) -> str | None:
    """The module that ``name`` of the facade ``package`` lives in (None when ``package`` is not
    a facade or does not list ``name``); imports the package, none of its modules."""
    importlib.import_module(package)
    where = _FACADES.get(package, {}).get(name)
    return None if where is None else where.partition(":")[0]
