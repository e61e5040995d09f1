-- expect: timeout
-- print() in a loop: the per-agent log stays bounded.
return { run = function() while true do print(string.rep("x", 1000), {}, 1.5) end end }
