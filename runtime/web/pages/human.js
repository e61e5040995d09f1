// aiwolf: the page of a human seat. It shows exactly the agent's view that
// the server sends for each request (docs/viewer.md, "Playing as a human"),
// offers the answers the request takes — an agent for votes, divinations,
// guards and attacks; a protocol sentence for talks and whispers, built
// with buttons or typed and checked by the server's parser as you type;
// a confirmation for the night step of a seat the night asks nothing —
// and counts down the time left.
"use strict";
(function () {
  const $ = (s) => document.querySelector(s);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  const lab = (a) => `Agent[${String(a).padStart(2, "0")}]`;
  const seat = location.pathname.split("/")[2];
  const token = new URLSearchParams(location.search).get("token") || "";
  let ws = null, view = null, deadline = 0, about = 0, answered = false;
  const talks = {}; // "day:idx" -> talk, and whispers under "w:day:idx"

  function send(msg) { if (ws && ws.readyState === 1) ws.send(msg); }

  function tick() {
    if (!view || view.answer === "none" || answered) { $("#countdown").textContent = ""; return; }
    const left = Math.max(0, deadline - Date.now());
    $("#countdown").textContent = `${Math.ceil(left / 1000)} s`;
    $("#countdown").className = left < 15000 ? "low" : "";
  }
  setInterval(tick, 250);

  function agentsTable(v) {
    const tb = $("#agents tbody");
    tb.innerHTML = "";
    for (let a = 1; a <= v.players; a++) {
      const alive = v.alive.includes(a);
      const role = v.roles[a];
      const tr = document.createElement("tr");
      if (!alive) tr.className = "dead";
      tr.innerHTML = `<td>${lab(a)}${a === v.agent ? " (you)" : ""}</td>` +
        `<td class="${role ? "role-" + role : "hidden-role"}">${role || "?"}</td><td>${alive ? "alive" : "dead"}</td>`;
      tb.appendChild(tr);
    }
  }

  function privateInfo(v) {
    const p = [];
    if (v.divineResult) p.push(`Your divination: ${lab(v.divineResult.target)} is ${v.divineResult.result}.`);
    if (v.mediumResult) p.push(`Your medium result: ${lab(v.mediumResult.target)} was ${v.mediumResult.result}.`);
    if (v.guarded) p.push(`Last night you guarded ${lab(v.guarded)}.`);
    if (v.attacked) p.push(`Last night the werewolves attacked ${lab(v.attacked)}.`);
    if (v.executed) p.push(`Executed yesterday: ${lab(v.executed)}.`);
    if (v.lastDead && v.lastDead.length) p.push(`Found dead this morning: ${v.lastDead.map(lab).join(", ")}.`);
    if (v.votes && v.votes.length) p.push("Yesterday's votes: " + v.votes.map((x) => `${lab(x.agent)}→${lab(x.target)}`).join(", ") + ".");
    if (v.latestVotes && v.latestVotes.length && v.request !== "DAILY_INITIALIZE")
      p.push("Votes just now: " + v.latestVotes.map((x) => `${lab(x.agent)}→${lab(x.target)}`).join(", ") + ".");
    $("#private").innerHTML = p.map((s) => `<p>${esc(s)}</p>`).join("");
  }

  function logTalks(v) {
    for (const t of v.talks) talks[`${t.day}:${String(t.idx).padStart(4, "0")}`] = Object.assign({ kind: "TALK" }, t);
    for (const t of v.whispers || []) talks[`${t.day}:w${String(t.idx).padStart(4, "0")}`] = Object.assign({ kind: "WHISPER" }, t);
    const keys = Object.keys(talks).sort((a, b) => {
      const [da, ia] = a.split(":"), [db, ib] = b.split(":");
      return Number(da) - Number(db) || ia.localeCompare(ib);
    });
    let html = "", day = -1;
    for (const k of keys) {
      const t = talks[k];
      if (t.day !== day) { day = t.day; html += `<h3>Day ${day}</h3>`; }
      const can = view && view.answer === "text" && !answered && t.day === v.day;
      html += `<div class="ev ${t.kind === "WHISPER" ? "whisper" : "talk"}"><span class="who">${lab(t.agent)}</span>` +
        `${t.kind === "WHISPER" ? " whispers" : ""} ${esc(t.text)}` +
        (can ? ` <button data-agree="${t.kind} day${t.day} ID:${t.idx}">agree</button>` +
          `<button data-disagree="${t.kind} day${t.day} ID:${t.idx}">disagree</button>` : "") + "</div>";
    }
    $("#log").innerHTML = html;
    for (const b of document.querySelectorAll("[data-agree]")) b.onclick = () => setText(`AGREE ${b.dataset.agree}`);
    for (const b of document.querySelectorAll("[data-disagree]")) b.onclick = () => setText(`DISAGREE ${b.dataset.disagree}`);
  }

  let checkTimer = 0;
  function setText(t) { $("#text").value = t; check(); }
  function check() {
    clearTimeout(checkTimer);
    checkTimer = setTimeout(() => { if ($("#text").value) send("check " + $("#text").value); else $("#check").textContent = ""; }, 150);
  }

  function builder(v) {
    const others = v.alive.filter((a) => a !== v.agent);
    if (!about || !v.alive.includes(about) || about === v.agent) about = others[0] || v.agent;
    $("#about").innerHTML = "";
    for (let a = 1; a <= v.players; a++) {
      const b = document.createElement("button");
      b.textContent = lab(a) + (a === v.agent ? " (you)" : "");
      b.dataset.agent = a;
      b.style.fontWeight = a === about ? "700" : "400";
      b.onclick = () => { about = a; builder(v); };
      $("#about").appendChild(b);
    }
    const roles = v.existingRoles;
    const x = lab(about);
    const acts = [];
    if (v.request === "WHISPER") acts.push(["attack", `ATTACK ${x}`]);
    acts.push(["vote", `VOTE ${x}`]);
    for (const r of roles) acts.push([`estimate ${r.toLowerCase()}`, `ESTIMATE ${x} ${r}`]);
    for (const r of roles) acts.push([`I am ${r.toLowerCase()}`, `COMINGOUT ${lab(v.agent)} ${r}`]);
    for (const s of ["HUMAN", "WEREWOLF"]) acts.push([`divined ${s.toLowerCase()}`, `DIVINED ${x} ${s}`]);
    for (const s of ["HUMAN", "WEREWOLF"]) acts.push([`identified ${s.toLowerCase()}`, `IDENTIFIED ${x} ${s}`]);
    acts.push(["guarded", `GUARDED ${x}`]);
    acts.push(["ask all to vote", `REQUEST ANY (VOTE ${x})`]);
    acts.push([`ask ${x} to vote`, `REQUEST ${x} (VOTE ${x})`]);
    $("#acts").innerHTML = "";
    for (const [label, text] of acts) {
      const b = document.createElement("button");
      b.textContent = label;
      b.title = text;
      b.onclick = () => setText(text);
      $("#acts").appendChild(b);
    }
  }

  function showView(v) {
    view = v;
    answered = false;
    deadline = Date.now() + v.timeLeftMs;
    $("#me").innerHTML = `You are <b>${lab(v.agent)}</b>, <b class="role-${v.myRole}">${v.myRole}</b>. Day ${v.day}.`;
    agentsTable(v);
    privateInfo(v);
    $("#reply").textContent = "";
    $("#targets").innerHTML = "";
    $("#builder").hidden = v.answer !== "text";
    $("#ask").className = v.answer === "none" ? "idle" : "";
    const what = {
      TALK: "Your turn to talk: build or type a sentence, or say Over.",
      WHISPER: "Your turn to whisper to the werewolves.",
      VOTE: "Vote: whom do you want executed?",
      DIVINE: "Divine: whose species do you want to learn?",
      GUARD: "Guard: whom do you protect tonight?",
      ATTACK: "Attack: whom do the werewolves attack?",
      INITIALIZE: "The game begins.", DAILY_INITIALIZE: "A new day begins.", DAILY_FINISH: "The day ends.",
      FINISH: "The game is over: every role is shown above.",
      NIGHT: "Night falls. You have nothing to do tonight: confirm to sleep (the new day starts when everyone's night is over).",
    }[v.request] || v.request;
    $("#what").textContent = what;
    if (v.answer === "confirm") {
      const b = document.createElement("button");
      b.textContent = "Sleep";
      b.id = "confirm";
      b.onclick = () => send(`answer ${v.seq} confirm`);
      $("#targets").appendChild(b);
    }
    if (v.answer === "target") {
      const wolves = Object.keys(v.roles).filter((a) => v.roles[a] === "WEREWOLF").map(Number);
      for (const a of v.alive) {
        if (a === v.agent && v.request !== "DIVINE") continue;
        if (v.request === "ATTACK" && wolves.includes(a)) continue;
        const b = document.createElement("button");
        b.textContent = lab(a);
        b.dataset.target = a;
        b.onclick = () => send(`answer ${v.seq} target ${a}`);
        $("#targets").appendChild(b);
      }
    }
    if (v.answer === "text") builder(v);
    logTalks(v);
    tick();
  }

  function on(m) {
    if (m.type === "view") return showView(m);
    if (m.type === "check") {
      $("#check").textContent = m.ok ? "✓ valid" : "✗ " + m.error;
      $("#check").className = m.ok ? "good" : "bad";
      return;
    }
    if (m.type === "taken" || m.type === "answered") {
      if (view && m.seq === view.seq) {
        answered = true;
        $("#reply").textContent = "Sent.";
        $("#targets").innerHTML = "";
        $("#builder").hidden = true;
        $("#ask").className = "idle";
      }
      return;
    }
    if (m.type === "timeout") {
      if (view && m.seq === view.seq) { answered = true; $("#reply").textContent = "Time is up: the rules chose for you."; $("#ask").className = "idle"; }
      return;
    }
    if (m.type === "refused") { $("#reply").textContent = "Refused: " + m.error; $("#reply").className = "bad"; }
  }

  $("#text").addEventListener("input", check);
  $("#text").addEventListener("keydown", (e) => { if (e.key === "Enter") $("#send").click(); });
  $("#send").onclick = () => view && send(`answer ${view.seq} text ${$("#text").value}`);
  $("#over").onclick = () => view && send(`answer ${view.seq} text Over`);
  $("#skip").onclick = () => view && send(`answer ${view.seq} text Skip`);

  function connect() {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/human/${seat}?token=${encodeURIComponent(token)}`);
    ws.onopen = () => { $("#status").textContent = "connected"; };
    ws.onmessage = (e) => { try { on(JSON.parse(e.data)); } catch (x) { console.error(x); } };
    ws.onclose = () => { $("#status").textContent = "disconnected: reconnecting"; setTimeout(connect, 1000); };
  }
  connect();
  window.awHuman = { view: () => view, answered: () => answered };
})();
