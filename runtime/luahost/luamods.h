/* luamods: the agents' Lua library (every .lua file under lua/), compiled into the binary by
 * cmake/embed_lua.cmake. The sandbox serves these through package.preload. */
#ifndef AW_LUAMODS_H
#define AW_LUAMODS_H

#include <stddef.h>

typedef struct aw_luamod {
    const char *name;   /* module name, "aiwolf.protocol" */
    const char *path;   /* source path for error messages, "lua/aiwolf/protocol.lua" */
    const char *source; /* the file's bytes (static storage) */
    size_t len;
} aw_luamod;

/* Terminated by an entry whose name is NULL. */
extern const aw_luamod aw_luamods[];

/* Lua the host runs itself (the .lua files of runtime/luahost/lua: the LPeg guard),
 * never served to agents; same layout. aw_hostmod finds one by name, or
 * returns NULL. */
extern const aw_luamod aw_hostmods[];
const aw_luamod *aw_hostmod(const char *name);

/* The module compiled to Lua bytecode (with debug information), made once
 * per process from the embedded text and kept for the process's life; NULL
 * if it does not compile (loading the text then reports the error). Not
 * thread-safe: call from one thread. */
const char *aw_luamod_bytecode(const aw_luamod *m, size_t *len);

#endif
