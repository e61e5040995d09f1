-- With no execution after a tie and no attack, nobody need ever die: the day limit (max_days) ends the game with no winner.
local tie = {[1] = 2, [2] = 1, [3] = 1, [4] = 2, [5] = 3}
return scripted {
  vote = {[1] = tie, [2] = tie, [3] = tie},
}
