// aiwolf live: the list of games (/) and one game as it happens (/live/ID),
// from the JSON event lines of docs/events.schema.json. While a game runs
// the server sends only public lines (no roles, whispers or night actions);
// after the result it sends the full record from its begin line again, and
// this page starts over with it (docs/viewer.md, "Watching live").
"use strict";
(function () {
  const $ = (s) => document.querySelector(s);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  const m = location.pathname.match(/^\/live\/(\d+)$/);
  if (!m) return list();
  game(m[1]);

  function list() {
    $("#list").hidden = false;
    const tick = () => fetch("/api/games").then((r) => r.json()).then((d) => {
      const tb = $("#games tbody");
      tb.innerHTML = "";
      for (const g of d.games) {
        const tr = document.createElement("tr");
        tr.innerHTML = `<td><a href="/live/${g.id}">${esc(g.name)}</a></td><td>${g.state}</td>` +
          `<td>${new Date(g.started * 1000).toLocaleTimeString()}</td>`;
        tb.appendChild(tr);
      }
      $("#nogames").hidden = d.games.length > 0;
      $("#humans").hidden = d.humans.length === 0;
      $("#humans ul").innerHTML = d.humans.map((h) => `<li>Agent[${String(h.seat).padStart(2, "0")}] ${esc(h.name)}</li>`).join("");
      $("#status").textContent = d.reveal ? "reveal: roles and night actions shown at once" : "";
    }).catch(() => { $("#status").textContent = "server gone"; });
    tick();
    setInterval(tick, 2000);
  }

  function game(id) {
    $("#game").hidden = false;
    $("#title").textContent = `Game ${id}`;
    let st = null;
    const reset = (begin) => {
      st = { n: begin.players, agents: {}, day: -1, over: false, dayDiv: null };
      for (const a of begin.agents) st.agents[a.agent] = { name: a.name, role: a.role || null, alive: true };
      $("#log").innerHTML = "";
      $("#title").textContent = `Game ${id}: ${begin.players} players, ${begin.preset}` + (begin.seed !== undefined ? `, seed ${begin.seed}` : "");
      agents();
    };
    const agents = () => {
      const tb = $("#agents tbody");
      tb.innerHTML = "";
      for (let a = 1; a <= st.n; a++) {
        const x = st.agents[a];
        const tr = document.createElement("tr");
        if (!x.alive) tr.className = "dead";
        tr.innerHTML = `<td>${lab(a)}</td><td>${esc(x.name)}</td>` +
          (x.role ? `<td class="role-${x.role}">${x.role}</td>` : `<td class="hidden-role">?</td>`) +
          `<td>${x.alive ? "alive" : "dead"}</td>`;
        tb.appendChild(tr);
      }
    };
    const lab = (a) => a >= 1 ? `Agent[${String(a).padStart(2, "0")}]` : "nobody";
    const line = (cls, html) => {
      if (!st.dayDiv) return;
      const follow = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
      const d = document.createElement("div");
      d.className = "ev " + cls;
      d.innerHTML = html;
      st.dayDiv.appendChild(d);
      if (follow && !st.over) window.scrollTo(0, document.body.scrollHeight);
    };
    const newDay = (day) => {
      if (day === undefined || day === st.day) return;
      st.day = day;
      st.dayDiv = document.createElement("div");
      st.dayDiv.className = "day";
      st.dayDiv.innerHTML = `<h3>Day ${day}</h3>`;
      $("#log").appendChild(st.dayDiv);
    };
    const on = (e) => {
      if (e.event === "begin") return reset(e);
      if (e.event === "abandoned") { $("#note").textContent = "The game was abandoned (the server stopped)."; return; }
      if (!st) return;
      if (e.event !== "result" && e.event !== "call") newDay(e.day);
      switch (e.event) {
        case "status":
          st.agents[e.agent].alive = e.alive;
          if (e.role) st.agents[e.agent].role = e.role;
          agents();
          break;
        case "talk": line("talk", `<span class="who">${lab(e.agent)}</span> ${esc(e.text)}`); break;
        case "whisper": line("whisper", `<span class="who">${lab(e.agent)}</span> whispers ${esc(e.text)}`); break;
        case "vote": line("vote", `${lab(e.agent)} votes for ${lab(e.target)}${e.round ? " (revote)" : ""}`); break;
        case "execute": line("death", `${lab(e.agent)} is executed` + (e.role ? ` (${e.role})` : "")); break;
        case "divine": line("secret", `${lab(e.agent)} divines ${lab(e.target)}: ${e.result}`); break;
        case "guard": line("secret", `${lab(e.agent)} guards ${lab(e.target)}`); break;
        case "attackVote": line("secret", `${lab(e.agent)} votes to attack ${lab(e.target)}`); break;
        case "attack":
          if (e.success) line("death", `${lab(e.target)} was found dead in the morning`);
          else line("secret", e.target > 0 ? `the attack on ${lab(e.target)} fails (guarded)` : "the werewolves attack nobody");
          break;
        case "substitute": line("fault", `${lab(e.agent)} ${e.call}: ${esc(e.reason)}; the rules use ${lab(e.used)}`); break;
        case "talkReplaced": line("fault", `${lab(e.agent)} ${e.call}: ${esc(e.reason)}; logged as ${esc(e.logged)}`); break;
        case "call":
          if (e.fault) line("fault", `${lab(e.agent)} ${e.call}: ${e.fault}` + (e.message ? `: ${esc(e.message)}` : ""));
          break;
        case "result":
          st.over = true;
          line("result", e.winner === "NONE" ? "No winner" : `${e.winner} team wins (${e.humans} humans, ${e.werewolves} werewolves alive)`);
          $("#note").textContent = "The game is over: the full record follows.";
          break;
      }
    };
    const connect = () => {
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/game/${id}`);
      $("#status").textContent = "connecting";
      ws.onopen = () => { $("#status").textContent = "live"; };
      ws.onmessage = (m) => { try { on(JSON.parse(m.data)); } catch (x) { console.error(x); } };
      ws.onclose = () => { $("#status").textContent = st && st.over ? "over" : "disconnected"; };
    };
    connect();
    window.awLive = { state: () => st };
  }
})();
