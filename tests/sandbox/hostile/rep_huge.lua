-- expect: memory
-- budget: 2000
-- string.rep with huge counts: of "" and of 1-byte strings, then beyond the memory cap.
return { run = function()
  assert(string.rep("", 1 << 62) == "")
  assert(string.rep("", 1 << 62, "") == "")
  assert(not pcall(string.rep, "ab", 1 << 62))
  local s = string.rep("a", 1 << 40)
end }
