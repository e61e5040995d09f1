-- expect: timeout
-- needs: watchdog
-- String-to-number coercion of a megabyte of blanks in arithmetic: one instruction, a long scan.
return { run = function()
  local s = string.rep(" ", 6e6) .. "1"
  local x = 0
  while true do x = x + s end
end }
