-- Official rules: the game is not checked between the execution and the attack; the attack follows an execution that already decided the game.
return scripted {
  divine = {[1] = {[1] = 2}},
  vote = {[1] = {[1] = 3, [2] = 3, [3] = 2}},
  attack = {[1] = {[2] = 1}},
}
