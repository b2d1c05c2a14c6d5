"""Two more corpora for the synthetic-question measurement, from text installed here that the
project did not write (the manual pages are ``benchmarks/manpage_corpus.py``):

- ``pydoc`` (development): CPython docstrings as ``pydoc.getdoc`` returns them, of the public
  functions and classes of ``PYDOC_MODULES`` (the modules looked at while writing the rules);
  a docstring of at least 25 words is one passage, cut at blank lines to about 150 words, titled
  ``module: Name``;
- ``info`` (held out): the GNU Info manuals of ``/usr/share/info`` (texinfo prose: a different
  kind of text, never read while writing the rules); each node is cut at blank lines into
  passages of about 150 words, menus and copyright nodes left out, titled ``manual: Node``;
- ``readme`` (held out, second sample: drawn after the rules were changed on the first): the
  ``README*`` files of ``/usr/share/doc`` (Debian package notes and upstream READMEs: plain
  prose of yet another kind), cut at blank lines into passages of about 150 words, titled
  ``package: README``; licence and copyright paragraphs are left out;
- ``html`` (held out, third sample: drawn after the rules changed on the second): the HTML
  manuals of ``/usr/share/doc`` (valgrind, ninja, fontconfig, the Debian Python policy...: long
  hand-written manuals), the text of their paragraphs (``<p>``), runs of about 150 words, titled
  ``package: page title``; generated API references (libxslt), release notes (NEWS) and the
  manuals that are also Info manuals (nettle, libffi) are left out.

Each builder writes ``chunks.jsonl`` (``id``, ``doc_id``, ``title``, ``text``) under
``benchmarks/_data/<name>`` (not committed: the texts have their own licences).

    python benchmarks/synthetic_corpora.py pydoc|info|readme|html
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import importlib
import json
import pydoc
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent
PYDOC_MODULES = ("queue", "collections", "tarfile", "os", "shutil", "ipaddress", "smtplib",
                 "multiprocessing.managers", "json", "posix")
INFO_DIR = Path("/usr/share/info")
WORDS = 150


def paragraphs_to_passages(text: str, words: int = WORDS) -> list[str]:
    """``text`` cut at blank lines into runs of about ``words`` words (a paragraph is never
    split)."""
    out, current = [], []
    for para in re.split(r"\n[ \t]*\n", text.strip("\n")):
        if not para.strip():
            continue
        current.append(para)
        if sum(len(p.split()) for p in current) >= words:
            out.append("\n\n".join(current))
            current = []
    if current:
        out.append("\n\n".join(current))
    return out


def pydoc_rows() -> list[dict]:
    rows = []
    for name in PYDOC_MODULES:
        module = importlib.import_module(name)
        for attr in sorted(a for a in dir(module) if not a.startswith("_")):
            obj = getattr(module, attr)
            if not callable(obj):
                continue
            text = pydoc.getdoc(obj) or ""
            if len(text.split()) < 25:
                continue
            for i, body in enumerate(paragraphs_to_passages(text), 1):
                rows.append({"id": f"{name}.{attr}-{i:02d}", "doc_id": f"{name}.{attr}",
                             "title": f"{name}: {attr}", "text": body})
    return rows


def info_nodes(path: Path) -> list[tuple[str, str]]:
    """(node name, text) of one Info file."""
    raw = gzip.open(path, "rt", encoding="utf-8", errors="replace").read()
    out = []
    for part in raw.split("\x1f")[1:]:
        head, _, body = part.strip("\n").partition("\n")
        node = re.search(r"Node: ([^,\n]+)", head)
        if node is None or node.group(1) in ("Top",) or "Copying" in node.group(1):
            continue
        body = body.split("* Menu:")[0]
        body = re.sub(r"(?m)^[=*\-.]{3,}$", "", body)  # underlines of node titles
        out.append((node.group(1).strip(), body))
    return out


def info_rows() -> list[dict]:
    rows = []
    for path in sorted(INFO_DIR.glob("*.info*.gz")):
        manual = path.name.split(".info")[0]
        for node, body in info_nodes(path):
            if re.search(r"licen[cs]e|copying|index|concept", node, re.I):
                continue
            for i, text in enumerate(paragraphs_to_passages(body), 1):
                if len(text.split()) < 25:
                    continue
                slug = re.sub(r"\s+", "_", node)
                rows.append({"id": f"{manual}:{slug}-{i:02d}", "doc_id": f"{manual}:{slug}",
                             "title": f"{manual}: {node}", "text": text})
    return rows


def readme_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/doc").glob("*/README*")):
        if not path.is_file() or path.is_symlink():
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        try:
            with opener(path, "rt", encoding="utf-8") as handle:
                raw = handle.read()
        except (OSError, UnicodeDecodeError):
            continue
        package = path.parent.name
        name = path.name.removesuffix(".gz")
        for i, text in enumerate(paragraphs_to_passages(raw), 1):
            if len(text.split()) < 25 or re.search(r"licen[cs]e|copyright|warranty", text, re.I):
                continue
            rows.append({"id": f"{package}:{name}-{i:02d}", "doc_id": f"{package}:{name}",
                         "title": f"{package}: {name}", "text": text})
    return rows


HTML_SKIPPED = ("libxslt1-dev", "nettle-dev", "libffi-dev", "libffi8")


def html_rows() -> list[dict]:
    rows = []
    for path in sorted(Path("/usr/share/doc").rglob("*.html")):
        package = path.relative_to("/usr/share/doc").parts[0]
        if package in HTML_SKIPPED or "NEWS" in path.name or not path.is_file():
            continue
        raw = path.read_text(encoding="utf-8", errors="replace")
        title = re.search(r"(?is)<title>(.*?)</title>", raw)
        name = html.unescape(re.sub(r"\s+", " ", title.group(1))).strip() if title else path.stem
        paragraphs = [html.unescape(re.sub(r"<[^>]+>", "", p)).strip()
                      for p in re.findall(r"(?is)<p\b[^>]*>(.*?)</p>", raw)]
        text = "\n\n".join(p for p in paragraphs if len(p.split()) >= 8)
        for i, body in enumerate(paragraphs_to_passages(text), 1):
            if len(body.split()) < 25 or re.search(r"licen[cs]e|copyright|warranty", body, re.I):
                continue
            slug = re.sub(r"\W+", "_", str(path.relative_to("/usr/share/doc")))
            rows.append({"id": f"{slug}-{i:02d}", "doc_id": slug, "title": f"{package}: {name}",
                         "text": body})
    return rows


def build(name: str) -> Path:
    rows = {"pydoc": pydoc_rows, "info": info_rows, "readme": readme_rows,
            "html": html_rows}[name]()
    out = ROOT / "_data" / name
    out.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    (out / "chunks.jsonl").write_text(data, encoding="utf-8")
    print(f"{name}: {len(rows)} passages, sha256 {hashlib.sha256(data.encode()).hexdigest()[:12]}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", choices=("pydoc", "info", "readme", "html"))
    build(parser.parse_args().corpus)


if __name__ == "__main__":
    main()
