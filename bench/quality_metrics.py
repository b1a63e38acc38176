"""Metric functions of ``bench/research_quality.py``: gold matching, claims, duplicates, furniture.

Pure functions over text, no corpus and no engine, so they are unit-tested on their own
(``tests/bench/test_quality_metrics.py``) and the report format can change without them
breaking: the claim parser takes bullets and cited sentences wherever they are, skips fenced
code, the gaps section and the sources list, and reads ``[n]`` markers in any of the usual
spellings (``[1]``, ``[1][2]``, ``[1, 2]``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

DUPLICATE_JACCARD = 0.8
"""Two claims whose token sets overlap this much (intersection over union) say the same thing."""

# -- gold phrases ----------------------------------------------------------------------------

_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_NON_WORD = re.compile(r"[^\w]+")


def normalise(text: str) -> str:
    """Lowercase words separated by single spaces: markdown, backticks, ``¶``, quotes and all
    other punctuation removed, so ``"files are created outside of *path*, e.g."`` and
    ``"Files are created outside of path e.g"`` compare equal. Padded with a space each side
    so that a phrase matches whole words only (``" path "`` does not match ``"pathlib"``)."""
    text = unicodedata.normalize("NFKC", text)
    text = _MD_LINK.sub(r"\1", text)
    text = _NON_WORD.sub(" ", text.lower()).replace("_", " ")
    return " " + " ".join(text.split()) + " "


def gold_found(output: str, phrases: list[str]) -> list[bool]:
    """For each gold phrase, whether the output contains it (after ``normalise`` of both)."""
    haystack = normalise(output)
    return [normalise(p) in haystack for p in phrases]


def answer_holds_gold(output: str, phrases: list[str]) -> bool | None:
    """Whether the report's Answer section quotes a gold or warning phrase (None for an output without
    one, as top-5 search's): the answer first, not only somewhere in the findings."""
    lines = list(section_lines(output, _ANSWER_HEADING))
    if not lines:
        return None
    return any(gold_found("\n".join(line for line, _ in lines), phrases))


def answer_opening(output: str) -> str | None:
    """The Answer section's first cited statement: its text up to and with the first run of citations, and the code
    it introduces ("Put this in the file: [1]" and the block after it); a note in italics ("_No passage found
    clearly answers..._") is left out. None without an Answer section."""
    lines = list(section_lines(output, _ANSWER_HEADING))
    if not lines:
        return None
    said: list[str] = []
    introduces = False
    for line, code in lines:
        text = line.strip()
        if code:
            said.append(text)
            continue
        if introduces or not text or text.startswith("_"):
            if introduces and text:
                break  # the statement and its code are said
            continue
        cited = _CITATIONS_RUN.search(text)
        said.append(text[: cited.end()] if cited else text)
        if cited:
            introduces = text[: cited.start()].rstrip().endswith(":")
            if not introduces:
                break
    return " ".join(said)


def answer_opens_with_gold(output: str, phrases: list[str]) -> bool | None:
    """Whether the Answer's first cited statement quotes a gold or warning phrase: what answers comes first, not
    second after an aside (None for an output without an Answer section)."""
    opening = answer_opening(output)
    return None if opening is None else any(gold_found(opening, phrases))


# -- claims ------------------------------------------------------------------------------------

_CITATION_GROUP = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_CITATIONS_RUN = re.compile(r"(?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])+")
_SPACE_BEFORE_STOP = re.compile(r"\s+([.,;:!?])(?=\s|$)")
_CONFIDENCE = re.compile(r"\s*\((?:confidence|conf\.?)\s*[0-9.]+\)", re.I)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SOURCES_HEADING = re.compile(r"^(?:sources|references|citations|bibliography|cited passages)\b", re.I)
_ANSWER_HEADING = re.compile(r"^(?:answer|direct answer)\s*$", re.I)
_GAPS_HEADING = re.compile(r"^(?:gaps|open questions|what the corpus does not answer|not answered)\b", re.I)
_SOURCE_LINE = re.compile(r"^\s*(?:[-*+]\s*)?\[(\d+)\]:?\s*(.*)$")
_PASSAGE_ID = re.compile(r"\(?\bpassage[:\s]+([\w#:./-]+?)\)?(?=[\s,;)]|$)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)\s+(?=[A-Z0-9\"'(`\[*_])")
_MOVE_CITATIONS = re.compile(r"([.!?])((?:\s*\[\d+(?:\s*[,;]\s*\d+)*\])+)")


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    """The claim without its citation markers."""
    citations: tuple[int, ...]
    section: str = ""


@dataclass(frozen=True, slots=True)
class SourceRef:
    number: int
    source: str
    passage_id: str = ""
    location: str = ""


@dataclass(slots=True)
class ParsedReport:
    claims: list[Claim] = field(default_factory=list)
    sources: dict[int, SourceRef] = field(default_factory=dict)


def citations_in(text: str) -> tuple[int, ...]:
    numbers: list[int] = []
    for group in _CITATION_GROUP.findall(text):
        numbers += [int(n) for n in re.findall(r"\d+", group)]
    return tuple(dict.fromkeys(numbers))


def strip_citations(text: str) -> str:
    text = _CONFIDENCE.sub("", text)
    text = " ".join(_CITATION_GROUP.sub(" ", text).split())
    return _SPACE_BEFORE_STOP.sub(r"\1", text).strip()


def split_sentences(paragraph: str) -> list[str]:
    """Sentences of a paragraph; ``"One. [1] Two. [2]"`` keeps each marker with its sentence."""
    moved = _MOVE_CITATIONS.sub(lambda m: m.group(2) + m.group(1), " ".join(paragraph.split()))
    return [s.strip() for s in _SENTENCE_END.split(moved) if s.strip()]


def parse_source_line(line: str) -> SourceRef | None:
    match = _SOURCE_LINE.match(line)
    if match is None:
        return None
    number, rest = int(match.group(1)), match.group(2).strip()
    passage = ""
    found = list(_PASSAGE_ID.finditer(rest))
    if found:
        passage = found[-1].group(1)
        rest = (rest[: found[-1].start()] + rest[found[-1].end() :]).strip()
    rest = rest.strip(" -–—:()")
    source, _, location = rest.partition(", ")
    return SourceRef(number=number, source=source.strip(), passage_id=passage, location=location.strip())


def parse_report(report: str) -> ParsedReport:
    """Claims (cited bullets and cited sentences) and the numbered sources list of a report."""
    out = ParsedReport()
    section = ""
    kind = "body"
    paragraph: list[str] = []
    in_fence = False

    def flush() -> None:
        # In prose, a citation covers the sentence it closes and the uncited ones just before it:
        # "A. B. [1][2] C." gives the claims A and B, both cited [1][2]; C is uncited, no claim.
        if paragraph and kind == "body":
            pending: list[str] = []
            for sentence in split_sentences(" ".join(paragraph)):
                numbers = citations_in(sentence)
                text = strip_citations(sentence)
                if not numbers:
                    pending += [text] if text else []
                    continue
                out.claims += [Claim(t, numbers, section) for t in [*pending, text] if t]
                pending = []
        paragraph.clear()

    for line in report.splitlines():
        if _FENCE.match(line):
            flush()
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        heading = _HEADING.match(line)
        if heading:
            flush()
            section = heading.group(1)
            if _SOURCES_HEADING.match(section):
                kind = "sources"
            elif _GAPS_HEADING.match(section):
                kind = "gaps"
            else:
                kind = "body"
            continue
        if kind == "sources":
            ref = parse_source_line(line)
            if ref is not None:
                out.sources[ref.number] = ref
            continue
        if not line.strip():
            flush()
            continue
        if line.lstrip().startswith(">"):  # a callout such as "> Partial report": not evidence
            flush()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            flush()
            numbers = citations_in(bullet.group(1))
            text = strip_citations(bullet.group(1))
            if kind == "body" and numbers and text:
                out.claims.append(Claim(text, numbers, section))
            continue
        paragraph.append(line)
    flush()
    return out


# -- duplicates --------------------------------------------------------------------------------


def tokens(text: str) -> frozenset[str]:
    return frozenset(normalise(text).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def duplicate_flags(texts: list[str], threshold: float = DUPLICATE_JACCARD) -> list[bool]:
    """For each claim, whether it repeats an earlier one of the same report: identical once
    normalised, or token Jaccard >= ``threshold``. The first of a group is not a duplicate, so
    ``sum(flags)`` is the number of claims a reader could drop without losing anything."""
    seen_norm: set[str] = set()
    seen_tokens: list[frozenset[str]] = []
    flags = []
    for text in texts:
        norm = normalise(text)
        toks = frozenset(norm.split())
        dup = norm in seen_norm or any(jaccard(toks, prev) >= threshold for prev in seen_tokens)
        flags.append(dup)
        seen_norm.add(norm)
        seen_tokens.append(toks)
    return flags


# -- furniture ---------------------------------------------------------------------------------

NAVIGATION_PAGES = re.compile(
    r"^(?:genindex(?:-.*)?|py-modindex|modindex|search|contents|index|toc|sitemap|404)\.html?$", re.I
)
"""Sphinx and friends: the general index, module index, search page, contents and toctree pages."""
NAVIGATION_HEADINGS = frozenset(
    {
        "navigation",
        "previous topic",
        "next topic",
        "this page",
        "table of contents",
        "quick search",
        "related topics",
        "contents",
        "on this page",
    }
)
NAVIGATION_PHRASES = (
    "previous topic",
    "next topic",
    "this page",
    "show source",
    "table of contents",
    "report a bug",
    "quick search",
    "index | modules",
    "modules | next",
    "next | previous",
)
_SECTION_NUMBER = re.compile(r"(?:^|\s)\d+(?:\.\d+)*\.\s+[A-Z_`]")
_FENCED_BLOCK = re.compile(r"^\s*(```|~~~).*?(?:^\s*\1[^\n]*$|\Z)", re.S | re.M)
"""A fenced code block, or one a passage boundary cut before its closing fence."""
_NAME = re.compile(r"\w+\(\)|\w+(?:\.\w+)+(?:\(\))?")
_SENTENCE_STOP = re.compile(r"[a-z][.!?](?:\s|$)")
_LINK_TEXT = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def is_navigation_source(source: str, location: str = "") -> bool:
    """A passage from an index/search/contents page, or under a sidebar heading of any page."""
    path = PurePosixPath(source.replace("\\", "/").split("#", 1)[0])
    if NAVIGATION_PAGES.match(path.name):
        return True
    last = location.split(">")[-1].strip().strip("¶").strip().lower()
    return last in NAVIGATION_HEADINGS


def looks_like_navigation(text: str) -> bool:
    """Permalink marks, sidebar phrases, numbered tables of contents, or mostly links/short items."""
    if "¶" in text:
        return True
    lower = " ".join(text.lower().split())
    if any(phrase in lower for phrase in NAVIGATION_PHRASES):
        return True
    prose = _FENCED_BLOCK.sub("\n", text.strip())  # code is short lines, names and "# 1." comments by nature
    if len(_SECTION_NUMBER.findall(prose)) >= 3:  # "5.3. Searching 5.3.1. The module cache 5.3.2. ..."
        return True
    links = [m.group(0) for m in _LINK_TEXT.finditer(prose)]
    if len(links) >= 3 and sum(len(link) for link in links) >= 0.5 * len(prose.strip()):
        return True
    words = [w.strip(",;:`") for w in prose.split()]
    names = sum(1 for w in words if _NAME.fullmatch(w))
    if names >= 8 and names >= 0.35 * len(words) and len(_SENTENCE_STOP.findall(prose)) <= 1:
        return True  # a flattened list of API names: "ZipInfo.filename ZipInfo.date_time ZipInfo.CRC ..."
    lines = [ln.strip() for ln in prose.splitlines() if ln.strip() and "|" not in ln]  # table rows are content
    if len(lines) >= 4:
        ends = (".", ":", ";", "?", "!")
        items = [ln for ln in lines if len(ln.split()) <= 6 and not ln.rstrip("*_`").endswith(ends)]
        if len(items) >= 0.75 * len(lines):
            return True
    return False


def is_furniture(claim_text: str, sources: list[tuple[str, str]]) -> bool:
    """A claim is furniture when it looks like navigation or any cited passage comes from navigation.

    ``sources`` are the (source path, location) of the passages the claim cites."""
    return looks_like_navigation(claim_text) or any(is_navigation_source(s, loc) for s, loc in sources)


# -- summaries ---------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..1); 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- question wording --------------------------------------------------------------------------


def longest_shared_run(question: str, haystack: str) -> list[str]:
    """The longest run of consecutive words of ``question`` found in ``haystack`` (already
    ``normalise``d, so whole words only); an empty list when no word is shared."""
    words = normalise(question).split()
    best: list[str] = []
    for start in range(len(words)):
        end = start + len(best) + 1  # only a longer run can beat the best so far
        while end <= len(words) and f" {' '.join(words[start:end])} " in haystack:
            best = words[start:end]
            end += 1
    return best


# -- gaps that contradict the answer -----------------------------------------------------------

_PARENTHETICAL = re.compile(r"\([^)]*\)")
SUB_QUESTION_WORDS = 3
"""Headings of fewer words ("Answer", "Key findings") are the report's own sections, not sub-questions."""
GAP_NAMES_JACCARD = 0.8
"""A gaps line names a sub-question when its words overlap the heading's this much (or hold it whole)."""
NEAR_HEADING = "Passages near"
"""How a report heads the passages it shows near a part it does not answer ("Passages near “part” (none clearly
answers it)"): such a section names the part, and answers nothing."""


def gaps_contradicting(report: str) -> list[str]:
    """Gaps lines that name a sub-question the report answers with a citation.

    A report's sub-questions are its headings of three words or more; one is answered when its
    section holds at least one cited claim (as ``parse_report`` reads claims). A line of the gaps
    section (a bullet or a sentence, its parenthetical remarks and citation markers dropped) names
    a heading when, after
    ``normalise``, it contains the heading's words or their token sets overlap by Jaccard >= 0.8 (a heading of
    passages shown near a part, "Passages near “part” (none clearly answers it)", answers nothing).
    Each such line is one contradiction: the report says it has no answer to what it answered. So is
    a line "The documents say nothing about X" when a cited claim of the report holds every word of X."""
    claims = parse_report(report).claims
    # a section of passages shown near a part ("Passages near “part” (none clearly answers it)") answers nothing
    sections = {normalise(c.section).strip() for c in claims if c.section and not c.section.startswith(NEAR_HEADING)}
    answered = {h for h in sections if len(h.split()) >= SUB_QUESTION_WORDS}
    cited = frozenset(word for c in claims for word in tokens(c.text))
    if not claims:
        return []
    out: list[str] = []
    for line, content in gaps_section(report):
        text = normalise(_PARENTHETICAL.sub(" ", strip_citations(content))).strip()
        if not text:
            continue
        words = frozenset(text.split())
        if any(f" {h} " in f" {text} " or jaccard(words, frozenset(h.split())) >= GAP_NAMES_JACCARD for h in answered):
            out.append(line)
        elif (silent := _SILENT.match(text)) and any(
            tokens(what) <= cited for what in silent.group("what").split(" or ") if tokens(what)
        ):
            out.append(line)  # "the documents say nothing about X" while a cited claim states X
    return out


_SILENT = re.compile(r"^the documents say nothing about (?P<what>.+)$")
"""A gaps line naming what the documents are silent on (the report's own wording), normalised."""


# -- parts the asker did not ask ---------------------------------------------------------------

ASKING_WORDS = frozenset(
    "how what which who whom whose when where why whether if is are was were be do does did can could will "
    "would should shall may might must i you it they there this that a an the of to".split()
)
"""The words a question is put in (interrogatives, auxiliaries, pronouns, articles): rephrasing a part
of the question as a question of its own may add them; any other word is a part the asker did not ask."""
_ASKED = re.compile(r"\(asked: ([^)]*)\)")
_NEAR = re.compile(r"[“\"]([^”\"]+)[”\"]")


def report_parts(report: str) -> list[str]:
    """The sub-questions a report names: its findings headings (three words or more) and the parts
    its Gaps lines name ("... (asked: X)" or "X (why it is a gap)")."""
    parts: list[str] = []
    section = ""
    in_fence = False
    for line in report.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        heading = None if in_fence else _HEADING.match(line)
        if heading and line.lstrip().startswith("## "):
            section = heading.group(1).strip().lower()
            continue
        if heading and section == "findings":
            text = heading.group(1)
            quoted = _NEAR.search(text)  # "Passages near “part” (none clearly answers it)"
            if quoted or not text.startswith(NEAR_HEADING):
                parts.append(quoted.group(1) if quoted else text)
            continue
        bullet = _BULLET.match(line)
        if section == "gaps" and bullet and not in_fence:
            asked = _ASKED.search(bullet.group(1))
            parts.append(asked.group(1) if asked else bullet.group(1).split(" (", 1)[0])  # "X? (why: may (nest))"
    return [p.strip() for p in parts if len(normalise(p).split()) >= SUB_QUESTION_WORDS]


def unasked_parts(report: str, question: str) -> list[str]:
    """Sub-questions of a report that hold a word the question does not (beyond the words any question
    is put in): template parts ("Which functions or methods are used to ...") the asker never asked."""
    asked = tokens(question)
    return [p for p in dict.fromkeys(report_parts(report)) if tokens(p) - asked - ASKING_WORDS]


def section_lines(report: str, heading: re.Pattern[str]) -> Iterator[tuple[str, bool]]:
    """Each line under a heading ``heading`` matches, up to the next heading, and whether it is inside a
    code fence (fence markers left out; a "## " line inside a fence is code, not a heading)."""
    inside = in_fence = False
    for line in report.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        found = None if in_fence else _HEADING.match(line)
        if found:
            inside = bool(heading.match(found.group(1)))
            continue
        if inside:
            yield line, in_fence


def gaps_section(report: str) -> Iterator[tuple[str, str]]:
    """Each non-blank line of a report's Gaps section (outside code fences): the line, and its text
    without the bullet."""
    for line, in_fence in section_lines(report, _GAPS_HEADING):
        if not in_fence and line.strip():
            bullet = _BULLET.match(line)
            yield line.strip(), bullet.group(1) if bullet else line


def gap_lines(report: str) -> list[str]:
    """The lines of a report's Gaps section (bullets or sentences), normalised, citations dropped."""
    texts = (normalise(strip_citations(content)).strip() for _, content in gaps_section(report))
    return [text for text in texts if text]


def gaps_name(report: str, part: str) -> bool:
    """Whether a Gaps line names this part of the question: it holds a content word of the part (four letters or
    more, compared on their first five letters so "timers" names "timer"). Lenient on wording, and a gap about
    another part does not count."""
    own = {w[:5] for w in tokens(part) if len(w) >= 4} - {w[:5] for w in PLAIN_WORDS}
    return any(any(word[:5] in own for word in line.split() if len(word) >= 4) for line in gap_lines(report))


def uncovered_named(report: str, uncovered: str) -> bool:
    """Whether a Gaps line names the part of the question the documents do not cover (``gaps_name``): an honest
    report says what the documents lack."""
    return gaps_name(report, uncovered)


def covered_half_gapped(report: str, half: str) -> bool:
    """Whether a Gaps line names a half of the question the documents do answer: a false gap, since an honest
    report names only what the documents lack. Matched by ``gaps_name``, the rule of ``uncovered_named``, so
    the two counts are comparable."""
    return gaps_name(report, half)


def gaps_when_found(report: str, found_gold: bool, has_uncovered: bool) -> bool | None:
    """For a question the documents answer in full (no uncovered part) whose report found a gold phrase: whether
    the report still carries a Gaps section (None for any other question). An honest report names only what the
    documents lack, so a found answer with a Gaps section is a gap to look at (the section may name a real one)."""
    if has_uncovered or not found_gold:
        return None
    return bool(gap_lines(report))


_NO_ANSWER = re.compile(
    r" no (?:evidence|passage|passages|document|documents|source|sources)(?: \w+){0,3}? answers? "
    r"| none (?:of them |of the passages )?(?:clearly )?answers? "
    r"| (?:do|does|did) not (?:clearly )?answer (?:this|the|your) question "
)
"""An Answer saying the documents do not answer the question, on ``normalise``d text: "holds no evidence that
answers", "no passage found clearly answers", "none clearly answers it", "the documents do not answer this
question"."""


def admits_no_answer(report: str) -> bool:
    """Whether a report admits the documents do not answer its question: a Gaps section with at least one line, or
    an Answer section saying no passage (no evidence) answers it. For a question the documents do not answer at all
    (``none``), the honest report; presenting loosely related passages as the answer is what it guards against."""
    if gap_lines(report):
        return True
    answer = " ".join(line for line, in_fence in section_lines(report, _ANSWER_HEADING) if not in_fence)
    return bool(_NO_ANSWER.search(normalise(strip_citations(answer))))


PLAIN_WORDS = frozenset(
    "about also could every from have into just like make need some than that their then "
    "there they this want what when where which with would your".split()
)
"""Words of four letters or more that any part may be put in: they name nothing."""


# -- PDF artefacts in claims -------------------------------------------------------------------

_HYPHEN_SPLIT = re.compile(r"\b[a-z]{2,}(?:-|\ufffe)\s+(?!(?:and|or|nor|to)\b)[a-z]{2,}\b")
"""A word cut at a line end and kept apart; a suspended hyphen ("device- or library-specific") is English."""
_DOT_LEADERS = re.compile(r"(?:\.\s?){4,}\s*\d+")
_CUT_NAME = re.compile(r"\b[A-Za-z0-9]+_ [A-Za-z0-9]|\b(?:https?|ftp):(?:\s+/|/\s+/|//\s)")
_CODE_QUOTE = re.compile(r"\w=[\u2018\u2019\u201c\u201d]|\$[\u2018\u2019\u201c\u201d]\w")
_RUNNING_HEAD = re.compile(r"\b(?:Chapter|Section|Part)\s+\d+[:.]?\s+[A-Z][\w ]{2,40}?\s\d{1,4}\s+[a-z]")
PDF_ARTEFACTS = {
    "hyphen": _HYPHEN_SPLIT,
    "leaders": _DOT_LEADERS,
    "split": _CUT_NAME,
    "quotes": _CODE_QUOTE,
    "header": _RUNNING_HEAD,
}
"""The text artefacts ``bench/pdf_artefacts.py`` counts in passages, as seen in a claim: a line-end
hyphen kept ("fa- cility"), contents dot leaders, an identifier or URL cut at a line end, typographic
quotes in code, a running header glued into a sentence ("Chapter 2: R Basics 5 can invoke")."""


def pdf_artefacts(text: str) -> list[str]:
    """Which PDF artefact kinds a claim shows (empty for clean text)."""
    return [kind for kind, pattern in PDF_ARTEFACTS.items() if pattern.search(text)]
