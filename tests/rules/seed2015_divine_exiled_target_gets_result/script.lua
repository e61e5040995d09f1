-- Seed 003, 3.2.2.2: "The seer gets the result even if the target was exiled
-- or attacked." The divination is chosen after the exile (3.2.2 steps 2-3),
-- so a seer who divines the player exiled that day gets that player's result,
-- not a random substitute.
return scripted {
  vote = {[1] = {[1] = 4, [2] = 4, [3] = 4, [4] = 1, [5] = 4}},
  divine = {[1] = {[1] = 4}},
  attack = {[1] = {[2] = 5}},
}
