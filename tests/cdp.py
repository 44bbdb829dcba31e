"""Ask a page in headless Chromium a question (a JavaScript expression) over the DevTools protocol.

Chromium speaks the protocol over two pipes when started with `--remote-debugging-pipe`: it reads
commands on fd 3 and writes replies on fd 4, each a JSON object ending in a NUL byte. That needs no
websocket client and no driver download: the system Chromium the other page tests use, a page at a
given window size, and `Runtime.evaluate`. Used where a screenshot cannot say it: whether a page
scrolls sideways at a width.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from chromium import CHROMIUM_FLAGS

__all__ = ["evaluate_on_page"]


class _Pipe:
    def __init__(self, browser: str, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # Chromium reads fd 3 and writes fd 4 in the child: put our pipe ends there
        def place_fds() -> None:
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.process = subprocess.Popen(
            [browser, *[flag for flag in CHROMIUM_FLAGS], f"--user-data-dir={profile}", "--remote-debugging-pipe",
             "about:blank"], pass_fds=(3, 4, to_chrome_r, from_chrome_w), preexec_fn=place_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next = 0

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = 60.0) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self._next:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply.get("result", {})
            if time.monotonic() > deadline:
                raise TimeoutError(f"Chromium did not answer {method}")
            chunk = os.read(self._from_chrome, 65536)
            if not chunk:
                raise RuntimeError(f"Chromium closed the pipe during {method}")
            self._buffer += chunk

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        self.process.wait(timeout=30)
        os.close(self._to_chrome)
        os.close(self._from_chrome)


def evaluate_on_page(browser: str, profile: Path, url: str, expression: str, *, width: int = 1400,
                     height: int = 1000) -> Any:
    """The value of `expression` on `url` once it has loaded, in a window `width` x `height`."""
    pipe = _Pipe(browser, profile)
    try:
        target = pipe.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = pipe.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        pipe.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        pipe.call("Page.navigate", {"url": url}, session)
        deadline = time.monotonic() + 60
        while True:
            state = pipe.call("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True},
                              session)["result"].get("value")
            if state == "complete":
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} never finished loading")
            time.sleep(0.1)
        result = pipe.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        return result["result"].get("value")
    finally:
        pipe.close()
