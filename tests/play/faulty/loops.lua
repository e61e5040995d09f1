-- A faulty agent (tests/play/faulty_agents.sh, tests/isolate/isolate_play.sh):
-- an endless loop in vote.
return { vote = function() while true do end end }
