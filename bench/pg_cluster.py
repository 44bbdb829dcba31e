"""A throwaway PostgreSQL cluster, for the benchmarks and the tests: started, used, removed.

`start_cluster()` runs `initdb` in a new folder (under /tmp when it must hand the folder to an
unprivileged user), then starts the server listening on a unix socket in that folder only (no
TCP port), with a superuser `postgres` trusted on the socket. PostgreSQL refuses to run as
root, so as root the cluster belongs to `nobody`. `fsync=False` is for tests (the cluster dies
with them); the benchmarks keep PostgreSQL's durable defaults, as the SQLite ledger they are
compared with commits with `synchronous=FULL`. `Cluster.stop()` stops the server and removes
the folder. `ClusterUnavailable` says why no cluster could be started (no `initdb` here: install
Debian's `postgresql` package).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Cluster", "ClusterUnavailable", "find_bindir", "start_cluster"]


class ClusterUnavailable(RuntimeError):
    """No PostgreSQL server could be started on this machine; the message says why."""


def find_bindir() -> Path | None:
    """The newest installed PostgreSQL's binaries (Debian's layout, or initdb on the PATH), or the
    folder `$BENCHLEDGER_PG_BINDIR` names (None when it holds no initdb)."""
    if chosen := os.environ.get("BENCHLEDGER_PG_BINDIR"):
        return Path(chosen) if (Path(chosen) / "initdb").is_file() else None
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _as(user: str | None) -> Callable[[], None] | None:
    if user is None:
        return None
    entry = pwd.getpwnam(user)

    def demote() -> None:
        os.setgid(entry.pw_gid)
        os.setuid(entry.pw_uid)

    return demote


@dataclass
class Cluster:
    bindir: Path
    folder: Path
    """Holds the data directory, the server's log and its unix socket."""
    user: str | None
    """The unprivileged user the server runs as (None: the current one)."""

    def url(self, user: str = "postgres", schema: str | None = None, password: str | None = None) -> str:
        """A libpq URL for the socket, as `user`, with `schema` first on the search_path."""
        who = f"{user}:{password}@" if password else f"{user}@"
        options = f"&options=-csearch_path%3D{schema}" if schema else ""
        return f"postgresql://{who}/postgres?host={self.folder}{options}"

    def stop(self) -> None:
        subprocess.run([str(self.bindir / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate",
                        "stop"], preexec_fn=_as(self.user), capture_output=True, timeout=60, cwd=self.folder)
        shutil.rmtree(self.folder, ignore_errors=True)


def start_cluster(*, fsync: bool = True, max_connections: int = 100) -> Cluster:
    """A started cluster (see the module docstring); ClusterUnavailable saying why otherwise."""
    bindir = find_bindir()
    if bindir is None:
        raise ClusterUnavailable("no PostgreSQL server binaries (initdb) on this machine; install Debian's "
                                 "postgresql package, as .ci/run does")
    user = "nobody" if os.geteuid() == 0 else None
    folder = Path(tempfile.mkdtemp(prefix="benchledger-pg-", dir="/tmp" if user else None))
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(folder, entry.pw_uid, entry.pw_gid)
    cluster = Cluster(bindir, folder, user)
    demote = _as(user)

    def run(args: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(args, preexec_fn=demote, capture_output=True, text=True, timeout=120, cwd=folder)

    done = run([str(bindir / "initdb"), "-D", str(folder / "data"), "-U", "postgres", "-A", "trust",
                "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"])
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise ClusterUnavailable(f"initdb failed: {done.stderr.strip()[-500:]}")
    options = (f"-k {folder} -c listen_addresses='' -c max_connections={max_connections}"
               + ("" if fsync else " -c fsync=off -c synchronous_commit=off"))
    done = run([str(bindir / "pg_ctl"), "-D", str(folder / "data"), "-o", options, "-l",
                str(folder / "server.log"), "-w", "start"])
    if done.returncode != 0:
        log = (folder / "server.log").read_text() if (folder / "server.log").exists() else ""
        shutil.rmtree(folder, ignore_errors=True)
        raise ClusterUnavailable(f"the PostgreSQL server did not start: {(done.stderr + log).strip()[-500:]}")
    return cluster
