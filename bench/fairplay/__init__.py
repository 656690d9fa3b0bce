"""Fair-play screening measured on synthetic players, through a real server.

Run from the repository root::

    python -m bench.fairplay                        # 100 players a population, about 3 minutes
    python -m bench.fairplay --players 20 --days 2  # a quick look
    python -m bench.fairplay --database             # on PostgreSQL (a fresh database, dropped)
    python -m bench.fairplay --json figures.json    # every figure, for the docs
    python -m bench.fairplay.across --suits 2       # accounts over two weeks: across.py

(docs/fair-play.md has the figures of a full run.)
"""
