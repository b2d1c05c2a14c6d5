"""The regression gate's result as text, JSON or JUnit XML, for people and for CI systems.

- Text: the verdict first (one sentence, with the outcome and exit status), then one line per
  check (the change as scored, in the run's best and worst case over its unjudged results, the
  best case's interval and Holm p, the worst case's Holm p, and the slots of the run's top k:
  judged of filled, empty apart), then the settings the verdict depends on.
- JSON: ``outcome``, ``exit_code``, ``verdict``, ``settings`` and ``checks`` (numbers plain, NaN
  as null).
- JUnit XML: the structure of the common schema CI systems read (Jenkins' ``junit-10.xsd``):
  ``testsuites`` > ``testsuite`` (``properties`` with the settings and outcome) > one
  ``testcase`` per check. A check that is worse carries a ``failure`` (type ``worse``); one
  without enough labels an ``error`` (type ``not enough labels``): it could not be decided.
  The verdict is the suite's ``system-out``. Characters XML 1.0 cannot hold (control
  characters in a run or segment name) are replaced by U+FFFD.
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ElementTree
from datetime import UTC, datetime

from labeling.evaluation.inputs.score_controls import NO_SEGMENT, OVERALL
from labeling.evaluation.planning.regression_gate import (
    FILLING_RULE,
    NOT_ENOUGH_LABELS,
    WORSE,
    GateCheck,
    GateResult,
    slots_phrase,
)
from labeling.files.formats.values import plain_value

FORMATS = ("text", "json", "junit")
SUITE = "scorecard gate"
# Characters outside XML 1.0's Char production; and control characters kept out of a terminal.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _xml(text: object) -> str:
    return _NOT_XML.sub("\ufffd", str(text))


def _plain(text: object) -> str:
    return _CONTROL.sub("\ufffd", str(text))


def _number(value: float, fmt: str) -> str:
    return "-" if value is None or math.isnan(value) else format(value, fmt)


def check_summary(check: GateCheck, result: GateResult) -> str:
    """One check in a sentence: the change as scored, its best case (interval, p, Holm p) and
    worst case (Holm p) over the unjudged results, n and the slots of the run's top k."""
    where = "all queries" if check.group == OVERALL else check.group
    if check.n < 2:
        tested = f"{check.n} evaluated queries: too few to test"
    else:
        tested = (f"change {check.change:+.4f} as scored ({check.baseline_mean:.4f} to "
                  f"{check.run_mean:.4f}) on {check.n} queries; best case "
                  f"{check.change_best:+.4f}, {result.confidence:.0%} interval "
                  f"{check.low:+.4f} to {check.high:+.4f}, p = {check.p:.3g}, Holm p = "
                  f"{check.p_holm:.3g}; worst case {check.change_worst:+.4f}, Holm p = "
                  f"{check.p_worst_holm:.3g}")
    return (f"{check.measure} on {where}: {tested}; {slots_phrase(check, result.run)}; "
            f"{check.status}.")


def settings_sentence(result: GateResult) -> str:
    s = result.settings
    segment = "" if s.segment == NO_SEGMENT else f"; segments by {s.segment}"
    holm = (f"Holm's correction over {result.tests} tests" if result.tests > 1 else
            "one test, no correction")
    floor = (f"Judged@k floor {s.min_judged:.0%} of {result.run}'s filled slots"
             if s.min_judged > 0 else "no Judged@k floor")
    return (f"Allowed drop {s.max_drop:g}, level {s.alpha:g} (one-sided paired test: Student's "
            f"t and the bootstrap-t must agree; {holm}), {floor}{segment}; {FILLING_RULE}.")


def headline(result: GateResult) -> str:
    """The outcome, its exit status and the verdict, on one line."""
    return _plain(f"{result.outcome.upper()} (exit {result.exit_code}): {result.verdict}")


def to_text(result: GateResult) -> str:
    lines = [headline(result), ""]
    header = ("measure", "group", "n", "baseline", "run", "change", "best", "worst",
              f"best {result.confidence:.0%} interval", "p_holm best", "p_holm worst",
              "judged of filled", "empty", "status")
    rows = [header]
    for c in result.checks:
        rows.append((c.measure, "all" if c.group == OVERALL else c.group, str(c.n),
                     _number(c.baseline_mean, ".4f"), _number(c.run_mean, ".4f"),
                     _number(c.change, "+.4f"), _number(c.change_best, "+.4f"),
                     _number(c.change_worst, "+.4f"),
                     f"{_number(c.low, '+.4f')} to {_number(c.high, '+.4f')}",
                     _number(c.p_holm, ".3g"), _number(c.p_worst_holm, ".3g"),
                     f"{c.judged_share:.0%} {c.judged_measure} ({c.judged}/{c.filled})",
                     f"{c.empty}/{c.slots}", c.status))
    widths = [max(len(_plain(r[i])) for r in rows) for i in range(len(header))]
    for row in rows:
        lines.append("  ".join(_plain(v).ljust(w) for v, w in zip(row, widths, strict=True))
                     .rstrip())
    lines += ["", settings_sentence(result)]
    return "\n".join(_plain(line) for line in lines) + "\n"


def to_json(result: GateResult) -> str:
    s = result.settings
    payload = {
        "outcome": result.outcome,
        "exit_code": result.exit_code,
        "verdict": result.verdict,
        "run": result.run,
        "baseline": result.baseline,
        "settings": {"measures": list(s.measures), "max_drop": s.max_drop, "alpha": s.alpha,
                     "min_judged": s.min_judged,
                     "segment": None if s.segment == NO_SEGMENT else s.segment,
                     "test": "one-sided paired t statistic, Student's t and bootstrap-t agreeing",
                     "correction": "Holm",
                     "tests": result.tests, "interval_confidence": result.confidence},
        "filling": FILLING_RULE,
        "checks": [{**{key: plain_value(value) for key, value in c.__dict__.items()},
                    "judged_share": c.judged_share, "empty": c.empty, "unjudged": c.unjudged}
                   for c in result.checks],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def to_junit(result: GateResult, *, timestamp: datetime | None = None) -> str:
    failures = sum(c.status == WORSE for c in result.checks)
    errors = sum(c.status == NOT_ENOUGH_LABELS for c in result.checks)
    counts = {"tests": str(len(result.checks)), "failures": str(failures),
              "errors": str(errors)}
    root = ElementTree.Element("testsuites", {"name": SUITE, **counts, "time": "0"})
    stamp = (timestamp or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%S")
    suite = ElementTree.SubElement(root, "testsuite", {
        "name": _xml(f"{SUITE}: {result.run} vs {result.baseline}"), **counts, "skipped": "0",
        "time": "0", "timestamp": stamp})
    properties = ElementTree.SubElement(suite, "properties")
    s = result.settings
    for name, value in (("outcome", result.outcome), ("exit_code", result.exit_code),
                        ("run", result.run), ("baseline", result.baseline),
                        ("measures", " ".join(s.measures)), ("max_drop", s.max_drop),
                        ("alpha", s.alpha), ("min_judged", s.min_judged),
                        ("segment", s.segment), ("tests", result.tests),
                        ("filling", FILLING_RULE)):
        ElementTree.SubElement(properties, "property", {"name": name, "value": _xml(value)})
    for check in result.checks:
        where = "all queries" if check.group == OVERALL else check.group
        case = ElementTree.SubElement(suite, "testcase", {
            "name": _xml(f"{check.measure} on {where}"),
            "classname": _xml(f"scorecard.gate.{result.run}"), "time": "0"})
        summary = _xml(check_summary(check, result))
        if check.status in (WORSE, NOT_ENOUGH_LABELS):
            tag = "failure" if check.status == WORSE else "error"
            element = ElementTree.SubElement(case, tag, {"type": check.status,
                                                         "message": summary})
            element.text = _xml(result.verdict)
        else:
            ElementTree.SubElement(case, "system-out").text = summary
    ElementTree.SubElement(suite, "system-out").text = _xml(result.verdict)
    ElementTree.indent(root)
    body = ElementTree.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def render(result: GateResult, fmt: str) -> str:
    """``result`` in one of ``FORMATS``."""
    if fmt == "json":
        return to_json(result)
    if fmt == "junit":
        return to_junit(result)
    return to_text(result)
