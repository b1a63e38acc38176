"""Manual pages (man and mdoc roff) read without groff: located, options whole, escapes gone, code kept.

Every page here is written for the test (an imaginary ``kiln`` tool); none is a copy of a real page.
"""

from __future__ import annotations

import gzip
import re
import threading
from pathlib import Path

import pytest

from deepr_mcp.errors import InvalidInput
from deepr_mcp.research.corpus.ingest import NotContent, chunk, is_supported, sections_of
from deepr_mcp.research.corpus.ingest.roff import is_man_suffix, looks_like_roff
from tests.clients import call, connect

KILN_VENT = r""".\" Written for this test: an imaginary tool.
.TH KILN-VENT 1 "2026-11-27" "kiln 2.0" "User Commands"
.SH NAME
kiln-vent \- open and close the dampers of a kiln
.SH SYNOPSIS
.B kiln-vent
[\fB\-a\fR]
[\fB\-\-delay\fR=\fIseconds\fR]
.IR damper ...
.SH DESCRIPTION
.B kiln-vent
opens the named dampers.
Run \fBkiln\fR \fB\-a\fR first; see
.BR kiln (1),
.BR kiln.conf (5)
and the \(lqfiring\(rq notes\(emall of them.
Quote names with \(aqsingle quotes\(aq and \*(lqdouble\*(rq ones; a path is C:\eKILN\e\&.
.PP
Items:
.IP \(bu 2
the first bullet
.IP \(bu 2
the second bullet
.SH OPTIONS
.TP
.BR \-a ", " \-\-all
vent every damper at once,
even the flue.
.TP
\fB\-\-delay\fR=\fIseconds\fR
wait this long before opening.
.SS Exit status
Zero when every damper moved; see
.UR https://kiln.invalid/status
the status list
.UE .
.SH EXAMPLES
.EX
kiln-vent \-a
kiln-vent \-\-delay=30 flue   # a comment, not a heading
.EE
.PP
Or the older way:
.nf
.ft CW
    kiln-vent flue
    kiln-vent    stack
.fi
"""


def sections(tmp_path: Path, name: str, text: str | bytes) -> dict[str, str]:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return {c.location: c.text for c in chunk(sections_of(path, path.read_bytes()))}


def test_headings_locate_passages_under_the_page_title(tmp_path: Path) -> None:
    found = sections(tmp_path, "kiln-vent.1", KILN_VENT)
    assert list(found) == [
        "kiln-vent(1) > NAME",
        "kiln-vent(1) > SYNOPSIS",
        "kiln-vent(1) > DESCRIPTION",
        "kiln-vent(1) > OPTIONS",
        "kiln-vent(1) > OPTIONS > Exit status",
        "kiln-vent(1) > EXAMPLES",
    ]
    assert found["kiln-vent(1) > NAME"] == "kiln-vent - open and close the dampers of a kiln"
    assert found["kiln-vent(1) > SYNOPSIS"] == "kiln-vent [-a] [--delay=seconds] damper..."


def test_an_option_and_its_meaning_read_as_one_paragraph(tmp_path: Path) -> None:
    options = sections(tmp_path, "kiln-vent.1", KILN_VENT)["kiln-vent(1) > OPTIONS"]
    assert options.split("\n\n") == [
        "-a, --all: vent every damper at once, even the flue.",
        "--delay=seconds: wait this long before opening.",
    ]


def test_fonts_and_escapes_leave_plain_words_spaced_as_printed(tmp_path: Path) -> None:
    found = sections(tmp_path, "kiln-vent.1", KILN_VENT)
    description = found["kiln-vent(1) > DESCRIPTION"]
    assert description.startswith(
        "kiln-vent opens the named dampers. Run kiln -a first; see kiln(1), kiln.conf(5) and the “firing” notes—"
        "all of them. Quote names with 'single quotes' and “double” ones; a path is C:\\KILN\\."
    )
    assert "- the first bullet\n- the second bullet" in description
    assert "Zero when every damper moved; see the status list." == found["kiln-vent(1) > OPTIONS > Exit status"]
    text = "\n".join(found.values())
    assert not re.search(r"\\[fBIRP(*&e\-]|^\.[A-Za-z]", text, re.M), text


def test_no_fill_and_example_blocks_stay_code(tmp_path: Path) -> None:
    examples = sections(tmp_path, "kiln-vent.1", KILN_VENT)["kiln-vent(1) > EXAMPLES"]
    assert examples == (
        "```\nkiln-vent -a\nkiln-vent --delay=30 flue   # a comment, not a heading\n```\n\n"
        "Or the older way:\n\n```\nkiln-vent flue\nkiln-vent    stack\n```"
    )


def test_a_page_that_only_points_to_another_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "kiln-damper.1"
    path.write_text('.\\" an alias page\n.so man1/kiln-vent.1\n')
    with pytest.raises(NotContent, match=r"pointer to another manual page \(\.so man1/kiln-vent\.1\)"):
        sections_of(path, path.read_bytes())


MDOC = r""".\" Written for this test.
.Dd November 27, 2026
.Dt KILN-FIRE 8
.Os
.Sh NAME
.Nm kiln-fire ,
.Nm kiln-cool
.Nd fire or cool a kiln
.Sh SYNOPSIS
.Nm
.Op Fl nv
.Op Fl t Ar minutes
.Op Fl Fl dry-run
.Ar program
.Sh DESCRIPTION
The
.Nm
utility heats the kiln following
.Ar program ;
see
.Xr kiln-vent 1 .
.Bl -tag -width Ds
.It Fl t Ar minutes
Hold the peak for
.Ar minutes
.Pq default 10 .
.It Fl n
Do nothing,
.Dq dry run .
.El
.Ss Programs
.Bl -bullet -compact
.It
bisque
.It
glaze
.El
.Bd -literal -offset indent
kiln-fire -t 20 glaze
.Ed
.Bl -column "Cone" "Degrees"
.It Sy Cone Ta Sy Degrees
.It 06 Ta 999
.El
.Sh EXIT STATUS
.Ex -std
"""


def test_an_mdoc_page_has_headings_flags_and_no_macro_names(tmp_path: Path) -> None:
    found = sections(tmp_path, "kiln-fire.8", MDOC)
    assert list(found) == [
        "kiln-fire(8) > NAME",
        "kiln-fire(8) > SYNOPSIS",
        "kiln-fire(8) > DESCRIPTION",
        "kiln-fire(8) > DESCRIPTION > Programs",
        "kiln-fire(8) > EXIT STATUS",
    ]
    assert found["kiln-fire(8) > NAME"] == "kiln-fire, kiln-cool - fire or cool a kiln"
    assert found["kiln-fire(8) > SYNOPSIS"] == "kiln-fire [-nv] [-t minutes] [--dry-run] program"
    description = found["kiln-fire(8) > DESCRIPTION"]
    assert description.split("\n\n") == [
        "The kiln-fire utility heats the kiln following program; see kiln-vent(1).",
        "-t minutes: Hold the peak for minutes (default 10).",
        "-n: Do nothing, “dry run”.",
    ]
    programs = found["kiln-fire(8) > DESCRIPTION > Programs"]
    assert programs == "- bisque\n- glaze\n\n```\nkiln-fire -t 20 glaze\n```\n\nCone | Degrees\n06 | 999"
    assert "The kiln-fire utility exits 0 on success" in found["kiln-fire(8) > EXIT STATUS"]
    assert not re.search(r"\b(?:Fl|Ar|Nm|Op|Xr|Sh|It|Bl|El|Pq|Dq)\b", "\n".join(found.values()))


def test_page_definitions_are_applied_and_tables_read_as_rows(tmp_path: Path) -> None:
    page = r""".de Cs
.nf
.in +4
..
.de Ce
.in -4
.fi
..
.ie n .ds Q ""
.el   .ds Q ``
.if t .ds Q never
.TH KILN 1
.SH DESCRIPTION
Say \*Qhello\*Q.
.Cs
kiln status
.Ce
.TS
tab(:);
l l.
Setting:Meaning
_
cone:T{
the target
cone number
T}
.TE
"""
    found = sections(tmp_path, "kiln.1", page)
    assert found["KILN(1) > DESCRIPTION"] == (
        'Say "hello".\n\n```\nkiln status\n```\n\nSetting | Meaning\ncone | the target cone number'
    )


def test_which_files_are_manual_pages(tmp_path: Path) -> None:
    for suffix in (".1", ".8", ".1p", ".3pm", ".1ssl", ".man", ".3tcl", ".3readline"):
        assert is_man_suffix(suffix) and is_supported(Path(f"page{suffix}")), suffix
    for suffix in (".0", ".x1", ".md", ".1-2", ".txt", ""):
        assert not is_man_suffix(suffix), suffix
    assert looks_like_roff('.\\" comment\n\n.TH X 1\n') and looks_like_roff("'\\\" t\n.TH X 1\n")
    assert looks_like_roff(".Dd May 1, 2026\n") and looks_like_roff(".so man1/x.1\n")
    assert not looks_like_roff("Version 1.2.3, released in May.\n") and not looks_like_roff("...and so on\n")


def test_a_page_may_name_its_encoding_as_preconv_reads_it(tmp_path: Path) -> None:
    page = '.\\" -*- coding: latin-1 -*-\n.TH KILN 1\n.SH NAME\nkiln \\- fire a kiln, caf\xe9 style\n'.encode("latin-1")
    assert sections(tmp_path, "kiln.1", page) == {"kiln(1) > NAME": "kiln - fire a kiln, café style"}


def test_a_plain_text_file_named_like_a_page_is_read_as_text(tmp_path: Path) -> None:
    found = sections(tmp_path, "version.1", "kiln 2.0.1 \\fBreleased\\fR in November, with three fixes.\n")
    assert found == {"": "kiln 2.0.1 \\fBreleased\\fR in November, with three fixes."}
    formatted = sections(tmp_path, "kiln.1", "N\bNA\bAM\bME\bE\n     kiln - fire a kiln, with _\bc_\bo_\bn_\be\n")
    assert formatted == {"": "NAME kiln - fire a kiln, with cone"}  # nroff's bold and underline undone
    binary = tmp_path / "libkiln.so.1"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 4)
    with pytest.raises(NotContent, match="binary"):
        sections_of(binary, binary.read_bytes())


HOSTILE = {
    "unterminated-nf.1": ".TH K 1\n.SH A\n.nf\n" + "kiln line\n" * 2000,
    "escape-at-end.1": ".TH K 1\n.SH A\nkiln words at the end \\",
    "escapes-cut.1": ".TH K 1\n.SH A\nkiln words here \\f( \\*( \\[ \\s \\h'1 \\(",
    "enormous-line.1": ".TH K 1\n.SH A\n" + "kiln " * 400_000 + "\n",
    "escape-runs.1": ".TH K 1\n.SH A\n" + "\\\\" * 200_000 + " kiln words here\n",
    "nested-rs.1": ".TH K 1\n.SH A\n" + ".RS\nkiln nested words\n" * 5000,
    "recursive-macro.1": ".de a\n.a\n.a\n..\n.TH K 1\n.SH A\nkiln words here\n.a\n",
    "doubling-string.1": ".ds x xx\n" + ".as x \\*x\n" * 60 + ".TH K 1\n.SH A\nkiln words here \\*x\n",
    "self-string.1": ".ds x \\\\*x\n.TH K 1\n.SH A\nkiln \\*x words here\n",
    "open-brace.1": ".TH K 1\n.if n \\{\\\n.SH A\nkiln words inside a block\n",
    "deep-brace.1": ".TH K 1\n" + ".if n \\{\\\n" * 3000 + "kiln words deep down\n",
    "deep-parens.1": ".TH K 1\n.if " + "(" * 5000 + "1 .SH A\nkiln words after it\n",
    "unclosed-table.1": ".TH K 1\n.SH A\n.TS\nl l.\nkiln words\there too\n",
    "unclosed-def.1": ".TH K 1\n.SH A\nkiln words before it\n.de x\n" + "never ends\n" * 100,
    "glued-lines.1": ".TH K 1\n.SH A\nkiln words here\n" + "kiln\\c\n" * 100_000,
    "many-tags.1": ".TH K 1\n.SH A\n.TP\nfirst\n" + ".TQ\nkiln\n" * 50_000 + "words here\n",
    "long-column.1": ".Dd x\n.Dt K 1\n.Sh A\n.Bl -column a b\n.It a Ta b\n" + "kiln words\n" * 100_000,
    "open-head.1": ".Dd x\n.Dt K 1\n.Sh A\n.Bl -tag\n.It Fl a Xo\n" + "kiln words\n" * 1_000,
    "mdoc-nesting.1": ".Dd x\n.Dt K 1\n.Sh A\n.Op " + "Op " * 5000 + "Fl x\nkiln words here\n.It Fl y\n.El\n.El\n",
}


def test_hostile_pages_give_text_or_a_clear_error_in_bounded_time(tmp_path: Path) -> None:
    """Each page is read or refused, and the whole set finishes (the join is a hang guard): no quadratic
    joins on pages of glued lines, tags or one endless table cell, no unbounded macro or string growth."""
    for name, text in HOSTILE.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "junk.1").write_bytes(b".TH K 1\n" + bytes(range(128, 256)) * 40)
    outcome: dict[str, object] = {}

    def read_all() -> None:
        for path in sorted(tmp_path.iterdir()):
            try:
                outcome[path.name] = chunk(sections_of(path, path.read_bytes()))
            except InvalidInput as refused:
                outcome[path.name] = refused.message

    worker = threading.Thread(target=read_all, daemon=True)
    worker.start()
    worker.join(timeout=300)  # a hang guard, not a timing
    assert not worker.is_alive(), "reading hostile pages did not finish"
    assert set(outcome) == {*HOSTILE, "junk.1"}
    assert "junk.1: not UTF-8 text" in str(outcome["junk.1"])
    for name in HOSTILE:
        passages = outcome[name]
        assert isinstance(passages, list) and any("kiln" in p.text for p in passages), (name, passages)
    unterminated = outcome["unterminated-nf.1"]
    assert isinstance(unterminated, list) and unterminated[0].text.startswith("```\nkiln line\nkiln line")


async def test_corpus_add_makes_a_manual_page_searchable_by_its_words(empty_data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "man"
    (folder / "man1").mkdir(parents=True)
    (folder / "man1" / "kiln-vent.1").write_text(KILN_VENT)
    (folder / "man1" / "kiln-damper.1").write_text(".so man1/kiln-vent.1\n")
    (folder / "man8").mkdir()
    (folder / "man8" / "kiln-fire.8.gz").write_bytes(gzip.compress(MDOC.encode()))  # as Debian ships pages
    async with connect("inproc", "legacy", empty_data_dir) as client:
        added = await call(client, "corpus_add", {"path": str(folder)})
        assert added["added"] == 2 and added["failed"] == []
        assert [s["path"] for s in added["skipped"]] == ["man1/kiln-damper.1"]
        hits = (await call(client, "corpus_search", {"query": "vent every damper flue"}))["hits"]
        assert hits[0]["source"] == "man1/kiln-vent.1"
        assert hits[0]["location"] == "kiln-vent(1) > OPTIONS"
        assert "-a, --all: vent every damper at once, even the flue." in hits[0]["text"]
        hits = (await call(client, "corpus_search", {"query": "hold the peak minutes"}))["hits"]
        assert hits[0]["source"] == "man8/kiln-fire.8.gz" and hits[0]["location"] == "kiln-fire(8) > DESCRIPTION"


def test_groff_extension_macros_read_as_printed(tmp_path: Path) -> None:
    page = r""".TH KILN-VENT 1
.SH SYNOPSIS
.SY kiln-vent
.OP \-a
.OP \-\-delay seconds
.I damper
.YS
.SH OPTIONS
.TP
.B \-q
.TQ
.B \-\-quiet
say nothing while venting; see
.MR kiln 1 ,
.MT kiln@example.invalid
.ME .
"""
    found = sections(tmp_path, "kiln-vent.1", page)
    assert found["kiln-vent(1) > SYNOPSIS"] == "kiln-vent [-a] [--delay seconds] damper"
    options = found["kiln-vent(1) > OPTIONS"]
    assert options == "-q, --quiet: say nothing while venting; see kiln(1), kiln@example.invalid."


def test_a_term_before_an_indented_block_is_that_blocks_tag(tmp_path: Path) -> None:
    """DocBook and Asciidoctor write option lists as a paragraph, then the meaning indented by .RS."""
    page = r""".TH KILN 1
.SH OPTIONS
.PP
\fB\-\-follow\fR, \fB\-f\fR
.RS 4
Keep reading the thermocouple.
.RE
.PP
This sentence ends, so it is no term.
.RS 4
Indented, but its own paragraph.
.RE
.PP
For example:
.RS 4
.nf
kiln \-\-follow
.fi
.RE
"""
    assert sections(tmp_path, "kiln.1", page)["KILN(1) > OPTIONS"].split("\n\n") == [
        "--follow, -f: Keep reading the thermocouple.",
        "This sentence ends, so it is no term.",
        "Indented, but its own paragraph.",
        "For example:",
        "```\nkiln --follow\n```",
    ]
