"""What holding back the end of streamed text costs: redacting each streamed piece on its own
(what deepnb did before, leaking a secret's prefixes) against the StreamRedactor ``Run.emit``
passes every event through, per piece, with one secret in the environment.

    python bench/stream_redaction.py [--pieces 20000] [--size 3] [--repeats 5]

The text is random words streamed ``--size`` characters at a time; the best of ``--repeats``
runs is reported. Checks that the pieces let go read as the whole text (none held at the end).
"""

from __future__ import annotations

import argparse
import os
import random
import string
import time

from deepnb.core import events as ev
from deepnb.core.text.secrets import redact_data
from deepnb.core.text.streamed import StreamRedactor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", type=int, default=20_000)
    parser.add_argument("--size", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ["DEEPNB_BENCH_API_KEY"] = "Zq7Wm2Lp9Xk4Rt8Vn3Kd6Str"
    rng = random.Random(1)
    text = ""
    while len(text) < args.pieces * args.size:
        text += "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(2, 9))) + " "
    pieces = [text[i : i + args.size] for i in range(0, args.pieces * args.size, args.size)]

    def alone() -> None:
        for piece in pieces:
            redact_data(ev.TextDelta(ev.MAIN, piece))

    def held() -> None:
        redactor = StreamRedactor()
        shown = [e for piece in pieces for e in redactor.feed(ev.TextDelta(ev.MAIN, piece))]
        shown += redactor.feed(ev.RunFinished(ev.MAIN, ""))
        assert "".join(e.text for e in shown if isinstance(e, ev.TextDelta)) == "".join(pieces)

    for name, work in (("each piece redacted alone", alone), ("StreamRedactor", held)):
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            work()
            best = min(best, time.perf_counter() - start)
        print(f"{name:>26}: {best / len(pieces) * 1e6:6.1f} µs per piece ({len(pieces)} pieces)")


if __name__ == "__main__":
    main()
