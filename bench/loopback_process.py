"""The loopback OpenAI-compatible server in a process of its own, as a real endpoint would be.

Run in the benchmark's own process, the server's request handling competes with the harness for
the one interpreter lock, so a throughput figure would charge the harness for the fake model.
`served_loopback(latency)` starts `python -m benchledger.bench.loopback_process --latency S`, which prints
its base URL, answers "count" on stdin with the chat requests it has served (and "limits", with a
`--limit`, with its rate limit's counts), and exits when stdin closes. With `--tail SIGMA` each
reply's latency is drawn from a log-normal of median S (a long tail: sigma 0.8 puts p99 at 6.4 S).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

__all__ = ["ServedLoopback", "served_loopback"]


@dataclass
class ServedLoopback:
    base_url: str
    process: subprocess.Popen

    def count(self) -> int:
        """Chat requests the server has received so far."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())


    def limit_stats(self) -> dict:
        """The rate limit's counts (admitted, refused, admitted_tokens, first and last admission time)."""
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write("limits\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())


@contextmanager
def served_loopback(latency: float, *, limit: tuple[float, float, float] | None = None,
                    tail: float = 0.0, seed: int = 24) -> Iterator[ServedLoopback]:
    """The loopback in its own process; `limit` = (requests, tokens, per seconds) enforces a rate
    limit, `tail` > 0 draws each reply's latency from a log-normal of median `latency` and that sigma."""
    extra = ["--limit", *(str(v) for v in limit)] if limit else []
    extra += ["--tail", str(tail), "--seed", str(seed)] if tail else []
    process = subprocess.Popen([sys.executable, "-m", "benchledger.bench.loopback_process", "--latency", str(latency),
                                *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout
        base_url = process.stdout.readline().strip()
        if not base_url.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"the loopback server did not start (said {base_url!r})")
        yield ServedLoopback(base_url, process)
    finally:
        if process.stdin:
            process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _serve(latency: float, limit: list[float] | None, tail: float, seed: int) -> None:
    from benchledger.adapters.models.loopback import LoopbackOpenAI
    from benchledger.adapters.models.loopback_limits import RateLimit

    limits = RateLimit(requests=limit[0], tokens=limit[1], per=limit[2]) if limit else None
    delay = _long_tailed(latency, tail, seed) if tail else latency
    with LoopbackOpenAI(latency=delay, keep_bodies=False, limits=limits) as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "count":
                print(server.count(), flush=True)
            elif line.strip() == "limits" and limits is not None:
                print(json.dumps({"admitted": limits.admitted, "refused": limits.refused,
                                  "admitted_tokens": limits.admitted_tokens, "first_at": limits.first_at,
                                  "last_at": limits.last_at}), flush=True)


def _long_tailed(median: float, sigma: float, seed: int) -> Callable[[], float]:
    """Seconds per reply from a log-normal of this median and sigma (capped at 30 medians), seeded."""
    draw, lock = random.Random(seed), threading.Lock()

    def delay() -> float:
        with lock:
            return min(median * math.exp(draw.gauss(0.0, sigma)), 30 * median)

    return delay


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--limit", type=float, nargs=3, metavar=("REQUESTS", "TOKENS", "PER"), default=None)
    parser.add_argument("--tail", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    _serve(args.latency, args.limit, args.tail, args.seed)
