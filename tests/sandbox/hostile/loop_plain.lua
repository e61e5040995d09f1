-- expect: timeout
-- A plain infinite loop.
return { run = function() while true do end end }
