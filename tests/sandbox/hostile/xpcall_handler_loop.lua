-- expect: timeout
-- The xpcall message handler itself loops: Lua runs it while the hook's error is being raised.
return { run = function()
  while true do
    xpcall(function() while true do end end, function(m) while true do end return m end)
  end
end }
