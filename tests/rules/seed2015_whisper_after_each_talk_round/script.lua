-- Seed 2015: the werewolves whisper after every talk round; nobody talks or whispers on day 0.
return scripted {
  talk = {[1] = {[1] = {"VOTE Agent[02]"}}},
}
