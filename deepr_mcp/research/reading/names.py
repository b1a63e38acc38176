"""The names a question uses: products, projects, services, people, places.

Users name what they ask about ("Is FastAPI faster?", "my Raspberry Pi Zero", "Oh My Zsh"), and a
name is the one kind of word a paraphrase cannot stand in for: documents that never write it say
nothing about what it names. English marks names in the writing itself, so they are read from the
question's letters, not from a list: a word with a capital letter inside it ("iPhone", "PowerShell",
"PM2"), or a capitalised word that does not open a sentence ("my Flask app"). Capitalised words next
to one of those belong to the same name ("Raspberry Pi Zero").
"""

from __future__ import annotations

import re

__all__ = ["names"]

_WORD = re.compile(r"[A-Za-z0-9][\w'+./\\-]*")
"""A word, a path ("my_Kiln/Log.TXT") kept whole."""
_OPENS = '.?!:;"“(['
"""What ends the text before a word that opens a sentence or a quotation (capitalised without being a name)."""
_PRONOUN = frozenset({"i", "i'm", "i've", "i'd", "i'll"})
"""English's one pronoun written with a capital."""
_PATH = re.compile(r"\w[/\\_]\w")
"""A slash or underscore inside a word: a path or identifier the user typed as an example ("my_kiln/Log.TXT")."""
_DOTTED = re.compile(r"\w\.\w")
"""A dot inside a word: a file name ("glaze.PNG"), or a name that holds one ("Node.js")."""


def _marked(word: str, opens: bool) -> bool:
    """A name by its letters: a capital after the first letter, or a capitalised word not opening a sentence.
    A typed example is no name: a path or identifier, or a dotted word that does not start with a capital."""
    if _PATH.search(word) or (_DOTTED.search(word) and not word[:1].isupper()):
        return False
    return any(c.isupper() for c in word[1:]) or (word[:1].isupper() and not opens)


def names(text: str) -> list[str]:
    """The names in ``text``, in order, each once: runs of name words with nothing but spaces between them."""
    out: list[str] = []
    run: list[str] = []
    end = 0  # where the previous word ended
    for match in _WORD.finditer(text):
        word = match.group(0).rstrip(".'-")
        before = text[: match.start()].rstrip()
        opens = not before or before[-1] in _OPENS
        if text[end : match.start()].strip() or opens or not word:  # punctuation between two words ends a name
            out += [" ".join(run)] if run else []
            run = []
        end = match.end()
        if word and word.lower() not in _PRONOUN and _marked(word, opens):
            run.append(word)
        elif run:  # "I", a plain word, or a sentence's capitalised first word ("Is", "Which") is no name
            out.append(" ".join(run))
            run = []
    out += [" ".join(run)] if run else []
    return list(dict.fromkeys(out))
