-- Talk goes on while anybody says something other than Over, and ends after the first turn in which everybody says Over.
return scripted {
  talk = {[1] = {[1] = {"VOTE Agent[02]"}}},
}
