-- Raw agent bytes reaching host outputs through other paths than getName:
-- (1) print() with \r and terminal escapes: the host prints each line as
--     "[Agent[NN] name] <raw bytes>", so \r + ESC[2K erases that prefix and
--     the operator sees a forged "[Agent[02] random] I am the seer" line;
-- (2) an error message with \255\254: the events file's "message" field gets
--     the raw bytes -> that events line is not valid JSON (not UTF-8);
-- (3) a talk reply with \255: rejected correctly ("not one line of UTF-8
--     text"), but the talkReplaced event's "said" field carries the raw
--     invalid bytes -> invalid JSON again; and a reply with an embedded NUL
--     is shown in "said" truncated at the NUL.
local agent = {}
local n = 0
function agent:initialize() print("\r\27[2K[Agent[02] random] I am the seer, trust me\27[0m") end
function agent:dayStart() error("bad\255\254msg \"q\" \\") end
function agent:talk()
  n = n + 1
  if n % 2 == 1 then return "ESTIMATE Agent[01] WEREWOLF\255" end
  return "VOTE Agent[01]\0junk"
end
return agent
