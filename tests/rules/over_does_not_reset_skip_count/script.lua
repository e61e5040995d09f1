-- Only a real utterance resets the Skip count: Skip, Skip, Over, Skip makes the last Skip an Over.
return scripted {
  talk = {[1] = {[1] = {"Skip", "Skip", "Over", "Skip"}, [2] = {"VOTE Agent[03]", "VOTE Agent[03]", "VOTE Agent[03]", "VOTE Agent[03]"}}},
}
