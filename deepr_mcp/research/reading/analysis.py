"""What a research question asks: its type, the things it names, and the sub-questions that follow.

A report answers the question a reader asked, so the plan starts from an analysis of it rather
than from fixed facets: "How do I safely cool a kiln without cracking the shelves?" is a
how-to with a safety concern ("cracking the shelves") about an action ("cool a kiln"), and
its sub-questions ask how to do that, what the documentation warns about, and how to protect
against the concern. Every sub-question is a grammatical question built from those parts.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from deepr_mcp.research.reading.coordination import AUXILIARY, parallel_sides
from deepr_mcp.research.reading.figures import without_asking
from deepr_mcp.research.reading.terms import terms
from deepr_mcp.text.tokenizer import STOP_WORDS

QuestionType = Literal["how_to", "comparison", "why", "definition", "version", "general"]
"""``version`` is no longer read from a question (only one corpus's manuals answered it); saved states load."""

_CODE = re.compile(
    r"`([^`]+)`"  # anything in backticks
    r"|\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?)"  # dotted names: functools.lru_cache, os.path.join()
    r"|\b([A-Za-z_]\w*\(\))"  # calls: extractall()
    r"|\b([a-z]+_[a-z0-9_]+)\b"  # snake_case identifiers: lru_cache
    r"|\b((?:__\w+__))"  # dunder names
)
_SAFETY = re.compile(
    r"\b(safe(?:ly)?|secure(?:ly)?|security|insecure|risks?|risky|dangers?|dangerous|pitfalls?|untrusted|avoid|"
    r"careful|beware|watch out)\b",
    re.I,
)
"""English for a question about risk: warnings must be surfaced (no topic's own names for its dangers)."""
_LATER_CLAUSE = r",\s*(?:and|or|but)\s+" + AUXILIARY + r"\b[^.?!]*\?"
"""A clause asking whether, after the first one: "Can I run my bash scripts with zsh, or will something break?"."""
_ANOTHER_WHETHER = re.compile(_LATER_CLAUSE, re.I)
_YES_NO = re.compile(
    r"(?:^|[.?!]\s+)(?:(?:if|when|before|after|once|while)\b[^.?!,]*,\s*)?(?:(?:and|or|but|so)\s+)?"
    + AUXILIARY
    + r"\b[^.?!]*\?|"
    + _LATER_CLAUSE,
    re.I,
)
"""English for a question whether something holds: a yes/no question (an auxiliary or modal verb opens it, or its
clause after "if ...,": "If I open the lid at 600 degrees, will the pots crack?"; or a later clause does). Its
answer is the documents' "yes" or "no", often with a caveat ("yes, but ..."): warnings are surfaced for it."""
_TROUBLE = re.compile(
    r"\bwhat happens\b|\bgo(?:ing)? wrong\b|\bdoing wrong\b|\bwhat(?:'s| is) going on\b|\bany (?:catch|harm)\b", re.I
)
"""English for asking what goes wrong ("what happens if", "any catch", "what's going on"): a question about risk
without a word for it, so warnings lead its answer as for one that names its risk."""


def asks_whether(question: str, compares: bool = False) -> bool:
    """Whether the question asks if something holds (``_YES_NO``). An alternative question
    ("Should I use a chain whip or a lockring tool?", read as a comparison) asks which of two things, not
    whether: only a clause of its own that asks whether makes it one."""
    return bool((_ANOTHER_WHETHER if compares else _YES_NO).search(question))


_HOW_TO = re.compile(
    r"^(?:how \w+ (?:i|you|we|one)|how to|what(?:'s| is) the \w+ way to|is there a way to|can i|"
    r"is it (?:a good idea|\w+) to)\s+(?P<action>.+)$",
    re.I,
)
"""English asks how to do a thing in these shapes ("how can I ...", "what is the best way to ...",
"is it safe to ..."), whatever the verb or adjective."""
_COMPARE = [
    re.compile(r"^(?:what (?:is|are) )?(?:the )?differences? between (?P<a>.+?) and (?P<b>.+)$", re.I),
    re.compile(r"^how (?:does|do) (?P<a>.+?) (?:differ from|compare (?:to|with)) (?P<b>.+)$", re.I),
    _CHOICE := re.compile(r"^(?:should|do|would|can) (?:i|you|we) (?P<verb>\w+) (?P<a>.+?) or (?P<b>.+)$", re.I),
    re.compile(r"^(?:when|why) \w+ (?:i|you|we) \w+ (?P<a>.+?) (?:over|instead of|rather than) (?P<b>.+)$", re.I),
    re.compile(r"^(?P<a>.+?) (?:vs\.?|versus) (?P<b>.+)$", re.I),
]
_COMPARED = re.compile(r"^(?P<stem>.+?),? compared (?:with|to) (?P<b>.+)$", re.I)
"""A clause compared with a thing: "How efficient are heat pumps in cold climates compared with gas boilers"."""
_WHY = re.compile(r"^why \S+ (?P<rest>.+)$", re.I)
_DEFINITION = re.compile(
    r"^what (?:is|are) (?P<term>.+?)(?:\s+(?:(?:\w+ed|good|meant)\s+)?for)?$|^what does (?P<term2>.+?) (?:do|mean)$",
    re.I,
)
""""What is X?", "what does X do?", and the purpose "what is X (used|good|meant) for?": the term is X, without
the trailing "for" and its participle or adjective, so a later part's "it" reads as X."""
_CONCERN = re.compile(
    r"\s+(?:against|without|so that|to avoid|to prevent|avoiding|preventing)\s+(?P<concern>.+)$", re.I
)
_SAFETY_ADVERBS = re.compile(r"\b(?:safely|securely|correctly|properly)\b\s*", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


class QuestionAnalysis(BaseModel):
    """What the planner, retrieval and synthesis know about the question, kept in the state."""

    question: str
    type: QuestionType = "general"
    safety: bool = False
    """The question names a risk (how to do something safely, what can go wrong): warnings lead its answer."""
    whether: bool = False
    """A yes/no question ("Can the controller remember my schedules?"): warnings are surfaced, as its answer may be
    "yes, but", and lead only when they answer it best; the line that says whether leads otherwise."""
    action: str = ""
    """For how-to questions, what the reader wants to do ("cool a kiln")."""
    concern: str = ""
    """What the reader wants to avoid ("path traversal")."""
    entities: list[str] = Field(default_factory=list)
    """What the question names: code names, the compared sides, the defined term."""
    topic: str = ""
    clauses: list[str] = Field(default_factory=list)
    """The separate questions of a compound question, each a sub-question of its own."""
    stem: str = ""
    """For a comparison of the form "<clause> compared with <thing>": the clause, asked of one side."""


def _clean(text: str) -> str:
    return " ".join(text.strip().rstrip("?.! ").split())


def _strip_article(text: str) -> str:
    return _ARTICLE.sub("", text.strip())


def _general_topic(text: str) -> str:
    """The words a general question is about, without its question words or safety words."""
    words = _SAFETY.sub("", text).split()
    while words and words[0].lower().strip(",") in STOP_WORDS:  # the question words: "how do I", "what is the"
        words.pop(0)
    return " ".join(words).strip(" ,") or text


def is_safety_sub_question(sub_question: str, analysis: QuestionAnalysis) -> bool:
    """Whether warnings should be surfaced for this sub-question: every part of a question about risk or of a yes/no
    question (``warns``)."""
    return warns(analysis)


def warns(analysis: QuestionAnalysis) -> bool:
    """Whether the question's warnings are surfaced: it names a risk, or asks whether (its answer may be "yes,
    but ...")."""
    return analysis.safety or analysis.whether


def code_names(text: str) -> list[str]:
    """Identifiers the question names, in order, without duplicates."""
    found: list[str] = []
    for match in _CODE.finditer(text):
        name = next(g for g in match.groups() if g)
        name = name.strip().removesuffix("()")
        if name and name not in found:
            found.append(name)
    return found


_QUESTION_START = r"(?:how|what|why|when|where|which|is|are|does|do|can|should)\b"
"""The words an English question (or a question joined to another) opens with."""
_CLAUSES = re.compile(r"(?:[,;]\s*|\s+)(?:and|but|also)\s+(?=" + _QUESTION_START + ")", re.I)
_ASKS = re.compile(_QUESTION_START, re.I)
_ASKING = re.compile(
    r"\b(?:how|what|why|when|where|which|who|whom|whose)\b"
    r"|(?:^|[,;:]\s*)(?:is|are|was|were|does|do|did|can|could|should|would|will|may|might|has|have)\b",
    re.I,
)
"""What makes a sentence ask: a question word, or a verb that opens it (or a clause after a comma: "If I log out,
is my login gone")."""


def clauses(question: str) -> list[str]:
    """A compound question's separate questions: "Why did X fail, and how is Y done?" -> two.

    A split is kept only where the text before it asks something: "I glazed some mugs, but when I fired them the
    glaze ran. Why?" is one question whose first clause says what happened, not a part to answer."""
    text = " ".join(question.split()).rstrip("?.! ")
    parts: list[str] = []
    start = 0
    for match in _CLAUSES.finditer(text):
        before = text[start : match.start()]
        if _ASKING.search(re.split(r"(?<=[.!?])\s+", before)[-1]):
            parts.append(before)
            start = match.end()
    parts = [p.strip(" ,;").rstrip("?.! ") for p in (*parts, text[start:])]  # "... tag? And ..." ends in one "?"
    parts = [p for p in parts if len(p.split()) >= 2]
    return [(p if i == 0 else p[0].upper() + p[1:]) + "?" for i, p in enumerate(parts)]


def analyse(question: str) -> QuestionAnalysis:
    """Classify the question (by its first clause) and pull out its parts; falls back to ``general``."""
    parts = clauses(question) or [question]
    text = _clean(parts[0]).rstrip("?")
    safety = bool(_SAFETY.search(question) or _TROUBLE.search(question))
    codes = code_names(question)
    analysis = QuestionAnalysis(
        question=" ".join(question.split()),
        safety=safety,
        whether=asks_whether(question),
        topic=_general_topic(text),
        clauses=parts,
    )

    for pattern in _COMPARE:
        if match := pattern.match(text):
            a, b = _side(match.group("a")), _side(match.group("b"))
            if pattern is _CHOICE:
                if (sides := parallel_sides(a, b, match.group("verb"))) is None:
                    continue  # "use the module to make tokens or passwords": the "or" offers no choice of things
                a, b = sides
            if a and b and _strip_article(a).lower() != _strip_article(b).lower():
                analysis.type = "comparison"
                analysis.entities = [a, b, *[c for c in codes if c not in (a, b)]]
                analysis.topic = f"{a} and {b}"
                analysis.whether = asks_whether(question, compares=True)
                return analysis
    if match := _COMPARED.match(text):
        stem, b = match.group("stem").strip(" ,"), _side(match.group("b"))
        subject = _SUBJECT.match(stem)
        a = subject.group("subject") if subject else stem
        if b and _strip_article(a).lower() != _strip_article(b).lower():
            analysis.type = "comparison"
            analysis.stem = stem if subject else ""
            analysis.entities = [a, b, *[c for c in codes if c not in (a, b)]]
            analysis.topic = f"{a} and {b}"
            analysis.whether = asks_whether(question, compares=True)
            return analysis
    if match := _HOW_TO.match(text):
        action = _SAFETY_ADVERBS.sub("", match.group("action")).strip()
        if concern := _CONCERN.search(action):
            analysis.concern = concern.group("concern").strip()
            action = action[: concern.start()].strip()
        analysis.type = "how_to"
        analysis.action = action
        analysis.topic = action
        analysis.entities = codes
        return analysis
    if match := _WHY.match(text):
        analysis.type = "why"
        rest = match.group("rest").split()
        subject = " ".join(rest[:-1]) if len(rest) > 2 else " ".join(rest)
        analysis.topic = codes[0] if codes else subject
        analysis.entities = codes
        return analysis
    if match := _DEFINITION.match(text):
        term = (match.group("term") or match.group("term2")).strip()
        analysis.type = "definition"
        analysis.topic = term
        analysis.entities = [term, *[c for c in codes if c != term]]
        return analysis
    analysis.entities = codes
    return analysis


def _side(text: str) -> str:
    """One compared thing: up to the end of its sentence ("... with gas or with wood? Which is cheaper?"
    compares wood, not the next question), without "using" or a trailing condition."""
    text = re.split(r"(?<=[?!.])\s+(?=[A-Z])", text.strip(), maxsplit=1)[0].rstrip("?!")
    side = re.sub(r"^(?:using|use|the use of)\s+", "", text.strip(), flags=re.I)
    side = re.sub(r"\s+(?:for .+|when .+|if .+)$", "", side, flags=re.I)
    return side.strip(" ,")


def _is_code(name: str) -> bool:
    return bool(re.search(r"[._()]", name)) and " " not in name


def _what_is(thing: str) -> str:
    if _is_code(thing):
        return f"What does {thing} do?"
    single = re.match(r"(?:a|an|one)\s", thing, re.I)  # "an alias" is one thing whatever its last letter
    plural = not single and thing.endswith("s") and not thing.endswith(("ss", "us", "is"))
    return f"What {'are' if plural else 'is'} {thing}?"


_SUBJECT = re.compile(
    r"^(?P<lead>(?:how|what|why|when|where|which|who)(?:\s+\w+)?\s+(?:is|are|was|were|do|does|did|can|could|will|would)"
    r"|is|are|do|does|can)\s+(?P<subject>.+?)(?P<rest>\s+(?:in|on|at|for|with|during|under|over|of|to|from|by|when|if)\b.*)?$",
    re.I,
)
"""English word order: a question word (and an adjective), the verb, then the subject up to a preposition:
"How efficient are [heat pumps] in cold climates"."""


def _sides(analysis: QuestionAnalysis, stem: str) -> list[str]:
    """The two sides of a comparison as sub-questions, one per thing compared.

    A side named as a thing ("the difference between A and B") asks what it is; a side that is a
    whole clause ("How efficient are heat pumps in cold climates" compared with "gas boilers") asks
    that clause once about each thing, with the other thing put in the subject's place; a clause
    whose subject cannot be found gives no side parts.
    """
    a, b = analysis.entities[:2]
    if stem and (match := _SUBJECT.match(stem)):
        other = f"{match.group('lead')} {b}{match.group('rest') or ''}"
        return [stem + "?", other[0].upper() + other[1:] + "?"]
    if _ASKS.match(a) or _ASKS.match(b):  # a side that is itself a question ("Which file should X go in, versus
        return []  # Y?") is no thing to ask "what is" of: the question stays whole, its pool still searches each side
    return [_what_is(a), _what_is(b)]


def sub_questions(analysis: QuestionAnalysis, limit: int) -> list[str]:
    """The parts the question has, in its order: each joined question, and each side of a comparison.

    A question with one part is one sub-question: nothing is added that the asker did not ask
    (no "which functions", "which options", "what example"), so nothing unasked can become a gap.
    """
    parts = analysis.clauses if len(analysis.clauses) > 1 else [analysis.question]
    out: list[tuple[str, int]] = []  # each part, and the clause whose comparison it is a side of (-1: none)
    for i, part in enumerate(parts):
        part = part if part.endswith("?") else part.rstrip(".!") + "?"
        part = _resolve(part, analysis) if i else part  # "it" in a later part named
        out.append((part, -1))
        read = analysis if i == 0 else analyse(part)
        if read.type == "comparison" and len(read.entities) >= 2:
            out += [(side, i) for side in _sides(read, read.stem)]
    return _distinct(out)[:limit]


_PRONOUN = re.compile(r"\b(?:it|they|them|this|that)\b(?!\s+(?:is|are|was|were)\b\s+\w+ing)", re.I)


_RELATIVE = re.compile(r"\b(?:the|a|an|those|these)\s+[\w.-]+\s+$", re.I)
"""The words before a relative "that" ("the files that match"): a noun with its article, not a verb or a preposition."""


def _resolve(clause: str, analysis: QuestionAnalysis) -> str:
    """A later clause's "it" stands for what the question is about: "what does it do?" alone
    retrieves nothing, "what does the cone pack do?" does. "They" after a comparison stands for both things
    compared; "that" after a noun ("the files that match") is no pronoun."""
    if not analysis.entities or code_names(clause):
        return clause
    for match in _PRONOUN.finditer(clause):
        if match.group().lower() == "that" and _RELATIVE.search(clause[: match.start()]):
            continue
        plural = match.group().lower() in ("they", "them") and len(analysis.entities) >= 2
        named = " and ".join(analysis.entities[:2]) if plural else analysis.entities[0]
        return clause[: match.start()] + named + clause[match.end() :]
    return clause


_REFERS_BACK = re.compile(r"\b(?:it|its|they|them|their|this|that|these|those)\b", re.I)


def context_of(sub_question: str, analysis: QuestionAnalysis) -> str:
    """The clause before a later part that refers back to it, else "".

    "Can I turn it down?" means nothing alone; after "Why does the kiln fan roar during a firing?" it asks
    about the fan's speed. Which clause a part came from is the one sharing
    most of its words (the first, on a tie)."""
    clauses = analysis.clauses
    if len(clauses) < 2 or not _REFERS_BACK.search(sub_question):
        return ""
    words = terms(sub_question)
    shared = [len(words & terms(clause)) for clause in clauses]
    i = max(range(len(clauses)), key=lambda j: (shared[j], -j))
    return clauses[i - 1] if i else ""


def _distinct(questions: list[tuple[str, int]]) -> list[str]:
    """Drop a sub-question whose words are nearly all in an earlier one (it would retrieve the same).

    Two sides of one comparison are never each other's copy: "sorted(x)" and "x.sort()" stem to the same
    words, and dropping one would leave the comparison with one side."""
    kept: list[tuple[str, int, set[str]]] = []
    for q, compared in questions:
        words = terms(q)
        earlier = [seen for _, other, seen in kept if compared < 0 or other != compared]
        if words and any(len(words & seen) >= 0.8 * len(words | seen) for seen in earlier):
            continue
        kept.append((q, compared, words))
    return [q for q, _, _ in kept]


def asked_of(sub_question: str, analysis: QuestionAnalysis) -> str:
    """What a sub-question asks about, for judging its evidence: a how-to's task and what it must avoid
    ("glazing a pot", not "what are the risks of ..."), else its own words without those asking what goes wrong
    or for a figure ("will anything go wrong?", "how long does it take?" are the question's frame: no document
    need write "wrong" or "long" to answer it)."""
    own = " ".join(sub_question.lower().rstrip("?").split()) == " ".join(analysis.question.lower().rstrip("?").split())
    if own and analysis.type == "how_to" and analysis.action:
        return f"{analysis.action} {analysis.concern}".strip()
    return without_asking(" ".join(_TROUBLE.sub(" ", sub_question).split())) or sub_question


def sides_of(sub_question: str) -> list[str]:
    """The things a comparison sub-question compares (each must be spoken of), else none."""
    read = analyse(sub_question)
    return read.entities[:2] if read.type == "comparison" else []
