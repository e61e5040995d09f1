-- expect: error
-- A __gc finalizer would run with hooks off: setmetatable must refuse it.
return { run = function()
  setmetatable({}, { __gc = function() while true do end end })
end }
