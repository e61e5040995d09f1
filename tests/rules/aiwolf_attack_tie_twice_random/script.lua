-- Still tied after the revote: one of the tied agents is attacked at random.
return scripted {
  vote = {[1] = {[1] = 6, [2] = 6, [3] = 6, [4] = 6, [5] = 6, [6] = 7, [7] = 6}},
  attack = {[1] = {[2] = 4, [3] = 5}},
}
