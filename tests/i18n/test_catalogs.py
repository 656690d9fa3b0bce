"""The catalogs are complete: what ``scripts/test`` checks, and that the check can fail."""

from __future__ import annotations

from babel.messages.catalog import Catalog

from server.i18n import catalogs


def test_the_catalogs_hold_every_marked_sentence_translated_and_compiled() -> None:
    assert catalogs.main(["--check"]) == 0


def test_a_missing_a_fuzzy_and_an_empty_entry_are_each_a_problem() -> None:
    template = Catalog(locale="pl")
    for text in ("Play", "Today", "Race", "Bots"):
        template.add(text)
    template.add(("%(count)s move", "%(count)s moves"))
    done = Catalog(locale="pl")
    done.add("Play", "Graj")
    done.add("Today", "Dziś", flags=["fuzzy"])
    done.add("Race", "")
    done.add(("%(count)s move", "%(count)s moves"), ("%(count)s ruch", "", "%(count)s ruchów"))
    found = list(catalogs.problems(done, template, "pl"))
    assert found == [
        "pl: 'Today' is fuzzy",
        "pl: 'Race' is untranslated",
        "pl: 'Bots' is missing (run python -m server.i18n.catalogs)",
        "pl: ('%(count)s move', '%(count)s moves') is untranslated",
    ]
