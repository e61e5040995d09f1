-- expect: error
-- String-to-number coercion of a megabyte of blanks in arithmetic: in stock Lua one
-- instruction, a long scan (and only the watchdog stopped the loop). The sandbox takes
-- numerals of at most 1 KiB, so this is an arithmetic error at once, in every mode.
return { run = function()
  local s = string.rep(" ", 6e6) .. "1"
  local x = 0
  while true do x = x + s end
end }
