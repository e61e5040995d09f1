-- Official rules: quiet turns alone do not end the talk (the same script as the regulation case runs two turns longer).
return scripted {
  talk = {[1] = {[4] = {"Over", "Over", "Skip", "Skip"}, [5] = {"Skip", "Skip", "Over", "Over"}}},
}
