-- expect: timeout
-- needs: watchdog
-- Library C functions that scan megabytes without allocating, called in a tight loop.
return { run = function()
  local s = string.rep("\u{7FF}", 3e6)
  while true do utf8.len(s) end
end }
