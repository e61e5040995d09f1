---@meta aiwolf.agent
-- Annotations for `require "aiwolf.agent"` (docs/agents.md, "The helper
-- library aiwolf.agent"); the code is lua/aiwolf/agent.lua, served by the
-- aiwolf binary inside the sandbox.

---A reported divination or medium result heard in talk.
---@class aiwolf.Report
---@field who integer the speaker
---@field verb "DIVINED"|"IDENTIFIED"
---@field target integer
---@field species aiwolf.Species
---@field day integer

---An ATTACK proposal whispered today.
---@class aiwolf.AttackProposal
---@field who integer
---@field target integer
---@field idx integer

---One sentence a talk asserts, with its resolved subject.
---@class aiwolf.Assertion
---@field who integer|"ANY"|nil
---@field s aiwolf.Sentence

---The base agent: keeps the game state; its divine, guard and attack pick a
---random legal target, talk and whisper say "Over". Read the fields, do not
---assign them. An agent that overrides `initialize` or `update` calls the
---base first: `A.Agent.update(self, info)`.
---@class aiwolf.Agent: aiwolf.AgentMethods
---@field name? string the name getName returns (default "agent")
---@field info aiwolf.Info the latest info
---@field setting aiwolf.Setting
---@field me integer own number
---@field role aiwolf.Role own role
---@field day integer current day
---@field alive integer[] the living agents, sorted (a new list only when someone dies: never modify it)
---@field others integer[] the living agents but oneself, sorted (the same)
---@field divinations aiwolf.Judge[] own seer results, oldest first
---@field identifications aiwolf.Judge[] own medium results, oldest first
---@field divined table<integer, aiwolf.Species> own seer results by target
---@field identified table<integer, aiwolf.Species> own medium results by target
---@field claims table<integer, aiwolf.Role> the latest role each agent claimed for itself
---@field claimants integer[] agents in the order they first came out
---@field reports aiwolf.Report[] every DIVINED/IDENTIFIED heard, once per (speaker, verb, target)
---@field declared table<integer, integer> the latest VOTE each agent declared today
---@field voters integer[] the agents in `declared`, sorted (`A.sorted_keys(self.declared)`, kept as votes are heard)
---@field declaredVersion integer grows whenever `declared` changes (a new day's empty one included)
---@field estimates table<integer, table<integer, aiwolf.Role>> ESTIMATEs heard today
---@field attackProposals aiwolf.AttackProposal[] werewolves: ATTACK targets whispered today
---@field executed table<integer, integer> agent -> day executed
---@field killed table<integer, integer> agent -> day killed by the werewolves (so certainly human)
---@field votes aiwolf.Vote[] every day's final votes, oldest first
---@field version integer grows whenever claims, reports, own results, deaths or votes change: keep what you derive from them until it moves
---@field onTalk? fun(self, talk: aiwolf.Talk, who: integer|"ANY"|nil, s: aiwolf.Sentence) called by update for each new sentence heard
---@field onWhisper? fun(self, talk: aiwolf.Talk, who: integer|"ANY"|nil, s: aiwolf.Sentence) the same for whispers
local Agent = {}

---@return string
function Agent:getName() end
---@param info aiwolf.Info
---@param setting aiwolf.Setting
function Agent:initialize(info, setting) end
---@param info aiwolf.Info
function Agent:update(info) end
function Agent:dayStart() end
---@return string?
function Agent:talk() end
---@return string?
function Agent:whisper() end
---@return integer?
function Agent:vote() end
---@return integer?
function Agent:divine() end
---@return integer?
function Agent:guard() end
---@return integer?
function Agent:attack() end
function Agent:finish() end
---The agents whose latest claim is `role`, in the order they came out.
---@param role aiwolf.Role
---@return integer[]
function Agent:claimantsOf(role) end
---How many agents estimated each target to be `role` today.
---@param role aiwolf.Role
---@return table<integer, integer>
function Agent:estimated(role) end

local A = {}

---The base agent class.
A.Agent = Agent

---Makes `t` inherit the base agent and returns it.
---@generic T: table
---@param t? T
---@return T|aiwolf.Agent
function A.new(t) end

---Living agents, sorted.
---@param info aiwolf.Info
---@return integer[]
function A.alive(info) end

---Living agents but oneself, sorted (the legal vote targets).
---@param info aiwolf.Info
---@return integer[]
function A.others(info) end

---Living others not known to be werewolves, sorted (for a werewolf: the legal attack targets).
---@param info aiwolf.Info
---@return integer[]
function A.humans(info) end

---One's fellow werewolves (living, or all with `all`), sorted; `{}` for non-werewolves.
---@param info aiwolf.Info
---@param all? boolean
---@return integer[]
function A.fellows(info, all) end

---@param info aiwolf.Info
---@param a integer
---@return boolean
function A.is_alive(info, a) end

---A uniformly random element (math.random), or nil for `{}`.
---@generic T
---@param list T[]
---@return T?
function A.pick(list) end

---The elements with the highest `score(e)` (in list order) and that score; nil scores are skipped.
---@generic T
---@param list T[]
---@param score fun(e: T): number?
---@return T[] best
---@return number? top
function A.best(list, score) end

---`A.pick(A.best(list, score))`.
---@generic T
---@param list T[]
---@param score fun(e: T): number?
---@return T?
function A.argmax(list, score) end

---The elements for which `keep(e)` is true.
---@generic T
---@param list T[]
---@param keep fun(e: T): boolean?
---@return T[]
function A.filter(list, keep) end

---Counts of a map's values: `A.tally(self.declared)` gives `{[target] = votes declared}`.
---@param map table
---@return table<any, integer>
function A.tally(map) end

---A map's keys, sorted: iterate maps with this, not pairs.
---@param map table
---@return any[]
function A.sorted_keys(map) end

---A talk's parsed tree: `talk.parsed`, else `P.parse(talk.text)`, else nil and a message.
---@param talk aiwolf.Talk
---@return aiwolf.Sentence?
---@return string? message
function A.tree(talk) end

---What a talk asserts: the sentence itself, the operands of AND, the conclusion of BECAUSE, the content of DAY.
---@param talk aiwolf.Talk
---@return aiwolf.Assertion[]
function A.sentences(talk) end

return A
