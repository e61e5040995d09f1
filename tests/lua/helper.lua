-- Loaded by busted before the specs: makes the project's lua/ folder
-- requireable the same way the sandbox serves it (require "aiwolf.x").
local root = os.getenv("PWD") or "."
package.path = root .. "/lua/?.lua;" .. root .. "/lua/?/init.lua;" .. package.path
