-- expect: timeout
-- Loops inside coroutines: wrapped, resumed in a retry loop, nested, and closed.
return { run = function()
  while true do
    pcall(coroutine.wrap(function() while true do end end))
    coroutine.resume(coroutine.create(function()
      coroutine.resume(coroutine.create(function() while true do end end))
      while true do end
    end))
    local co = coroutine.create(function() coroutine.yield() end)
    coroutine.resume(co)
    coroutine.close(co)
  end
end }
