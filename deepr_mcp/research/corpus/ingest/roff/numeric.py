"""troff numeric conditions (``.if \\n(.g``, ``.if (\\n(rF:(\\n(.g==0))``) as nroff from groff evaluates them.

Operators apply left to right, as in troff; registers read 0 except ``.g`` (this is groff); anything
that does not parse is 0, so a condition nobody can evaluate is false.
"""

from __future__ import annotations

import re

_NUMERIC_ESCAPE = re.compile(r"\\(?:n[+-]?(?:\(..|\[[^\]]*\]|.)|w'[^']*'|.)")


def numeric_prefix(rest: str) -> tuple[str, str, str]:
    """A numeric condition runs to the first space outside parentheses (``\\n(.g`` opens none)."""
    depth, at = 0, 0
    while at < len(rest):
        char = rest[at]
        if char == "\\":
            escape = _NUMERIC_ESCAPE.match(rest, at)
            at = escape.end() if escape else at + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char in " \t" and depth <= 0:
            return rest[:at], " ", rest[at + 1 :]
        at += 1
    return rest, "", ""


def evaluate(expression: str) -> float:
    """A troff numeric expression, left to right; registers are 0 except ``.g`` (this is groff), bad input 0."""
    expression = re.sub(r"\\n(?:\[\.g\]|\(\.g)", "1", expression)
    expression = re.sub(r"\\n(?:\[[^\]]*\]|\(..|[+-]?.)|\\w'[^']*'|\\[*\[(].*", "0", expression)
    tokens = re.findall(
        r"\d+(?:\.\d*)?|\.\d+|[<>=!]=|==|<\?|>\?|[-+*/%<>=&:()]", re.sub(r"(?<=\d)[ucimnpPsvfz]", "", expression)
    )
    try:
        value, _ = _expression(tokens, 0)
    except (IndexError, ValueError, ZeroDivisionError, RecursionError):
        return 0
    return value


def _expression(tokens: list[str], at: int) -> tuple[float, int]:
    value, at = _operand(tokens, at)
    while at < len(tokens) and tokens[at] != ")":
        operator = tokens[at]
        right, at = _operand(tokens, at + 1)
        value = _apply(operator, value, right)
    return value, at


def _operand(tokens: list[str], at: int) -> tuple[float, int]:
    token = tokens[at]
    if token == "(":
        value, at = _expression(tokens, at + 1)
        return value, at + 1
    if token in ("-", "+"):
        value, at = _operand(tokens, at + 1)
        return (-value if token == "-" else value), at
    return float(token), at + 1


def _apply(operator: str, left: float, right: float) -> float:
    table = {
        "+": lambda: left + right, "-": lambda: left - right, "*": lambda: left * right,
        "/": lambda: left / right, "%": lambda: left % right, "<": lambda: float(left < right),
        ">": lambda: float(left > right), "<=": lambda: float(left <= right), ">=": lambda: float(left >= right),
        "=": lambda: float(left == right), "==": lambda: float(left == right), "!=": lambda: float(left != right),
        "&": lambda: float(left > 0 and right > 0), ":": lambda: float(left > 0 or right > 0),
        "<?": lambda: min(left, right), ">?": lambda: max(left, right),
    }  # fmt: skip
    if operator not in table:
        raise ValueError(operator)
    return table[operator]()
