"""check_counts.py DIR: every entry of DIR/results.json (ranked or not) has
as games the distinct games DIR/games.tsv shows it in and as seats the
seats it held there; and some entry holds more seats than games (the
contest has entries with several seats in one game)."""
import json
import sys

d = sys.argv[1]
r = json.load(open(d + "/results.json"))
names = [l.split("\t")[2] for l in open(d + "/contest.cfg") if l.startswith("entry\t")]
games, seats = {}, {}
for line in open(d + "/games.tsv"):
    es = line.split("\t")[5].split(",")
    for x in es:
        seats[names[int(x)]] = seats.get(names[int(x)], 0) + 1
    for x in set(es):
        games[names[int(x)]] = games.get(names[int(x)], 0) + 1
every = r["entries"] + r["not_ranked"]
assert len(every) == len(names), (len(every), names)
for e in every:
    assert e["games"] == games[e["name"]] and e["seats"] == seats[e["name"]], (e["name"], e["games"], e["seats"])
assert max(seats.values()) > max(games.values()), (seats, games)
