/* luaseat_info: the agent's `info` table, one per game updated in place,
 * and its `setting` table (see luaseat_internal.h). */
#include "luaseat_internal.h"
#include "luaseat_nlp.h"

#include <lauxlib.h>
#include <limits.h>
#include <string.h>

/* ---- building info and setting ------------------------------------------ */


/* ---- info: one table per game, updated in place ----------------------------
 *
 * Each agent keeps one `info` table for the game. Its fields live in a
 * second table, the fields table, which info's protected metatable gives as
 * its __index: the agent reads info.day as from any table (no C call), and
 * no agent code ever holds the fields table itself, so the host knows what
 * it holds and sets a top-level field only when the game changed it. An
 * agent that writes a top-level field writes it in the fields table
 * (info's __newindex), and that field is set again at the next call
 * (whatever the agent did to it, a call starts from the truth); fields of
 * its own go into info itself and stay. The tables in the fields change
 * only where the game changed: map entries that changed are rewritten, new
 * talks and whispers are appended (a new list each day, and a new one when
 * the agent changed the list's length), and a list or result whose content
 * changed is a new table. The talk, whisper and vote lists are made only
 * when the agent reads them (see "lazy fields" below); a talk's `parsed`
 * tree is built when the agent first reads it. What the host made lives in
 * one registry table per game (the view table): dropping it (a new game, a
 * call stopped while info was being updated) makes the next call build
 * everything anew. */

/* Slots of the view table: interned strings first (fetched by index rather
 * than hashed from a C string for every field), then the tables handed out. */
enum {
    K_AGENT = 1, K_DAY, K_ROLE, K_STATUSMAP, K_ROLEMAP, K_REMAINTALKMAP, K_REMAINWHISPERMAP,
    K_EXISTINGROLELIST, K_TALKLIST, K_WHISPERLIST, K_VOTELIST, K_LATESTVOTELIST, K_EXECUTEDAGENT,
    K_LATESTEXECUTEDAGENT, K_LASTDEADAGENTLIST, K_DIVINERESULT, K_MEDIUMRESULT, K_ATTACKEDAGENT,
    K_GUARDEDAGENT, K_ATTACKVOTELIST, K_LATESTATTACKVOTELIST, K_TARGET, K_IDX, K_TURN, K_TEXT, K_RESULT,
    K_ALIVE, K_DEAD, K_PARSED,
    K_ROLES,                          /* AW_NROLES role names */
    K_SPECIES = K_ROLES + AW_NROLES,  /* AW_HUMAN, AW_WOLF */
    V_INFO = K_SPECIES + 2,
    V_STATUS, V_ROLES, V_RTALK, V_RWHISPER, V_EXISTING, V_TALKS, V_WHISPERS, V_VOTES, V_LATESTVOTES,
    V_AVOTES, V_LATESTAVOTES, V_LASTDEAD, V_DIVINE, V_MEDIUM, V_TALKMETA, V_WHISPERMETA, V_FIELDS, V_NAMES,
    V_SIZE = V_NAMES
};

_Static_assert(K_LATESTATTACKVOTELIST < NFIELDS && K_LATESTATTACKVOTELIST < 32, "info's fields fit the masks");

static const char *const key_names[K_ROLES] = {
    [K_AGENT] = "agent", [K_DAY] = "day", [K_ROLE] = "role", [K_STATUSMAP] = "statusMap",
    [K_ROLEMAP] = "roleMap", [K_REMAINTALKMAP] = "remainTalkMap", [K_REMAINWHISPERMAP] = "remainWhisperMap",
    [K_EXISTINGROLELIST] = "existingRoleList", [K_TALKLIST] = "talkList", [K_WHISPERLIST] = "whisperList",
    [K_VOTELIST] = "voteList", [K_LATESTVOTELIST] = "latestVoteList", [K_EXECUTEDAGENT] = "executedAgent",
    [K_LATESTEXECUTEDAGENT] = "latestExecutedAgent", [K_LASTDEADAGENTLIST] = "lastDeadAgentList",
    [K_DIVINERESULT] = "divineResult", [K_MEDIUMRESULT] = "mediumResult", [K_ATTACKEDAGENT] = "attackedAgent",
    [K_GUARDEDAGENT] = "guardedAgent", [K_ATTACKVOTELIST] = "attackVoteList",
    [K_LATESTATTACKVOTELIST] = "latestAttackVoteList", [K_TARGET] = "target", [K_IDX] = "idx", [K_TURN] = "turn",
    [K_TEXT] = "text", [K_RESULT] = "result", [K_ALIVE] = "ALIVE", [K_DEAD] = "DEAD",
    [K_PARSED] = "parsed",
};

/* setting's keys, after the view's in the keys table (view_open) */
static const char *const setting_names[] = {
    "playerNum",      "roleNumMap",        "maxTalk",           "maxTalkTurn",     "maxWhisper",
    "maxWhisperTurn", "maxSkip",           "maxRevote",         "maxAttackRevote", "enableNoAttack",
    "enableNoExecution", "enableRoleRequest", "talkOnFirstDay", "votableInFirstDay", "voteVisible",
    "whisperBeforeRevote", "validateUtterance", "validation",   "timeLimit",       "randomSeed",
    "preset",         "talkMode"};
enum { NSETTING = sizeof setting_names / sizeof setting_names[0], S_KEYS = V_INFO };
/* Then the host's tables that never change and that no agent code can
 * reach, made once per sandbox too: the names of info's top-level fields
 * (name -> K_*, for info's __newindex), the talk entries' and whisper
 * entries' protected metatables (copied into each view), the fields table's
 * metatable. */
enum { H_NAMES = S_KEYS + NSETTING, H_TALKMETA, H_WHISPERMETA, H_FIELDSMETA, H_SIZE = H_FIELDSMETA };

void ls_view_forget(view_mem *v)
{
    if (v->ref != LUA_NOREF && v->stale == LUA_NOREF)
        v->stale = v->ref; /* released at the next call, inside the sandbox */
    v->ref = LUA_NOREF;
    v->info_ptr = NULL;
    v->building = false;
}

/* The host's key k (interned) on top of the stack. */
#define KEY(k) lua_rawgeti(L, kv, (k))

static void set_key_int(lua_State *L, int t, int kv, int k, lua_Integer v)
{
    KEY(k);
    lua_pushinteger(L, v);
    lua_rawset(L, t);
}

/* t[key k] = the value in view slot slot */
static void set_key_slot(lua_State *L, int t, int kv, int k, int slot)
{
    KEY(k);
    lua_rawgeti(L, kv, slot);
    lua_rawset(L, t);
}

static void set_key_agent(lua_State *L, int t, int kv, int k, int a)
{
    KEY(k);
    if (a > 0)
        lua_pushinteger(L, a);
    else
        lua_pushnil(L);
    lua_rawset(L, t);
}

static int talk_index(lua_State *L);
static int info_index(lua_State *L);
static int info_seat(lua_State *L);
static void info_meta(lua_State *L, luaseat *s, int fields);

/* Pushes the view table, making it (with the interned strings, info, its
 * fields table and maps, all empty) if there is none. The strings are made
 * once per sandbox (the keys table: host strings only, never handed out as
 * a table) and copied into each game's view. */
static void view_open(lua_State *L, luaseat *s, int n)
{
    view_mem *v = &s->view;
    if (v->stale != LUA_NOREF) {
        luaL_unref(L, LUA_REGISTRYINDEX, v->stale);
        v->stale = LUA_NOREF;
    }
    if (v->ref != LUA_NOREF && v->n == n) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, v->ref);
        return;
    }
    ls_view_forget(v);
    lua_createtable(L, V_SIZE, 0);
    int kv = lua_gettop(L);
    if (s->keys_ref == LUA_NOREF) {
        lua_createtable(L, H_SIZE, 0);
        for (int k = 1; k < K_ROLES; k++) {
            lua_pushstring(L, key_names[k]);
            lua_rawseti(L, -2, k);
        }
        for (int r = 0; r < AW_NROLES; r++) {
            lua_pushstring(L, aw_role_name((aw_role)r));
            lua_rawseti(L, -2, K_ROLES + r);
        }
        lua_pushstring(L, aw_species_name(AW_HUMAN));
        lua_rawseti(L, -2, K_SPECIES + AW_HUMAN);
        lua_pushstring(L, aw_species_name(AW_WOLF));
        lua_rawseti(L, -2, K_SPECIES + AW_WOLF);
        for (int i = 0; i < NSETTING; i++) {
            lua_pushstring(L, setting_names[i]);
            lua_rawseti(L, -2, S_KEYS + i);
        }
        int kt = lua_gettop(L);
        lua_createtable(L, 0, K_LATESTATTACKVOTELIST);
        for (int k = K_AGENT; k <= K_LATESTATTACKVOTELIST; k++) {
            lua_rawgeti(L, kt, k);
            lua_pushinteger(L, k);
            lua_rawset(L, -3);
        }
        lua_rawseti(L, kt, H_NAMES);
        for (int w = 0; w <= 1; w++) {
            lua_createtable(L, 0, 2);
            lua_pushliteral(L, "__index");
            lua_pushlightuserdata(L, s);
            lua_pushinteger(L, w);
            lua_pushvalue(L, kt); /* the interned keys */
            lua_pushcclosure(L, talk_index, 3);
            lua_rawset(L, -3);
            /* Protected: getmetatable gives this string, setmetatable refuses. */
            lua_pushliteral(L, "__metatable");
            lua_pushstring(L, w ? "whisper entry" : "talk entry");
            lua_rawset(L, -3);
            lua_rawseti(L, kt, w ? H_WHISPERMETA : H_TALKMETA);
        }
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "__index");
        lua_pushlightuserdata(L, s);
        lua_pushcclosure(L, info_index, 1);
        lua_rawset(L, -3);
        lua_rawseti(L, kt, H_FIELDSMETA);
        s->keys_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->keys_ref);
    int kt = lua_gettop(L);
    for (int k = 1; k < V_INFO; k++) {
        lua_rawgeti(L, kt, k);
        lua_rawseti(L, kv, k);
    }
    lua_rawgeti(L, kt, H_NAMES);
    lua_rawseti(L, kv, V_NAMES);
    lua_rawgeti(L, kt, H_TALKMETA);
    lua_rawseti(L, kv, V_TALKMETA);
    lua_rawgeti(L, kt, H_WHISPERMETA);
    lua_rawseti(L, kv, V_WHISPERMETA);
    lua_createtable(L, 0, 24); /* the fields */
    lua_rawgeti(L, kt, H_FIELDSMETA);
    lua_setmetatable(L, -2);
    lua_remove(L, kt);
    lua_createtable(L, 0, 0); /* info */
    info_meta(L, s, lua_gettop(L) - 1);
    lua_setmetatable(L, -2);
    v->info_ptr = lua_topointer(L, -1);
    lua_rawseti(L, kv, V_INFO);
    lua_rawseti(L, kv, V_FIELDS);
    for (int slot = V_STATUS; slot <= V_RWHISPER; slot++) {
        lua_createtable(L, n, 0);
        lua_rawseti(L, kv, slot);
    }
    lua_pushvalue(L, kv);
    v->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    v->n = n;
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        v->alive[a] = -1;
        v->role[a] = (signed char)AW_ROLE_NONE;
        v->rtalk[a] = v->rwhisper[a] = -1;
    }
    v->talk_day = v->whisper_day = INT_MIN;
    v->ntalks = v->nwhispers = 0;
    for (int i = 0; i < NVOTELISTS; i++)
        v->votes[i].n = -1;
    v->nlast_dead = -1;
    v->divine.agent = v->medium.agent = -1;
    v->existing = false;
    v->pending = v->present = 0;
    v->dirty = ~0u; /* the first call sets every field */
    v->judged[0] = v->judged[1] = false;
    v->raw_valid = false;
}

/* Appends talks from..n-1 to the list at index list. */
static void add_talks(lua_State *L, luaseat *s, int kv, int list, bool whisper, const aw_talk *t, int from, int n)
{
    if (from >= n)
        return;
    bool lazy = s->opts.push_parsed != NULL;
    /* The keys and the metatable pushed once for all the entries (a copy
     * of a stack slot is cheaper than a lookup in the view table). */
    static const int keys[] = {K_AGENT, K_DAY, K_IDX, K_TURN, K_TEXT};
    luaL_checkstack(L, 10, "talk entries");
    int k0 = lua_gettop(L) + 1;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        KEY(keys[k]);
    lua_rawgeti(L, kv, whisper ? V_WHISPERMETA : V_TALKMETA);
    int meta = lua_gettop(L);
    for (int i = from; i < n; i++) {
        lua_createtable(L, 0, 6); /* with room for `parsed` */
        int e = lua_gettop(L);
        const lua_Integer v[] = {t[i].agent, t[i].day, t[i].idx, t[i].turn};
        for (int k = 0; k < 4; k++) {
            lua_pushvalue(L, k0 + k);
            lua_pushinteger(L, v[k]);
            lua_rawset(L, e);
        }
        lua_pushvalue(L, k0 + 4);
        lua_pushlstring(L, t[i].text, t[i].len);
        lua_rawset(L, e);
        if (t[i].parsed && lazy) {
            lua_pushvalue(L, meta);
            lua_setmetatable(L, e);
        }
        lua_rawseti(L, list, i + 1);
    }
    lua_settop(L, k0 - 1);
}

/* Appends the talks (or whispers) not handed out yet to the day's list, if
 * the agent read it (it is in the view) and it is still the day's list with
 * the length the host gave it. Returns false, the list dropped, otherwise:
 * the list is then made anew when the agent reads it (build_talks). */
static bool update_talks(lua_State *L, luaseat *s, int kv, bool whisper, const aw_talk *t, int n, int day)
{
    view_mem *v = &s->view;
    int slot = whisper ? V_WHISPERS : V_TALKS;
    int *vday = whisper ? &v->whisper_day : &v->talk_day;
    int *vn = whisper ? &v->nwhispers : &v->ntalks;
    if (*vday == INT_MIN)
        return false; /* the view holds no list (never read, or dropped) */
    lua_rawgeti(L, kv, slot);
    if (*vday != day || !lua_istable(L, -1) || lua_rawlen(L, -1) != (lua_Unsigned)*vn || *vn > n) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, kv, slot);
        *vday = INT_MIN;
        *vn = 0;
        return false;
    }
    add_talks(L, s, kv, lua_gettop(L), whisper, t, *vn, n);
    *vn = n;
    lua_pop(L, 1);
    return true;
}

/* Pushes a new list of the day's talks (or whispers), kept in the view. */
static void build_talks(lua_State *L, luaseat *s, int kv, bool whisper, const aw_talk *t, int n, int day)
{
    view_mem *v = &s->view;
    lua_createtable(L, n > 16 ? n : 16, 0);
    int list = lua_gettop(L);
    add_talks(L, s, kv, list, whisper, t, 0, n);
    lua_pushvalue(L, list);
    lua_rawseti(L, kv, whisper ? V_WHISPERS : V_TALKS);
    *(whisper ? &v->whisper_day : &v->talk_day) = day;
    *(whisper ? &v->nwhispers : &v->ntalks) = n;
}

/* A talk entry's `parsed`, made when first read: the host's tree of that
 * talk while it is in today's list (the entry's text, day and index still
 * those of the talk), else the text parsed again under the game's mode.
 * It is then stored in the entry. */
static int talk_index(lua_State *L)
{
    /* Reached for every field a talk entry lacks: the key is compared with
     * the interned "parsed" (the same string object or not the key), and
     * the entry's fields are read with interned keys. */
    const int kt = lua_upvalueindex(3);
    lua_settop(L, 2);
    lua_rawgeti(L, kt, K_PARSED); /* 3 */
    if (!lua_rawequal(L, 2, 3) || !lua_istable(L, 1))
        return 0;
    luaseat *s = lua_touserdata(L, lua_upvalueindex(1));
    bool whisper = lua_tointeger(L, lua_upvalueindex(2)) != 0;
    lua_rawgeti(L, kt, K_TEXT);
    if (lua_rawget(L, 1) != LUA_TSTRING) /* 4 */
        return 0;
    size_t len;
    const char *text = lua_tolstring(L, 4, &len);
    lua_rawgeti(L, kt, K_IDX);
    lua_rawget(L, 1); /* 5 */
    lua_rawgeti(L, kt, K_DAY);
    lua_rawget(L, 1); /* 6 */
    const aw_talk *found = NULL;
    const aw_info *in = s->cur_info;
    if (in && lua_isinteger(L, 5) && lua_isinteger(L, 6)) {
        const aw_talk *list = whisper ? in->whispers : in->talks;
        int n = whisper ? in->nwhispers : in->ntalks;
        lua_Integer idx = lua_tointeger(L, 5), day = lua_tointeger(L, 6);
        if (list && idx >= 0 && idx < n && list[idx].day == day && list[idx].parsed && list[idx].len == len &&
            memcmp(list[idx].text, text, len) == 0)
            found = &list[idx];
    }
    if (found)
        s->opts.push_parsed(L, found->parsed);
    else if (!s->opts.push_parsed_text || !s->opts.push_parsed_text(L, text, len, s->validation))
        return 0;
    lua_pushvalue(L, 3); /* "parsed" */
    lua_pushvalue(L, -2);
    lua_rawset(L, 1);
    return 1;
}

static bool same_votes(const vote_mem *m, const aw_vote *v, int n)
{
    return m->n == n && (n == 0 || memcmp(m->v, v, sizeof *v * (size_t)n) == 0);
}

/* Pushes a new vote list, kept in view slot slot (and its content in m). */
static void build_votes(lua_State *L, int kv, int slot, vote_mem *m, const aw_vote *v, int n)
{
    lua_createtable(L, n, 0);
    int list = lua_gettop(L);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        int e = lua_gettop(L);
        set_key_int(L, e, kv, K_AGENT, v[i].agent);
        set_key_int(L, e, kv, K_DAY, v[i].day);
        set_key_int(L, e, kv, K_TARGET, v[i].target);
        lua_rawseti(L, list, i + 1);
    }
    lua_pushvalue(L, list);
    lua_rawseti(L, kv, slot);
    if (n <= VOTES_KEPT) {
        if (n)
            memcpy(m->v, v, sizeof *v * (size_t)n);
        m->n = n;
    } else {
        m->n = -1; /* too long to compare: made again each call it is read */
    }
}

/* Whether the vote list the view holds (if the agent read it) is still the
 * truth; if not, it is dropped, to be made when the agent reads it. */
static bool update_votes(lua_State *L, int kv, int slot, vote_mem *m, const aw_vote *v, int n)
{
    if (same_votes(m, v, n))
        return true;
    if (m->n >= 0) {
        lua_pushnil(L);
        lua_rawseti(L, kv, slot);
        m->n = -1;
    }
    return false;
}

/* fields[k] = the judge as a table (a new one when it changed), or nil;
 * set only when that changes what fields[k] holds, or when force. */
static void update_judge(lua_State *L, int f, int kv, int k, int slot, aw_judge *m, bool *set, bool force,
                         const aw_judge *j)
{
    if (!j->agent) {
        if (*set || force) {
            KEY(k);
            lua_pushnil(L);
            lua_rawset(L, f);
            *set = false;
        }
        return;
    }
    bool changed = m->agent != j->agent || m->day != j->day || m->target != j->target || m->result != j->result;
    if (changed) {
        lua_createtable(L, 0, 4);
        int e = lua_gettop(L);
        set_key_int(L, e, kv, K_AGENT, j->agent);
        set_key_int(L, e, kv, K_DAY, j->day);
        set_key_int(L, e, kv, K_TARGET, j->target);
        KEY(K_RESULT);
        lua_rawgeti(L, kv, K_SPECIES + (j->result == AW_WOLF ? AW_WOLF : AW_HUMAN));
        lua_rawset(L, e);
        lua_rawseti(L, kv, slot);
        *m = *j;
    }
    if (changed || force || !*set) {
        KEY(k);
        lua_rawgeti(L, kv, slot);
        lua_rawset(L, f);
        *set = true;
    }
}

/* Rewrites the entries of map slot slot that differ from what it holds
 * (was[a], -1 for none): value v[a] (-1: none) as an integer. */
static void update_count_map(lua_State *L, int kv, int slot, int *was, const int *v, int n)
{
    int t = 0;
    for (int a = 1; a <= n; a++) {
        if (was[a] == v[a])
            continue;
        if (!t) {
            lua_rawgeti(L, kv, slot);
            t = lua_gettop(L);
        }
        if (v[a] >= 0)
            lua_pushinteger(L, v[a]);
        else
            lua_pushnil(L);
        lua_rawseti(L, t, a);
        was[a] = v[a];
    }
    if (t)
        lua_pop(L, 1);
}

/* ---- lazy fields: made when the agent first reads them --------------------
 *
 * The lists below are dear to make and many agents never read some of
 * them. push_info leaves each one out of the fields table unless the view
 * holds it up to date from an earlier read, and marks it pending; the
 * fields table's own metatable then makes it on the first read in the call
 * (__index, reached through info's), from the aw_info of the call under
 * way, and stores it in the fields table as push_info would have. Writing a
 * top-level field (info's __newindex) writes the fields table and marks the
 * field for push_info to set again; pairs(info) (__pairs) makes every
 * pending field first and lists the fields and what the agent added. The
 * metatable is protected (__metatable), and its functions give nothing
 * outside a call of this seat, nor for any table but this game's: a read
 * that comes too late finds nil, never another view. */
enum { L_TALKS, L_WHISPERS, L_VOTES, L_RTALK = L_VOTES + NVOTELISTS, L_RWHISPER, NLAZY };

static const struct {
    int key, slot;
} lazy[NLAZY] = {
    {K_TALKLIST, V_TALKS},         {K_WHISPERLIST, V_WHISPERS},        {K_VOTELIST, V_VOTES},
    {K_LATESTVOTELIST, V_LATESTVOTES}, {K_ATTACKVOTELIST, V_AVOTES}, {K_LATESTATTACKVOTELIST, V_LATESTAVOTES},
    {K_REMAINTALKMAP, V_RTALK},    {K_REMAINWHISPERMAP, V_RWHISPER},
};

/* remainTalkMap and remainWhisperMap are lazy too, but unlike the lists
 * they are one table each for the whole game, updated in place: once the
 * agent read one (it may keep it and read it in later calls without going
 * through info), push_info brings it up to date at every call, as it did
 * for every agent before; until then the table is brought up to date only
 * when first read (update_count_map finds what changed since it was last
 * written, so the table read late holds what eager updates would have
 * left in it). */
static void update_remain(lua_State *L, luaseat *s, int kv, const aw_info *in, bool whisper)
{
    view_mem *v = &s->view;
    update_count_map(L, kv, whisper ? V_RWHISPER : V_RTALK, whisper ? v->rwhisper : v->rtalk,
                     whisper ? in->remain_whisper : in->remain_talk, v->n);
}

/* The i-th vote list of in (voteList, latestVoteList, attackVoteList,
 * latestAttackVoteList) in *vl; returns its length. */
static int lazy_votes(const aw_info *in, int i, const aw_vote **vl)
{
    switch (i) {
    case 0:
        *vl = in->votes;
        return in->nvotes;
    case 1:
        *vl = in->latest_votes;
        return in->nlatest_votes;
    case 2:
        *vl = in->attack_votes;
        return in->nattack_votes;
    default:
        *vl = in->latest_attack_votes;
        return in->nlatest_attack_votes;
    }
}

/* Pushes the view table if the table at index t is this game's table in
 * view slot slot (info, or its fields) during a call of this seat
 * (push_info done); else pushes nothing and returns 0. */
static int lazy_view(lua_State *L, luaseat *s, int t, int slot)
{
    view_mem *v = &s->view;
    if (!s->cur_info || v->building || v->ref == LUA_NOREF || !lua_istable(L, t))
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, v->ref);
    int kv = lua_gettop(L);
    lua_rawgeti(L, kv, slot);
    bool same = lua_rawequal(L, -1, t);
    lua_pop(L, 1);
    if (!same) {
        lua_pop(L, 1);
        return 0;
    }
    return kv;
}

/* The pending lazy field whose name is the key at index k, or -1 (plain C:
 * every read of a field info lacks, executedAgent at day 0, comes here). */
static int lazy_field(lua_State *L, const view_mem *v, int k)
{
    if (!v->pending || lua_type(L, k) != LUA_TSTRING)
        return -1;
    size_t len;
    const char *key = lua_tolstring(L, k, &len);
    for (int i = 0; i < NLAZY; i++) {
        const char *name = key_names[lazy[i].key];
        if ((v->pending & 1u << i) && strlen(name) == len && memcmp(name, key, len) == 0)
            return i;
    }
    return -1;
}

/* Makes pending field i into the fields table (index t) and pushes it. */
static void lazy_make(lua_State *L, luaseat *s, int kv, int t, int i)
{
    const aw_info *in = s->cur_info;
    if (i == L_RTALK || i == L_RWHISPER) {
        update_remain(L, s, kv, in, i == L_RWHISPER);
        lua_rawgeti(L, kv, lazy[i].slot);
    } else if (i == L_TALKS) {
        build_talks(L, s, kv, false, in->talks, in->ntalks, in->day);
    } else if (i == L_WHISPERS) {
        build_talks(L, s, kv, true, in->whispers, in->whispers ? in->nwhispers : 0, in->day);
    } else {
        const aw_vote *vl;
        int n = lazy_votes(in, i - L_VOTES, &vl);
        build_votes(L, kv, lazy[i].slot, &s->view.votes[i - L_VOTES], vl, n);
    }
    KEY(lazy[i].key);
    lua_pushvalue(L, -2);
    lua_rawset(L, t);
    s->view.pending &= ~(1u << i);
    s->view.present |= 1u << i;
}

/* The fields table's __index: a pending field is made. */
static int info_index(lua_State *L)
{
    luaseat *s = lua_touserdata(L, lua_upvalueindex(1));
    int i = lazy_field(L, &s->view, 2);
    int kv = i >= 0 ? lazy_view(L, s, 1, V_FIELDS) : 0;
    if (!kv)
        return 0;
    lazy_make(L, s, kv, 1, i);
    return 1;
}

/* info's __newindex (info holds no top-level field itself, so writing one
 * comes here): the field is written in the fields table and push_info sets
 * it again at the next call; any other key goes into info. */
static int info_newindex(lua_State *L)
{
    luaseat *s = lua_touserdata(L, lua_upvalueindex(1));
    lua_settop(L, 3);
    luaL_checktype(L, 1, LUA_TTABLE);
    int kv = lua_type(L, 2) == LUA_TSTRING ? lazy_view(L, s, 1, V_INFO) : 0;
    if (kv) {
        lua_rawgeti(L, kv, V_NAMES);
        lua_pushvalue(L, 2);
        lua_Integer k = lua_rawget(L, -2) == LUA_TNUMBER ? lua_tointeger(L, -1) : 0;
        if (k > 0 && k < NFIELDS) {
            view_mem *v = &s->view;
            lua_rawgeti(L, kv, V_FIELDS);
            lua_pushvalue(L, 2);
            lua_pushvalue(L, 3);
            lua_rawset(L, -3);
            v->dirty |= 1u << k;
            for (int i = 0; i < NLAZY; i++)
                if (lazy[i].key == k) {
                    v->pending &= ~(1u << i); /* the agent's value is the field's now */
                    v->present |= 1u << i;
                }
            return 0;
        }
        lua_settop(L, 3);
    }
    lua_rawset(L, 1);
    return 0;
}

static int info_next(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 2);
    if (lua_next(L, 1))
        return 2;
    lua_pushnil(L);
    return 1;
}

/* Copies the entries of the table at index from into the table on top. */
static void copy_entries(lua_State *L, int from)
{
    int to = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, from)) {
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, to);
    }
}

/* pairs(info): every pending field made, then a traversal of a new table
 * with the fields and what the agent added to info. */
static int info_pairs(lua_State *L)
{
    luaseat *s = lua_touserdata(L, lua_upvalueindex(1));
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    int kv = lazy_view(L, s, 1, V_INFO);
    if (kv && s->view.pending) {
        lua_rawgeti(L, kv, V_FIELDS);
        int f = lua_gettop(L);
        for (int i = 0; i < NLAZY; i++)
            if (s->view.pending & 1u << i) {
                lazy_make(L, s, kv, f, i);
                lua_pop(L, 1);
            }
    }
    lua_settop(L, 1);
    lua_createtable(L, 0, 32); /* 2 */
    if (lua_getmetatable(L, 1)) { /* the real one: its __index is the fields table */
        lua_pushliteral(L, "__index");
        if (lua_rawget(L, -2) == LUA_TTABLE) {
            lua_pushvalue(L, 2);
            copy_entries(L, lua_gettop(L) - 1);
        }
    }
    lua_settop(L, 2);
    copy_entries(L, 1);
    lua_settop(L, 2);
    lua_pushcfunction(L, info_next);
    lua_insert(L, 2);
    lua_pushnil(L);
    return 3;
}

/* Pushes info's metatable; fields is the index of the fields table. */
static void info_meta(lua_State *L, luaseat *s, int fields)
{
    static const struct {
        const char *name;
        lua_CFunction f;
    } mm[] = {{"__newindex", info_newindex}, {"__pairs", info_pairs}};
    lua_createtable(L, 0, 4);
    lua_pushliteral(L, "__index");
    lua_pushvalue(L, fields);
    lua_rawset(L, -3);
    for (size_t i = 0; i < sizeof mm / sizeof mm[0]; i++) {
        lua_pushlightuserdata(L, s);
        lua_pushcclosure(L, mm[i].f, 1);
        lua_setfield(L, -2, mm[i].name);
    }
    /* Protected: getmetatable gives this string, setmetatable refuses. */
    lua_pushliteral(L, "info");
    lua_setfield(L, -2, "__metatable");
    /* The seat, for aiwolf.talks (reader_view): a closure of info_seat,
     * which no agent code can make, in a metatable no agent code reaches. */
    lua_pushlightuserdata(L, s);
    lua_pushcclosure(L, info_seat, 1);
    lua_rawseti(L, -2, 1);
}

/* ---- aiwolf.talks: the day's talks read without a table per talk ----------
 *
 * talkList and whisperList are one table per talk, made when the list is
 * read. An agent that reads each talk once (aiwolf.agent) may read them
 * through the module aiwolf.talks instead, which gives the same values, as
 * plain values, from the aw_info of the call under way: count(info [,
 * whisper]), the iterator talks(info [, from [, whisper]]) (i, agent, day,
 * idx, turn, text) and tree(info, i [, whisper]) (what talkList[i].parsed
 * gives). They answer for one table only: the info of the call under way,
 * of the seat that made it, with the view complete (as the lazy fields,
 * lazy_view: see reader_seat). For any other table (one the agent made, an
 * earlier game's info) and outside a call, count and tree give nil and
 * talks gives nothing. */

/* Marks info's metatable as the host's; its upvalue is the seat. */
static int info_seat(lua_State *L)
{
    (void)L;
    return 0;
}

/* The day's talks (whisper: whispers) of in, and their number, as the view
 * holds them (whispers only for those who hear them; talkList's and
 * whisperList's content). */
static const aw_talk *view_talks(const aw_info *in, bool whisper, int *n)
{
    if (whisper) {
        *n = in->whispers ? in->nwhispers : 0;
        return in->whispers;
    }
    *n = in->ntalks;
    return in->talks;
}

/* The seat whose info of the call under way is the table at index i, or
 * NULL. Upvalue 1 of the calling function holds the seat once found (each
 * sandbox is one seat's): the first time it is taken from info's
 * metatable (the real one, whatever __metatable says); then the table is
 * compared with the view's info by address, which no other live table
 * shares while the view holds its info (a view dropped forgets it). */
static luaseat *reader_seat(lua_State *L, int i)
{
    luaseat *s = lua_touserdata(L, lua_upvalueindex(1));
    if (!s) {
        if (!lua_getmetatable(L, i))
            return NULL;
        int top = lua_gettop(L) - 1;
        if (lua_rawgeti(L, -1, 1) == LUA_TFUNCTION && lua_tocfunction(L, -1) == info_seat &&
            lua_getupvalue(L, -1, 1) != NULL)
            s = lua_touserdata(L, -1);
        lua_settop(L, top);
        if (!s)
            return NULL;
        lua_pushlightuserdata(L, s);
        lua_replace(L, lua_upvalueindex(1));
    }
    const view_mem *v = &s->view;
    if (!s->cur_info || v->building || v->ref == LUA_NOREF || !v->info_ptr || lua_topointer(L, i) != v->info_ptr)
        return NULL;
    return s;
}

/* count(info [, whisper]): how many talks (whispers) the day's list holds. */
static int talks_count(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaseat *s = reader_seat(L, 1);
    if (!s) {
        lua_pushnil(L);
        return 1;
    }
    int n;
    view_talks(s->cur_info, lua_toboolean(L, 2), &n);
    lua_pushinteger(L, n);
    return 1;
}

/* The iterators' step: (info, i) -> i + 1 and that talk's agent, day, idx,
 * turn and text; nothing past the last. */
static int talks_step(lua_State *L, bool whisper)
{
    luaseat *s = lua_type(L, 1) == LUA_TTABLE ? reader_seat(L, 1) : NULL;
    lua_Integer i = lua_tointeger(L, 2);
    if (!s)
        return 0;
    int n;
    const aw_talk *t = view_talks(s->cur_info, whisper, &n);
    if (i < 0 || i >= n)
        return 0;
    t += i;
    lua_pushinteger(L, i + 1);
    lua_pushinteger(L, t->agent);
    lua_pushinteger(L, t->day);
    lua_pushinteger(L, t->idx);
    lua_pushinteger(L, t->turn);
    lua_pushlstring(L, t->text, t->len);
    return 6;
}

static int talks_next(lua_State *L)
{
    return talks_step(L, false);
}

static int whispers_next(lua_State *L)
{
    return talks_step(L, true);
}

/* talks(info [, from [, whisper]]): for i, agent, day, idx, turn, text in
 * ..., over the talks (whispers) past the first `from`. Upvalues 2 and 3:
 * the two iterators. */
static int talks_iter(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer from = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, from >= 0, 2, "from must be 0 or more");
    lua_pushvalue(L, lua_upvalueindex(lua_toboolean(L, 3) ? 3 : 2));
    lua_pushvalue(L, 1);
    lua_pushinteger(L, from);
    return 3;
}

/* tree(info, i [, whisper]): the host's tree of the i-th talk (whisper), a
 * new table at each call, as talkList[i].parsed gives it during the day;
 * nil where that is absent. */
static int talks_tree(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer i = luaL_checkinteger(L, 2);
    bool whisper = lua_toboolean(L, 3);
    luaseat *s = reader_seat(L, 1);
    int n = 0;
    const aw_talk *t = s ? view_talks(s->cur_info, whisper, &n) : NULL;
    if (!t || i < 1 || i > n || !t[i - 1].parsed || !s->opts.push_parsed) {
        lua_pushnil(L);
        return 1;
    }
    s->opts.push_parsed(L, t[i - 1].parsed);
    return 1;
}

/* The module's table; every function starts without its seat (false). */
int ls_open_talks(lua_State *L)
{
    lua_createtable(L, 0, 3);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, talks_count, 1);
    lua_setfield(L, -2, "count");
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, talks_tree, 1);
    lua_setfield(L, -2, "tree");
    lua_pushboolean(L, 0);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, talks_next, 1);
    lua_pushboolean(L, 0);
    lua_pushcclosure(L, whispers_next, 1);
    lua_pushcclosure(L, talks_iter, 3);
    lua_setfield(L, -2, "talks");
    return 1;
}

/* Pushes the agent's info, updated to in. */
void ls_push_info(lua_State *L, luaseat *s, const aw_info *in)
{
    view_mem *v = &s->view;
    int n = in->n < AW_MAX_PLAYERS ? in->n : AW_MAX_PLAYERS;
    view_open(L, s, n);
    int kv = lua_gettop(L);
    v->building = true; /* until the end: a call stopped before then drops the view */

    /* statusMap and roleMap: most calls change neither, seen with one
     * comparison of each array with what was last written. */
    bool same_alive = v->raw_valid && memcmp(v->raw_alive + 1, in->alive + 1, sizeof *in->alive * (size_t)n) == 0;
    bool same_role = v->raw_valid && memcmp(v->raw_role + 1, in->role + 1, sizeof *in->role * (size_t)n) == 0;
    int t = 0;
    for (int a = 1; a <= n && !same_alive; a++) {
        signed char alive = in->alive[a] ? 1 : 0;
        if (v->alive[a] == alive)
            continue;
        if (!t) {
            lua_rawgeti(L, kv, V_STATUS);
            t = lua_gettop(L);
        }
        lua_rawgeti(L, kv, alive ? K_ALIVE : K_DEAD);
        lua_rawseti(L, t, a);
        v->alive[a] = alive;
    }
    if (t)
        lua_pop(L, 1);
    t = 0;
    for (int a = 1; a <= n && !same_role; a++) {
        aw_role r = in->role[a] >= 0 && in->role[a] < AW_NROLES ? in->role[a] : AW_ROLE_NONE;
        if (v->role[a] == (signed char)r)
            continue;
        if (!t) {
            lua_rawgeti(L, kv, V_ROLES);
            t = lua_gettop(L);
        }
        if (r == AW_ROLE_NONE)
            lua_pushnil(L);
        else
            lua_rawgeti(L, kv, K_ROLES + r);
        lua_rawseti(L, t, a);
        v->role[a] = (signed char)r;
    }
    if (t)
        lua_pop(L, 1);
    memcpy(v->raw_alive + 1, in->alive + 1, sizeof *in->alive * (size_t)n);
    memcpy(v->raw_role + 1, in->role + 1, sizeof *in->role * (size_t)n);
    v->raw_valid = true;

    if (!v->existing) {
        /* existingRoleList, sorted by name as the official server sends it; the
         * same all game */
        lua_createtable(L, AW_NROLES, 0);
        aw_role by_name[AW_NROLES];
        aw_roles_by_name(by_name);
        int k = 0;
        for (int i = 0; i < AW_NROLES; i++)
            if (in->existing_role[by_name[i]]) {
                lua_rawgeti(L, kv, K_ROLES + by_name[i]);
                lua_rawseti(L, -2, ++k);
            }
        lua_rawseti(L, kv, V_EXISTING);
        v->existing = true;
    }
    /* The lazy fields the agent read before and that are still up to date
     * stay (talks appended); the others are left out of info (below), to be
     * made when the agent reads them. */
    unsigned fresh = 0;
    for (int i = L_RTALK; i <= L_RWHISPER; i++)
        if (v->present & 1u << i) {
            update_remain(L, s, kv, in, i == L_RWHISPER);
            fresh |= 1u << i;
        }
    if (v->talk_day != INT_MIN)
        fresh |= (unsigned)update_talks(L, s, kv, false, in->talks, in->ntalks, in->day) << L_TALKS;
    if (v->whisper_day != INT_MIN)
        fresh |= (unsigned)update_talks(L, s, kv, true, in->whispers, in->whispers ? in->nwhispers : 0, in->day)
                 << L_WHISPERS;
    for (int i = 0; i < NVOTELISTS; i++) {
        const aw_vote *vl;
        int nv = lazy_votes(in, i, &vl);
        fresh |= (unsigned)update_votes(L, kv, lazy[L_VOTES + i].slot, &v->votes[i], vl, nv) << (L_VOTES + i);
    }
    int nd = in->nlast_dead < AW_MAX_PLAYERS ? in->nlast_dead : AW_MAX_PLAYERS;
    bool new_dead = false;
    if (v->nlast_dead != nd || (nd && memcmp(v->last_dead, in->last_dead, sizeof *in->last_dead * (size_t)nd))) {
        lua_createtable(L, nd, 0);
        for (int i = 0; i < nd; i++) {
            lua_pushinteger(L, in->last_dead[i]);
            lua_rawseti(L, -2, i + 1);
        }
        lua_rawseti(L, kv, V_LASTDEAD);
        if (nd)
            memcpy(v->last_dead, in->last_dead, sizeof *in->last_dead * (size_t)nd);
        v->nlast_dead = nd;
        new_dead = true;
    }

    /* A top-level field the agent put into info itself with rawset (past
     * __newindex) would hide the truth: such keys go. info is empty unless
     * the agent added keys of its own, so this is one lua_next a call. */
    lua_rawgeti(L, kv, V_INFO);
    lua_pushnil(L);
    if (lua_next(L, -2)) {
        lua_pop(L, 2);
        int info = lua_gettop(L);
        lua_rawgeti(L, kv, V_NAMES);
        lua_pushnil(L);
        while (lua_next(L, info)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            if (lua_rawget(L, info + 1) != LUA_TNIL) { /* a field's name: clearing while traversing is allowed */
                lua_pushvalue(L, -2);
                lua_pushnil(L);
                lua_rawset(L, info);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    /* info stays on the stack, to be handed back at the end */

    /* The top-level fields: set when the game changed them, or when the
     * agent wrote them (dirty), or at the view's first call (all dirty). */
    lua_rawgeti(L, kv, V_FIELDS);
    int f = lua_gettop(L);
    unsigned dirty = v->dirty;
    v->dirty = 0;
#define CHANGED(k, val) ((dirty & 1u << (k)) || v->last[k] != (val))
    if (CHANGED(K_AGENT, in->agent)) {
        set_key_int(L, f, kv, K_AGENT, in->agent);
        v->last[K_AGENT] = in->agent;
    }
    if (CHANGED(K_DAY, in->day)) {
        set_key_int(L, f, kv, K_DAY, in->day);
        v->last[K_DAY] = in->day;
    }
    if (CHANGED(K_ROLE, in->my_role)) {
        KEY(K_ROLE);
        if (in->my_role >= 0 && in->my_role < AW_NROLES)
            lua_rawgeti(L, kv, K_ROLES + in->my_role);
        else
            lua_pushstring(L, aw_role_name(in->my_role));
        lua_rawset(L, f);
        v->last[K_ROLE] = in->my_role;
    }
    static const int tables[][2] = {{K_STATUSMAP, V_STATUS}, {K_ROLEMAP, V_ROLES}, {K_EXISTINGROLELIST, V_EXISTING}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (dirty & 1u << tables[i][0])
            set_key_slot(L, f, kv, tables[i][0], tables[i][1]);
    const struct {
        int k, a;
    } agents[] = {{K_EXECUTEDAGENT, in->executed},
                  {K_LATESTEXECUTEDAGENT, in->latest_executed},
                  {K_ATTACKEDAGENT, in->attacked},
                  {K_GUARDEDAGENT, in->guarded}};
    for (size_t i = 0; i < sizeof agents / sizeof agents[0]; i++) {
        int a = agents[i].a > 0 ? agents[i].a : 0;
        if (CHANGED(agents[i].k, a)) {
            set_key_agent(L, f, kv, agents[i].k, a);
            v->last[agents[i].k] = a;
        }
    }
#undef CHANGED
    if (new_dead || (dirty & 1u << K_LASTDEADAGENTLIST))
        set_key_slot(L, f, kv, K_LASTDEADAGENTLIST, V_LASTDEAD);
    /* (no judge, none set, none written by the agent: nothing to do) */
    if (in->divine_result.agent || v->judged[0] || (dirty & 1u << K_DIVINERESULT))
        update_judge(L, f, kv, K_DIVINERESULT, V_DIVINE, &v->divine, &v->judged[0],
                     (dirty & 1u << K_DIVINERESULT) != 0, &in->divine_result);
    if (in->medium_result.agent || v->judged[1] || (dirty & 1u << K_MEDIUMRESULT))
        update_judge(L, f, kv, K_MEDIUMRESULT, V_MEDIUM, &v->medium, &v->judged[1],
                     (dirty & 1u << K_MEDIUMRESULT) != 0, &in->medium_result);
    v->pending = 0;
    /* With nothing written by the agent and the same lazy fields fresh as
     * the fields table holds, nothing is set: the others are pending. */
    if (!dirty && fresh == v->present) {
        v->pending = ((1u << NLAZY) - 1) & ~fresh;
        goto lazy_done;
    }
    for (int i = 0; i < NLAZY; i++) {
        bool forced = (dirty & 1u << lazy[i].key) != 0;
        if (fresh & 1u << i) {
            if (forced || !(v->present & 1u << i))
                set_key_slot(L, f, kv, lazy[i].key, lazy[i].slot);
            v->present |= 1u << i;
        } else {
            if (forced || (v->present & 1u << i)) {
                KEY(lazy[i].key);
                lua_pushnil(L);
                lua_rawset(L, f);
            }
            v->present &= ~(1u << i);
            v->pending |= 1u << i;
        }
    }
lazy_done:
    if (in->nlp)
        aw_luaseat_push_nlp(L, f, in->nlp, n);
    lua_pop(L, 1);
    lua_replace(L, kv); /* info takes the view table's place, on top */
    v->building = false;
}
#undef KEY

/* Pushes a new `setting` table (the keys from the keys table, kt). */
void ls_push_setting(lua_State *L, int kt, const aw_settings *set, uint64_t seed)
{
    lua_createtable(L, 0, NSETTING + 2);
    int t = lua_gettop(L);
    for (int i = 0; i < NSETTING; i++) {
        lua_rawgeti(L, kt, S_KEYS + i);
        switch (i) {
        case 0: lua_pushinteger(L, set->players); break;
        case 1:
            lua_createtable(L, 0, AW_NROLES);
            for (int r = 0; r < AW_NROLES; r++) {
                lua_rawgeti(L, kt, K_ROLES + r);
                lua_pushinteger(L, set->role_count[r]);
                lua_rawset(L, -3);
            }
            break;
        case 2: lua_pushinteger(L, set->max_talk); break;
        case 3: lua_pushinteger(L, set->max_talk_turn); break;
        case 4: lua_pushinteger(L, set->max_whisper); break;
        case 5: lua_pushinteger(L, set->max_whisper_turn); break;
        case 6: lua_pushinteger(L, set->max_skip); break;
        case 7: lua_pushinteger(L, set->max_revote); break;
        case 8: lua_pushinteger(L, set->max_attack_revote); break;
        case 9: lua_pushboolean(L, set->enable_no_attack); break;
        case 10: lua_pushboolean(L, set->enable_no_execution); break;
        case 11: lua_pushboolean(L, false); break;
        case 12: lua_pushboolean(L, set->talk_on_first_day); break;
        case 13: lua_pushboolean(L, false); break;
        case 14: lua_pushboolean(L, set->vote_visible); break;
        case 15: lua_pushboolean(L, set->whisper_before_revote); break;
        case 16: lua_pushboolean(L, set->validation != AW_VALIDATE_OFF); break;
        case 17:
            lua_pushstring(L, set->validation == AW_VALIDATE_STRICT    ? "strict"
                              : set->validation == AW_VALIDATE_LENIENT ? "lenient"
                                                                       : "off");
            break;
        case 18: lua_pushinteger(L, set->time_limit_ms); break;
        case 19: lua_pushinteger(L, (lua_Integer)seed); break;
        case 20: lua_pushstring(L, set->preset); break;
        default: lua_pushstring(L, set->talk_mode == AW_TALK_ROUNDS ? "rounds" : "turns"); break;
        }
        lua_rawset(L, t);
    }
}
