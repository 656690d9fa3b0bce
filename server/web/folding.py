"""Templates translated once, when they are compiled, not at every render.

Each language has an environment of its own (:mod:`server.web.render`), so a sentence
without a plural is the same string at every render of that language: its lookup
(``_("Play")``, a ``{% trans %}`` block) is replaced by the catalog's sentence when the
template is compiled. A page then costs what it cost in one language alone. The meaning is
Jinja's newstyle gettext's exactly: the sentence is safe markup, formatted with its
variables (each escaped), ``%%`` read as ``%``. Plurals still look up at render time, since
their form depends on a count.
"""

from __future__ import annotations

from typing import Any

from babel.support import NullTranslations
from jinja2 import Environment, nodes
from jinja2.visitor import NodeTransformer

#: The names a template looks a sentence up by (``_`` is Jinja's alias of ``gettext``).
_LOOKUPS = frozenset({"_", "gettext"})


class _Fold(NodeTransformer):
    def __init__(self, translations: NullTranslations) -> None:
        self.translations = translations

    def visit_Call(self, node: nodes.Call) -> nodes.Node:
        self.generic_visit(node)
        if not (
            isinstance(node.node, nodes.Name)
            and node.node.name in _LOOKUPS
            and len(node.args) == 1
            and isinstance(node.args[0], nodes.Const)
            and isinstance(node.args[0].value, str)
            and node.dyn_args is None
            and node.dyn_kwargs is None
        ):
            return node
        sentence = self.translations.gettext(node.args[0].value)
        if not node.kwargs:
            return nodes.MarkSafeIfAutoescape(nodes.Const(sentence % {}), lineno=node.lineno)
        values = nodes.Dict(
            [nodes.Pair(nodes.Const(keyword.key), keyword.value) for keyword in node.kwargs]
        )
        return nodes.Mod(
            nodes.MarkSafeIfAutoescape(nodes.Const(sentence)), values, lineno=node.lineno
        )


class TranslatedEnvironment(Environment):
    """An environment whose templates say ``translations``' sentences, folded in."""

    def __init__(self, translations: NullTranslations, **options: Any) -> None:
        super().__init__(**options)
        self.folded_translations = translations

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        folded = _Fold(self.folded_translations).visit(tree)
        assert isinstance(folded, nodes.Template)
        return folded
