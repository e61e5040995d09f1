-- With the werewolf, the possessed and a villager alive, humans (possessed included) outnumber werewolves 2 to 1 and the game goes on.
return scripted {
  vote = {[1] = {[1] = 2, [2] = 1, [3] = 1, [4] = 1, [5] = 1},
          [2] = {[2] = 5, [3] = 5, [5] = 2}},
  attack = {[1] = {[2] = 4}},
}
