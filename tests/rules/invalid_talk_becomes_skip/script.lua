-- Text the official validator rejects (including the seed's OVER) is logged as Skip; accepted text is logged as said, and 'Over ' with a space counts as a real utterance.
return scripted {
  talk = {[1] = {[1] = {"hello world", "OVER", "VOTE Agent[1]", "Over "}}},
}
