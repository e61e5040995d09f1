"""The tests' web client, on Python's standard library only (Debian 12's
python3, no packages): what the browser tests in tests/web use to talk to
`aiwolf view|play|serve` and to a headless Chromium.

- WebSocket: a client for one ws:// connection (RFC 6455): the opening
  handshake (its Sec-WebSocket-Accept checked), masked frames out, text
  messages in (fragments joined, pings answered). The spectator stream, the
  human seat's channel and Chromium's DevTools socket all go through it.
- Chromium: Debian's /usr/bin/chromium (or $CHROMIUM) started headless with
  a profile of its own, driven over the DevTools protocol on one page: open
  a URL, evaluate JavaScript, wait until an expression holds, press a key,
  take a screenshot; script errors the page throws are kept in .exceptions.

What it is not: a general WebSocket library (no TLS, no extensions or
subprotocols, no binary messages handed back, one blocking connection, no
closing handshake awaited) nor a general DevTools client (one page, one
call at a time, every event but Runtime.exceptionThrown dropped). It sends
well-formed frames only (whole, masked, of any opcode and length): the
malformed requests and frames of the hostile tests (web_hostile.py) are
written by hand."""
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
_WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455, section 1.3


def _mask(data, key):
    """data XOR the 4-byte key, repeated (RFC 6455, section 5.3)."""
    n = len(data)
    if not n:
        return b""
    k = int.from_bytes((key * (n // 4 + 1))[:n], "big")
    return (int.from_bytes(data, "big") ^ k).to_bytes(n, "big")


class WebSocket:
    """One client connection to ws://host:port/path. Raises
    ConnectionRefusedError when the server answers the handshake with
    another status than 101, ConnectionError when it closes during it or
    answers a wrong Sec-WebSocket-Accept."""

    def __init__(self, host, port, path, timeout=30.0):
        self.s = socket.create_connection((host, port), timeout=timeout)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            req = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
            self.s.sendall(req.encode())
            head = b""
            while b"\r\n\r\n" not in head:  # byte by byte: the first frame may follow at once
                c = self.s.recv(1)
                if not c:
                    raise ConnectionError("closed during the handshake: " + head.decode(errors="replace"))
                head += c
            lines = head.decode(errors="replace").split("\r\n")
            status = lines[0].split(" ", 2)
            self.status = int(status[1]) if len(status) > 1 and status[1].isdigit() else 0
            if self.status != 101:
                raise ConnectionRefusedError(f"handshake refused: {lines[0]}")
            fields = {ln.split(":", 1)[0].strip().lower(): ln.split(":", 1)[1].strip() for ln in lines[1:] if ":" in ln}
            want = base64.b64encode(hashlib.sha1((key + _WS_GUID).encode()).digest()).decode()
            if fields.get("sec-websocket-accept") != want:
                raise ConnectionError(f"wrong Sec-WebSocket-Accept: {fields.get('sec-websocket-accept')!r}")
        except BaseException:
            self.s.close()
            raise
        self.buf = b""

    def _read(self, n):
        while len(self.buf) < n:
            c = self.s.recv(max(65536, n - len(self.buf)))
            if not c:
                raise ConnectionError("closed")
            self.buf += c
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next text message (str), or None when the connection closed,
        failed or timed out."""
        msg = b""
        while True:
            try:
                b0, b1 = self._read(2)
                op, n = b0 & 0x0F, b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", self._read(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", self._read(8))[0]
                mask = self._read(4) if b1 & 0x80 else None
                data = self._read(n)
            except OSError:  # ConnectionError and TimeoutError too
                return None
            if mask:
                data = _mask(data, mask)
            if op == 8:
                return None
            if op == 9:
                self.frame(10, data)
                continue
            if op in (0, 1, 2):
                msg += data
                if b0 & 0x80:
                    return msg.decode("utf-8", errors="replace")

    def frame(self, op, data):
        """Sends one whole masked frame of opcode op (the hostile tests send
        binary and oversized frames with it)."""
        head = bytes([0x80 | op])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        key = os.urandom(4)
        self.s.sendall(head + key + _mask(data, key))

    def send(self, text):
        """One text message (str, or bytes sent as they are)."""
        self.frame(1, text.encode() if isinstance(text, str) else text)

    def close(self):
        try:
            self.frame(8, b"")
        except OSError:
            pass
        self.s.close()


class Chromium:
    """A headless Chromium on one blank page, width x height pixels. Use it
    as a context manager, or call close(): it stops Chromium and removes
    its profile."""

    def __init__(self, width=1100, height=900, timeout=60):
        self.profile = tempfile.mkdtemp(prefix="aiwolf-chromium-")
        # Chromium's own messages go to a file: a pipe nobody reads fills up
        # and stops it.
        self.log = tempfile.NamedTemporaryFile(prefix="aiwolf-chromium-", suffix=".log", delete=False)
        self.exceptions = []
        self.ws = None
        self.next_id = 0
        try:
            self.p = subprocess.Popen(
                [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                 "--remote-debugging-port=0", f"--user-data-dir={self.profile}", f"--window-size={width},{height}",
                 "about:blank"], stdout=subprocess.DEVNULL, stderr=self.log)
        except OSError as e:
            self._cleanup()
            raise RuntimeError(f"cannot start {CHROMIUM} ({e.strerror}): tests/run installs chromium") from e
        try:
            self._attach(timeout)
        except BaseException:
            self.close()
            raise

    def _attach(self, timeout):
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        end = time.time() + 30
        port = None
        while port is None:
            try:
                with open(port_file) as f:
                    first = f.read().split("\n")[0]
                port = int(first) if first.isdigit() else None
            except FileNotFoundError:
                pass
            if port is None:
                if self.p.poll() is not None or time.time() > end:
                    raise RuntimeError(f"{CHROMIUM} did not start (status {self.p.poll()}): {self._log_tail()}")
                time.sleep(0.05)
        page = None
        while page is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10) as r:
                    page = next((t for t in json.load(r) if t.get("type") == "page"), None)
            except (urllib.error.URLError, OSError, ValueError):
                pass
            if page is None:
                if time.time() > end:
                    raise RuntimeError(f"{CHROMIUM} shows no page to drive: {self._log_tail()}")
                time.sleep(0.05)
        path = re.sub(r"^ws://[^/]+", "", page["webSocketDebuggerUrl"])
        self.ws = WebSocket("127.0.0.1", port, path, timeout=timeout)
        self.call("Page.enable")
        self.call("Runtime.enable")

    def _log_tail(self):
        try:
            with open(self.log.name, errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def call(self, method, **params):
        """The result of one DevTools method; RuntimeError if it fails,
        ConnectionError if Chromium goes away or does not answer."""
        self.next_id += 1
        me = self.next_id
        self.ws.send(json.dumps({"id": me, "method": method, "params": params}))
        while True:
            m = self.ws.recv()
            if m is None:
                raise ConnectionError(f"{method}: no answer from Chromium (it closed or timed out)")
            r = json.loads(m)
            if r.get("id") == me:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error'].get('message', r['error'])}")
                return r.get("result", {})
            if r.get("method") == "Runtime.exceptionThrown":
                d = r["params"]["exceptionDetails"]
                self.exceptions.append(d.get("exception", {}).get("description") or d.get("text", "?"))

    def open(self, url, timeout=30):
        """Navigates to url and waits until the document has loaded."""
        self.call("Page.navigate", url=url)
        if not self.wait("document.readyState === 'complete'", timeout):
            raise TimeoutError(f"{url} did not load in {timeout} s")

    def eval(self, expr):
        """The value of the JavaScript expression expr (a promise's value
        once it settles), as JSON gives it; RuntimeError if it throws."""
        r = self.call("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError(f"{expr}: {d.get('text')} {d.get('exception', {}).get('description', '')}")
        return r["result"].get("value")

    def wait(self, expr, timeout):
        """True as soon as expr is truthy (an expression that throws counts
        as not yet), False after timeout seconds."""
        end = time.time() + timeout
        while True:
            try:
                if self.eval(expr):
                    return True
            except RuntimeError:
                pass
            if time.time() > end:
                return False
            time.sleep(0.05)

    # windowsVirtualKeyCode of the keys that are not a letter or a digit
    KEYS = {"ArrowLeft": 37, "ArrowUp": 38, "ArrowRight": 39, "ArrowDown": 40, "Home": 36, "End": 35,
            "Enter": 13, "Escape": 27, "Tab": 9, " ": 32}

    def key(self, key):
        """Presses and releases one key, named as KeyboardEvent.key names it
        ("ArrowRight", "Home", "j"), on the focused element."""
        if key in self.KEYS:
            vk, code = self.KEYS[key], "Space" if key == " " else key
        elif len(key) == 1 and key.isalnum():
            vk, code = ord(key.upper()), ("Key" if key.isalpha() else "Digit") + key.upper()
        else:
            raise ValueError(f"no key code for {key!r}")
        down = {"key": key, "code": code, "windowsVirtualKeyCode": vk}
        if len(key) == 1:
            down["text"] = key
        self.call("Input.dispatchKeyEvent", type="keyDown", **down)
        self.call("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=vk)

    def screenshot(self, path):
        """The visible page as a PNG file."""
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        if self.ws:
            try:
                self.call("Browser.close")
            except (ConnectionError, RuntimeError, OSError):
                pass
            self.ws.s.close()
            self.ws = None
        if getattr(self, "p", None):
            try:
                self.p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self._cleanup()

    def _cleanup(self):
        # Chromium's helpers may still write into the profile for a moment.
        for _ in range(20):
            shutil.rmtree(self.profile, ignore_errors=True)
            if not os.path.exists(self.profile):
                break
            time.sleep(0.1)
        self.log.close()
        try:
            os.unlink(self.log.name)
        except OSError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
