-- expect: timeout
-- table.move over 2^40 elements of an empty table.
return { run = function() table.move({}, 1, 1 << 40, 2) end }
