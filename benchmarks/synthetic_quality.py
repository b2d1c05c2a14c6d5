"""Does the quality score predict which synthetic questions an expert accepts as written?

Measured on the manual-page development corpus (``benchmarks/manpage_corpus.py``), graded by
hand against ``benchmarks/synthetic_grading/CRITERIA.md``.

    python benchmarks/synthetic_quality.py sample --round round2 [--passages 80] [--seed 2027]
    python benchmarks/synthetic_quality.py figures [--round round1 ...]
    python benchmarks/synthetic_quality.py calibration round4/heldout [--write]

``sample`` builds the corpus (if missing) and a fresh workspace from it, runs the offline
generator as ``scorecard generate`` does (the team's default form mix, 2 questions a passage)
and writes, into ``benchmarks/synthetic_grading/<round>/``:

- ``candidates.jsonl``: every queued candidate with its grading key, question, answer span,
  form, quality score and features, and the corpus's SHA-256;
- ``sheet.md``: the grading sheet, blind to the score: passages in a seeded random order, each
  with its questions shuffled, keyed by an opaque hash (the candidate ids follow the score, so
  they are not shown).

The grader writes ``grades.tsv`` (``key<TAB>accept|reject<TAB>reason``) from the sheet alone.
``figures`` joins the grades with the scores and prints, for each round (default: every
round folder), the accept rate of the top and bottom halves by quality score (ties broken by
candidate id), overall and by form, and the reject reasons.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from labeling.files.importers.records import import_chunks  # noqa: E402
from labeling.synthetic import batches, review  # noqa: E402
from labeling.workspace.grading import init_workspace  # noqa: E402

GRADING = ROOT / "synthetic_grading"
import synthetic_corpora  # noqa: E402

CORPORA = tuple(synthetic_corpora.BUILDERS)
CORPUS = ROOT / "_data" / "manpages"


def _key(batch: str, cid: int) -> str:
    return "g" + hashlib.sha1(f"{batch}/{cid}".encode()).hexdigest()[:7]


def sample(folder: Path, passages: int, seed: int, corpus: str = "manpages") -> None:
    data = ROOT / "_data" / corpus
    chunks = data / "chunks.jsonl"
    if not chunks.exists() and corpus == "manpages":
        import manpage_corpus

        manpage_corpus.build(CORPUS, 24, 10, 120)
    elif not chunks.exists():
        synthetic_corpora.build(corpus)
    digest = hashlib.sha256(chunks.read_bytes()).hexdigest()
    path = data / "workspace.db"
    for extra in ("", "-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    db = init_workspace(path)
    import_chunks(db, chunks)
    result = batches.run(db, passages, seed=seed, per_chunk=2)
    ids = result.ids
    if result.errors:
        print("\n".join(result.errors), file=sys.stderr)
    frame = review.candidates_frame(db)
    frame = frame[frame["id"].isin(ids)]
    texts = {cid: (title, text) for cid, title, text in db.conn.execute(
        "SELECT id, coalesce(title, ''), text FROM chunks")}
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for _, r in frame.iterrows():
        rows.append({
            "key": _key(r["batch"], int(r["id"])), "id": int(r["id"]), "chunk_id": r["chunk_id"],
            "title": texts[r["chunk_id"]][0], "question": r["question"], "answer": r["answer"],
            "answer_start": int(r["answer_start"]), "answer_end": int(r["answer_end"]),
            "form": r["form"], "generator": r["generator"], "quality": float(r["quality"]),
            "features": r["features"], "corpus_sha256": digest, "seed": seed,
        })
    drawn = db.conn.execute(
        "SELECT count(DISTINCT p.chunk_id) FROM synthetic_batch_passages p").fetchone()[0]
    (folder / "candidates.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    by_chunk = _write_sheet(folder, rows, texts, seed)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                            capture_output=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "labeling"], cwd=ROOT, text=True,
                           capture_output=True).stdout.strip()
    (folder / "meta.json").write_text(json.dumps(
        {"corpus": corpus, "seed": seed, "passages_asked": passages, "passages_drawn": drawn,
         "corpus_sha256": digest, "generator_commit": commit + ("+uncommitted" if dirty else ""),
         "score": "the calibrated default weights of labeling/synthetic/calibration.py"},
        indent=1) + "\n", encoding="utf-8")
    print(f"{len(rows)} candidates from {len(by_chunk)} passages (seed {seed}, corpus sha256 "
          f"{digest[:12]}) -> {folder}")


def _write_sheet(folder: Path, rows: list[dict], texts: dict[str, tuple[str, str]],
                 seed: int) -> dict[str, list[dict]]:
    """``sheet.md``: passages in a seeded order, their questions shuffled, no scores."""
    by_chunk: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_chunk[r["chunk_id"]].append(r)
    rng = random.Random(seed)
    order = sorted(by_chunk)
    rng.shuffle(order)
    lines = ["# Grading sheet (blind: no scores, opaque keys)", "",
             "Grade each question against CRITERIA.md; write `key<TAB>accept|reject<TAB>reason`"
             " lines to grades.tsv.", ""]
    for chunk_id in order:
        title, text = texts[chunk_id]
        lines += [f"## {title} ({chunk_id})", "", "```", text, "```", ""]
        questions = by_chunk[chunk_id]
        rng.shuffle(questions)
        for r in questions:
            answer = " ".join(r["answer"].split())
            lines.append(f"- `{r['key']}` **{r['question']}**  \n  answer: {answer}")
        lines.append("")
    (folder / "sheet.md").write_text("\n".join(lines), encoding="utf-8")
    return by_chunk


def load(folder: Path, grades: str = "grades.tsv") -> list[dict]:
    """Graded candidates: the candidate rows with ``accepted`` (bool) and ``reason``, from the
    grades file ``grades`` of ``folder`` (``grades.tsv``: the grades that count)."""
    candidates = {}
    for line in (folder / "candidates.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        candidates[row["key"]] = row
    graded = []
    for number, line in enumerate((folder / grades).read_text(
            encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 2 or parts[1] not in ("accept", "reject") or parts[0] not in candidates:
            raise SystemExit(f"{grades}, line {number}: expected a known key, then accept or "
                             f"reject: {line!r}")
        row = dict(candidates[parts[0]])
        row["accepted"] = parts[1] == "accept"
        row["reason"] = parts[2] if len(parts) > 2 else ""
        graded.append(row)
    return graded


def rate(rows: list[dict]) -> str:
    if not rows:
        return "-"
    n = sum(r["accepted"] for r in rows)
    return f"{n}/{len(rows)} ({n / len(rows):.0%})"


def figures(folder: Path) -> dict[str, float]:
    graded = load(folder)
    print(f"### {folder.name}")
    print()
    ranked = sorted(graded, key=lambda r: (-r["quality"], r["id"]))
    half = len(ranked) // 2
    top, bottom = ranked[:half], ranked[len(ranked) - half:]
    top_rate = sum(r["accepted"] for r in top) / len(top)
    bottom_rate = sum(r["accepted"] for r in bottom) / len(bottom)
    print(f"graded: {len(graded)} questions from {len({r['chunk_id'] for r in graded})} "
          f"passages; accepted as written: {rate(graded)}")
    print(f"top half by quality score: {rate(top)}; bottom half: {rate(bottom)}; ratio "
          f"{top_rate / bottom_rate if bottom_rate else float('inf'):.2f}")
    print()
    print("| form | graded | accepted (all) | accepted (top half) |")
    print("|---|---|---|---|")
    top_keys = {r["key"] for r in top}
    for form in sorted({r["form"] for r in graded}):
        rows = [r for r in graded if r["form"] == form]
        print(f"| {form} | {len(rows)} | {rate(rows)} | "
              f"{rate([r for r in rows if r['key'] in top_keys])} |")
    reasons = defaultdict(int)
    for r in graded:
        if not r["accepted"]:
            reasons[r["reason"].split(":")[0].strip() or "(none)"] += 1
    print()
    print("| reject reason | questions |")
    print("|---|---|")
    for reason, count in sorted(reasons.items(), key=lambda x: -x[1]):
        print(f"| {reason} | {count} |")
    print()
    return {"top": top_rate, "bottom": bottom_rate}


def calibration(folder: Path, write: bool = False) -> dict[str, float]:
    """Issue 32's figures for one graded folder: accepted as written overall and in the top half
    by the calibrated score (``quality_model.DEFAULT_WEIGHTS`` on the stored features), the
    score's predicted accept rate (its mean) against the observed one per half,
    and questions per passage drawn (``meta.json``); with ``write``, also into
    ``figures.md`` of the folder."""
    from labeling.synthetic import quality_model

    graded = load(folder)
    for row in graded:  # the calibrated score, whatever the weights were when it was drawn
        row["quality"] = quality_model.score(row["features"], quality_model.DEFAULT_WEIGHTS)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    ranked = sorted(graded, key=lambda r: (-r["quality"], r["id"]))
    half = (len(ranked) + 1) // 2
    halves = {"top": ranked[:half], "bottom": ranked[half:]}
    out = {"graded": len(graded), "accepted": sum(r["accepted"] for r in graded) / len(graded),
           "passages_drawn": meta["passages_drawn"],
           "per_passage": len(graded) / meta["passages_drawn"]}
    for name, rows in halves.items():
        out[f"{name}_observed"] = sum(r["accepted"] for r in rows) / len(rows)
        out[f"{name}_predicted"] = sum(r["quality"] for r in rows) / len(rows)
    lines = [f"### {folder.parent.name}/{folder.name} ({meta['corpus']}, seed {meta['seed']}, "
             f"generator {meta.get('generator_commit', '?')})", "",
             f"graded {len(graded)} questions from {meta['passages_drawn']} passages drawn "
             f"({out['per_passage']:.2f} a passage); accepted as written: {rate(graded)}", ""]
    for name, rows in halves.items():
        lines.append(f"- {name} half ({len(rows)}): observed {rate(rows)}, predicted "
                     f"{out[name + '_predicted']:.0%} (mean calibrated score)")
    print("\n".join(lines) + "\n")
    if write:
        (folder / "figures.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("sample", help="generate and write the blind grading sheet")
    one.add_argument("--round", required=True, help="folder name under synthetic_grading")
    one.add_argument("--passages", type=int, default=80)
    one.add_argument("--seed", type=int, default=2026)
    one.add_argument("--corpus", default="manpages", choices=("manpages", *CORPORA))
    two = sub.add_parser("figures", help="accept rates by quality half from grades.tsv")
    two.add_argument("--round", nargs="*", help="round folders (default: all)")
    three = sub.add_parser("calibration", help="issue 32 figures of graded folders")
    three.add_argument("folders", nargs="+", help="folders under synthetic_grading")
    three.add_argument("--write", action="store_true", help="also write figures.md there")
    args = parser.parse_args()
    if args.command == "sample":
        sample(GRADING / args.round, args.passages, args.seed, args.corpus)
    elif args.command == "calibration":
        for name in args.folders:
            calibration(GRADING / name, args.write)
    else:
        names = args.round or sorted(p.name for p in GRADING.iterdir()
                                     if (p / "grades.tsv").exists())
        for name in names:
            figures(GRADING / name)


if __name__ == "__main__":
    main()
