-- Seed 2015: an invalid attack vote is replaced by a random living non-werewolf.
return scripted {
  vote = {[1] = {[1] = 4, [2] = 4, [3] = 4, [4] = 5, [5] = 4, [6] = 4, [7] = 4}},
  attack = {[1] = {[2] = 3, [3] = 5}},
}
