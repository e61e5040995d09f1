-- expect: ok, timeout, timeout, timeout
-- no-kill
-- Lua's parser is one C call, where no hook runs, and quadratic in some
-- shapes of source: 32 000 pending gotos to one label (0.35 s a block, four
-- blocks here), long and/or chains, long elseif chains. run: the shapes
-- past the sandbox's caps are refused at once. run2/run3: loads just below
-- the caps, in a loop, stop at the budget (priced in work mode). run4: a
-- source the parser is slow on in linear time (names looked up through 60
-- nested functions of 190 locals: about 3 s) stops at the budget, because
-- the text reaches the parser in pieces through a reader that checks the
-- deadline; before, only the last resort stopped it, killing the agent.
local function nested_names(levels, refs)
  local parts = {}
  for i = 1, levels do
    local l = {}
    for j = 1, 190 do l[j] = "l" .. i .. "_" .. j end
    parts[#parts + 1] = "local " .. table.concat(l, ",") .. " return function() "
  end
  parts[#parts + 1] = "x=" .. ("x+"):rep(refs) .. "x " .. ("end "):rep(levels)
  return table.concat(parts)
end
return {
  run = function()
    local f, e = load(("do " .. ("goto l "):rep(32000) .. "::l:: end "):rep(4))
    assert(not f and e:find("too many gotos"), e)
    f, e = load("return " .. ("a or "):rep(80000) .. "a")
    assert(not f and e:find("too many 'and'/'or'"), e)
    f, e = load("if a then " .. ("elseif a then "):rep(40000) .. "end")
    assert(not f and e:find("too many 'elseif'"), e)
    f, e = load(("while a do " .. ("break "):rep(4000) .. "end "):rep(2))
    assert(not f and e:find("too many gotos"), e)
  end,
  run2 = function()
    local src = "do " .. ("goto l "):rep(4000) .. "::l:: end"
    while true do assert(load(src)) end
  end,
  run3 = function()
    local src = "return " .. ("a or "):rep(4000) .. "a"
    while true do assert(load(src)) end
  end,
  -- the source (600 KB) is built in the call, not at load time: under ASan
  -- with a count hook its building alone took the 50 ms of the load
  run4 = function() load(nested_names(60, 200000)) end,
}
