-- expect: timeout
-- load() with a reader function that never ends (the parser catches errors from readers).
return { run = function()
  while true do
    load(function() while true do end end)
    load(function() return "-- " end)
  end
end }
