-- A vote for a dead agent is replaced by a random living other agent.
return scripted {
  vote = {[1] = {[1] = 4, [2] = 4, [3] = 4, [4] = 5, [5] = 4},
          [2] = {[1] = 4, [2] = 5, [3] = 5, [5] = 2}},
  attack = {[1] = {[2] = 3}},
}
