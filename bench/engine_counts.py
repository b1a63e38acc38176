"""How much of the research engine is hand-tuned vocabulary: counts for issue 29 item 6.

Run: ``.venv/bin/python -m bench.engine_counts`` (the working tree) or ``--root /work/main`` (another
checkout); ``--compare ROOT`` prints both side by side. Counted in ``deepr_mcp/research/`` (every
folder below it):

- regular expressions: each ``re.*`` call or ``re.compile`` on a pattern (literal, or a module
  constant it names), and their alternatives (top-level and nested ``|`` branches, plus one);
- hand-listed words: word-like string literals inside set/list/tuple/dict literals, and the
  words of a string passed to ``tokenize``/``split`` (``tokenize("use do make ...")``);
- named weights: module-level UPPER_CASE names bound to a number; float literals anywhere;
- lines of Python;
- bench questions and gold phrases (from ``bench/research_questions*.json`` of the working tree)
  that appear verbatim, case aside, in ``deepr_mcp/`` or ``tests/``.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
RE_CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}
WORD = re.compile(r"^[A-Za-z][A-Za-z'\- ]{0,30}$")
MIN_GOLD_WORDS = 3
"""A gold phrase shorter than this ("lru_cache") is a name any code may use; it is not counted."""


@dataclass
class Counts:
    regexes: int = 0
    alternatives: int = 0
    listed_words: int = 0
    named_weights: int = 0
    float_literals: int = 0
    lines: int = 0
    bench_questions_quoted: int = 0
    gold_phrases_quoted: int = 0


def _string(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The pattern text of a literal, a module constant, or a concatenation of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _string(node.left, constants), _string(node.right, constants)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def alternatives(pattern: str) -> int:
    """Branches of a pattern: every unescaped ``|`` outside a character class adds one."""
    count, escaped, in_class = 1, False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == "[":
            in_class = True
        elif ch == "]":
            in_class = False
        elif ch == "|" and not in_class:
            count += 1
    return count


def count_file(path: Path, counts: Counts) -> None:
    source = path.read_text(encoding="utf-8")
    counts.lines += source.count("\n")
    tree = ast.parse(source)
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if (text := _string(node.value, constants)) is not None:
                constants[name] = text
            if name.isupper() and isinstance(node.value, ast.Constant) and type(node.value.value) in (int, float):
                counts.named_weights += 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) is float:
            counts.float_literals += 1
        if isinstance(node, ast.Call):
            func = node.func
            is_re = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "re"
            if is_re and func.attr in RE_CALLS and node.args:  # type: ignore[union-attr]
                pattern = _string(node.args[0], constants)
                if pattern is not None:
                    counts.regexes += 1
                    counts.alternatives += alternatives(pattern)
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            target = func.value if isinstance(func, ast.Attribute) else None
            if name == "tokenize" and node.args and isinstance(node.args[0], ast.Constant):
                counts.listed_words += len(str(node.args[0].value).split())
            if name == "split" and isinstance(target, ast.Constant) and isinstance(target.value, str):
                counts.listed_words += len(target.value.split())
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            counts.listed_words += sum(_wordlike(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            counts.listed_words += sum(_wordlike(k) for k in node.keys if k is not None)


def _wordlike(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(WORD.match(node.value))


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def quoted(root: Path, counts: Counts) -> None:
    questions: list[str] = []
    gold: list[str] = []
    for path in sorted((HERE / "bench").glob("research_questions*.json")):
        for q in json.loads(path.read_text(encoding="utf-8")).get("questions", []):
            questions.append(q["question"])
            gold += [g for g in q.get("gold", []) if len(g.split()) >= MIN_GOLD_WORDS]
    text = " ".join(
        _normal(p.read_text(encoding="utf-8", errors="replace"))
        for folder in ("deepr_mcp", "tests")
        for p in (root / folder).rglob("*.py")
    )
    counts.bench_questions_quoted = sum(_normal(q) in text for q in questions)
    counts.gold_phrases_quoted = sum(_normal(g) in text for g in set(gold))


def measure(root: Path) -> Counts:
    counts = Counts()
    for path in sorted((root / "deepr_mcp" / "research").rglob("*.py")):
        count_file(path, counts)
    quoted(root, counts)
    return counts


STAGE_COUNTS = ("regexes", "alternatives", "listed_words", "named_weights", "lines")


def by_stage(root: Path) -> dict[str, Counts]:
    """The counts per pipeline stage: the first folder under research/ (``.`` for its top-level modules).

    Separates what reads documents (``corpus/``: HTML tags, PDF page furniture) from what reads
    questions and ranks passages, where a hand-written word list is a bet on one corpus's wording.
    """
    stages: dict[str, Counts] = {}
    research = root / "deepr_mcp" / "research"
    for path in sorted(research.rglob("*.py")):
        parts = path.relative_to(research).parts
        count_file(path, stages.setdefault(parts[0] if len(parts) > 1 else ".", Counts()))
    return stages


def print_stages(roots: list[Path]) -> None:
    staged = [by_stage(r) for r in roots]
    print(f"\nper stage ({' -> '.join(str(r) for r in roots)})")
    print(f"{'stage':<12}" + "".join(f"{name:>20}" for name in STAGE_COUNTS))
    for stage in sorted({s for st in staged for s in st}):
        cells = []
        for name in STAGE_COUNTS:
            values = [str(getattr(st[stage], name)) if stage in st else "-" for st in staged]
            cells.append(f"{' -> '.join(values):>20}")
        print(f"{stage:<12}" + "".join(cells))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.engine_counts", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", type=Path, default=HERE, help="checkout to count (default: this working tree)")
    p.add_argument("--compare", type=Path, metavar="ROOT", help="also count this checkout and print both")
    p.add_argument("--by-stage", action="store_true", help="also print the counts per research/ stage folder")
    args = p.parse_args(argv)
    roots = [args.compare, args.root] if args.compare else [args.root]
    measured = [measure(r) for r in roots]
    names = [f.name for f in fields(Counts)]
    print(f"{'count':<24}" + "".join(f"{r!s:>22}" for r in roots))
    for name in names:
        print(f"{name:<24}" + "".join(f"{getattr(m, name):>22}" for m in measured))
    if args.by_stage:
        print_stages(roots)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
