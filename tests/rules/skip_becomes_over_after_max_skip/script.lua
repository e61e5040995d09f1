-- A third Skip in a row (more than maxSkip 2) is turned into Over.
return scripted {
  talk = {[1] = {[1] = {"Skip", "Skip", "Skip", "Skip"}}},
}
