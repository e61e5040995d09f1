"""Each command's --help and the documents say the same limits: for every
option whose --help gives a default or a range (`default 64`, `1 to 86400`,
`3..18`), the rows and lines of the command's document that name the option
and give a default or a range give the same numbers. Also: every option in
--help is named somewhere in the command's document."""
import os
import re
import subprocess
import sys

BIN = sys.argv[1]
ROOT = sys.argv[2] if len(sys.argv) > 2 else "."
# the document of each command, and the heading its part starts at (None: all of it)
DOCS = {
    "play": [("docs/agents.md", None), ("docs/viewer.md", None), ("docs/settings.md", None)],
    "new": [("docs/agents.md", None)],
    "lint": [("docs/agents.md", None)],
    "connect": [("docs/network.md", r"^## `aiwolf connect`")],
    "serve": [("docs/network.md", r"^## `aiwolf serve`"), ("docs/viewer.md", None)],
    "contest": [("docs/contest.md", None)],
    "view": [("docs/viewer.md", None)],
    "check": [("docs/log-format.md", None), ("docs/settings.md", None)],
    "replay": [("docs/log-format.md", None), ("docs/settings.md", None)],
    "protocol": [("docs/protocol.md", None)],
}
compared = 0
NUM = r"(\d[\d,]*(?:\.\d+)?)(?![\d.])"
LIMIT = [re.compile(r"\bdefault:?\s+" + NUM + r"\b"),
         re.compile(NUM + r"\s*(?:to|\.\.)\s*" + NUM + r"\b")]
fails = []


def limits(text):
    """The defaults and ranges text gives, as a set of strings."""
    out = set()
    for m in LIMIT[0].finditer(text):
        out.add("default " + m.group(1).replace(",", ""))
    for m in LIMIT[1].finditer(text):
        out.add(m.group(1).replace(",", "") + ".." + m.group(2).replace(",", ""))
    return out


def doc_limits(line, opt):
    """The limits a document's line gives for opt: `--opt ARG` (N), and when
    the line names no other option, what limits() finds and `N by default`."""
    out = set()
    for m in re.finditer(r"`" + re.escape(opt) + r"(?: [A-Z]+)?`[^(|`]{0,12}\((\d[\d,]*)", line):
        out.add("default " + m.group(1).replace(",", ""))
    if len(set(re.findall(r"`(--[a-z][a-z-]*)", line))) == 1:
        text = line.split("|", 2)[2] if line.startswith("|") else line
        out |= limits(text)
        for m in re.finditer(NUM + r"\s*(?:ms|MB|s|seconds)?\s+by default", text):
            out.add("default " + m.group(1).replace(",", ""))
    return out


def help_options(cmd):
    """{option: text of its --help entry}."""
    r = subprocess.run([BIN, cmd, "--help"], capture_output=True, text=True)
    opts, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^  (?:-\w, )?(--[a-z][a-z-]*)", line)
        if m:
            cur = m.group(1)
            opts[cur] = line
        elif cur and line.startswith("      "):
            opts[cur] += " " + line.strip()
        else:
            cur = None
    return opts


def doc_part(path, heading):
    text = open(os.path.join(ROOT, path)).read()
    if heading:
        m = re.search(heading, text, re.M)
        if not m:
            fails.append(f"{path}: no heading {heading}")
            return ""
        rest = text[m.end():]
        n = re.search(r"^## ", rest, re.M)
        text = rest[:n.start()] if n else rest
    return text


for cmd, parts in DOCS.items():
    doc = "\n".join(doc_part(p, h) for p, h in parts)
    path = " or ".join(p for p, _ in parts)
    for opt, entry in help_options(cmd).items():
        if opt == "--help":
            continue
        said = [l for l in doc.splitlines() if re.search(r"`" + re.escape(opt) + r"\b", l)]
        if not said:
            fails.append(f"{cmd} {opt}: in --help, not in {path}")
            continue
        want = limits(entry)
        for l in said:
            have = doc_limits(l, opt)
            for lim in have:
                kind = lim.split(" ")[0] if lim.startswith("default") else "range"
                mine = {x for x in want if (x.startswith("default") if kind == "default" else ".." in x)}
                compared += 1 if mine else 0
                if mine and lim not in mine:
                    fails.append(f"{cmd} {opt}: --help says {sorted(mine)}, {path} says {lim}: {l.strip()[:160]}")
if compared < 6:
    fails.append(f"only {compared} limits compared: the parsing is broken")
for f in fails:
    print("FAIL:", f)
print(f"help_limits: {compared} limits compared:", "ok" if not fails else f"{len(fails)} disagreements")
sys.exit(1 if fails else 0)
