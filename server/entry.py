"""``simon-server``'s entry point: it takes the stop signals before anything else loads.

Until the server's event loop takes SIGINT and SIGTERM, they would end it with a traceback
(``KeyboardInterrupt``) or status -15: while Python imports it, reads its settings, or
starts its loop. From here on a stop in that window is remembered instead (an exception
raised from a signal handler in the middle of an import can break an extension module),
and the server stops at the next point that can: before it starts (status 0), or as soon
as its loop takes the signals, as a stop at any later moment does.
"""

from __future__ import annotations

import signal
import sys
from types import FrameType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[signal.Signals] = []


def _remember(signum: int, frame: FrameType | None) -> None:
    _received.append(signal.Signals(signum))


def early_stop() -> signal.Signals | None:
    """The stop signal that came before the event loop took them, if any."""
    return _received[0] if _received else None


def main() -> int:
    for signum in STOP_SIGNALS:
        signal.signal(signum, _remember)
    from server.main import main as run

    return run()


if __name__ == "__main__":
    sys.exit(main())
