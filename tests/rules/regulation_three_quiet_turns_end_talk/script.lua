-- Regulation: talk also ends after three turns in a row in which nobody said anything but Skip or Over.
return scripted {
  talk = {[1] = {[4] = {"Over", "Over", "Skip", "Skip"}, [5] = {"Skip", "Skip", "Over", "Over"}}},
}
