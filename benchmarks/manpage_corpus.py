"""Build the synthetic-question development corpus from the manual pages installed here.

Real technical text the project did not write: prose mixed with option lists, synopses, code
examples and tables. The build is deterministic for a given set of installed pages:

- pages: files of ``/usr/share/man/man{1,3,5,7,8}`` that are not symbolic links or ``.so``
  redirects; C library pages only in section 3 (no Perl ``3pm``/``3perl``); a page is taken when
  the first byte of the SHA-1 of its file name is below ``--rate`` (default 24 of 256), and the
  machine-generated ``gcloud`` pages (thousands, one template) at a fortieth of that rate;
- rendering: ``man -l -P cat`` with ``MANWIDTH=80`` in the C.UTF-8 locale (hyphenated line ends
  come out as U+2010, kept as real text has them);
- passages: each section (``DESCRIPTION``, ``OPTIONS``...) is cut at blank lines into passages
  of about ``--words`` words (paragraphs are never split); the common indentation is removed,
  deeper indentation (option descriptions, examples) is kept; a section shorter than 30 words
  joins the next one with its heading as a line; at most ``--per-page`` passages per page (the
  first three, then a hash-ordered choice of the rest).

Writes ``chunks.jsonl`` (``id``, ``doc_id``, ``title``, ``text``) into ``--out`` (default
``benchmarks/_data/manpages``, not committed: man pages have their own licences) and prints the
page count, passage count and a SHA-256 of the file so two builds can be compared.

    python benchmarks/manpage_corpus.py [--out DIR] [--rate 24] [--per-page 10]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

MAN_ROOT = Path("/usr/share/man")
SECTIONS = ("man1", "man3", "man5", "man7", "man8")
DEFAULT_OUT = Path(__file__).resolve().parent / "_data" / "manpages"
HEADING = re.compile(r"^[A-Z][A-Z0-9 ,/&()'-]*[A-Z)]$")
SMALL_SECTION = 30  # words


def pages(rate: int) -> list[Path]:
    """The chosen page files, sorted by section and name."""
    chosen = []
    for section in SECTIONS:
        folder = MAN_ROOT / section
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            name = path.name
            if path.is_symlink() or not name.endswith(".gz"):
                continue
            suffix = name[:-3].rsplit(".", 1)[-1]
            if section == "man3" and suffix != "3":
                continue
            bucket = hashlib.sha1(name.encode()).digest()[0]
            limit = rate / 40 if name.startswith("gcloud") else rate
            if bucket < limit:
                chosen.append(path)
    return chosen


def render(path: Path) -> str:
    """The page as plain text, 80 columns; '' when it is a redirect or does not render."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAN", "LC_", "LANG"))}
    env.update(MANWIDTH="80", LC_ALL="C.UTF-8", MAN_KEEP_FORMATTING="", GROFF_NO_SGR="1")
    result = subprocess.run(
        ["man", "-l", "-P", "cat", str(path)], capture_output=True, env=env, timeout=60,
        check=False,
    )
    if result.returncode != 0:
        return ""
    text = result.stdout.decode("utf-8", errors="replace")
    return re.sub(r".\x08", "", text)  # overstrike bold/underline, should any remain


def sections(text: str) -> Iterator[tuple[str, list[str]]]:
    """(heading, body lines) of a rendered page; the running header and footer dropped."""
    lines = text.splitlines()
    nonblank = [i for i, line in enumerate(lines) if line.strip()]
    if len(nonblank) < 3:
        return
    body = lines[nonblank[0] + 1:nonblank[-1]]
    heading, current = "", []
    for line in body:
        if line and not line[0].isspace() and HEADING.match(line.strip()):
            if heading or any(x.strip() for x in current):
                yield heading, current
            heading, current = line.strip(), []
        else:
            current.append(line.rstrip())
    if heading or any(x.strip() for x in current):
        yield heading, current


def paragraphs(lines: list[str]) -> list[str]:
    """Blank-line separated paragraphs with the section's common indentation removed."""
    indents = [len(x) - len(x.lstrip()) for x in lines if x.strip()]
    cut = min(indents) if indents else 0
    out, current = [], []
    for line in lines:
        if line.strip():
            current.append(line[cut:])
        elif current:
            out.append("\n".join(current))
            current = []
    if current:
        out.append("\n".join(current))
    return out


def passages(page: str, text: str, words: int) -> list[tuple[str, str]]:
    """(title, text) of the page's passages in order."""
    out: list[tuple[str, str]] = []
    carry = ""  # a short section waiting to join the next one
    carry_heading = ""
    for heading, lines in sections(text):
        paras = paragraphs(lines)
        if not paras:
            continue
        size = sum(len(p.split()) for p in paras)
        if size < SMALL_SECTION:
            block = heading + "\n" + "\n\n".join(paras)
            carry = f"{carry}\n\n{block}" if carry else block
            carry_heading = carry_heading or heading
            continue
        title_heading = carry_heading or heading
        current: list[str] = [carry + "\n\n" + heading] if carry else []
        count = len(carry.split())
        carry, carry_heading = "", ""
        for para in paras:
            current.append(para)
            count += len(para.split())
            if count >= words:
                out.append((f"{page}: {title_heading.title()}", "\n\n".join(current)))
                current, count, title_heading = [], 0, heading
        if current:
            if count < SMALL_SECTION and out and out[-1][0].endswith(heading.title()):
                title, previous = out.pop()
                out.append((title, previous + "\n\n" + "\n\n".join(current)))
            else:
                out.append((f"{page}: {title_heading.title()}", "\n\n".join(current)))
    if carry:
        out.append((f"{page}: {carry_heading.title()}", carry))
    return out


def choose(items: list, per_page: int, key: str) -> list:
    """The first three passages and a hash-ordered choice of the rest, in page order."""
    if len(items) <= per_page:
        return items
    rest = sorted(range(3, len(items)),
                  key=lambda i: hashlib.sha1(f"{key}#{i}".encode()).hexdigest())
    keep = sorted([0, 1, 2, *rest[: per_page - 3]])
    return [items[i] for i in keep]


def build(out: Path, rate: int, per_page: int, words: int) -> tuple[int, int, str]:
    out.mkdir(parents=True, exist_ok=True)
    target = out / "chunks.jsonl"
    n_pages = 0
    rows = []
    for path in pages(rate):
        text = render(path)
        if not text.strip():
            continue
        name = path.name[:-3]
        stem, _, section = name.rpartition(".")
        page = f"{stem}({section})"
        found = choose(passages(page, text, words), per_page, name)
        if not found:
            continue
        n_pages += 1
        for i, (title, body) in enumerate(found, 1):
            rows.append({"id": f"{name}-{i:02d}", "doc_id": name, "title": title, "text": body})
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    target.write_text(data, encoding="utf-8")
    return n_pages, len(rows), hashlib.sha256(data.encode()).hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--rate", type=int, default=24, help="pages taken per 256 (default 24)")
    parser.add_argument("--per-page", type=int, default=10)
    parser.add_argument("--words", type=int, default=120, help="passage size in words")
    args = parser.parse_args()
    n_pages, n_passages, digest = build(args.out, args.rate, args.per_page, args.words)
    print(f"{n_pages} pages, {n_passages} passages -> {args.out / 'chunks.jsonl'}")
    print(f"sha256 {digest}")


if __name__ == "__main__":
    main()
