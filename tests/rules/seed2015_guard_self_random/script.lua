-- Seed 2015: guarding oneself is replaced by a random living other agent.
return scripted {
  vote = {[1] = {[1] = 7, [2] = 7, [3] = 7, [4] = 7, [5] = 7, [6] = 7, [7] = 8, [8] = 7, [9] = 7, [10] = 7}},
  guard = {[1] = {[3] = "self"}},
}
