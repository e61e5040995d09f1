// viewer_browser.mjs: `aiwolf view` in headless Chromium, checking what a
// person sees against the files themselves (read here, not hard-coded):
//   node viewer_browser.mjs LOG_URL LOG DIR_URL DIR MIXED_URL SHOTS
// LOG_URL serves one recorded official game (LOG); DIR_URL a contest folder
// (DIR); MIXED_URL a garbage file, a chaos log, the official game gzipped
// and an events file of two games. SHOTS: a folder for screenshots, or "-".
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launch } from "./cdp.mjs";

const [logUrl, logPath, dirUrl, dirPath, mixedUrl, shots] = process.argv.slice(2);
let fails = 0;
const check = (ok, what) => { if (!ok) { fails++; console.log("viewer_browser: FAIL " + what); } };
const agentName = (a) => "Agent[" + String(a).padStart(2, "0") + "]";

// The recorded game, read here: roles, day-1 talk and votes, last day, winner.
const lines = readFileSync(logPath, "utf8").trim().split("\n").map((l) => l.split(","));
const roles = {};
lines.filter((f) => f[0] === "0" && f[1] === "status").forEach((f) => { roles[+f[2]] = f[3]; });
const players = Object.keys(roles).length;
const seer = +Object.keys(roles).find((a) => roles[a] === "SEER");
const firstVoteTalk = lines.find((f) => f[0] === "1" && f[1] === "talk" && /^VOTE Agent\[\d\d\]$/.test(f.slice(5).join(",")));
const votes1 = lines.filter((f) => f[0] === "1" && f[1] === "vote");
const result = lines.find((f) => f[1] === "result");

const b = await launch();
const text = (sel) => b.eval(`Array.from(document.querySelectorAll(${JSON.stringify(sel)})).map(e => e.textContent)`);
const shot = async (name) => { if (shots !== "-") writeFileSync(join(shots, name), await b.screenshot()); };
try {
  // 1. one official game
  await b.goto(logUrl);
  await b.waitFor("document.querySelectorAll('#players tbody tr').length > 0");
  check((await text("#players tbody tr")).length === players, `${players} players listed`);
  check((await text("#day-title"))[0] === "Day 1", "opens on day 1");
  const roleCells = await b.eval(`Array.from(document.querySelectorAll('#players tbody tr')).map(r => [r.dataset.agent, r.cells[2].textContent])`);
  const seerCell = roleCells.find((r) => +r[0] === seer);
  check(seerCell && seerCell[1] === "?", `the seer's role is hidden on day 1 (got ${seerCell && seerCell[1]})`);
  // a talk's readable sentence with its protocol text
  const target = firstVoteTalk.slice(5).join(",").slice(5);
  const want = `${agentName(+firstVoteTalk[4])} will vote for ${target}`;
  const talks = await b.eval(`Array.from(document.querySelectorAll('#day .talk')).map(t => [t.querySelector('.said').textContent, t.querySelector('code').textContent])`);
  check(talks.some((t) => t[0] === want && t[1] === "VOTE " + target), `the talk "${want}" with its text`);
  // the day's votes as a table, voter by voter as in the log
  const rows = await b.eval(`Array.from(document.querySelectorAll('#day .day-votes .vote-table tr')).slice(1).map(r => [r.cells[0].textContent, r.cells[1].textContent])`);
  check(rows.length === votes1.length, `day 1 has ${votes1.length} vote rows (got ${rows.length})`);
  votes1.forEach((f) => check(rows.some((r) => r[0].startsWith(agentName(+f[2])) && r[1].startsWith(agentName(+f[3]))),
    `${agentName(+f[2])} votes for ${agentName(+f[3])}`));
  await shot("viewer-game.png");
  // the role toggle
  await b.eval("document.getElementById('reveal').click()");
  const shown = await b.eval(`Array.from(document.querySelectorAll('#players tbody tr')).map(r => [r.dataset.agent, r.cells[2].textContent])`);
  check(shown.every((r) => r[1] === roles[r[0]]), "show all roles: every role as dealt");
  await b.eval("document.getElementById('reveal').click()");
  // keyboard, day by day
  await b.key("ArrowRight");
  check((await text("#day-title"))[0] === "Day 2", "right arrow: day 2");
  await b.key("ArrowLeft");
  check((await text("#day-title"))[0] === "Day 1", "left arrow: day 1");
  await b.key("End");
  check((await text("#day-title"))[0] === "Day " + result[0], "End: the last day");
  const res = (await text("#day .result"))[0] || "";
  check(res.includes(result[4] + " wins"), `the result: ${result[4]} wins (got "${res}")`);
  const revealed = await b.eval(`Array.from(document.querySelectorAll('#players tbody tr')).every(r => r.cells[2].textContent !== '?')`);
  check(revealed, "every role is known at the end");
  await b.key("Home");
  await b.key("j");
  // Japanese
  await b.eval("{ const s = document.getElementById('lang'); s.value = 'ja'; s.dispatchEvent(new Event('change')) }");
  const ja = await text("#day .talk .said");
  check(ja.some((t) => t === `${agentName(+firstVoteTalk[4])}は${target}に投票する`), "the same talk in Japanese");
  // filter by agent
  await b.eval(`{ const f = document.getElementById('agent-filter'); f.value = '${seer}'; f.dispatchEvent(new Event('change')) }`);
  const who = await b.eval("Array.from(document.querySelectorAll('#day .talk')).map(t => +t.dataset.agent)");
  check(who.length > 0 && who.every((a) => a === seer), `agent filter: only ${agentName(seer)}'s talk`);

  // 2. a contest folder: the list, search, a game, the report
  const tsv = readFileSync(join(dirPath, "games.tsv"), "utf8").trim().split("\n").map((l) => l.split("\t"));
  await b.goto(dirUrl);
  await b.waitFor("document.querySelectorAll('#games li').length > 0");
  check((await text("#games li")).length === tsv.length, `${tsv.length} games listed`);
  const wolves = tsv.filter((c) => c[7] === "WEREWOLF").length;
  await b.eval("{ const s = document.getElementById('search'); s.value = 'werewolf won'; s.dispatchEvent(new Event('input')) }");
  check((await text("#games li")).length === wolves, `search "werewolf won": ${wolves} games`);
  await b.eval("{ const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input')) }");
  await b.eval("document.querySelector('#games li').click()");
  await b.waitFor("document.querySelectorAll('#players tbody tr').length > 0");
  check((await text("#players tbody tr")).length === +tsv[0][4], `game 0 has ${tsv[0][4]} players`);
  check(await b.eval("!document.getElementById('report-link').hidden"), "a link to the contest report");
  const rep = await b.eval("fetch('/report').then(r => r.status + ' ' + r.headers.get('content-security-policy'))");
  check(rep.startsWith("200 sandbox"), "the report is served sandboxed: " + rep);
  await shot("viewer-contest.png");

  // 3. bad, chaos, gzip and events files side by side
  await b.goto(mixedUrl);
  await b.waitFor("document.querySelectorAll('#games li').length === 4");
  const open = async (i) => {
    await b.eval(`document.querySelectorAll('#games li')[${i}].click()`);
    await b.waitFor("document.getElementById('message').hidden || document.getElementById('message').className === 'error'");
  };
  await open(0);
  const msg = (await text("#message"))[0];
  check(await b.eval("document.getElementById('message').className === 'error' && document.getElementById('game').hidden"),
    "a garbage file gives a message: " + msg);
  await open(1);
  check((await text("#players tbody tr")).length > 0, "a chaos log shows its players");
  await open(2);
  check((await text("#players tbody tr")).length === players, "the gzipped log shows its players");
  await open(3);
  check(await b.eval("!document.getElementById('subgame').hidden && document.getElementById('subgame').options.length === 2"),
    "an events file of two games: a choice of game");
  check(await b.eval("!document.getElementById('calls-head').hidden"), "an events file: calls per agent");
  check((await text("#day .talk .said")).some((t) => /^Agent\[\d\d\] /.test(t)), "an events file: talks as sentences");
  await shot("viewer-events.png");
  const errors = b.events.filter((e) => e.method === "Runtime.exceptionThrown");
  check(errors.length === 0, "no script errors: " + errors.map((e) => e.params.exceptionDetails.text).join("; "));
} catch (err) {
  fails++;
  console.log("viewer_browser: FAIL " + err.message);
} finally {
  await b.close();
}
console.log(fails ? `viewer_browser: ${fails} failure(s)` : "viewer_browser: ok");
process.exit(fails ? 1 : 0);
