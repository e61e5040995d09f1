-- getName() returns a string with a newline, comma, quote, backslash, ESC and
-- invalid UTF-8 (\255\254). The host copies getName's result raw
-- (runtime/luaseat.c do_name: no control-byte or UTF-8 check, unlike talk
-- replies).
-- RESULT: the record and CSV log replace control bytes and commas with '_',
-- but (1) the "[Agent[NN] name]" prefix of printed agent output gets the raw
-- name: a real newline and terminal escapes reach the operator's terminal;
-- (2) \255\254 goes raw into the CSV log (aiwolf check still says "legal")
-- and into the events file, whose lines are then not valid JSON (not UTF-8).
local agent = {}
function agent:getName() return "evil\n1,fake,line\"\\\27[31mRED\27[0m\255\254" end
function agent:initialize() print("hello") end
return agent
