-- After maxTalk (10) real talks an agent says Over without being asked; the talk then ends.
return scripted {
  talk = {[1] = {[1] = {"VOTE Agent[02]"}}},
  talk_default = "repeat",
}
