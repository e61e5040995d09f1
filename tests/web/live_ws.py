"""A small WebSocket client (RFC 6455, text frames) on the standard library,
for the live and human tests: the spectator stream, the human seat's
channel, and Chromium's DevTools protocol."""
import base64
import os
import socket
import struct


class WS:
    def __init__(self, host, port, path, timeout=30.0):
        self.s = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        req = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.s.sendall(req.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            c = self.s.recv(1)
            if not c:
                raise ConnectionError("closed during the handshake: " + head.decode(errors="replace"))
            head += c
        self.status = int(head.split(b" ", 2)[1])
        if self.status != 101:
            raise ConnectionRefusedError(f"handshake refused: {head.splitlines()[0].decode()}")
        self.buf = b""

    def _read(self, n):
        while len(self.buf) < n:
            c = self.s.recv(65536)
            if not c:
                raise ConnectionError("closed")
            self.buf += c
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def recv(self):
        """The next text message (str), or None when the server closed."""
        msg = b""
        while True:
            try:
                b0, b1 = self._read(2)
            except (ConnectionError, TimeoutError, OSError):
                return None
            op, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(d ^ mask[i % 4] for i, d in enumerate(data))
            if op == 8:
                return None
            if op == 9:
                self._frame(10, data)
                continue
            if op in (0, 1, 2):
                msg += data
                if b0 & 0x80:
                    return msg.decode("utf-8", errors="replace")

    def _frame(self, op, data):
        head = bytes([0x80 | op])
        n = len(data)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        self.s.sendall(head + mask + bytes(d ^ mask[i % 4] for i, d in enumerate(data)))

    def send(self, text):
        self._frame(1, text.encode() if isinstance(text, str) else text)

    def close(self):
        try:
            self._frame(8, b"")
        except OSError:
            pass
        self.s.close()
