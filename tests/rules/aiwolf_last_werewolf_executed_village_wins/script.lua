-- When the last werewolf is executed nobody attacks, and the village wins.
return scripted {
  vote = {[1] = {[1] = 2, [2] = 4, [3] = 2, [4] = 2, [5] = 2, [6] = 2, [7] = 2},
          [2] = {[1] = 3, [3] = 4, [4] = 3, [5] = 3, [6] = 3, [7] = 3}},
  attack = {[1] = {[3] = 5}},
}
