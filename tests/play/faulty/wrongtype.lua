-- A faulty agent (tests/play/faulty_agents.sh, tests/isolate/isolate_play.sh):
-- replies of the wrong type.
return {
  talk = function() return {} end,
  vote = function() return "three" end,
  divine = function() return 2.5 end,
  attack = function() return true end,
}
