-- aiwolf.nlp (lua/aiwolf/nlp.lua) under plain Lua 5.4: names, the length
-- rule in Japanese and English (characters, not bytes; never a cut inside a
-- character), fitting to the rule info carries, templates and the renderer
-- (sentences built with aiwolf.protocol: the parser is the C core's, absent
-- here), and reading mentions, names, claims and results out of text in the
-- forms the official sample agents write. The same module inside the
-- sandbox, on a fake NLP server, is tests/nlp/connect_nlp.py's freetext.lua.
local N = require "aiwolf.nlp"
local P = require "aiwolf.protocol"

local function info_en(extra)
  local i = {agent = 3, day = 1, statusMap = {"ALIVE", "ALIVE", "ALIVE", "ALIVE", "DEAD"},
    names = {"Daisuke", "Kenji", "Minato", "Ryuji", "Takumi"}, lang = "en",
    baseLength = 125, mentionLength = 125}
  for k, v in pairs(extra or {}) do i[k] = v end
  return i
end

local function info_ja(extra)
  local i = {agent = 1, day = 1, statusMap = {"ALIVE", "ALIVE", "ALIVE", "ALIVE", "ALIVE"},
    names = {"ミナト", "タクミ", "ケンジ", "リュウジ", "ダイスケ"}, lang = "ja",
    baseLength = 50, mentionLength = 50}
  for k, v in pairs(extra or {}) do i[k] = v end
  return i
end

local function valid_utf8(s) return utf8.len(s) ~= nil end

describe("aiwolf.nlp names", function()
  it("gives names and finds agents by name", function()
    local info = info_en()
    assert.equal("Kenji", N.name(info, 2))
    assert.equal(2, N.agent(info, "Kenji"))
    assert.equal(4, N.agent(info, "Agent[04]"))
    assert.is_nil(N.agent(info, "Nobody"))
    assert.is_nil(N.agent(info, "Agent[09]"))
    assert.equal("@Kenji hi", N.mention(info, 2, "hi"))
    -- outside an NLP game: the protocol's names
    assert.equal("Agent[02]", N.name({statusMap = {"ALIVE", "ALIVE"}}, 2))
  end)
  it("refuses misuse", function()
    assert.has_error(function() N.name(nil, 1) end)
    assert.has_error(function() N.length(5) end)
    assert.has_error(function() N.truncate("x", "3") end)
  end)
end)

describe("aiwolf.nlp length rule", function()
  it("counts characters without white space, as the server does", function()
    assert.equal(28, N.length("I am the seer. Kenji is a werewolf!"))
    assert.equal(35, N.length("I am the seer. Kenji is a werewolf!", {countSpaces = true}))
    assert.equal(8, N.length("I am the seer. Kenji is a werewolf!", {inWord = true}))
    assert.equal(18, N.length("私は占い師です。ケンジは人狼でした。"))
    assert.equal(5, N.length("私は　占い師")) -- U+3000 is white space
    assert.equal(6, N.length("私は　占い師", {countSpaces = true}))
    assert.equal(3, N.length("a\240\159\144\186b")) -- an emoji is one character
    assert.equal(3, N.length("a\255b")) -- an invalid byte counts as one
  end)
  it("never cuts inside a character", function()
    local ja = "私は占い師です。ケンジは人狼でした。"
    for max = 0, 20 do
      local t = N.truncate(ja, max)
      assert.is_true(valid_utf8(t))
      assert.equal(math.min(max, 18), N.length(t))
      assert.equal(ja:sub(1, #t), t)
    end
    assert.equal("I am the seer", N.truncate("I am the seer. Kenji", 10))
    assert.equal("I am the", N.truncate("I am the seer. Kenji", 3, {inWord = true}))
    assert.equal("a\240\159\144\186", N.truncate("a\240\159\144\186b", 2))
    -- the cut ends after the last character counted: no white space after
    -- it, U+3000 and U+00A0 included (as the server and the C side cut)
    assert.equal("あいう", N.truncate("あいう\227\128\128えお", 3))
    assert.equal("abc", N.truncate("abc\194\160 def", 3))
    assert.equal("abc  ", N.truncate("abc  ", 3))
  end)
  it("fits text to the rule info carries, the mention kept", function()
    local info = info_ja()
    local long = string.rep("あ", 200) .. "@ケンジ " .. string.rep("い", 200)
    local t = N.fit(info, long)
    assert.is_true(valid_utf8(t))
    assert.equal(string.rep("あ", 50) .. "@ケンジ " .. string.rep("い", 50), t)
    -- remainLength adds to both parts
    assert.equal(60 + 4 + 60, N.length(N.fit(info_ja({remainLength = 10}), long)))
    -- maxLength: past it before the mention, the mention goes
    t = N.fit(info_ja({maxLength = 30}), long)
    assert.equal(string.rep("あ", 30), t)
    -- one's own name is no mention
    t = N.fit(info, "@ミナト " .. string.rep("う", 100))
    assert.equal(50, N.length(t))
    assert.equal("@ミナト " .. string.rep("う", 46), t)
    -- line breaks become spaces; no rule: as it is
    assert.equal("a b", N.fit({statusMap = {}}, "a\nb"))
    local en = info_en()
    assert.equal(125, N.length(N.fit(en, string.rep("word ", 100))))
  end)
end)

describe("aiwolf.nlp templates and renderer", function()
  it("fills templates in the game's language with names", function()
    assert.equal("I am the seer.", N.say(info_en(), "comingout", "SEER"))
    assert.equal("私は占い師です。", N.say(info_ja(), "comingout", "SEER"))
    assert.equal("I divined Kenji: a werewolf.", N.say(info_en(), "divined", 2, "WEREWOLF"))
    assert.equal("ケンジを占ったら、人狼でした。", N.say(info_ja(), "divined", 3, "WEREWOLF"))
    assert.equal("Hi Kenji!", N.say(info_en(), "Hi %1!", 2))
    assert.equal("I am the seer.", N.template("en", "comingout"):gsub("%%1", "seer"))
  end)
  it("renders protocol sentences, the speaker's own in the first person", function()
    local en, ja = info_en(), info_ja()
    assert.equal("I am the seer.", N.render(en, P.comingout(3, "SEER")))
    assert.equal("I divined Takumi: human.", N.render(en, P.divined(5, "HUMAN")))
    assert.equal("I will vote for Kenji.", N.render(en, P.vote(2)))
    assert.equal("私はタクミに投票します。", N.render(ja, P.vote(2)))
    assert.equal("Over", N.render(en, P.over()))
    assert.equal("Skip", N.render(en, "Skip"))
    -- others' sentences: the describer, with names
    local t = N.render(en, P.request(P.ANY, P.vote(2)))
    assert.matches("Kenji", t)
    assert.is_nil(t:find("Agent%["))
    t = N.render(ja, P.by(2, P.estimate(4, "WEREWOLF")))
    assert.equal("タクミはリュウジが人狼だと思う", t)
  end)
end)

describe("aiwolf.nlp reading text", function()
  local en, ja = info_en(), info_ja()
  it("finds mentions in both forms, in order", function()
    assert.same({2}, N.mentions(en, "@Kenji why did you vote for me?"))
    assert.same({1, 2}, N.mentions(ja, ">>ミナト ミナトはなぜ@タクミ を疑うのですか？"))
    assert.same({3}, N.mentions(ja, ">>Agent[03] Agent[03]はなぜ私を占おうと思ったんですか？"))
    assert.same({}, N.mentions(en, "Kenji is quiet"))
  end)
  it("finds names, each once, in order", function()
    assert.same({2, 5}, N.names_in(en, "Kenji and Takumi, and Kenji again"))
    assert.same({4}, N.names_in(ja, "リュウジが人狼のような気がします。"))
  end)
  it("reads role claims in the simple forms", function()
    assert.equal("SEER", N.claim(en, "I am the seer. Kenji is a werewolf."))
    assert.equal("MEDIUM", N.claim(en, "I'm a medium, listen."))
    assert.equal("SEER", N.claim(ja, "私は占い師です"))
    assert.equal("SEER", N.claim(ja, "占い師は私だよ。昨日の結果だが、タクミは人狼だと出た。"))
    assert.equal("MEDIUM", N.claim(ja, "霊媒師COします"))
    assert.equal("VILLAGER", N.claim(ja, "僕は村人です"))
    assert.equal("SEER", N.claim(en, "Kenji comes out: Kenji is a seer", 2))
    assert.is_nil(N.claim(en, "The seer should come out.", 2))
    assert.is_nil(N.claim(ja, "占い師の行動次第で勝てるかどうかが決まります"))
  end)
  it("reads reported results", function()
    assert.same({{target = 2, species = "WEREWOLF"}}, N.results(en, "I divined Kenji and Kenji was a werewolf.", 3))
    assert.same({{target = 2, species = "HUMAN"}}, N.results(en, "My divination: Kenji is not a werewolf."))
    assert.same({{target = 3, species = "WEREWOLF"}}, N.results(ja, "私は占い師です。ケンジを占ったら人狼でした。", 1))
    assert.same({{target = 2, species = "HUMAN"}}, N.results(ja, "占いの結果タクミは人間でした。"))
    assert.same({{target = 4, species = "HUMAN"}}, N.results(ja, "リュウジは人狼ではないと出た。占い結果です"))
    assert.same({}, N.results(ja, "リュウジが人狼のような気がします。"))
    assert.same({}, N.results(en, "I think Kenji is a werewolf."))
  end)
end)
