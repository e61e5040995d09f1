-- An agent can load every OTHER agent file in its folder as a module:
-- module_dir is the agent's folder (runtime/luaseat.c: lim.module_dir = s->dir),
-- and any "name.lua" there is a valid module. When entries are dropped into one
-- folder (as agents/*.lua are), entry A runs entry B's code in its own sandbox
-- and can call B's methods (copy its strategy, probe its answers offline).
-- stat()/fopen() also follow symlinks, so a shipped symlink x.lua -> any
-- host-readable file is read (e.g. /etc/passwd: parse error text leaks tokens).
-- RESULT (copied into agents/ next to random.lua): prints
--   "[Agent[01] require_sibling] require random: true table random"
-- Here, next to the other attacks, it loads name_injection.lua.
local agent = {}
function agent:initialize()
  for _, name in ipairs{ "random", "sample", "name_injection" } do
    local ok, other = pcall(require, name)
    print("require " .. name .. ":", ok, type(other), ok and type(other) == "table" and other.getName and other:getName() or "")
  end
end
return agent
