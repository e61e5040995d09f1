-- expect: timeout
-- needs: watchdog
-- utf8 functions over megabytes, in a loop.
return { run = function()
  local s = string.rep("\u{7FF}", 1e6)
  while true do utf8.len(s) utf8.offset(s, -1) utf8.codepoint(s, 1, 1000) end
end }
