-- Only living werewolves whisper (any other agent asked to whisper raises an error, which would be a fault); on day 0 they whisper before the divination.
return scripted {
  whisper = {[0] = {[5] = {"ATTACK Agent[01]"}}},
  divine = {[0] = {[1] = 5}},
}
