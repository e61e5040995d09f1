-- Day 0 has no talk, vote or attack; with a single werewolf nobody whispers; the seer divines.
return scripted {
  divine = {[0] = {[1] = 2}},
}
