-- expect: timeout
-- needs: watchdog
-- No C call and no allocation: each comparison of two long strings is one VM instruction
-- that scans megabytes (strcoll), so a count hook alone fires far too rarely.
return { run = function()
  local a = string.rep("x", 3e6) .. "a"
  local b = string.rep("x", 3e6) .. "b"
  while true do local c = a < b end
end }
