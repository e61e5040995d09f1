-- Tied attack votes are voted again (maxAttackRevote 1); the revote's top is attacked.
return scripted {
  vote = {[1] = {[1] = 6, [2] = 6, [3] = 6, [4] = 6, [5] = 6, [6] = 7, [7] = 6}},
  attack = {[1] = {[2] = {4, 5}, [3] = {5, 5}}},
}
