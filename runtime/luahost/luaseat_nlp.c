/* luaseat_nlp: the NLP fields of a Lua seat's info (see luaseat_nlp.h). */
#include "luaseat_nlp.h"

#include <string.h>

/* f[key] = the value on top (popped), raw: no metamethod runs */
static void set_top(lua_State *L, int f, const char *key)
{
    lua_pushstring(L, key);
    lua_insert(L, -2);
    lua_rawset(L, f);
}

static void set_int(lua_State *L, int f, const char *key, int v)
{
    if (v >= 0)
        lua_pushinteger(L, v);
    else
        lua_pushnil(L);
    set_top(L, f, key);
}

void aw_luaseat_push_nlp(lua_State *L, int f, const aw_info_nlp *nlp, int n)
{
    f = lua_absindex(L, f);
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; i++) {
        lua_pushstring(L, nlp->names[i] ? nlp->names[i] : "");
        lua_rawseti(L, -2, i);
    }
    set_top(L, f, "names");
    if (nlp->profile)
        lua_pushstring(L, nlp->profile);
    else
        lua_pushnil(L);
    set_top(L, f, "profile");
    lua_pushstring(L, nlp->lang ? nlp->lang : "en");
    set_top(L, f, "lang");
    set_int(L, f, "remainCount", nlp->remain_count);
    set_int(L, f, "remainLength", nlp->remain_length);
    set_int(L, f, "remainSkip", nlp->remain_skip);
    set_int(L, f, "maxLength", nlp->per_talk);
    set_int(L, f, "baseLength", nlp->base_length);
    set_int(L, f, "mentionLength", nlp->mention_length);
}

int aw_luaseat_nlp_target(lua_State *L, int idx, const aw_info_nlp *nlp, int n)
{
    size_t len;
    const char *s = lua_tolstring(L, idx, &len); /* a real string: no metamethod */
    for (int i = 1; i <= n; i++)
        if (nlp->names[i] && strlen(nlp->names[i]) == len && !memcmp(nlp->names[i], s, len))
            return i;
    return 0;
}
