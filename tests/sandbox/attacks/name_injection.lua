-- getName() returns a string with a newline, comma, quote, backslash, ESC and
-- invalid UTF-8. The host copies getName's result raw (runtime/luaseat.c do_name:
-- no control-byte or encoding check, unlike replies), into the record, the CSV
-- log, the events JSON and the prefix of every printed line.
local agent = {}
function agent:getName() return "evil\n1,fake,line\"\\\27[31mRED\27[0m\255\254" end
function agent:initialize() print("hello") end
return agent
