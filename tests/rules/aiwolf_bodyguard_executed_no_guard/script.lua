-- A bodyguard executed that day guards nobody (it is not even asked), so the attack succeeds.
return scripted {
  vote = {[1] = {[1] = 3, [2] = 3, [3] = 7, [4] = 3, [5] = 3, [6] = 3, [7] = 3, [8] = 3, [9] = 3, [10] = 3}},
  guard = {[1] = {[3] = 1}},
  attack = {[1] = {[5] = 1, [6] = 1}},
}
