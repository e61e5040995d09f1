---@meta aiwolf.talks
-- Annotations for `require "aiwolf.talks"` (docs/agents.md, "Reading talks
-- without entries"); the module is the aiwolf binary's own (C, in
-- runtime/luahost/luaseat_info.c), there in every Lua seat and nowhere
-- else (a plain Lua finds no such module).
-- The day's talks and whispers of the `info` of the call under way, read as
-- plain values: the same talks as `info.talkList` / `info.whisperList`, with
-- no table made per talk (nor the list itself, unless you read it). For any
-- other table, or an `info` of an earlier game, `count` and `tree` give nil
-- and `talks` gives nothing.

---@class aiwolf.talks
local T = {}

---How many talks (whisper: whispers) today's list holds, `#info.talkList`;
---nil when info is not the info of the call under way.
---@param info aiwolf.Info
---@param whisper? boolean the whispers instead of the talks
---@return integer?
function T.count(info, whisper) end

---An iterator over the talks (whispers) past the first `from` (default 0):
---`for i, agent, day, idx, turn, text in T.talks(info, seen) do ... end`
---gives what `info.talkList[i]` holds, i counting from from + 1.
---@param info aiwolf.Info
---@param from? integer how many to pass over (those read already)
---@param whisper? boolean the whispers instead of the talks
---@return fun(info: aiwolf.Info, i: integer): integer?, integer, integer, integer, integer, string
---@return aiwolf.Info
---@return integer
function T.talks(info, from, whisper) end

---The host's tree of the i-th talk (whisper) of today, as
---`info.talkList[i].parsed` gives it: a new table at each call (keep it);
---nil where the host replaced the text, past the list's end, or when info
---is not the info of the call under way.
---@param info aiwolf.Info
---@param i integer
---@param whisper? boolean
---@return aiwolf.Sentence?
function T.tree(info, i, whisper) end

return T
