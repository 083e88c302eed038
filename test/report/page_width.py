#!/usr/bin/env python3
"""Renders a report.html in headless Chromium and checks how it reads.

  test/report/page_width.py RESULTS_DIR/report.html [--max-screens 12]

Two checks, each printed with its figures:
  - on a phone (390 x 844 CSS px, mobile emulation, so the page's viewport
    meta tag applies) the page never scrolls sideways: its scroll width
    equals the viewport's width;
  - on a desktop (1280 x 900) the page, with every <details> folded as it
    opens, is at most --max-screens screens tall, and the bottom line and
    the decision card (the page's first <section>) end within the first
    screen, the card's table as wide as its box at most (no column is
    scrolled out of sight).

Chromium is driven through its DevTools protocol over a pipe
(--remote-debugging-pipe), so the viewport is exactly the size asked for;
nothing else than Debian's chromium and Python's standard library is
needed. Exit 0 when every check holds, 1 when one fails, 2 when Chromium
cannot be run. Not part of `meson test`: Chromium is heavy.
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

PHONE = (390, 844)
DESKTOP = (1280, 900)

# What the page reports of itself once loaded.
FIGURES_JS = """(() => {
  const d = document.documentElement;
  const card = document.querySelector('section');
  const table = document.querySelector('table.card');
  return JSON.stringify({
    card_width: table ? table.scrollWidth : null,
    card_room: table ? table.parentElement.clientWidth : null,
    scroll_width: d.scrollWidth,
    client_width: d.clientWidth,
    scroll_height: d.scrollHeight,
    card_bottom: card ? card.getBoundingClientRect().bottom : null,
  });
})()"""


class Browser:
    """One headless Chromium, spoken to over its DevTools pipe."""

    def __init__(self, chromium):
        self.profile = tempfile.mkdtemp(prefix="page_width.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "about:blank"]

        def pipe_fds():
            # Chromium reads commands on fd 3 and writes replies on fd 4;
            # the pipes may already sit on 3 or 4, so copy them out first;
            # dup2 leaves the copies on 3 and 4 open across exec.
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # Every other descriptor is close-on-exec (os.pipe, os.dup).
        self.proc = subprocess.Popen(args, close_fds=False,
                                     preexec_fn=pipe_fds,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.next_id = 0
        self.buffer = b""
        self.events = []

    def send(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self.read(timeout)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(method + ": " + str(reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def read(self, timeout):
        deadline = time.monotonic() + timeout
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise RuntimeError("chromium did not answer")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buffer += chunk
        msg, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(msg)

    def wait_event(self, method, session, timeout=60):
        deadline = time.monotonic() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get("method") == method and e.get("sessionId") == session:
                    del self.events[i]
                    return e
            self.events.append(self.read(max(deadline - time.monotonic(), 0.1)))

    def figures(self, url, width, height, mobile):
        target = self.send("Target.createTarget", {"url": "about:blank"})
        session = self.send("Target.attachToTarget",
                            {"targetId": target["targetId"],
                             "flatten": True})["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height,
                   "deviceScaleFactor": 1, "mobile": mobile}, session)
        self.send("Page.enable", {}, session)
        self.send("Page.navigate", {"url": url}, session)
        self.wait_event("Page.loadEventFired", session)
        result = self.send("Runtime.evaluate",
                           {"expression": FIGURES_JS,
                            "returnByValue": True}, session)
        self.send("Target.closeTarget", {"targetId": target["targetId"]})
        return json.loads(result["result"]["value"])

    def close(self):
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", help="a report.html")
    parser.add_argument("--max-screens", type=float, default=12)
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    a = parser.parse_args()
    report = pathlib.Path(a.report).resolve()
    if not report.is_file():
        print(f"page_width: {a.report}: no such file", file=sys.stderr)
        return 2
    if not a.chromium:
        print("page_width: chromium not found (apt-get install -y chromium)",
              file=sys.stderr)
        return 2
    browser = Browser(a.chromium)
    try:
        phone = browser.figures(report.as_uri(), *PHONE, mobile=True)
        desk = browser.figures(report.as_uri(), *DESKTOP, mobile=False)
    except RuntimeError as e:
        print(f"page_width: {e}", file=sys.stderr)
        return 2
    finally:
        browser.close()

    ok = True
    wide = phone["scroll_width"] == phone["client_width"] == PHONE[0]
    print(f"{PHONE[0]}x{PHONE[1]}: scroll width {phone['scroll_width']} px, "
          f"viewport {phone['client_width']} px: "
          + ("ok" if wide else "FAIL (the page scrolls sideways)"))
    ok = ok and wide
    screens = desk["scroll_height"] / DESKTOP[1]
    short = screens <= a.max_screens
    print(f"{DESKTOP[0]}x{DESKTOP[1]}: {desk['scroll_height']} px tall, "
          f"{screens:.1f} screens (at most {a.max_screens:g}): "
          + ("ok" if short else "FAIL"))
    ok = ok and short
    bottom = desk["card_bottom"]
    first = bottom is not None and bottom <= DESKTOP[1]
    print(f"{DESKTOP[0]}x{DESKTOP[1]}: the bottom line and the card end at "
          + (f"{bottom:.0f} px" if bottom is not None else "(no section)")
          + f" (first screen: {DESKTOP[1]} px): " + ("ok" if first else "FAIL"))
    ok = ok and first
    width, room = desk["card_width"], desk["card_room"]
    if width is None:
        print(f"{DESKTOP[0]}x{DESKTOP[1]}: no decision card in this report")
    else:
        whole = width <= room
        print(f"{DESKTOP[0]}x{DESKTOP[1]}: the card's table is {width} px "
              f"wide in {room} px: "
              + ("ok" if whole else "FAIL (columns scroll)"))
        ok = ok and whole
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
