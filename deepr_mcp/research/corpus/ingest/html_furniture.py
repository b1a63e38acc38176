"""Page furniture in HTML: what a page carries besides its text (navigation, sidebars, link bars).

Each generator has its own: Sphinx's sidebar and "related" bar, MkDocs' tabs, Javadoc's nav, Texinfo's
and LaTeX2HTML's previous/next panels, DocBook's header tables. What they share is kept here as
structure (tags, ARIA roles, a navigation role named as a class, HTML's link types between pages, a
list or table whose words are all links), with the generator classes that say nothing structural.
"""

from __future__ import annotations

from selectolax.lexbor import LexborNode

SKIPPED_TAGS = frozenset(
    "head script style noscript template svg canvas iframe object form button input select textarea nav footer".split()
)
SKIPPED_ROLES = frozenset({"navigation", "search", "banner", "contentinfo", "complementary"})
SKIPPED_IDS = frozenset({"toc", "sidebar", "searchbox"})
SKIPPED_CLASSES = frozenset(
    # Sphinx (classic, python-docs, alabaster, RTD, furo, pydata themes)
    "headerlink sphinxsidebar related footer toctree-wrapper rst-footer-buttons wy-nav-side wy-breadcrumbs "
    "breadcrumbs prev-next-area bd-sidebar bd-toc sidebar-drawer toc-drawer related-pages edit-this-page "
    "version_switcher_placeholder language_switcher_placeholder mobile-nav menu-wrapper inline-search copybutton "
    "linenos lineno linenodiv contentstable "
    # MkDocs (mkdocs, readthedocs and material themes)
    "md-header md-tabs md-sidebar md-footer md-source-file md-content__button md-search md-nav navbar bs-sidebar "
    "wy-nav-top md-dialog md-top toc table-of-contents "
    # Javadoc (old and new layouts)
    "top-nav sub-nav bottom-nav topNav subNav bottomNav fixedNav flex-header skip-nav skipNav legal-copy "
    "inherited-list memberSummary inheritance sub-title "
    # generic; a navigation role named as a class: LaTeX2HTML's panel, DocBook XSL's header and footer tables
    "skip-link sr-only visually-hidden cookie-banner navigation nav navheader navfooter".split()
)
"""Furniture: skipped with everything inside it wherever it appears in the main region."""
KEPT_ASIDES = frozenset({"footnote", "footnote-list", "sidebar", "topic"})


def is_furniture(node: LexborNode, classes: set[str]) -> bool:
    tag, attributes = node.tag, node.attributes
    if tag in SKIPPED_TAGS or classes & SKIPPED_CLASSES:
        return True
    if attributes.get("role") in SKIPPED_ROLES or attributes.get("id") in SKIPPED_IDS:
        return True
    if attributes.get("aria-hidden") == "true":
        return True
    if tag == "aside":
        return not classes & KEPT_ASIDES
    if tag == "header":
        return node.css_first("nav") is not None
    if "summary" in classes and tag in ("section", "div"):  # Javadoc member summaries repeat the details
        return True
    return "contents" in classes and ("topic" in classes or tag == "nav")  # an rst local table of contents


def is_link_list(node: LexborNode) -> bool:
    """A list that is nothing but links: a table of contents or a "see also" menu."""
    text = "".join(node.text().split())
    if not text or len(node.css("li")) < 2:
        return False
    linked = sum(len("".join(a.text().split())) for a in node.css("a"))
    return linked / len(text) >= 0.9


def is_link_table(node: LexborNode) -> bool:
    """A table whose words are all links (``[ << ] | [ Up ] | [ > ] | [Contents]``): navigation between pages,
    as a link list is, however the generator lays it out. A table of links with descriptions beside them
    is content."""
    links = node.css("a")
    if len(links) < 2:
        return False
    words = sum(ch.isalnum() for ch in node.text())
    linked = sum(ch.isalnum() for a in links for ch in a.text())
    return words - linked <= 0.1 * words


PAGE_LINK_TYPES = frozenset("prev previous next up index contents toc first last start top home".split())
"""HTML's link types between the pages of one document (``rel="prev"``, ``rel="up"``...)."""


def is_page_links(node: LexborNode) -> bool:
    """A block whose links lead to the previous, next or enclosing page (``Previous: <a rel="prev">Closure
    Example</a>, Up: <a rel="up">Using libffi</a> [<a rel="index">Index</a>]``, Texinfo's header; its footer
    repeats it with ``rel`` on the index link only): the labels between them are no text of their own, and
    the block repeats on every page."""
    links = node.css("a")
    if len(links) < 2 or not any(PAGE_LINK_TYPES & set((a.attributes.get("rel") or "").lower().split()) for a in links):
        return False
    words = len(node.text().split())
    linked = sum(len(a.text().split()) for a in links)
    return words - linked <= 2 * len(links)  # a label per link ("Next:", "Up:"), no more


def classes_of(node: LexborNode) -> set[str]:
    return set((node.attributes.get("class") or "").split())
