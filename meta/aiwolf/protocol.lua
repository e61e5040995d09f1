---@meta aiwolf.protocol
-- Annotations for `require "aiwolf.protocol"` (docs/protocol.md); the code
-- is lua/aiwolf/protocol.lua, served by the aiwolf binary inside the
-- sandbox. Build sentences and print them with tostring: the text is then
-- always valid protocol 3.6 in the official spelling.

---@alias aiwolf.AgentRef integer|"ANY"
---@alias aiwolf.Verb "ESTIMATE"|"COMINGOUT"|"DIVINATION"|"GUARD"|"VOTE"|"ATTACK"|"DIVINED"|"IDENTIFIED"|"GUARDED"|"VOTED"|"ATTACKED"|"AGREE"|"DISAGREE"|"OVER"|"SKIP"|"REQUEST"|"INQUIRE"|"BECAUSE"|"DAY"|"NOT"|"AND"|"OR"|"XOR"

---A reference to a talk or whisper (AGREE, DISAGREE).
---@class aiwolf.TalkRef
---@field type "TALK"|"WHISPER"
---@field day integer
---@field id integer

---A sentence tree; `tostring(s)` prints its canonical text.
---@class aiwolf.Sentence
---@field verb aiwolf.Verb
---@field subject? aiwolf.AgentRef omitted subject: see docs/protocol.md, "Subjects"
---@field target? aiwolf.AgentRef
---@field role? aiwolf.Role|"ANY"
---@field species? aiwolf.Species|"ANY"
---@field talk? aiwolf.TalkRef
---@field day? integer DAY's day
---@field args? aiwolf.Sentence[] operands of REQUEST INQUIRE BECAUSE DAY NOT AND OR XOR
---@field who? aiwolf.AgentRef the resolved subject (after P.resolve)

local P = {}

---Whether the parser (the C core the aiwolf binary registers) is there.
---@type boolean
P.has_parser = true
---"ANY": stands for any agent, role or species.
P.ANY = "ANY"
---@type aiwolf.Role[]
P.ROLES = {}
---@type aiwolf.Species[]
P.SPECIES = {}
---What each verb carries (bit flags).
---@type table<aiwolf.Verb, integer>
P.VERBS = {}

---`ESTIMATE Agent[t] ROLE`: I think t is role.
---@param target aiwolf.AgentRef
---@param role aiwolf.Role|"ANY"
---@return aiwolf.Sentence
function P.estimate(target, role) end
---`COMINGOUT Agent[t] ROLE`: t is role (`P.comingout(me, "SEER")`: I am the seer).
---@param target aiwolf.AgentRef
---@param role aiwolf.Role|"ANY"
---@return aiwolf.Sentence
function P.comingout(target, role) end
---`DIVINATION Agent[t]`: I will divine t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.divination(target) end
---`GUARD Agent[t]`: I will guard t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.guard(target) end
---`VOTE Agent[t]`: I will vote for t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.vote(target) end
---`ATTACK Agent[t]`: I will attack t (whispers only).
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.attack(target) end
---`DIVINED Agent[t] SPECIES`: my divination result.
---@param target aiwolf.AgentRef
---@param species aiwolf.Species|"ANY"
---@return aiwolf.Sentence
function P.divined(target, species) end
---`IDENTIFIED Agent[t] SPECIES`: my medium result.
---@param target aiwolf.AgentRef
---@param species aiwolf.Species|"ANY"
---@return aiwolf.Sentence
function P.identified(target, species) end
---`GUARDED Agent[t]`: I guarded t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.guarded(target) end
---`VOTED Agent[t]`: I voted for t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.voted(target) end
---`ATTACKED Agent[t]`: I attacked t.
---@param target aiwolf.AgentRef
---@return aiwolf.Sentence
function P.attacked(target) end
---`AGREE TALK day1 ID:3`.
---@param kind "TALK"|"WHISPER"
---@param day integer
---@param id integer the talk's idx
---@return aiwolf.Sentence
function P.agree(kind, day, id) end
---`DISAGREE TALK day1 ID:3`.
---@param kind "TALK"|"WHISPER"
---@param day integer
---@param id integer
---@return aiwolf.Sentence
function P.disagree(kind, day, id) end
---`Over`: nothing more to say today.
---@return aiwolf.Sentence
function P.over() end
---`Skip`: nothing to say now, but keep talking.
---@return aiwolf.Sentence
function P.skip() end
---`REQUEST Agent[t] (s)`: I ask t to do s.
---@param target aiwolf.AgentRef
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.request(target, s) end
---`INQUIRE Agent[t] (s)`: I ask t about s.
---@param target aiwolf.AgentRef
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.inquire(target, s) end
---`BECAUSE (reason) (conclusion)`.
---@param reason aiwolf.Sentence
---@param conclusion aiwolf.Sentence
---@return aiwolf.Sentence
function P.because(reason, conclusion) end
---`XOR (a) (b)`.
---@param a aiwolf.Sentence
---@param b aiwolf.Sentence
---@return aiwolf.Sentence
function P.xor(a, b) end
---`AND (a) (b) ...`.
---@param ... aiwolf.Sentence
---@return aiwolf.Sentence
function P.and_(...) end
---`OR (a) (b) ...`.
---@param ... aiwolf.Sentence
---@return aiwolf.Sentence
function P.or_(...) end
---`NOT (s)`.
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.not_(s) end
---`P["and"]`, `P["or"]`, `P["not"]`: the same functions as P.and_, P.or_ and
---P.not_ under the protocol's own names (Lua's keywords, hence the brackets).
P["and"] = P.and_
P["or"] = P.or_
P["not"] = P.not_
---`DAY d (s)`: s happened on day d.
---@param d integer
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.day(d, s) end
---Sets the subject of s (in place) and returns s: `P.by(2, P.vote(3))` is `Agent[02] VOTE Agent[03]`.
---@param agent aiwolf.AgentRef
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.by(agent, s) end

---The canonical text, as the official library writes it (the same as tostring(s)).
---@param s aiwolf.Sentence
---@return string
function P.print(s) end
---The text of a sentence about one agent (VOTE, ESTIMATE, DIVINED, ...) or of
---OVER/SKIP, made by joining strings: P.say("VOTE", 3) is tostring(P.vote(3)).
---word: the role (ESTIMATE, COMINGOUT) or species (DIVINED, IDENTIFIED).
---@param verb string
---@param target? integer|"ANY"
---@param word? string
---@return string
function P.say(verb, target, word) end
---Parses text: a tree, or nil and a message with the byte offset.
---@param text string
---@param mode? "strict"|"lenient" default "strict" (what games accept under the default preset)
---@return aiwolf.Sentence?
---@return string? message
function P.parse(text, mode) end
---`P.parse(text, "lenient")`.
---@param text string
---@return aiwolf.Sentence?
---@return string? message
function P.parse_lenient(text) end
---true, or nil and a message.
---@param text string
---@param mode? "lenient"|"strict"|"off"
---@return true?
---@return string? message
function P.validate(text, mode) end
---The canonical text of text, or nil and a message.
---@param text string
---@param mode? "lenient"|"strict"
---@return string?
---@return string? message
function P.normalize(text, mode) end
---Gives a plain table tree (as the host hands talks to agents) the sentence metatable, so tostring works on it.
---@param t table
---@return aiwolf.Sentence
function P.wrap(t) end
---A deep copy of s.
---@param s aiwolf.Sentence
---@return aiwolf.Sentence
function P.copy(s) end
---A copy of s where every node has `who`, its resolved subject.
---@param s aiwolf.Sentence
---@param speaker? integer
---@return aiwolf.Sentence
function P.resolve(s, speaker) end
---s with every ANY replaced by the OR of its concrete versions; nil and a message past max nodes.
---@param s aiwolf.Sentence
---@param alive integer[]
---@param max? integer default 100000
---@return aiwolf.Sentence?
---@return string? message
function P.expand_any(s, alive, max) end
---One line saying what s means, in English ("en", default) or Japanese ("ja").
---@param s aiwolf.Sentence
---@param lang? "en"|"ja"
---@param speaker? integer
---@return string
function P.describe(s, lang, speaker) end

return P
