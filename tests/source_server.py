"""A loopback server standing in for GitHub's raw files and the Hugging Face hub, for fetch tests.

It serves the same paths the real hosts do, from files the tests already have (`../shared/data`),
never copied: `GET /<owner>/<repo>/<commit>/<path>` as raw.githubusercontent.com does, and for the
hub `GET /api/datasets/<repo>/revision/<rev>` (the commit a revision names), `POST
/api/datasets/<repo>/paths-info/<commit>` (each file's size, git blob id and LFS SHA-256) and
`GET /datasets/<repo>/resolve/<commit>/<path>`, all honouring `Range`. Faults are set per path:
`cut_after` closes the first response after N bytes (an interrupted download); `serve_instead`
serves other bytes than the ones the hub lists (a corrupted file); `endless` sends a body that does not
end for any client that caps what it reads, announcing no length (a hostile mirror; it stops at
`ENDLESS_STOPS_AT` so that a client that caps nothing, as under a mutation, fails its test
instead of filling the disk); `bytes_sent` counts what each path's bodies carried.
Every request is logged.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote

ENDLESS_STOPS_AT = 256 << 20  # far past every cap the tests set (a pin of 2.8 MB, 16 MiB in flight)

__all__ = ["SourceServer", "Request"]


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    range: str | None
    authorization: bool


@dataclass
class SourceServer:
    github: dict[str, Path] = field(default_factory=dict)
    """"<owner>/<repo>/<commit>/<path>" -> the file to serve."""
    hub: dict[str, dict[str, Path]] = field(default_factory=dict)
    """dataset repo -> {path: file} at `hub_commit`."""
    hub_commit: str = "c0ffee" * 6 + "c0ff"
    cut_after: dict[str, int] = field(default_factory=dict)
    serve_instead: dict[str, bytes] = field(default_factory=dict)
    endless: set[str] = field(default_factory=set)

    bytes_sent: dict[str, int] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)

    def start(self) -> str:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def _log(self):
                server.requests.append(Request(self.command, unquote(self.path.split("?")[0]),
                                               self.headers.get("Range"), "Authorization" in self.headers))

            def do_GET(self):
                self._log()
                path = unquote(self.path.split("?")[0]).lstrip("/")
                match = re.fullmatch(r"api/datasets/(.+)/revision/(.+)", path)
                if match:
                    return self._json({"id": match.group(1), "sha": server.hub_commit, "private": False})
                match = re.fullmatch(r"datasets/(.+?/.+?)/resolve/([^/]+)/(.+)", path)
                if match:
                    repo, commit, file = match.groups()
                    if commit != server.hub_commit or file not in server.hub.get(repo, {}):
                        return self._missing()
                    return self._file(path, server.hub[repo][file].read_bytes())
                if path in server.github:
                    return self._file(path, server.github[path].read_bytes())
                return self._missing()

            def do_POST(self):
                self._log()
                path = unquote(self.path.split("?")[0]).lstrip("/")
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                match = re.fullmatch(r"api/datasets/(.+)/paths-info/([^/]+)", path)
                if not match or match.group(2) != server.hub_commit:
                    return self._missing()
                files = server.hub.get(match.group(1), {})
                asked = parse_qs(body).get("paths", [])
                listed = []
                for name in asked:
                    if name in files:
                        data = files[name].read_bytes()
                        blob = hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()
                        listed.append({"type": "file", "path": name, "size": len(data), "oid": blob,
                                       "lfs": {"oid": hashlib.sha256(data).hexdigest(), "size": len(data),
                                               "pointerSize": 134}})
                return self._json(listed)

            def _json(self, value):
                data = json.dumps(value).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _missing(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _endless(self, key):
                self.send_response(200)
                self.end_headers()  # no Content-Length: the body ends when the connection does
                block = b"x" * 65536
                try:
                    while server.bytes_sent.get(key, 0) < ENDLESS_STOPS_AT:
                        self.wfile.write(block)
                        server.bytes_sent[key] = server.bytes_sent.get(key, 0) + len(block)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                self.close_connection = True

            def _file(self, key, data):
                if key in server.endless:
                    return self._endless(key)
                data = server.serve_instead.get(key, data)
                start = 0
                wanted = self.headers.get("Range")
                if wanted:
                    start = int(re.fullmatch(r"bytes=(\d+)-", wanted).group(1))
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                server.bytes_sent[key] = server.bytes_sent.get(key, 0) + len(body)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                cut = server.cut_after.pop(key, None)
                if cut is not None:
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def gets(self, fragment: str) -> list[Request]:
        return [r for r in self.requests if r.method == "GET" and fragment in r.path]
