-- expect: error
-- table.unpack of a huge range must be refused, not looped over.
return { run = function() table.unpack({}, 1, 1 << 40) end }
