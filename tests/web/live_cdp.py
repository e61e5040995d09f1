"""Headless Chromium (Debian's /usr/bin/chromium) driven over the DevTools
protocol with the standard library's sockets (live_ws.WS): open a page,
evaluate JavaScript in it, wait for a condition, take a screenshot. For the
live and human page tests."""
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.request

from live_ws import WS

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


class Browser:
    def __init__(self, width=1100, height=900):
        self.profile = tempfile.mkdtemp(prefix="aiwolf-chromium-")
        self.p = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
             "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.05)
        self.port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list", timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        path = re.sub(r"^ws://[^/]+", "", page["webSocketDebuggerUrl"])
        self.ws = WS("127.0.0.1", self.port, path, timeout=60)
        self.next_id = 0
        self.call("Page.enable")
        self.call("Runtime.enable")

    def call(self, method, **params):
        self.next_id += 1
        my = self.next_id
        self.ws.send(json.dumps({"id": my, "method": method, "params": params}))
        while True:
            m = self.ws.recv()
            if m is None:
                raise ConnectionError("the browser went away")
            r = json.loads(m)
            if r.get("id") == my:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})

    def open(self, url):
        self.call("Page.navigate", url=url)
        self.wait("document.readyState === 'complete'", 30)

    def eval(self, expr):
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails'].get('text')} {r['exceptionDetails'].get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def wait(self, expr, timeout):
        end = time.time() + timeout
        while time.time() < end:
            try:
                if self.eval(expr):
                    return True
            except RuntimeError:
                pass
            time.sleep(0.1)
        return False

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except (ConnectionError, RuntimeError, OSError):
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
