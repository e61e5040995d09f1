-- The same LPeg patterns in stock Lua and in the sandbox (instrumented LPeg): sandbox_basic
-- compares the two transcripts.
local lpeg = require "lpeg"
local P, C, Cs, Ct, Cf, Cg, Cc, Cp, S, R = lpeg.P, lpeg.C, lpeg.Cs, lpeg.Ct, lpeg.Cf, lpeg.Cg, lpeg.Cc, lpeg.Cp, lpeg.S, lpeg.R
local out = {}
local function add(...) local t = table.pack(...) for i = 1, t.n do t[i] = type(t[i]) == "table" and "{" .. table.concat(t[i], ",") .. "}" or tostring(t[i]) end out[#out+1] = table.concat(t, " ") end
add(lpeg.match(Cs((P"a" / "b" + 1)^0), "banana"))
add(lpeg.match(Ct((C(R"az"^1) + 1)^0), "ab, cd ef"))
add(lpeg.match(Cf(C(R"09"^1) * ("," * C(R"09"^1))^0, function(a, b) return a + b end), "1,2,3,4"))
add(lpeg.match(Ct(Cg(C(1)^1, "all")), "xyz").all)
add(lpeg.match((Cp() * 1)^2, "abcd"))
add(lpeg.match(C((1 - S" ")^1) * (S" "^1 * C((1 - S" ")^1))^0, "VOTE Agent[01] now"))
add(lpeg.match(Cs(((P"Agent[" * C(R"09"^1) * "]") / function(n) return "A" .. n end + 1)^0), "x Agent[03] y Agent[11]"))
add(lpeg.match(P{ "S", S = "(" * lpeg.V"S"^0 * ")" }, "(()(()))"))
add(lpeg.match(Ct((Cc(1) * 1)^-3), "aaaa"))
add(lpeg.match(#P"a" * C(P"a"^1) * -P(1), "aaa"))
add(lpeg.match(lpeg.B"a" * C(1), "ab", 2))
add(lpeg.match(C(P(1)^0) / string.upper, "abc"))
add(lpeg.match(Cg(C"x", "k") * lpeg.Cb"k" * lpeg.Cb"k", "x"))
add(#lpeg.match(Ct(C(1)^0), string.rep("q", 1000)))
add(lpeg.match(lpeg.Cmt(C(R"az"^1), function(s, i, w) return i, #w end), "hello"))
return table.concat(out, "\n")
