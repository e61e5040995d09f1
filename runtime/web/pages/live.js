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
    // The model and the day's rendering are the log viewer's (events.js):
    // sentences in the chosen language, one day at a time (or all), the
    // roles revealed once the game is over.
    $("#game").hidden = false;
    $("#title").textContent = `Game ${id}`;
    let st = null, pending = false;
    // which day is shown: "live" follows the latest, "all", or a number
    let pick = "live";
    const reset = (begin) => {
      st = { g: AW.newGame(), n: begin.players, over: false, reveal: begin.seed !== undefined };
      AW.add(st.g, begin);
      $("#log").innerHTML = "";
      $("#title").textContent = `Game ${id}: ${begin.players} players, ${begin.preset}` + (begin.seed !== undefined ? `, seed ${begin.seed}` : "");
    };
    const shownDay = () => {
      const last = st ? st.g.lastDay : 0;
      return pick === "live" ? last : pick === "all" ? -1 : Math.min(+pick, last);
    };
    const controls = () => {
      const last = st ? st.g.lastDay : 0, sel = $("#day-pick"), keep = pick;
      if (sel.options.length !== last + 3) {
        sel.textContent = "";
        sel.appendChild(new Option(st && st.over ? "the last day" : "the latest day (live)", "live"));
        sel.appendChild(new Option("all days", "all"));
        for (let d = 0; d <= last; d++) sel.appendChild(new Option(`Day ${d}`, String(d)));
      }
      sel.value = keep;
      const d = shownDay();
      $("#prev").disabled = d === 0 || d < 0 && last === 0;
      $("#next").disabled = pick === "live" || pick === "all" || d >= last;
    };
    const setPick = (p) => { pick = p; st && (st.redrawAll = true); if (!pending) { pending = true; requestAnimationFrame(draw); } };
    const step = (by) => {
      if (!st) return;
      const last = st.g.lastDay, d = shownDay() < 0 ? (by < 0 ? last + 1 : -1) : shownDay();
      const n = Math.max(0, Math.min(last, d + by));
      setPick(n === last && !st.over ? "live" : String(n));
    };
    $("#prev").addEventListener("click", () => step(-1));
    $("#next").addEventListener("click", () => step(1));
    $("#day-pick").addEventListener("change", (e) => setPick(e.target.value));
    $("#lang").addEventListener("change", () => setPick(pick));
    document.addEventListener("keydown", (e) => {
      if (e.target && e.target.tagName === "SELECT") return;
      if (e.key === "ArrowLeft" || e.key === "k") step(-1);
      else if (e.key === "ArrowRight" || e.key === "j") step(1);
    });
    // Redraws the players and the days that changed, once per frame; every
    // day stays in the page, the ones not picked hidden.
    const draw = () => {
      pending = false;
      if (!st) return;
      const g = st.g, last = g.lastDay, shown = shownDay();
      const opts = { lang: $("#lang").value, reveal: st.reveal || st.over, agent: 0 };
      AW.renderPlayers($("#agents tbody"), g, shown < 0 ? last : shown, opts);
      const follow = window.innerHeight + window.scrollY >= document.body.scrollHeight - 40;
      for (let d = 0; d <= last; d++) {
        let box = document.getElementById(`day-${d}`);
        if (!box) {
          const wrap = document.createElement("div");
          wrap.className = "day";
          wrap.id = `wrap-${d}`;
          const h = document.createElement("h3");
          h.textContent = `Day ${d}`;
          wrap.appendChild(h);
          box = document.createElement("div");
          box.id = `day-${d}`;
          wrap.appendChild(box);
          $("#log").appendChild(wrap);
        }
        document.getElementById(`wrap-${d}`).hidden = shown >= 0 && d !== shown;
        if (d >= last - 1 || st.redrawAll) AW.renderDay(box, g, d, opts);
      }
      st.redrawAll = false;
      controls();
      if (follow && !st.over && pick !== "all") window.scrollTo(0, document.body.scrollHeight);
    };
    const on = (e) => {
      if (e.event === "begin") { reset(e); st.redrawAll = true; }
      else if (e.event === "abandoned") { $("#note").textContent = "The game was abandoned (the server stopped)."; return; }
      else if (!st) return;
      else AW.add(st.g, e);
      if (e.event === "result") {
        st.over = true;
        st.redrawAll = true;
        $("#note").textContent = st.reveal ? "The game is over." : "The game is over: the full record follows.";
      }
      if (!pending) { pending = true; requestAnimationFrame(draw); }
    };
    const connect = () => {
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/game/${id}`);
      $("#status").textContent = "connecting";
      ws.onopen = () => { $("#status").textContent = "live"; };
      ws.onmessage = (m) => { try { on(JSON.parse(m.data)); } catch (x) { console.error(x); } };
      ws.onclose = () => { $("#status").textContent = st && st.over ? "over" : "disconnected"; };
    };
    connect();
    // for tests: the state, and events fed as if the server sent them
    window.awLive = { state: () => st, feed: on, day: shownDay };
  }
})();
