-- expect: error
-- string.format with huge widths and precisions is refused by Lua itself.
return { run = function()
  assert(not pcall(string.format, "%099999999d", 1))
  assert(not pcall(string.format, "%.99999999f", 1))
  assert(not pcall(string.pack, "c2000000000", ""))
  error("done")
end }
