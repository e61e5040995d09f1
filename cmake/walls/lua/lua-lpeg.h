/* A wall of the build (docs/architecture.md, "Walls"): this folder stands
 * first on the include path of every target that may not use lua, so that
 * an include of <lua-lpeg.h> there stops the build here. Only aw_luahost may. */
#error "<lua-lpeg.h>: only aw_luahost may use lua (docs/architecture.md, Walls); link that library's API instead"
