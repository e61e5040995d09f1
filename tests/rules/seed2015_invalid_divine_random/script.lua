-- Seed 2015: an invalid divination is replaced by a random living other agent.
return scripted {
  divine = {[0] = {[1] = 9}},
}
