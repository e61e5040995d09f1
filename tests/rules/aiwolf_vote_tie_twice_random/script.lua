-- Still tied after the one revote (maxRevote 1): one of the tied agents is executed at random; no third round.
return scripted {
  vote = {[1] = {[1] = 2, [2] = 1, [3] = 1, [4] = 2, [5] = 3}},
}
