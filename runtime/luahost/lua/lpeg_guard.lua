-- The sandbox's LPeg guard (runtime/luahost/sandbox.c, sb_open_lpeg): run
-- once per sandbox when LPeg is first required, with the module, its
-- pattern metatable and the host's checkpoint functions; it wraps every
-- constructor and operator so that counts, sizes, nesting and grammars stay
-- within what LPeg 1.0.2 handles safely. Compiled into the binary as host
-- code (cmake/embed_lua.cmake): never served to agents as a module.
local lpeg, mt, chk, pass, shadow, gc, guard = ...
local P, V, Cmt, Cb = lpeg.P, lpeg.V, lpeg.Cmt, lpeg.Cb
local type, pairs, ipairs, error = type, pairs, ipairs, error
local mtype, toint = math.type, math.tointeger
local mul, add, sub, div = mt.__mul, mt.__add, mt.__sub, mt.__div
local pow, unm, len, mod = mt.__pow, mt.__unm, mt.__len, mt.__mod
local PATHS, MAXN, MAXSIZE, MAXDEPTH, MAXGDEPTH = 200000, 1 << 20, 1 << 26, 400, 10000
local function big(what) error('LPeg ' .. what .. ' too large for the sandbox', 3) end
local function count(n)
  if mtype(n) == 'float' then n = toint(n) or n end -- 2.0 counts as 2
  if mtype(n) ~= 'integer' or n > MAXN or n < -MAXN then big('count') end
  return n < 0 and -n or n
end
local function size(v)
  local t = type(v)
  if t == 'userdata' then local sh = shadow[v] return sh and sh.s or 16 end
  if t == 'string' then return 2 * #v + 2 end
  if t == 'number' then return 2 * count(v) + 2 end
  return 4
end
local function depth(v)
  local sh = type(v) == 'userdata' and shadow[v]
  return sh and sh.d or 1
end
-- mult: how many copies of the operands the result holds; inc: how much
-- deeper than its operands the result's tree is.
local function tag(p, mult, inc, a, b)
  gc()
  local da, db = depth(a), b == nil and 0 or depth(b)
  local sh = { s = mult * (size(a) + (b == nil and 0 or size(b)) + 8), d = (da > db and da or db) + inc }
  if sh.d > MAXDEPTH then error('LPeg pattern nested too deeply for the sandbox', 3) end
  for _, x in ipairs{ a, b } do
    local r = type(x) == 'userdata' and shadow[x] and shadow[x].r
    if r then
      sh.r = sh.r or {}
      for k, c in pairs(r) do local v = (sh.r[k] or 0) + c * mult sh.r[k] = v > 1e15 and 1e15 or v end
    end
  end
  shadow[p] = sh
  return p
end
local function rulename(k)
  local t = type(k)
  if t ~= 'string' and t ~= 'number' then error('LPeg rule names must be strings or numbers in the sandbox', 3) end
  return k
end
local function check(g)
  local memo, onpath = {}, {}
  local function paths(k)
    if memo[k] then return memo[k] end
    if onpath[k] then return 1 end
    onpath[k] = true
    local n = 1
    local sh = shadow[g[k]]
    if sh and sh.r then for name, c in pairs(sh.r) do
      if g[name] ~= nil then
        n = n + c * paths(name)
        if n > PATHS then error('LPeg grammar too complex for the sandbox (rule references branch too much)', 0) end
      end
    end end
    onpath[k] = nil
    memo[k] = n
    return n
  end
  for k in pairs(g) do if type(g[k]) == 'userdata' then paths(k) end end
end
local stop = Cmt(P(true), chk)
local conv
local function grammar(t)
  local g, total, d = {}, 8, 1
  for k, v in pairs(t) do
    if k == 1 and type(v) == 'string' then g[1] = v
    else
      local c = conv(v)
      g[rulename(k)] = tag(mul(stop, c), 1, 1, c)
      total = total + size(g[k]) + 8
      if depth(g[k]) > d then d = depth(g[k]) end
    end
  end
  check(g)
  -- LPeg's analyses recurse through rule references into rule bodies:
  -- bound the chain of rules times their depth.
  local nrules = 0
  for _ in pairs(g) do nrules = nrules + 1 end
  if nrules * d > MAXGDEPTH then error('LPeg grammar nested too deeply for the sandbox', 2) end
  local p = P(g)
  shadow[p] = { s = total, d = d + 1 }
  return p
end
conv = function(v)
  local t = type(v)
  if t == 'table' then return grammar(v) end
  if t == 'number' then count(v) end
  return v
end
for _, name in ipairs{ 'P', 'B', 'C', 'Cf', 'Cg', 'Cmt', 'Cs', 'Ct' } do
  local f = lpeg[name]
  local inc = name == 'P' and 0 or 1
  lpeg[name] = function(p, ...) local c = conv(p) return tag(f(c, ...), 1, inc, c) end
end
local match = guard(lpeg.match)
lpeg.match = function(p, ...) return match(conv(p), ...) end
lpeg.V = function(name) local p = V(rulename(name)) shadow[p] = { s = 4, d = 1, r = { [name] = 1 } } return p end
lpeg.Cb = function(name) return div(Cb(name), pass) end
-- LPeg keeps sequences and choices flat, so they do not deepen the tree.
mt.__mul = function(a, b) a, b = conv(a), conv(b) return tag(mul(a, b), 1, 0, a, b) end
mt.__add = function(a, b) a, b = conv(a), conv(b) return tag(add(a, b), 1, 0, a, b) end
mt.__sub = function(a, b) a, b = conv(a), conv(b) return tag(sub(a, b), 1, 1, a, b) end
mt.__div = function(a, b) a = conv(a) return tag(div(a, b), 1, 1, a) end
mt.__pow = function(a, n)
  a = conv(a)
  local k = count(n)
  if (k + 2) * (size(a) + 16) > MAXSIZE then big('repetition') end
  return tag(pow(mul(stop, a), n), k + 2, 1, a)
end
if unm then mt.__unm = function(a) a = conv(a) return tag(unm(a), 1, 1, a) end end
if len then mt.__len = function(a) a = conv(a) return tag(len(a), 1, 1, a) end end
if mod then mt.__mod = function(a, b) a = conv(a) return tag(mod(a, b), 1, 1, a) end end
lpeg.ptree, lpeg.pcode = nil, nil
mt.__metatable = false
