"""The keys Streamlit's own shortcuts miss, for the judging pages.

Streamlit binds one key to a button (``st.button(..., shortcut=...)``, matched on the key's
character, so Caps Lock letters work). It does not press a button for a numeric keypad digit
with Num Lock off (the browser reports an arrow or Home/End), for a letter typed with Shift,
or for a second key of the same button (the arrows of the judge-by-query grid). ``keyboard``
adds a small script that does: on a key it knows, outside a text field, it clicks the button
the page bound to it, once (Streamlit's handler does not see that key press).

The script also gives the keys back after Enter in a one-line text field (it leaves the field),
so a note or a search typed on a card does not swallow the next grade; and it can scroll an
element into view after each run (the current row of a grid).

Everything written into the script is the pages' own constants (widget keys made of letters,
digits and ``_``), checked here and JSON-encoded with ``<``, ``>`` and ``&`` escaped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

import streamlit as st

TOKEN = re.compile(r"^(?:[0-9a-z]|up|down)$")
WIDGET_KEY = re.compile(r"^[A-Za-z0-9_]+$")

# Installs the one key listener of the browser tab (once; it reads the bindings of the page shown).
_LISTENER = """
  if (window.__scorecardKeysInstalled) return;
  window.__scorecardKeysInstalled = true;
  const typing = (el) => !!el && (el.isContentEditable
    || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
  window.addEventListener("keydown", (event) => {
    const target = event.target;
    if (typing(target)) {
      if (event.key === "Enter" && target.tagName === "INPUT") setTimeout(() => target.blur(), 0);
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    let token = null;
    const pad = /^Numpad([0-9])$/.exec(event.code || "");
    if (pad) token = pad[1];
    else if (event.shiftKey && /^[a-z]$/i.test(event.key)) token = event.key.toLowerCase();
    else if (event.key === "ArrowDown") token = "down";
    else if (event.key === "ArrowUp") token = "up";
    const key = token === null ? undefined : (window.__scorecardKeys || {})[token];
    if (!key) return;
    const button = document.querySelector(".st-key-" + key + " button");
    if (!button || button.disabled) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    button.click();
  }, true);
"""
_INSTALL = "<script>\n(() => {" + _LISTENER + "})();\n</script>"
_SCRIPT = """<script>
(() => {
  const config = %(config)s;
  window.__scorecardKeys = config.keys;
  if (config.scroll) {
    const target = document.querySelector(".st-key-" + config.scroll);
    if (target) target.scrollIntoView({block: "nearest"});
  }
})();
</script>""" + _INSTALL


def install() -> None:
    """The key listener alone, for every page (Enter in a one-line text field leaves it, so
    keys work as soon as a name is typed); the bindings stay those of the last judging page,
    whose buttons are not on other pages."""
    st.html(_INSTALL, unsafe_allow_javascript=True, width="content")


def keyboard(bindings: Mapping[str, str], *, scroll_to: str | None = None) -> None:
    """Bind keys to buttons for the keys Streamlit misses (module docstring).

    ``bindings``: token -> widget key of a button. Tokens: a digit (the keypad's, whatever Num
    Lock says), a lowercase letter (typed with Shift), ``up`` or ``down`` (the arrow keys).
    ``scroll_to``: the key of an element to scroll into view.
    """
    for token, widget in bindings.items():
        if not TOKEN.match(token) or not WIDGET_KEY.match(widget):
            raise ValueError(f"bad key binding {token!r} -> {widget!r}")
    if scroll_to is not None and not WIDGET_KEY.match(scroll_to):
        raise ValueError(f"bad element key {scroll_to!r}")
    config = json.dumps({"keys": dict(bindings), "scroll": scroll_to}, sort_keys=True)
    config = config.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    st.html(_SCRIPT % {"config": config}, unsafe_allow_javascript=True, width="content")


def is_keyboard_script(html: str) -> bool:
    """Whether ``html`` is exactly a script ``keyboard`` or ``install`` writes (for the tests that
    check that no page shows markup of its own: these are the pages' constants only)."""
    if html == _INSTALL:
        return True
    prefix, _, rest = _SCRIPT.partition("%(config)s")
    if not (html.startswith(prefix) and html.endswith(rest)):
        return False
    try:
        config = json.loads(html[len(prefix):len(html) - len(rest)])
    except ValueError:
        return False
    keys, scroll = config.get("keys"), config.get("scroll")
    return (set(config) == {"keys", "scroll"} and isinstance(keys, dict)
            and all(isinstance(t, str) and TOKEN.match(t) and isinstance(w, str)
                    and WIDGET_KEY.match(w) for t, w in keys.items())
            and (scroll is None or (isinstance(scroll, str) and bool(WIDGET_KEY.match(scroll)))))
