"""The official prompt templates, read out of the official source's syntax tree (never run).

A recipe (`spec.TemplateRecipe`) names string literals by line in a code file whose SHA-256 was
checked first. `ast` gives each literal's value with its escapes resolved, exactly as Python would
build it; an f-string's interpolations are replaced by the placeholder text the recipe names (a
`{slot}` the adapter fills later, or another literal spliced in, as the official code splices
`date_context` into its system prompt). The result must hash to the benchmark's pin, else the
fetch stops and names the template: a pin is never loosened to fit what came out.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from benchledger.adapters.sources.spec import Literal, TemplateRecipe
from benchledger.errors import BadInput

__all__ = ["string_literals", "derive_template", "derive_templates"]


def _is_string(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


def string_literals(tree: ast.AST) -> dict[int, list[ast.expr]]:
    """Line -> the outermost string literals starting on it, in source order (parts of an f-string
    are not literals of their own)."""
    inner: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            inner.update(id(part) for part in ast.walk(node) if part is not node)
    by_line: dict[int, list[ast.expr]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and _is_string(node) and id(node) not in inner:
            by_line.setdefault(node.lineno, []).append(node)
    for nodes in by_line.values():
        nodes.sort(key=lambda n: n.col_offset)
    return by_line


def _render(node: ast.expr, literal: Literal, literals: Mapping[int, list[ast.expr]], where: str) -> str:
    if isinstance(node, ast.Constant):
        return str(node.value)
    assert isinstance(node, ast.JoinedStr)
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value))
            continue
        assert isinstance(part, ast.FormattedValue)
        expression = ast.unparse(part.value)
        if expression not in literal.slots:
            raise BadInput(f"the official code interpolates {{{expression}}} where the recipe names no slot",
                           file=where, line=node.lineno)
        slot = literal.slots[expression]
        out.append(slot if isinstance(slot, str) else _literal_text(slot, literals, where))
    return "".join(out)


def _literal_text(literal: Literal, literals: Mapping[int, list[ast.expr]], where: str) -> str:
    found = literals.get(literal.line, [])
    if len(found) <= literal.nth:
        raise BadInput(f"no string literal #{literal.nth} starts on this line of the official code",
                       file=where, line=literal.line)
    return _render(found[literal.nth], literal, literals, where)


def _literals_of(source_text: str, where: str) -> dict[int, list[ast.expr]]:
    try:
        tree = ast.parse(source_text, filename=where)
    except SyntaxError as err:
        raise BadInput(f"the official code does not parse: {err.msg}", file=where, line=err.lineno) from None
    return string_literals(tree)


def derive_template(recipe: TemplateRecipe, source_text: str, *, where: str) -> str:
    """The template `recipe` reads out of `source_text` (the pinned code file shown as `where`)."""
    literals = _literals_of(source_text, where)
    return "".join(_literal_text(part, literals, where) for part in recipe.parts)


def derive_templates(recipes: tuple[TemplateRecipe, ...], code_texts: Mapping[str, str],
                     shown: Mapping[str, str]) -> dict[str, str]:
    """Every recipe's template by file name, each code file parsed once (`shown`: code path -> the
    path errors name)."""
    parsed: dict[str, dict[int, list[ast.expr]]] = {}
    out: dict[str, str] = {}
    for recipe in recipes:
        where = shown.get(recipe.code, recipe.code)
        if recipe.code not in parsed:
            parsed[recipe.code] = _literals_of(code_texts[recipe.code], where)
        out[recipe.name] = "".join(_literal_text(part, parsed[recipe.code], where) for part in recipe.parts)
    return out
