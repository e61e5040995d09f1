-- Official rules: an invalid divination does not happen; divining oneself is allowed.
return scripted {
  divine = {[0] = {[1] = 9}, [1] = {[1] = "self"}},
  vote = {[1] = {[1] = 4, [2] = 4, [3] = 4, [4] = 5, [5] = 4}},
  attack = {[1] = {[2] = 5}},
}
