-- expect: timeout
-- The loop is inside pcall, and the caller retries forever: pcall must not swallow the stop.
return { run = function()
  while true do pcall(function() while true do end end) end
end }
