-- expect: error
-- An error object with a hostile __tostring (and __index/__len): the host must not call them.
return { run = function()
  error(setmetatable({}, {
    __tostring = function() while true do end end,
    __index = function() while true do end end,
    __len = function() while true do end end,
  }))
end }
