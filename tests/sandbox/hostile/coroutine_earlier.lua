-- expect: ok, timeout
-- A coroutine created in an earlier call is resumed in a later one and loops.
local co
return {
  run = function() co = coroutine.create(function() coroutine.yield() while true do end end) coroutine.resume(co) end,
  run2 = function() coroutine.resume(co) while true do coroutine.resume(co) end end,
}
