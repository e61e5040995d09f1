-- No vote, a vote for an agent that does not exist and a vote for oneself become a vote for a random living other agent.
return scripted {
  vote = {[1] = {[1] = 4, [2] = 4, [3] = nil, [4] = 9, [5] = "self"}},
}
