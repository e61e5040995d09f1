// events.js: turns game events (docs/events.schema.json objects; talk and
// whisper may carry "en"/"ja" descriptions) into a model of the game and
// renders one day of it. Shared by the log viewer and the live pages.
"use strict";
var AW = (function () {
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function agentName(a) { return "Agent[" + (a < 10 ? "0" : "") + a + "]"; }

  // Maps keyed by what a file says: no prototype, so that "__proto__" or
  // "constructor" in an untrusted file is a key like any other.
  function dict() { return Object.create(null); }
  function isAgent(a) { return typeof a === "number" && a % 1 === 0 && a >= 0 && a < 1000; }

  // A model: players by number, days by number, the result.
  function newGame() {
    return { players: dict(), order: [], days: dict(), lastDay: 0, result: null, hasCalls: false };
  }
  function day(g, d) {
    if (!g.days[d]) {
      g.days[d] = { day: d, talks: [], whispers: [], votes: [], attackVotes: [], divines: [], guards: [],
                    executes: [], attacks: [], faults: [], substitutes: [], replaced: [], errors: [] };
      if (d > g.lastDay) g.lastDay = d;
    }
    return g.days[d];
  }
  function player(g, a) {
    if (!isAgent(a)) return { agent: a, name: "", role: "", diedDay: null, diedHow: "", revealDay: null, calls: 0, timed: 0, us: 0, faults: 0 }; // not kept
    if (!g.players[a]) { g.players[a] = { agent: a, name: "", role: "", diedDay: null, diedHow: "", revealDay: null, calls: 0, timed: 0, us: 0, faults: 0 }; g.order.push(a); g.order.sort(function (x, y) { return x - y; }); }
    return g.players[a];
  }
  function add(g, e) {
    if (!e || typeof e !== "object") return;
    var d = typeof e.day === "number" ? e.day : 0, p;
    switch (e.event) {
    case "begin":
      if (Array.isArray(e.agents))
        e.agents.forEach(function (x) { if (x && typeof x === "object") { p = player(g, x.agent); p.name = x.name; p.role = x.role; } });
      break;
    case "status":
      p = player(g, e.agent);
      if (!p.role) p.role = e.role;
      if (e.alive === false && p.diedDay === null) { p.diedDay = d; p.diedHow = p.diedHow || "dead"; }
      day(g, d);
      break;
    case "talk": day(g, d).talks.push(e); break;
    case "whisper": day(g, d).whispers.push(e); break;
    case "vote": day(g, d).votes.push(e); break;
    case "attackVote": day(g, d).attackVotes.push(e); break;
    case "divine": day(g, d).divines.push(e); break;
    case "guard": day(g, d).guards.push(e); break;
    case "execute":
      day(g, d).executes.push(e); p = player(g, e.agent);
      p.diedDay = d; p.diedHow = "executed"; p.revealDay = d; if (e.role) p.role = p.role || e.role;
      break;
    case "attack":
      day(g, d).attacks.push(e);
      if (e.success && e.target > 0) { p = player(g, e.target); p.diedDay = d; p.diedHow = "attacked"; }
      break;
    case "result": g.result = e; day(g, d); break;
    case "error": // an agent failed (counted toward the error ratio)
      day(g, d).errors.push(e); p = player(g, e.agent);
      if (p.failedDay === undefined) p.failedDay = d;
      break;
    case "call":
      g.hasCalls = true; p = player(g, e.agent);
      // a late line is the fault of a notification counted already
      if (!e.late) { p.calls++; if (e.us !== undefined) { p.timed++; p.us += e.us; } } // a live stream leaves the time out
      if (e.fault) { p.faults++; day(g, d).faults.push(e); }
      break;
    case "substitute": day(g, d).substitutes.push(e); break;
    case "talkReplaced": day(g, d).replaced.push(e); break;
    }
  }
  function build(events) { var g = newGame(); events.forEach(function (e) { add(g, e); }); return g; }

  // What a person may see of a role on day d (roles come out at execution
  // and at the end), unless all are shown.
  function roleShown(g, p, d, all) {
    if (!p.role) return false; // not in the stream yet (a live game's secret)
    if (all) return true;
    if (g.result && d >= g.result.day) return true;
    return p.revealDay !== null && p.revealDay <= d;
  }
  function who(g, a) {
    var p = g.players[a];
    // a contest game: the entry (the organiser's name for it) beside the
    // agent's own name, when they differ
    return agentName(a) + (p && p.name ? " " + p.name : "") + (p && p.entry && p.entry !== p.name ? " [" + p.entry + "]" : "");
  }

  function renderPlayers(tbody, g, d, opts) {
    tbody.textContent = "";
    g.order.forEach(function (a) {
      var p = g.players[a], tr = el("tr");
      if (p.diedDay !== null && p.diedDay <= d) tr.className = "dead";
      tr.dataset.agent = a;
      tr.appendChild(el("td", null, agentName(a)));
      tr.appendChild(el("td", null, p.name));
      if (g.hasEntries) tr.appendChild(el("td", "entry", p.entry || ""));
      var shown = roleShown(g, p, d, opts.reveal);
      tr.appendChild(el("td", shown ? "role role-" + p.role : "role role-hidden", shown ? p.role : "?"));
      tr.appendChild(el("td", null, (p.diedDay !== null && p.diedDay <= d ? p.diedHow + " (day " + p.diedDay + ")" : "alive") +
        (p.failedDay !== undefined && p.failedDay <= d ? ", failed (day " + p.failedDay + ")" : "")));
      if (g.hasCalls) tr.appendChild(el("td", null, p.calls + (p.calls === 1 ? " call" : " calls") + (p.timed ? ", " + Math.round(p.us / p.timed) + " µs avg" : "") + (p.faults ? ", " + p.faults + (p.faults === 1 ? " fault" : " faults") : "")));
      tbody.appendChild(tr);
    });
  }

  function utterance(g, e, cls, opts) {
    var div = el("div", cls);
    div.dataset.agent = e.agent;
    div.appendChild(el("span", "who", who(g, e.agent)));
    var said = e[opts.lang] || e.en;
    var skip = e.text === "Over" || e.text === "Skip";
    div.appendChild(el("span", skip ? "said skip" : "said", said || e.text));
    if (said) div.appendChild(el("code", "raw", e.text)); // the protocol text once, never twice
    return div;
  }

  function voteTable(g, votes, title, cls) {
    var box = el("div", "votes " + cls);
    var rounds = dict();
    votes.forEach(function (v) { (rounds[v.round || 0] = rounds[v.round || 0] || []).push(v); });
    Object.keys(rounds).sort(function (x, y) { return x - y; }).forEach(function (r) {
      box.appendChild(el("h3", null, title + (Object.keys(rounds).length > 1 ? " (round " + (+r + 1) + ")" : "")));
      var t = el("table", "vote-table"), head = el("tr");
      head.appendChild(el("th", null, "voter")); head.appendChild(el("th", null, "votes for"));
      t.appendChild(head);
      var count = dict();
      rounds[r].forEach(function (v) {
        var tr = el("tr"); tr.dataset.agent = v.agent;
        tr.appendChild(el("td", null, who(g, v.agent)));
        tr.appendChild(el("td", null, v.target > 0 ? who(g, v.target) : "nobody"));
        t.appendChild(tr);
        if (v.target > 0) count[v.target] = (count[v.target] || 0) + 1;
      });
      box.appendChild(t);
      var tally = Object.keys(count).sort(function (x, y) { return count[y] - count[x]; })
        .map(function (a) { return agentName(+a) + " " + count[a]; }).join(", ");
      if (tally) box.appendChild(el("div", "tally", "tally: " + tally));
    });
    return box;
  }

  // Renders day d of g into box. opts: {lang, reveal, agent (0: all)}.
  function renderDay(box, g, d, opts) {
    box.textContent = "";
    var D = g.days[d];
    if (!D) { box.appendChild(el("p", null, "Nothing happened on day " + d + ".")); return; }
    var keep = function (e) { return !opts.agent || e.agent === opts.agent || e.target === opts.agent; };
    function section(title, items, render) {
      items = items.filter(keep);
      if (!items.length) return;
      box.appendChild(el("h3", null, title));
      items.forEach(function (e) { box.appendChild(render(e)); });
    }
    section("Talk", D.talks, function (e) { return utterance(g, e, "talk", opts); });
    section("Whispers (werewolves)", D.whispers, function (e) { return utterance(g, e, "whisper", opts); });
    var votes = D.votes.filter(keep);
    if (votes.length) box.appendChild(voteTable(g, votes, "Votes", "day-votes"));
    section("Execution", D.executes, function (e) { return el("div", "fact execute", who(g, e.agent) + " was executed" + (e.role ? " (" + e.role + ")" : "")); });
    section("Divination", D.divines, function (e) { return el("div", "fact divine", who(g, e.agent) + " divined " + who(g, e.target) + ": " + e.result); });
    section("Guard", D.guards, function (e) { return el("div", "fact guard", who(g, e.agent) + " guarded " + who(g, e.target) + (e.role ? " (" + e.role + ")" : "")); });
    var av = D.attackVotes.filter(keep);
    if (av.length) box.appendChild(voteTable(g, av, "Attack votes", "attack-votes"));
    section("Attack", D.attacks, function (e) {
      return el("div", "fact attack", e.target > 0 ? who(g, e.target) + (e.success ? " was attacked and died" : " was attacked but survived") : "No one was attacked");
    });
    section("Faults", D.faults, function (e) { return el("div", "fact fault", who(g, e.agent) + " " + e.call + ": " + e.fault + (e.message ? " — " + e.message : "")); });
    section("Substitutes", D.substitutes, function (e) { return el("div", "fact", who(g, e.agent) + " " + e.call + ": gave " + e.given + ", used " + e.used + " (" + e.reason + ")"); });
    section("Replaced talk", D.replaced, function (e) { return el("div", "fact", who(g, e.agent) + " said " + JSON.stringify(e.said) + ", logged " + e.logged + " (" + e.reason + ")"); });
    section("Failed agents", D.errors, function (e) { return el("div", "fact fault", who(g, e.agent) + " has failed (it counts toward the error ratio)"); });
    if (g.result && g.result.day === d) {
      var left = " (" + g.result.humans + " humans, " + g.result.werewolves + " werewolves left)";
      var r = g.result.winner !== "NONE" ? "Result: " + g.result.winner + " wins" + left
        : g.result.abandoned ? "Result: no winner: abandoned, too many agents failed" + left
        : "Result: no winner: the day limit ended the game" + left;
      box.appendChild(el("div", "result", r));
    }
  }

  return { build: build, add: add, newGame: newGame, renderDay: renderDay, renderPlayers: renderPlayers, agentName: agentName, el: el };
})();
