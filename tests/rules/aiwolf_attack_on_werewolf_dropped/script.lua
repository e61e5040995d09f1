-- Official rules: an attack vote for a werewolf is dropped (no line); the other vote decides.
return scripted {
  vote = {[1] = {[1] = 4, [2] = 4, [3] = 4, [4] = 5, [5] = 4, [6] = 4, [7] = 4}},
  attack = {[1] = {[2] = 3, [3] = 5}},
}
