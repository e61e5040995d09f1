// viewer.js: the log viewer's page: the list of games, one game day by day.
"use strict";
(function () {
  var $ = function (id) { return document.getElementById(id); };
  var state = { games: [], current: null, model: null, day: 0, games_in_file: null };

  function message(text, error) {
    var m = $("message");
    m.textContent = text;
    m.className = error ? "error" : "";
    m.hidden = false;
  }

  function opts() {
    return { lang: $("lang").value, reveal: $("reveal").checked, agent: +$("agent-filter").value };
  }

  function show() {
    var g = state.model;
    if (!g) return;
    $("day-title").textContent = "Day " + state.day;
    $("prev").disabled = state.day <= 0;
    $("next").disabled = state.day >= g.lastDay;
    AW.renderPlayers($("players").tBodies[0], g, state.day, opts());
    $("calls-head").hidden = !g.hasCalls;
    $("entry-head").hidden = !g.hasEntries;
    AW.renderDay($("day"), g, state.day, opts());
  }

  function setDay(d) {
    if (!state.model) return;
    state.day = Math.max(0, Math.min(state.model.lastDay, d));
    show();
  }

  // A contest game's faults, with their messages (logs/N.faults).
  function showFaults(g, faults) {
    var box = $("faults");
    box.textContent = "";
    box.hidden = !faults || !faults.length;
    if (box.hidden) return;
    var listed = state.games.filter(function (x) { return x.id === state.current; })[0], total = listed && listed.faults;
    box.appendChild(AW.el("strong", null, (total ? total + " fault" + (total === 1 ? "" : "s") + " in this game; " : "") +
      "the first few of each seat, with their messages (logs/N.faults):"));
    var t = AW.el("table"), head = AW.el("tr");
    ["agent", "entry", "request", "kind", "message"].forEach(function (h) { head.appendChild(AW.el("th", null, h)); });
    t.appendChild(head);
    faults.forEach(function (f) {
      var tr = AW.el("tr", "fault-row");
      tr.dataset.agent = f.agent;
      tr.appendChild(AW.el("td", null, f.agent ? AW.agentName(f.agent) + (g.players[f.agent] && g.players[f.agent].name ? " " + g.players[f.agent].name : "") : ""));
      tr.appendChild(AW.el("td", "entry", f.entry || ""));
      tr.appendChild(AW.el("td", null, f.request || ""));
      tr.appendChild(AW.el("td", "fault", f.kind || ""));
      tr.appendChild(AW.el("td", "message", f.message || ""));
      t.appendChild(tr);
    });
    box.appendChild(t);
  }

  function useModel(events, data) {
    var g = AW.build(events);
    state.model = g;
    // a contest game: each seat's entry, as contest.cfg names it
    if (data && data.entries) {
      g.hasEntries = true;
      data.entries.forEach(function (name, i) { if (g.players[i + 1]) g.players[i + 1].entry = name; });
    }
    showFaults(g, data && data.faults);
    var sel = $("agent-filter"), keep = sel.value;
    sel.textContent = "";
    sel.appendChild(new Option("all", "0"));
    g.order.forEach(function (a) {
      var p = g.players[a];
      sel.appendChild(new Option(AW.agentName(a) + (p.name ? " " + p.name : "") + (p.entry && p.entry !== p.name ? " [" + p.entry + "]" : ""), String(a)));
    });
    sel.value = g.players[keep] ? keep : "0";
    $("message").hidden = true;
    $("game").hidden = false;
    setDay(g.days[1] ? 1 : 0);
  }

  function problems(list, count) {
    var box = $("problems");
    box.textContent = "";
    box.hidden = !count;
    if (!count) return;
    box.appendChild(AW.el("strong", null, count + " line" + (count === 1 ? "" : "s") + " could not be read (shown without them):"));
    var ul = AW.el("ul");
    list.slice(0, 10).forEach(function (p) { ul.appendChild(AW.el("li", null, "line " + p.line + ": " + p.why)); });
    box.appendChild(ul);
  }

  // An events file: JSON lines, one game or several (by "game").
  function fromEvents(data) {
    var byGame = {}, bad = [];
    data.jsonl.split("\n").forEach(function (line, i) {
      if (!line.trim()) return;
      var e;
      try { e = JSON.parse(line); } catch (err) { bad.push({ line: i + 1, why: "not JSON: " + err.message }); return; }
      if (!e || typeof e !== "object" || typeof e.event !== "string") { bad.push({ line: i + 1, why: "not an event object" }); return; }
      var said = data.said && data.said[String(i)];
      if (said) { e.en = said.en; e.ja = said.ja; }
      var k = typeof e.game === "number" ? e.game : 0;
      (byGame[k] = byGame[k] || []).push(e);
    });
    problems(bad, bad.length);
    var keys = Object.keys(byGame).sort(function (x, y) { return x - y; });
    var sub = $("subgame");
    sub.textContent = "";
    keys.forEach(function (k) { sub.appendChild(new Option("game " + k, k)); });
    sub.hidden = keys.length < 2;
    state.games_in_file = byGame;
    if (!keys.length) { message(data.name + ": no events in this file", true); $("game").hidden = true; return; }
    useModel(byGame[keys[0]], null);
  }

  function open(id) {
    state.current = id;
    Array.prototype.forEach.call(document.querySelectorAll("#games li"), function (li) {
      li.classList.toggle("current", +li.dataset.id === id);
    });
    message("Loading…");
    fetch("/api/game/" + id).then(function (r) { return r.json(); }).then(function (data) {
      if (state.current !== id) return;
      if (data.error) { $("game").hidden = true; message(data.name + ": " + data.error, true); return; }
      $("subgame").hidden = true;
      if (data.source === "events") return fromEvents(data);
      problems(data.problems || [], data.problem_count || 0);
      if (!data.events.length) { $("game").hidden = true; message(data.name + ": no game in this file", true); return; }
      useModel(data.events, data);
    }).catch(function (err) {
      $("game").hidden = true;
      message("Could not load the game: " + err.message, true);
    });
  }

  // A contest game's entries, as "alpha ×2, beta, sample ×2" (seat order).
  function entriesText(g) {
    var count = {}, order = [];
    g.seats.forEach(function (s) { if (!count[s[0]]) { count[s[0]] = 0; order.push(s[0]); } count[s[0]]++; });
    return order.map(function (e) { return e + (count[e] > 1 ? " ×" + count[e] : ""); }).join(", ");
  }

  // The list, by the search text, the entry and "with faults" (with an
  // entry chosen: the games where that entry faulted).
  function listGames() {
    var ul = $("games"), f = $("search").value.toLowerCase();
    var entry = $("entry-filter").value, faulty = $("fault-filter").checked, shown = 0;
    ul.textContent = "";
    state.games.forEach(function (g) {
      var about = g.players ? g.players + " players, " + (g.winner === "ABANDONED" ? "abandoned" : g.winner + " won") + ", day " + g.days : "";
      var text = g.name + " " + about + (g.seats ? " " + g.seats.map(function (s) { return s.slice(0, 2).join(" "); }).join(" ") : "");
      if (f && text.toLowerCase().indexOf(f) < 0) return;
      var mine = (g.seats || []).filter(function (s) { return !entry || s[0] === entry; });
      if (entry && !mine.length) return;
      var faults = mine.reduce(function (n, s) { return n + (s[2] || 0); }, 0);
      if (faulty && !faults) return;
      var li = AW.el("li", state.current === g.id ? "current" : "", g.name);
      li.dataset.id = g.id;
      if (g.faults) li.appendChild(AW.el("span", "badge", g.faults + " fault" + (g.faults === 1 ? "" : "s")));
      if (about) li.appendChild(AW.el("small", null, about));
      if (g.seats) li.appendChild(AW.el("small", "entries", entriesText(g)));
      li.addEventListener("click", function () { open(g.id); });
      ul.appendChild(li);
      shown++;
    });
    $("list-count").textContent = shown + " of " + state.games.length + " games";
  }

  $("search").addEventListener("input", function () { listGames(); });
  $("entry-filter").addEventListener("change", function () { listGames(); });
  $("fault-filter").addEventListener("change", function () { listGames(); });
  $("prev").addEventListener("click", function () { setDay(state.day - 1); });
  $("next").addEventListener("click", function () { setDay(state.day + 1); });
  ["reveal", "lang", "agent-filter"].forEach(function (id) { $(id).addEventListener("change", show); });
  $("subgame").addEventListener("change", function () { useModel(state.games_in_file[this.value]); });
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "INPUT" && e.target.type !== "checkbox" || e.target.tagName === "SELECT")) return;
    if (e.key === "ArrowRight" || e.key === "j") { setDay(state.day + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft" || e.key === "k") { setDay(state.day - 1); e.preventDefault(); }
    else if (e.key === "Home") setDay(0);
    else if (e.key === "End" && state.model) setDay(state.model.lastDay);
    else if (e.key === "r") { $("reveal").checked = !$("reveal").checked; show(); }
  });

  fetch("/api/games").then(function (r) { return r.json(); }).then(function (data) {
    state.games = data.games;
    $("title").textContent = "aiwolf view — " + data.title;
    document.title = "aiwolf view — " + data.title;
    $("report-link").hidden = !data.report;
    // a contest: filters by entry and by fault
    var entries = {};
    state.games.forEach(function (g) { (g.seats || []).forEach(function (s) { entries[s[0]] = true; }); });
    var names = Object.keys(entries).sort();
    names.forEach(function (e) { $("entry-filter").appendChild(new Option(e, e)); });
    $("list-filters").hidden = !names.length;
    listGames();
    if (state.games.length === 1 || location.hash) open(location.hash ? +location.hash.slice(1) || 0 : 0);
  }).catch(function (err) { message("Could not load the list of games: " + err.message, true); });
})();
