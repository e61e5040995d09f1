-- expect: memory
-- budget: 2000
-- A string bomb.
return { run = function() local s = "x" while true do s = s .. s end end }
