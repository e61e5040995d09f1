-- A tied vote (Agent[01] and Agent[02] have two votes each) is voted again; the revote's unique top is executed.
return scripted {
  divine = {[0] = {[1] = 3}},
  vote = {[1] = {[1] = 2, [2] = 1, [3] = 1, [4] = 2, [5] = {3, 2}}},
}
