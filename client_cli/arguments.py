"""Command-line values checked as argparse reads them: one checker for every bounded number,
so each option's rule is a line and every refusal reads alike; and players' names, by the
server's own naming rule.

>>> minutes = bounded(float, noun="minutes", rule="give 1 to 60", accept=lambda v: 1 <= v <= 60)
>>> minutes("2.5")
2.5
>>> minutes("ninety")
Traceback (most recent call last):
argparse.ArgumentTypeError: 'ninety' is not minutes
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn, TypeVar

from server.names import NAME_MAX, NAME_MIN, name_fault, normal_name

from .words import N_, _

Number = TypeVar("Number", int, float)


def bounded(
    kind: Callable[[str], Number],
    *,
    noun: str,
    rule: str,
    accept: Callable[[Number], bool],
    values: dict[str, object] | None = None,
) -> Callable[[str], Number]:
    """A checker for argparse's ``type=``: ``kind`` reads the text (refused as not ``noun``),
    and ``accept`` decides whether the value is allowed (refused with ``rule``, formatted
    with ``values``). Both are marked with ``N_`` and said in the language of the run."""

    def parse(text: str) -> Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                _("%(text)r is not %(noun)s") % {"text": text, "noun": _(noun)}
            ) from None
        if not accept(value):
            raise argparse.ArgumentTypeError(_(rule) % (values or {}))
        return value

    return parse


def refuse(args: argparse.Namespace, message: str) -> NoReturn:
    """Refuse a command's options as argparse does (its usage, then one line; status 2), for
    mixes argparse cannot check; the command's parser is ``command_parser`` in its defaults."""
    parser: argparse.ArgumentParser = args.command_parser
    parser.error(message)


def player_name(text: str) -> str:
    """A player's name for argparse's ``type=``, refused here as the server would refuse it
    (surrounding spaces dropped and in NFC, as the server keeps it).

    >>> player_name(" ann ")
    'ann'
    >>> player_name("")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '' is no name: a name is 2 to 24 characters long
    """
    name = normal_name(text)
    fault = name_fault(name)
    if fault is not None:
        raise argparse.ArgumentTypeError(
            _("%(text)r is no name: %(fault)s") % {"text": text, "fault": _fault(fault.text)}
        )
    return name


#: The server's naming rules that read the same whatever the name (others say it in English).
NAME_FAULTS = (
    N_("a combining mark goes on a letter"),
    N_("a name's letters are of one alphabet"),
    N_("a name's digits are of one kind"),
)


def _fault(text: str) -> str:
    if text == f"a name is {NAME_MIN} to {NAME_MAX} characters long":
        return _("a name is %(least)s to %(most)s characters long") % {
            "least": NAME_MIN,
            "most": NAME_MAX,
        }
    return _(text) if text in NAME_FAULTS else text


__all__ = ["bounded", "player_name", "refuse"]
