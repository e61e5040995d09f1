/* lprotocol: pushes protocol trees to Lua as plain tables and implements the
 * C core module "aiwolf.protocol_core" (parse, validate, normalize,
 * describe). Uses Lua 5.4 (lua.h, lauxlib.h) and protocol. */
#include "lprotocol.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static void push_agent(lua_State *L, int a)
{
    if (a == AW_ANY)
        lua_pushliteral(L, "ANY");
    else
        lua_pushinteger(L, a);
}

/* Upper-case verb names for Lua: the control words are "OVER" and "SKIP"
 * so that every verb is spelled the same way. */
static const char *lua_verb_name(aw_verb v)
{
    if (v == AW_V_OVER)
        return "OVER";
    if (v == AW_V_SKIP)
        return "SKIP";
    return aw_verb_name(v);
}

void aw_protocol_push(lua_State *L, const aw_sentence *s)
{
    /* Parsed trees are at most AW_PROTOCOL_MAX_DEPTH deep; each level needs
     * a few slots. */
    luaL_checkstack(L, 4, "protocol tree too deep");
    unsigned f = aw_verb_flags(s->verb);
    lua_createtable(L, 0, 4);
    lua_pushstring(L, lua_verb_name(s->verb));
    lua_setfield(L, -2, "verb");
    if (s->subject != AW_UNSPEC) {
        push_agent(L, s->subject);
        lua_setfield(L, -2, "subject");
    }
    if (s->who != AW_UNSPEC) { /* only after aw_protocol_resolve */
        push_agent(L, s->who);
        lua_setfield(L, -2, "who");
    }
    if (f & AW_HAS_TARGET) {
        push_agent(L, s->target);
        lua_setfield(L, -2, "target");
    }
    if (f & AW_HAS_ROLE) {
        lua_pushstring(L, aw_protocol_role_name(s->role));
        lua_setfield(L, -2, "role");
    }
    if (f & AW_HAS_SPECIES) {
        lua_pushstring(L, aw_protocol_species_name(s->species));
        lua_setfield(L, -2, "species");
    }
    if (f & AW_HAS_TALK) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, s->talk_type == AW_WHISPER ? "WHISPER" : "TALK");
        lua_setfield(L, -2, "type");
        lua_pushinteger(L, s->talk_day);
        lua_setfield(L, -2, "day");
        lua_pushinteger(L, s->talk_id);
        lua_setfield(L, -2, "id");
        lua_setfield(L, -2, "talk");
    }
    if (f & AW_HAS_DAY) {
        lua_pushinteger(L, s->day);
        lua_setfield(L, -2, "day");
    }
    if (f & AW_HAS_ARGS) {
        lua_createtable(L, (int)(s->nargs < 1000000 ? s->nargs : 0), 0);
        for (size_t i = 0; i < s->nargs; i++) {
            aw_protocol_push(L, s->args[i]);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "args");
    }
}

static aw_validation check_mode(lua_State *L, int arg, bool allow_off)
{
    static const char *const names[] = {"strict", "lenient", "off", NULL};
    /* Strict by default, as games validate under the default preset and as
     * `aiwolf protocol` checks without --lenient. */
    int m = luaL_checkoption(L, arg, "strict", names);
    if (m == 2 && !allow_off)
        luaL_argerror(L, arg, "mode must be \"strict\" or \"lenient\"");
    return m == 0 ? AW_VALIDATE_STRICT : m == 1 ? AW_VALIDATE_LENIENT : AW_VALIDATE_OFF;
}

/* Parses argument 1 under the mode in argument `modearg`; on failure pushes
 * nil, message and returns NULL. */
static aw_sentence *parse_arg(lua_State *L, int modearg)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    aw_validation mode = check_mode(L, modearg, false);
    aw_error err = {0};
    aw_sentence *s = aw_protocol_parse(text, len, mode, &err);
    if (!s) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
    }
    return s;
}

static int push_tree(lua_State *L)
{
    aw_protocol_push(L, (const aw_sentence *)lua_touserdata(L, 1));
    return 1;
}

static int l_parse(lua_State *L)
{
    aw_sentence *s = parse_arg(L, 2);
    if (!s)
        return 2;
    /* Building the tables can raise a memory error (agents run under a
     * memory cap); the C tree must be freed either way, so the tables are
     * built under a protected call and the error re-raised afterwards. */
    lua_pushcfunction(L, push_tree);
    lua_pushlightuserdata(L, s);
    int rc = lua_pcall(L, 1, 1, 0);
    aw_sentence_free(s);
    if (rc != LUA_OK)
        return lua_error(L);
    return 1;
}

int aw_protocol_push_text(lua_State *L, const char *text, size_t len, aw_validation mode)
{
    aw_error err = {0};
    aw_sentence *s = aw_protocol_parse(text, len, mode, &err);
    if (!s)
        return 0;
    /* As in l_parse: the C tree is freed even if building the tables raises. */
    lua_pushcfunction(L, push_tree);
    lua_pushlightuserdata(L, s);
    int rc = lua_pcall(L, 1, 1, 0);
    aw_sentence_free(s);
    if (rc != LUA_OK)
        lua_error(L);
    return 1;
}

static int l_validate(lua_State *L)
{
    size_t len;
    const char *text = luaL_checklstring(L, 1, &len);
    aw_validation mode = check_mode(L, 2, true);
    aw_error err = {0};
    if (aw_protocol_validate(text, len, mode, &err) < 0) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int l_normalize(lua_State *L)
{
    aw_sentence *s = parse_arg(L, 2);
    if (!s)
        return 2;
    char *t = aw_protocol_to_string(s);
    aw_sentence_free(s);
    lua_pushstring(L, t);
    free(t);
    return 1;
}

static int l_describe(lua_State *L)
{
    const char *lang = luaL_optstring(L, 2, "en");
    lua_Integer speaker = luaL_optinteger(L, 3, AW_UNSPEC);
    if (speaker < AW_UNSPEC || speaker > 1000000)
        luaL_argerror(L, 3, "speaker must be an agent number");
    lua_settop(L, 1);
    aw_sentence *s = parse_arg(L, 4);
    if (!s)
        return 2;
    aw_buf b;
    aw_buf_init(&b);
    aw_protocol_describe(s, (int)speaker, lang, &b);
    aw_sentence_free(s);
    lua_pushlstring(L, b.data, b.len);
    aw_buf_free(&b);
    return 1;
}

static const luaL_Reg core_funcs[] = {
    {"parse", l_parse},
    {"validate", l_validate},
    {"normalize", l_normalize},
    {"describe", l_describe},
    {NULL, NULL},
};

int aw_luaopen_protocol_core(lua_State *L)
{
    luaL_newlib(L, core_funcs);
    lua_pushinteger(L, AW_PROTOCOL_MAX_DEPTH);
    lua_setfield(L, -2, "MAX_DEPTH");
    return 1;
}
