-- expect: timeout
-- Stack overflow, error in the error handler ("error in error handling"), then retry forever.
local function deep(n) return deep(n + 1) + 1 end
return { run = function()
  while true do
    pcall(deep, 1)
    xpcall(deep, deep, 1)
    xpcall(error, function(m) error(m) end, "x")
  end
end }
