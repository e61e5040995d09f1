---@meta aiwolf.nlp
-- Annotations for `require "aiwolf.nlp"` (docs/nlp.md); the code is
-- lua/aiwolf/nlp.lua, served by the aiwolf binary inside the sandbox.
-- Helpers for the NLP division: names, the length rule, templates and the
-- renderer, and reading names, claims and results out of other agents' text.

---The length rule's way of counting: characters without white space by default.
---@class aiwolf.nlp.Rule
---@field countSpaces? boolean count white space too
---@field inWord? boolean count words instead of characters

---A result reported in a talk.
---@class aiwolf.nlp.Result
---@field target integer the agent divined or identified
---@field species "HUMAN"|"WEREWOLF"

---@class aiwolf.nlp
local N = {}

---Agent a's name (info.names[a]), or "Agent[0a]" outside an NLP game.
---@param info aiwolf.Info
---@param a integer
---@return string
function N.name(info, a) end

---The agent named name (a character name or "Agent[03]"), or nil.
---@param info aiwolf.Info
---@param name string
---@return integer?
function N.agent(info, name) end

---"@Name text": text addressed to agent a.
---@param info aiwolf.Info
---@param a integer
---@param text string
---@return string
function N.mention(info, a, text) end

---The length the server counts (characters, not bytes; white space not counted unless the rule says so).
---@param text string
---@param rule? aiwolf.nlp.Rule
---@return integer
function N.length(text, rule) end

---The longest start of text whose length is at most max, never cut inside a character.
---@param text string
---@param max integer
---@param rule? aiwolf.nlp.Rule
---@return string
function N.truncate(text, max, rule) end

---text cut to the length rule info carries (baseLength + remainLength before the first @mention, mentionLength after it, maxLength in all); line breaks become spaces.
---@param info aiwolf.Info
---@param text string
---@return string
function N.fit(info, text) end

---A template of a language ("I am the %1."), or nil. Keys: greet, comingout, divined, identified, estimate, vote, divination, guard, attack, request_vote, ask, agree, disagree.
---@param lang "en"|"ja"
---@param key string
---@return string?
function N.template(lang, key) end

---A role in the game's language ("seer", "占い師").
---@param info aiwolf.Info
---@param role aiwolf.Role
---@return string
function N.role_word(info, role) end

---A species in the game's language ("a werewolf", "人狼").
---@param info aiwolf.Info
---@param species "HUMAN"|"WEREWOLF"|"ANY"
---@return string
function N.species_word(info, species) end

---The template key in the game's language, filled in (agent numbers as names, roles and species as words) and fitted: N.say(info, "divined", 3, "WEREWOLF").
---@param info aiwolf.Info
---@param key string a template key, or a template itself
---@param ... integer|string
---@return string
function N.say(info, key, ...) end

---A protocol sentence (text or aiwolf.protocol table) as a line of the game's language with names; the speaker's own claims, results and intentions in the first person; Skip and Over as they are. nil and a message for text that does not parse.
---@param info aiwolf.Info
---@param sentence string|aiwolf.Sentence
---@return string?, string?
function N.render(info, sentence) end

---The agents named in text, each once, in order of first appearance.
---@param info aiwolf.Info
---@param text string
---@return integer[]
function N.names_in(info, text) end

---The agents text addresses ("@Name" or ">>Name"), each once, in order.
---@param info aiwolf.Info
---@param text string
---@return integer[]
function N.mentions(info, text) end

---The role the speaker claims in text ("I am the seer", "私は占い師です", "占い師CO"), or nil.
---@param info aiwolf.Info
---@param text string
---@param speaker? integer who said it
---@return aiwolf.Role?
function N.claim(info, text, speaker) end

---The divination or medium results text reports ("ケンジを占ったら人狼でした", "I divined Kenji: a werewolf."), in text order.
---@param info aiwolf.Info
---@param text string
---@param speaker? integer who said it (their own name is skipped)
---@return aiwolf.nlp.Result[]
function N.results(info, text, speaker) end

return N
