-- Seed 2015: a tie is broken at random at once, without a revote.
return scripted {
  vote = {[1] = {[1] = 2, [2] = 1, [3] = 1, [4] = 2, [5] = 3}},
}
