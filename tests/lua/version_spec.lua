-- The specs must run under Lua 5.4, the version the sandbox embeds: Debian's
-- busted can silently pick another interpreter (docs/contributing.md).
describe("the spec interpreter", function()
  it("is Lua 5.4", function()
    assert.are.equal("Lua 5.4", _VERSION)
  end)
  it("has LPeg", function()
    local lpeg = require "lpeg"
    assert.is_truthy(lpeg.match(lpeg.P"a" ^ 1, "aaa"))
  end)
end)
