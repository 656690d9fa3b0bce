"""After a game: its end, with its screening and the ``finished`` answer (``endings``); a
day's results, streaks, share text, replays and reports (``day``); read-only questions
answered from the store: deals, boards, ranks, history, standings (``queries``); games
reviewed against the solver (``review``: asked, waited for, kept; ``judging``: the work in
the review worker's process; ``progress``: how far it has got, told to the asker;
``ahead``: finished dailies reviewed before their day is over and anyone may ask).

May import the engine, the solver, the store, ``server.play``'s top-level modules,
``daily``, ``fairplay`` and ``games``.
"""
