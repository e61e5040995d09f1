-- expect: memory
-- budget: 2000
-- A table bomb.
return { run = function() local t = {} for i = 1, math.maxinteger do t[i] = { i } end end }
