// cdp.mjs: a small Chrome DevTools Protocol client for the browser tests
// (Node 18 or later, no packages: Debian 12's nodejs has no WebSocket, so a
// minimal client for Chromium's DevTools socket is here): start headless
// Chromium, open a page, evaluate, press keys, take screenshots.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A WebSocket client for ws://127.0.0.1:PORT/PATH: onmessage gets {data}
// for each text message; send(text) sends one masked text frame.
function devtoolsSocket(url) {
  const u = new URL(url);
  const sock = connect(+u.port, u.hostname);
  const ws = { onmessage: null, send(text) {
    const data = Buffer.from(text, "utf8"), mask = randomBytes(4);
    let head;
    if (data.length < 126) head = Buffer.from([0x81, 0x80 | data.length]);
    else if (data.length < 65536) { head = Buffer.alloc(4); head[0] = 0x81; head[1] = 0x80 | 126; head.writeUInt16BE(data.length, 2); }
    else { head = Buffer.alloc(10); head[0] = 0x81; head[1] = 0x80 | 127; head.writeBigUInt64BE(BigInt(data.length), 2); }
    for (let i = 0; i < data.length; i++) data[i] ^= mask[i % 4];
    sock.write(Buffer.concat([head, mask, data]));
  }, close() { sock.destroy(); } };
  let buf = Buffer.alloc(0), upgraded = false, parts = [];
  const opened = new Promise((ok, bad) => {
    sock.on("error", bad);
    sock.on("connect", () => sock.write(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`));
    sock.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (!/^HTTP\/1\.1 101/.test(buf.subarray(0, end).toString())) return bad(new Error("no websocket"));
        upgraded = true;
        buf = buf.subarray(end + 4);
        ok();
      }
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 0x7f, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        if (buf.length < off + len) return;
        const fin = buf[0] & 0x80, op = buf[0] & 0x0f, payload = buf.subarray(off, off + len);
        buf = buf.subarray(off + len);
        if (op === 1 || op === 0) {
          parts.push(payload);
          if (fin) { const data = Buffer.concat(parts).toString("utf8"); parts = []; ws.onmessage && ws.onmessage({ data }); }
        }
      }
    });
  });
  ws.opened = opened;
  return ws;
}

export async function launch(chromium = process.env.CHROMIUM || "/usr/bin/chromium") {
  const profile = mkdtempSync(join(tmpdir(), "aw-cdp-"));
  const proc = spawn(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--remote-debugging-port=0", "--user-data-dir=" + profile, "--window-size=1280,900", "about:blank"],
    { stdio: "ignore" });
  let port = null;
  for (let i = 0; i < 200 && !port; i++) {
    const f = join(profile, "DevToolsActivePort");
    if (existsSync(f)) port = readFileSync(f, "utf8").split("\n")[0];
    else await sleep(50);
  }
  if (!port) { proc.kill("SIGKILL"); throw new Error("chromium did not start"); }
  let targets = [];
  for (let i = 0; i < 100 && !targets.some((t) => t.type === "page"); i++) {
    try { targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json(); } catch { await sleep(50); }
  }
  const page = targets.find((t) => t.type === "page");
  const ws = devtoolsSocket(page.webSocketDebuggerUrl);
  await ws.opened;
  let id = 0;
  const pending = new Map(), events = [];
  ws.onmessage = (m) => {
    const msg = JSON.parse(m.data);
    if (msg.id && pending.has(msg.id)) {
      const { ok, bad } = pending.get(msg.id);
      pending.delete(msg.id);
      msg.error ? bad(new Error(msg.error.message)) : ok(msg.result);
    } else if (msg.method) events.push(msg);
  };
  const send = (method, params = {}) => new Promise((ok, bad) => {
    const n = ++id;
    pending.set(n, { ok, bad });
    ws.send(JSON.stringify({ id: n, method, params }));
  });
  await send("Page.enable");
  await send("Runtime.enable");
  const b = {
    events,
    send,
    async goto(url) {
      await send("Page.navigate", { url });
      await b.waitFor("document.readyState === 'complete'");
    },
    async eval(expr) {
      const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true, awaitPromise: true });
      if (r.exceptionDetails) throw new Error("page: " + (r.exceptionDetails.exception?.description || r.exceptionDetails.text));
      return r.result.value;
    },
    async waitFor(expr, ms = 10000) {
      const end = Date.now() + ms;
      while (Date.now() < end) {
        try { if (await b.eval(expr)) return true; } catch { /* not yet */ }
        await sleep(50);
      }
      throw new Error("timed out waiting for " + expr);
    },
    async key(key, code = key) {
      const vk = { ArrowRight: 39, ArrowLeft: 37, Home: 36, End: 35 }[key] || key.toUpperCase().charCodeAt(0);
      await send("Input.dispatchKeyEvent", { type: "keyDown", key, code, windowsVirtualKeyCode: vk });
      await send("Input.dispatchKeyEvent", { type: "keyUp", key, code, windowsVirtualKeyCode: vk });
    },
    async screenshot() {
      const r = await send("Page.captureScreenshot", { format: "png" });
      return Buffer.from(r.data, "base64");
    },
    async close() {
      try { ws.close(); } catch { /* gone */ }
      proc.kill("SIGKILL");
      await new Promise((r) => proc.once("exit", r));
      rmSync(profile, { recursive: true, force: true });
    },
  };
  return b;
}
