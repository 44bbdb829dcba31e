"""The loopback OpenAI-compatible server in a process of its own, as a real endpoint would be.

Run in the benchmark's own process, the server's request handling competes with the harness for
the one interpreter lock, so a throughput figure would charge the harness for the fake model.
`served_loopback(latency)` starts `python -m benchledger.bench.loopback_process --latency S`, which prints
its base URL, answers "count" on stdin with the chat requests it has served, and exits when
stdin closes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Iterator
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


@contextmanager
def served_loopback(latency: float) -> Iterator[ServedLoopback]:
    process = subprocess.Popen([sys.executable, "-m", "benchledger.bench.loopback_process", "--latency", str(latency)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
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


def _serve(latency: float) -> None:
    from benchledger.adapters.models.loopback import LoopbackOpenAI

    with LoopbackOpenAI(latency=latency, keep_bodies=False) as server:
        print(server.base_url, flush=True)
        for line in sys.stdin:
            if line.strip() == "count":
                print(server.count(), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    _serve(parser.parse_args().latency)
