-- expect: timeout
-- find on multi-megabyte strings, plain and with patterns, over and over.
return { run = function()
  local s = string.rep("ab", 2e6)
  while true do
    s:find("abababx", 1, true)
    s:find("(ab)*x")
    s:match(".*x")
  end
end }
