/* luaseat: the in-process Lua agent seat (see luaseat.h). */
#include "luaseat.h"

#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "luamods.h"
#include "luaseat_nlp.h"
#include "sandbox.h"

/* Longest reply text copied out of the agent; longer ones are passed on
 * truncated to one byte over the engine's limit, so the engine refuses them. */
#define REPLY_MAX 8193

/* A plain Lua module from the agent's folder, kept in memory. */
typedef struct module_src {
    char *name; /* "strategy.wolf" */
    char *path; /* "strategy/wolf.lua", relative to the folder */
    char *text;
    size_t len;
    aw_buf code; /* its bytecode once a sandbox compiled it (empty before) */
} module_src;

/* What the host last wrote into the agent's info (see push_info). */
#define VOTES_KEPT (2 * AW_MAX_PLAYERS) /* longer vote lists are made again each call */
enum { NVOTELISTS = 4 };
#define NFIELDS 24 /* above the K_* of info's top-level fields */

typedef struct vote_mem {
    int n; /* -1: nothing to compare with */
    aw_vote v[VOTES_KEPT];
} vote_mem;

typedef struct view_mem {
    int ref;       /* registry ref of the view table, LUA_NOREF when none */
    int stale;     /* a dropped view table's ref, released at the next call */
    bool building; /* push_info under way: a call stopped then drops the view */
    int n;         /* players */
    signed char alive[AW_MAX_PLAYERS + 1]; /* statusMap: 1, 0, or -1 for nothing */
    signed char role[AW_MAX_PLAYERS + 1];  /* roleMap: the role, AW_ROLE_NONE for nothing */
    int rtalk[AW_MAX_PLAYERS + 1], rwhisper[AW_MAX_PLAYERS + 1]; /* -1: nothing */
    int talk_day, ntalks, whisper_day, nwhispers; /* the lists' day and length */
    vote_mem votes[NVOTELISTS];
    int last_dead[AW_MAX_PLAYERS];
    int nlast_dead;
    aw_judge divine, medium; /* agent -1: none made */
    bool existing;
    unsigned pending; /* lazy fields (bit i: lazy[i]) left out of info this call, not read yet */
    unsigned present; /* lazy fields (bit i) the fields table holds */
    unsigned dirty;   /* fields (bit K_*) the agent wrote since push_info last set them, or all */
    lua_Integer last[NFIELDS]; /* scalar fields (by K_*) as last set: an agent, day, role; 0 for nil */
    bool judged[2];   /* divineResult, mediumResult set (not nil) */
} view_mem;

typedef struct luaseat {
    aw_seat base;
    char *path;
    char *source;              /* the agent file's text as last accepted */
    size_t source_len;
    aw_buf scratch;            /* a module's bytecode being dumped */
    aw_buf code;               /* the source compiled (bytecode), once a sandbox ran it: later games load this */
    module_src *mods;          /* with watching: the folder's modules as last accepted */
    int nmods;
    uint64_t signature;        /* of the files' names, sizes and times when read */
    uint64_t checked_ns;       /* when the folder was last walked (mid-game checks) */
    uint64_t file_signature;   /* of the agent file alone */
    char version[17];          /* content hash of the source and modules, hex */
    char *default_name;
    aw_luaseat_opts opts;
    aw_sandbox *sb;
    int keys_ref;   /* sb's table of the host's strings for info (view_open), kept across games */
    int sb_budget;  /* the budget sb was made with */
    bool sb_clean;  /* no call in sb failed since it was made or renewed: it may serve the next game */
    int agent_ref;
    int swap_ref;  /* the new version's table during a mid-game reload */
    char *dir;     /* the agent's folder: it may require plain Lua modules from it */
    aw_modcache *modcache; /* its modules compiled (when not watching: with watching, mods) */
    int agent;
    long games;          /* begin calls so far: the number of the game under way */
    long sandboxes;      /* sandboxes made (open_agent) */
    uint64_t allocated;  /* bytes allocated by the sandboxes freed so far */
    aw_profile *profile; /* opts.profile: the samples of all its sandboxes */
    uint64_t agent_seed; /* the seat's own seed: randomSeed and math.random */
    char name[65];
    view_mem view;
    const aw_info *cur_info;  /* the info of the call under way, else NULL */
    aw_validation validation; /* the game's, for parsing talks again */
    char *reply; /* REPLY_MAX + 1 bytes */
    size_t reply_len;
} luaseat;

/* What one protected call does and what it found. */
typedef struct call_ctx {
    luaseat *s;
    aw_req_kind kind;
    const aw_info *info;
    const aw_settings *set;
    bool has_text, has_target;
    int target;
    aw_fault_kind reply_fault;
    char reply_msg[200];
    const char *method; /* the agent's method being called, for fault messages */
} call_ctx;

static void seat_fault(aw_seat_fault *f, aw_fault_kind kind, const char *msg)
{
    f->kind = kind;
    snprintf(f->msg, sizeof f->msg, "%s", msg);
}

/* A fault that happened while the agent's method ran, named after it:
 * "update(): x.lua:3: oops". Reply faults already name the method. */
static void method_fault(aw_seat_fault *f, aw_fault_kind kind, const char *method, const char *msg)
{
    if (!method || kind == AW_FAULT_REPLY) {
        seat_fault(f, kind, msg);
        return;
    }
    f->kind = kind;
    snprintf(f->msg, sizeof f->msg, "%s(): %s", method, msg);
}

/* A failed sandbox call as a seat's fault (the same kinds; util.h). */
static aw_fault_kind map_fault(aw_fault_kind k)
{
    return k == AW_FAULT_NONE ? AW_FAULT_ERROR : k;
}

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

static void view_forget(view_mem *v)
{
    if (v->ref != LUA_NOREF && v->stale == LUA_NOREF)
        v->stale = v->ref; /* released at the next call, inside the sandbox */
    v->ref = LUA_NOREF;
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
    view_forget(v);
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
}

/* Pushes the agent's info, updated to in. */
static void push_info(lua_State *L, luaseat *s, const aw_info *in)
{
    view_mem *v = &s->view;
    int n = in->n < AW_MAX_PLAYERS ? in->n : AW_MAX_PLAYERS;
    view_open(L, s, n);
    int kv = lua_gettop(L);
    v->building = true; /* until the end: a call stopped before then drops the view */

    int t = 0;
    for (int a = 1; a <= n; a++) {
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
    for (int a = 1; a <= n; a++) {
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
    fresh |= (unsigned)update_talks(L, s, kv, false, in->talks, in->ntalks, in->day) << L_TALKS;
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
    lua_pop(L, 1);

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
    update_judge(L, f, kv, K_DIVINERESULT, V_DIVINE, &v->divine, &v->judged[0],
                 (dirty & 1u << K_DIVINERESULT) != 0, &in->divine_result);
    update_judge(L, f, kv, K_MEDIUMRESULT, V_MEDIUM, &v->medium, &v->judged[1],
                 (dirty & 1u << K_MEDIUMRESULT) != 0, &in->medium_result);
    v->pending = 0;
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
    if (in->nlp)
        aw_luaseat_push_nlp(L, f, in->nlp, n);
    lua_pop(L, 1);
    lua_rawgeti(L, kv, V_INFO);
    lua_remove(L, kv); /* info stays on top */
    v->building = false;
}
#undef KEY

/* Pushes a new `setting` table (the keys from the keys table, kt). */
static void push_setting(lua_State *L, int kt, const aw_settings *set, uint64_t seed)
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

/* ---- calls ------------------------------------------------------------- */

/* ---- tracebacks ----------------------------------------------------------- */

#define TRACE_FRAMES 4   /* frames shown at most */
#define TRACE_MSG_MAX 300 /* bytes of the error message kept before the traceback */
#define TRACE_SCAN 32     /* frames looked at, from the innermost */

/* Whether a frame runs in one of the agent's own files (the agent file and
 * its modules), not in the embedded library or in C. */
static bool own_frame(const lua_Debug *ar)
{
    if (ar->currentline <= 0 || !ar->source || ar->source[0] != '@')
        return false;
    for (const aw_luamod *m = aw_luamods; m->name; m++)
        if (strcmp(ar->source + 1, m->path) == 0)
            return false;
    return true;
}

/* Whether msg starts with a position "file:line:" (as error() and runtime
 * errors write it). */
static bool has_position(const char *msg, size_t len)
{
    for (size_t i = 0; i + 1 < len && msg[i] != ' '; i++) {
        if (msg[i] != ':' || msg[i + 1] < '0' || msg[i + 1] > '9')
            continue;
        size_t j = i + 1;
        while (j < len && msg[j] >= '0' && msg[j] <= '9')
            j++;
        if (j < len && msg[j] == ':')
            return true;
    }
    return false;
}

/* The message handler of calls into the agent: a string error gets the
 * position of the innermost frame in the agent's own files when it has none
 * (an error(msg, 2) in a tail-called function, assert), and a short
 * traceback of those frames, file:line only, at most TRACE_FRAMES, on the
 * same line: "msg [traceback: x.lua:3, x.lua:10 (tail call), x.lua:14]". A
 * frame marked "(tail call)" was entered by a tail call: its caller's frame
 * is gone. Other error values pass unchanged. Runs no agent code; a memory
 * error here is reported as one (time-outs are reported by the sandbox
 * whatever the message). */
static int add_traceback(lua_State *L)
{
    size_t len;
    const char *msg = lua_type(L, 1) == LUA_TSTRING ? lua_tolstring(L, 1, &len) : NULL;
    if (!msg)
        return 1;
    char trace[TRACE_FRAMES * (LUA_IDSIZE + 24) + 16];
    size_t used = 0;
    int shown = 0, more = 0;
    char first[LUA_IDSIZE + 16] = "";
    lua_Debug ar;
    /* lua_getstack walks from the top: a bounded scan stays cheap even
     * under a stack overflow hundreds of thousands of frames deep. */
    for (int level = 1; level <= TRACE_SCAN && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Slt", &ar) || !own_frame(&ar))
            continue;
        if (shown == TRACE_FRAMES) {
            more = 1;
            break;
        }
        if (!shown)
            snprintf(first, sizeof first, "%s:%d", ar.short_src, ar.currentline);
        int n = snprintf(trace + used, sizeof trace - used, "%s%s:%d%s", shown ? ", " : "", ar.short_src,
                         ar.currentline, ar.istailcall ? " (tail call)" : "");
        if (n < 0 || (size_t)n >= sizeof trace - used)
            break;
        used += (size_t)n;
        shown++;
    }
    if (!shown)
        return 1;
    bool positioned = has_position(msg, len);
    int keep = len > TRACE_MSG_MAX ? TRACE_MSG_MAX : (int)len;
    if (shown == 1 && positioned && !strstr(trace, "(tail call)"))
        return 1; /* the message already says all one frame would */
    lua_pushstring(L, positioned ? "" : first);
    lua_pushstring(L, positioned ? "" : ": ");
    lua_pushlstring(L, msg, (size_t)keep);
    lua_pushfstring(L, "%s [traceback: %s%s]", keep < (int)len ? "..." : "", trace, more ? ", ..." : "");
    lua_concat(L, 4);
    return 1;
}

/* Calls agent:method() if the agent has that method (looked up with
 * metamethods: class-style agents work); leaves nres results, or none if
 * there is no such method. Returns whether the method existed. msgh is the
 * index of add_traceback, pushed once by the caller for all its calls: the
 * message handler adds a short traceback; the error goes on up as it was
 * raised (lua_error raises a memory error again as a memory error; a
 * time-out is the sandbox's to report). */
static bool call_method(lua_State *L, call_ctx *c, int agent, int msgh, const char *method, int nres)
{
    c->method = method;
    if (lua_getfield(L, agent, method) == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushvalue(L, agent);
    if (lua_pcall(L, 1, nres, msgh) != LUA_OK)
        return lua_error(L), false;
    return true;
}

static const char *method_for(aw_req_kind k)
{
    switch (k) {
    case AW_REQ_DAILY_INITIALIZE:
        return "dayStart";
    case AW_REQ_TALK:
        return "talk";
    case AW_REQ_WHISPER:
        return "whisper";
    case AW_REQ_VOTE:
        return "vote";
    case AW_REQ_DIVINE:
        return "divine";
    case AW_REQ_GUARD:
        return "guard";
    case AW_REQ_ATTACK:
        return "attack";
    case AW_REQ_FINISH:
        return "finish";
    default:
        return NULL;
    }
}

/* Reads the method's result. The only agent code it may run is the
 * __tostring metamethod of a table returned by talk()/whisper() (a sentence
 * of aiwolf.protocol: `return P.vote(3)`), called here inside the sandbox
 * and under the call's budget; its result must be a real string. No other
 * metamethod runs. */
static void take_reply(lua_State *L, call_ctx *c, int idx)
{
    const char *method = method_for(c->kind);
    idx = lua_absindex(L, idx);
    int t = lua_type(L, idx);
    if (aw_req_wants_text(c->kind)) {
        if (t == LUA_TNIL)
            return;
        if (t == LUA_TTABLE && luaL_getmetafield(L, idx, "__tostring") != LUA_TNIL) { /* raw lookup */
            lua_pushvalue(L, idx);
            lua_call(L, 1, 1); /* an error in it is the agent's error */
            int rt = lua_type(L, -1);
            if (rt != LUA_TSTRING) {
                c->reply_fault = AW_FAULT_REPLY;
                snprintf(c->reply_msg, sizeof c->reply_msg,
                         "%s() returned a table whose __tostring gave a %s, not a string", method,
                         lua_typename(L, rt));
                return;
            }
            lua_replace(L, idx);
            t = LUA_TSTRING;
        }
        if (t != LUA_TSTRING) {
            c->reply_fault = AW_FAULT_REPLY;
            snprintf(c->reply_msg, sizeof c->reply_msg,
                     "%s() must return a string (or a sentence of aiwolf.protocol), not a %s", method,
                     lua_typename(L, t));
            return;
        }
        size_t len;
        const char *str = lua_tolstring(L, idx, &len); /* a real string: no metamethod runs */
        if (len > REPLY_MAX)
            len = REPLY_MAX;
        memcpy(c->s->reply, str, len);
        c->s->reply_len = len;
        c->has_text = true;
    } else {
        if (t == LUA_TNIL)
            return;
        if (t == LUA_TNUMBER) {
            lua_Integer v;
            if (lua_isinteger(L, idx)) {
                v = lua_tointeger(L, idx);
            } else {
                /* A float must hold a whole number (3.0): 2.5 is no agent. */
                lua_Number n = lua_tonumber(L, idx);
                if (n != n || floor(n) != n) {
                    c->reply_fault = AW_FAULT_REPLY;
                    snprintf(c->reply_msg, sizeof c->reply_msg, "%s() must return a whole agent number, not %.14g",
                             method, (double)n);
                    return;
                }
                if (!lua_numbertointeger(n, &v))
                    v = -1;
            }
            if (v >= 1 && v <= AW_MAX_PLAYERS) {
                c->target = (int)v;
                c->has_target = true;
                return;
            }
            /* An out-of-range number is an answer the rules treat as invalid. */
            c->target = -1;
            c->has_target = true;
            return;
        }
        if (t == LUA_TSTRING && c->info && c->info->nlp) { /* an NLP game: a name will do */
            int a = aw_luaseat_nlp_target(L, idx, c->info->nlp, c->info->n);
            c->target = a ? a : -1;
            c->has_target = true;
            return;
        }
        c->reply_fault = AW_FAULT_REPLY;
        snprintf(c->reply_msg, sizeof c->reply_msg, "%s() must return an agent number, not a %s", method,
                 lua_typename(L, t));
    }
}

/* A request: update(info) (initialize(info, setting) at INITIALIZE), then
 * the request's method. info is brought up to date before anything else
 * once the agent has it (this game's view exists); before that it is made
 * only for a method that takes it, so an agent with neither update nor
 * initialize pays nothing for info: it can never see it. */
static int do_call(lua_State *L)
{
    call_ctx *c = lua_touserdata(L, 1);
    luaseat *s = c->s;
    lua_pushcfunction(L, add_traceback);
    int msgh = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->agent_ref);
    int agent = lua_gettop(L);
    bool init = c->kind == AW_REQ_INITIALIZE;
    int info = 0;
    if (s->view.ref != LUA_NOREF) {
        push_info(L, s, c->info);
        info = lua_gettop(L);
    }
    c->method = init ? "initialize" : "update";
    if (lua_getfield(L, agent, c->method) != LUA_TNIL) {
        int fn = lua_gettop(L);
        if (!info) {
            push_info(L, s, c->info);
            info = lua_gettop(L);
        }
        lua_pushvalue(L, fn);
        lua_pushvalue(L, agent);
        lua_pushvalue(L, info);
        if (init) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->keys_ref); /* made by push_info */
            push_setting(L, lua_gettop(L), c->set, s->agent_seed);
            lua_remove(L, -2);
        }
        if (lua_pcall(L, init ? 3 : 2, 0, msgh) != LUA_OK)
            return lua_error(L);
    }
    if (init)
        return 0;
    const char *method = method_for(c->kind);
    if (!method)
        return 0;
    bool wants = aw_req_needs_reply(c->kind);
    if (call_method(L, c, agent, msgh, method, wants ? 1 : 0) && wants)
        take_reply(L, c, -1);
    return 0;
}

static int do_name(lua_State *L)
{
    call_ctx *c = lua_touserdata(L, 1);
    lua_pushcfunction(L, add_traceback);
    int msgh = lua_gettop(L);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->s->agent_ref);
    int agent = lua_gettop(L);
    bool has = call_method(L, c, agent, msgh, "getName", 1);
    if (has && lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNIL)
        return aw_sandbox_reply_error(L, "getName() must return a string, not a %s", luaL_typename(L, -1));
    if (has && lua_type(L, -1) == LUA_TSTRING) {
        size_t len;
        const char *nm = lua_tolstring(L, -1, &len);
        if (len > sizeof c->s->name - 1)
            len = sizeof c->s->name - 1;
        memcpy(c->s->name, nm, len);
        c->s->name[len] = '\0';
        aw_sanitize_text(c->s->name, len, 0); /* it is shown on terminals and written in logs */
    }
    return 0;
}

static void flush_output(luaseat *s)
{
    size_t len;
    const char *o = aw_sandbox_output(s->sb, &len);
    if (!len)
        return;
    if (s->opts.output) {
        const char *p = o, *end = o + len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
            /* Terminal escapes and carriage returns could forge other lines. */
            char line[1024];
            size_t k = n < sizeof line ? n : sizeof line;
            memcpy(line, p, k);
            aw_sanitize_text(line, k, 0);
            if (s->opts.number_games)
                fprintf(s->opts.output, "[game %ld Agent[%02d] %s] %.*s%s\n", s->games, s->agent, s->name, (int)k,
                        line, k < n ? "..." : "");
            else
                fprintf(s->opts.output, "[Agent[%02d] %s] %.*s%s\n", s->agent, s->name, (int)k, line,
                        k < n ? "..." : "");
            p += n + 1;
        }
    }
    aw_sandbox_clear_output(s->sb);
}

/* Runs the agent's text in sb and keeps the table it returns in the
 * registry (*ref). On failure nothing is kept and *fault says why. */
static int load_agent_table(luaseat *s, aw_sandbox *sb, int *ref, aw_fault *fault)
{
    char chunkname[300];
    snprintf(chunkname, sizeof chunkname, "@%s", s->path);
    /* The text is compiled (under the budget, in the sandbox) once per
     * version; later sandboxes load that bytecode, ours, never an agent's. */
    /* The version names the code: a sandbox that loaded it keeps the
     * function and runs it again in its later games (aw_sandbox_renew). */
    int rc = s->code.len ? aw_sandbox_load_code_kept(sb, s->code.data, s->code.len, chunkname, s->version, fault)
                         : aw_sandbox_load_keep(sb, s->source, s->source_len, chunkname, &s->code, fault);
    if (rc < 0)
        return -1;
    lua_State *L = aw_sandbox_state(sb);
    if (lua_type(L, -1) != LUA_TTABLE) {
        fault->kind = AW_FAULT_REPLY;
        if (lua_isnil(L, -1))
            snprintf(fault->msg, sizeof fault->msg,
                     "%s: the file returns nothing: end it with 'return agent', the table of its methods "
                     "(docs/agents.md)",
                     s->path);
        else
            snprintf(fault->msg, sizeof fault->msg, "%s: the file must return a table of methods, not a %s",
                     s->path, lua_typename(L, lua_type(L, -1)));
        lua_pop(L, 1);
        return -1;
    }
    /* aw_sandbox_ref, not luaL_ref: taking a reference can run out of the
     * agent's memory, which must not happen outside a protected call. */
    int r = aw_sandbox_ref(sb, fault);
    if (r < 0)
        return -1;
    *ref = r;
    return 0;
}

static bool watching(const luaseat *s)
{
    return s->opts.watch || s->opts.watch_live;
}

/* ---- the folder's modules, kept in memory while watching ---------------- */

static char snapshot_key; /* registry key of the seat, for the loader */

static int snapshot_loader(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &snapshot_key);
    luaseat *s = lua_touserdata(L, -1);
    for (int i = 0; s && i < s->nmods; i++) {
        module_src *m = &s->mods[i];
        if (strcmp(m->name, name) != 0)
            continue;
        lua_pushfstring(L, "@%s", m->path);
        /* Compiled once per version of the module: its bytecode (made here
         * from the text, never taken from the agent) serves later games. */
        if (m->code.len) {
            if (luaL_loadbufferx(L, m->code.data, m->code.len, lua_tostring(L, -1), "b") != LUA_OK)
                return lua_error(L);
        } else {
            if (luaL_loadbufferx(L, m->text, m->len, lua_tostring(L, -1), "t") != LUA_OK)
                return lua_error(L);
            /* Dumped aside first: a call stopped half-way keeps no half. */
            aw_buf_clear(&s->scratch);
            aw_sandbox_dump(L, &s->scratch);
            aw_buf_free(&m->code);
            m->code = s->scratch;
            aw_buf_init(&s->scratch);
        }
        lua_pushstring(L, m->name);
        lua_pushstring(L, m->path);
        lua_call(L, 2, 1);
        return 1;
    }
    return luaL_error(L, "module '%s' not found", name);
}

static int set_seat_key(lua_State *L)
{
    lua_pushvalue(L, 1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &snapshot_key);
    return 0;
}

/* Makes the snapshot's modules requirable in sb. */
static int serve_snapshot(luaseat *s, aw_sandbox *sb, aw_fault *fault)
{
    if (aw_sandbox_run(sb, set_seat_key, s, fault) < 0)
        return -1;
    for (int i = 0; i < s->nmods; i++) {
        aw_error err;
        if (aw_sandbox_preload(sb, s->mods[i].name, snapshot_loader, &err) < 0) {
            fault->kind = AW_FAULT_MEMORY;
            snprintf(fault->msg, sizeof fault->msg, "%.500s", err.msg);
            return -1;
        }
    }
    return 0;
}

static void free_modules(module_src *mods, int n)
{
    for (int i = 0; i < n; i++) {
        free(mods[i].name);
        free(mods[i].path);
        free(mods[i].text);
        aw_buf_free(&mods[i].code);
    }
    free(mods);
}

#define MAX_MODULES 256
#define MAX_MODULE_BYTES (1u << 20)

static bool module_word(const char *w, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= '0' && w[i] <= '9') ||
              w[i] == '_'))
            return false;
    return true;
}

/* Walks the agent's folder (four levels at most) for files a module name can
 * reach (a/b.lua for "a.b"): it adds each file's name, size and time to the
 * signature, and, when mods is not NULL, reads it. */
static void walk(const char *dir, const char *rel, int depth, uint64_t *sig, module_src **mods, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && *n < MAX_MODULES) {
        size_t len = strlen(e->d_name);
        char full[4096], relpath[1024];
        if (snprintf(full, sizeof full, "%s/%s", dir, e->d_name) >= (int)sizeof full ||
            snprintf(relpath, sizeof relpath, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= (int)sizeof relpath)
            continue;
        struct stat st;
        if (stat(full, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 4 && module_word(e->d_name, len))
                walk(full, relpath, depth + 1, sig, mods, n);
            continue;
        }
        if (!S_ISREG(st.st_mode) || len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0 ||
            !module_word(e->d_name, len - 4) || st.st_size > MAX_MODULE_BYTES)
            continue;
        *sig = aw_fnv64(*sig, relpath, strlen(relpath) + 1);
        *sig = aw_fnv64(*sig, &st.st_size, sizeof st.st_size);
        *sig = aw_fnv64(*sig, &st.st_mtim, sizeof st.st_mtim);
        (*n)++;
        if (!mods)
            continue;
        size_t tlen;
        char *text = aw_read_file(full, &tlen, NULL);
        if (!text) {
            (*n)--;
            continue;
        }
        *mods = aw_xrealloc(*mods, sizeof **mods * (size_t)*n);
        module_src *m = &(*mods)[*n - 1];
        m->path = aw_xstrdup(relpath);
        m->name = aw_xstrndup(relpath, strlen(relpath) - 4);
        for (char *c = m->name; *c; c++)
            if (*c == '/')
                *c = '.';
        m->text = text;
        m->len = tlen;
        aw_buf_init(&m->code);
    }
    closedir(d);
}

static uint64_t file_signature(const luaseat *s)
{
    uint64_t sig = AW_FNV64_INIT;
    struct stat st;
    if (stat(s->path, &st) == 0) {
        sig = aw_fnv64(sig, &st.st_size, sizeof st.st_size);
        sig = aw_fnv64(sig, &st.st_mtim, sizeof st.st_mtim);
    }
    return sig;
}

/* The signature of the agent file and, when watching, its folder's modules
 * (their names, sizes and times): a change means a new version to try. */
static uint64_t signature(const luaseat *s, module_src **mods, int *nmods)
{
    uint64_t sig = file_signature(s);
    int n = 0;
    if (watching(s))
        walk(s->dir, "", 0, &sig, mods, &n);
    if (nmods)
        *nmods = n;
    return sig;
}

/* A new sandbox with the agent file run in it and its table kept in the
 * registry. */
static aw_sandbox *open_agent(luaseat *s, uint64_t seed, int budget_ms, int *ref, aw_fault *fault)
{
    aw_sandbox_limits lim;
    aw_sandbox_limits_default(&lim);
    lim.seed = seed;
    if (budget_ms > 0)
        lim.budget_ms = budget_ms;
    if (s->opts.memory_bytes)
        lim.memory_bytes = s->opts.memory_bytes;
    /* Watching an agent means keeping the version that last loaded, modules
     * included: then modules come from the in-memory snapshot, not the disk. */
    lim.module_dir = watching(s) ? NULL : s->dir;
    lim.module_cache = watching(s) ? NULL : s->modcache;
    lim.work_budget = s->opts.work_budget;
    lim.unguarded = s->opts.unguarded;
    lim.profile = s->profile;
    aw_error err;
    aw_sandbox *sb = aw_sandbox_new(&lim, &err);
    if (!sb) {
        fault->kind = AW_FAULT_MEMORY;
        snprintf(fault->msg, sizeof fault->msg, "cannot create a sandbox: %.400s", err.msg);
        return NULL;
    }
    if (s->opts.prepare && s->opts.prepare(sb, &err) < 0) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "%.500s", err.msg);
        aw_sandbox_free(sb);
        return NULL;
    }
    if (watching(s) && serve_snapshot(s, sb, fault) < 0) {
        aw_sandbox_free(sb);
        return NULL;
    }
    if (load_agent_table(s, sb, ref, fault) < 0) {
        aw_sandbox_free(sb);
        return NULL;
    }
    s->sandboxes++;
    return sb;
}

long aw_luaseat_sandboxes(const aw_seat *seat)
{
    return ((const luaseat *)seat)->sandboxes;
}

const aw_profile *aw_luaseat_profile(const aw_seat *seat)
{
    return ((const luaseat *)seat)->profile;
}

uint64_t aw_luaseat_allocated(const aw_seat *seat)
{
    const luaseat *s = (const luaseat *)seat;
    return s->allocated + (s->sb ? aw_sandbox_allocated(s->sb) : 0);
}

static void close_agent(luaseat *s)
{
    if (s->sb) {
        s->allocated += aw_sandbox_allocated(s->sb);
        aw_sandbox_free(s->sb);
    }
    s->sb = NULL;
    s->agent_ref = s->swap_ref = s->keys_ref = LUA_NOREF;
    s->view.ref = s->view.stale = LUA_NOREF; /* they were the state's */
    s->view.building = false;
}

/* The next game in the sandbox of the last one (aw_sandbox_renew): the
 * host's references into it released first, so that nothing the last game
 * made stays reachable; then the agent file runs again in the new
 * environment. Only a sandbox in which no call failed is used again, and
 * only for the version it ran. Returns false (the sandbox freed) when it
 * cannot serve: the caller makes a new one. */
static bool renew_agent(luaseat *s, uint64_t seed, aw_fault *fault)
{
    if (!s->sb)
        return false;
    if (!s->sb_clean || s->sb_budget != s->opts.budget_ms) {
        close_agent(s);
        return false;
    }
    aw_sandbox_unref(s->sb, s->agent_ref);
    aw_sandbox_unref(s->sb, s->swap_ref);
    aw_sandbox_unref(s->sb, s->view.ref);
    aw_sandbox_unref(s->sb, s->view.stale);
    s->agent_ref = s->swap_ref = LUA_NOREF;
    s->view.ref = s->view.stale = LUA_NOREF;
    s->view.building = false;
    if (aw_sandbox_renew(s->sb, seed, fault) < 0 || (watching(s) && serve_snapshot(s, s->sb, fault) < 0) ||
        load_agent_table(s, s->sb, &s->agent_ref, fault) < 0) {
        close_agent(s);
        return false;
    }
    return true;
}

/* FNV-1a, 64 bits: a content hash that names the version of an agent. */
static void hash_version(luaseat *s)
{
    uint64_t h = aw_fnv64(AW_FNV64_INIT, s->source, s->source_len);
    for (int i = 0; i < s->nmods; i++) {
        h = aw_fnv64(h, s->mods[i].path, strlen(s->mods[i].path) + 1);
        h = aw_fnv64(h, s->mods[i].text, s->mods[i].len);
    }
    snprintf(s->version, sizeof s->version, "%016llx", (unsigned long long)h);
}

/* Hot reload: if the agent file or a module in its folder changed since they
 * were read, read them again and keep the new versions only if the agent
 * loads and returns a table in a throw-away sandbox; otherwise the old
 * version (kept in memory) plays on. The outcome goes to stderr. */
/* What was last said about each watched file: every seat that plays a file
 * reloads it, but the change is said once (seats run in one thread). */
static struct {
    char path[512];
    char said[700];
} reload_said[32];

/* The slot of path (a free one, or the first, when it has none). */
static int reload_slot(const char *path)
{
    for (int i = 0; i < 32; i++)
        if (strcmp(reload_said[i].path, path) == 0)
            return i;
    for (int i = 0; i < 32; i++)
        if (!reload_said[i].path[0])
            return i;
    return 0;
}

/* Says msg about path unless it is what was said last about it. */
static void say_reload(const char *path, const char *msg)
{
    int slot = reload_slot(path);
    if (strcmp(reload_said[slot].path, path) == 0 && strcmp(reload_said[slot].said, msg) == 0)
        return;
    snprintf(reload_said[slot].path, sizeof reload_said[slot].path, "%s", path);
    snprintf(reload_said[slot].said, sizeof reload_said[slot].said, "%s", msg);
    aw_term_fprintf(stderr, "%s", msg); /* a compile error quotes the agent's text: escaped */
    fputc('\n', stderr);
}

static bool maybe_reload(luaseat *s)
{
    if (signature(s, NULL, NULL) == s->signature)
        return false;
    module_src *mods = NULL;
    int nmods = 0;
    uint64_t sig = signature(s, &mods, &nmods);
    size_t len;
    char *src = aw_read_file(s->path, &len, NULL);
    s->signature = sig; /* a version that fails is not tried again until it changes */
    s->file_signature = file_signature(s);
    if (!src) {
        free_modules(mods, nmods);
        return false;
    }
    char *old = s->source;
    size_t old_len = s->source_len;
    module_src *old_mods = s->mods;
    int old_n = s->nmods;
    aw_buf old_code = s->code;
    aw_buf_init(&s->code);
    s->source = src;
    s->source_len = len;
    s->mods = mods;
    s->nmods = nmods;
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    int ref;
    aw_sandbox *sb = open_agent(s, 0, s->opts.budget_ms > 0 ? s->opts.budget_ms : 1000, &ref, &fault);
    if (!sb) {
        s->source = old;
        s->source_len = old_len;
        s->mods = old_mods;
        s->nmods = old_n;
        aw_buf_free(&s->code);
        s->code = old_code;
        free(src);
        free_modules(mods, nmods);
        char msg[700];
        snprintf(msg, sizeof msg, "aiwolf: %.200s changed but does not load, the previous version (%s) plays on: %.300s",
                 s->path, s->version, fault.msg);
        say_reload(s->path, msg);
        return false;
    }
    aw_sandbox_free(sb);
    free(old);
    free_modules(old_mods, old_n);
    aw_buf_free(&old_code);
    char was[sizeof s->version];
    memcpy(was, s->version, sizeof was);
    hash_version(s);
    char msg[700];
    if (strcmp(was, s->version) == 0) {
        /* Back to the version that plays (say, a broken edit undone). */
        snprintf(msg, sizeof msg, "aiwolf: %.200s loads again: version %s, the one playing", s->path, s->version);
        int slot = reload_slot(s->path);
        if (strcmp(reload_said[slot].path, s->path) == 0 && strstr(reload_said[slot].said, "does not load"))
            say_reload(s->path, msg);
        return false;
    }
    snprintf(msg, sizeof msg, "aiwolf: reloaded %.200s (version %s, was %s)", s->path, s->version, was);
    say_reload(s->path, msg);
    return true;
}

/* Mid-game reload: the new version's functions replace the old ones in the
 * agent's table; every other field — the agent's own state kept in self —
 * stays. Runs as a protected call. */
static int do_swap(lua_State *L)
{
    luaseat *s = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->agent_ref);
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->swap_ref);
    int old = lua_gettop(L) - 1, fresh = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, fresh)) {
        if (lua_type(L, -1) == LUA_TFUNCTION) {
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, old);
        } else {
            lua_pop(L, 1);
        }
    }
    return 0;
}

static void swap_live(luaseat *s)
{
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    s->sb_clean = false; /* the next game starts the new version in a new sandbox */
    if (load_agent_table(s, s->sb, &s->swap_ref, &fault) < 0) {
        fprintf(stderr, "aiwolf: %s: the new version does not load in the running game: %s\n", s->path,
                aw_term(fault.msg).s);
        return;
    }
    if (aw_sandbox_run(s->sb, do_swap, s, &fault) < 0)
        fprintf(stderr, "aiwolf: %s: swapping in the new version failed: %s\n", s->path, aw_term(fault.msg).s);
    aw_sandbox_unref(s->sb, s->swap_ref);
    s->swap_ref = LUA_NOREF;
    flush_output(s);
}

static const char *seat_version(aw_seat *base)
{
    return ((luaseat *)base)->version;
}

static const char *seat_begin(aw_seat *base, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    luaseat *s = (luaseat *)base;
    if ((s->opts.watch || s->opts.watch_live) && maybe_reload(s))
        close_agent(s); /* a new version starts in a new sandbox */
    s->agent = agent;
    s->games++;
    s->agent_seed = agent_seed;
    snprintf(s->name, sizeof s->name, "%s", s->default_name);
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    /* The agent's own math.random is seeded from the game and its seat, so a
     * game replays exactly and no two agents draw the same numbers. */
    if (!renew_agent(s, agent_seed, &fault)) {
        s->sb = open_agent(s, agent_seed, s->opts.budget_ms, &s->agent_ref, &fault);
        if (!s->sb) {
            seat_fault(f, map_fault(fault.kind), fault.msg);
            return NULL;
        }
        s->sb_budget = s->opts.budget_ms;
    }
    s->sb_clean = true;
    call_ctx c = {.s = s, .kind = AW_REQ_NONE};
    if (aw_sandbox_run(s->sb, do_name, &c, &fault) < 0) {
        s->sb_clean = false;
        method_fault(f, map_fault(fault.kind), c.method, fault.msg);
        flush_output(s);
        return s->name; /* the agent still plays; getName failed */
    }
    flush_output(s);
    return s->name;
}

static int seat_request(aw_seat *base, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                        aw_seat_reply *reply, aw_seat_fault *f)
{
    luaseat *s = (luaseat *)base;
    if (!s->sb) {
        seat_fault(f, AW_FAULT_LOST, "the agent failed to load at the start of the game");
        return -1;
    }
    /* Mid-game, the agent file is looked at before every call, the folder's
     * modules at most every 200 ms: a folder walk per call would cost more
     * than most calls. */
    if (s->opts.watch_live) {
        uint64_t now = aw_now_ns();
        if (file_signature(s) != s->file_signature || now - s->checked_ns > 200000000ull) {
            s->checked_ns = now;
            if (maybe_reload(s))
                swap_live(s);
        }
    }
    if (kind == AW_REQ_INITIALIZE) {
        /* A new game for the same instance (the regulation's sets): a new
         * info; nothing made for the last game stands for this one. */
        view_forget(&s->view);
    }
    if (set)
        s->validation = set->validation;
    call_ctx c = {.s = s, .kind = kind, .info = info, .set = set, .reply_fault = AW_FAULT_NONE};
    aw_fault fault; /* not zeroed whole (a 512-byte message) at every call */
    fault.kind = AW_FAULT_NONE;
    fault.msg[0] = '\0';
    fault.elapsed_ns = fault.wall_ns = 0;
    s->cur_info = info;
    int rc = aw_sandbox_run(s->sb, do_call, &c, &fault);
    s->cur_info = NULL;
    flush_output(s);
    if (rc < 0) {
        s->sb_clean = false;
        method_fault(f, map_fault(fault.kind), c.method, fault.msg);
        /* A call stopped while info was being updated leaves it half-done. */
        if (s->view.building)
            view_forget(&s->view);
        return -1;
    }
    if (c.reply_fault != AW_FAULT_NONE) {
        seat_fault(f, c.reply_fault, c.reply_msg);
        return -1;
    }
    if (c.has_text) {
        reply->text = s->reply;
        reply->len = s->reply_len;
    }
    reply->target = c.has_target ? c.target : AW_NO_AGENT;
    return 0;
}

static void seat_free(aw_seat *base)
{
    luaseat *s = (luaseat *)base;
    close_agent(s);
    free(s->path);
    free(s->source);
    aw_buf_free(&s->code);
    aw_buf_free(&s->scratch);
    aw_modcache_free(s->modcache);
    free_modules(s->mods, s->nmods);
    free(s->default_name);
    free(s->dir);
    free(s->reply);
    aw_profile_free(s->profile);
    free(s);
}

static const aw_seat_ops lua_ops = {
    .begin = seat_begin,
    .request = seat_request,
    .version = seat_version,
    .free = seat_free,
};

aw_seat *aw_luaseat_new(const char *path, const aw_luaseat_opts *opts, aw_error *err)
{
    size_t len;
    char *src = aw_read_file(path, &len, err);
    if (!src)
        return NULL;
    luaseat *s = aw_xcalloc(1, sizeof *s);
    s->base.ops = &lua_ops;
    s->path = aw_xstrdup(path);
    s->source = src;
    s->source_len = len;
    aw_buf_init(&s->code);
    aw_buf_init(&s->scratch);
    s->modcache = aw_modcache_new();
    s->reply = aw_xmalloc(REPLY_MAX + 1);
    s->view.ref = s->view.stale = LUA_NOREF;
    s->agent_ref = s->swap_ref = s->keys_ref = LUA_NOREF;
    if (opts)
        s->opts = *opts;
    if (s->opts.profile)
        s->profile = aw_profile_new();
    const char *base = strrchr(path, '/');
    s->dir = base ? aw_xstrndup(path, (size_t)(base - path) ? (size_t)(base - path) : 1) : aw_xstrdup(".");
    base = base ? base + 1 : path;
    size_t blen = strlen(base);
    if (blen > 4 && strcmp(base + blen - 4, ".lua") == 0)
        blen -= 4;
    s->default_name = aw_xstrndup(base, blen > 64 ? 64 : blen);
    s->signature = signature(s, watching(s) ? &s->mods : NULL, &s->nmods);
    s->file_signature = file_signature(s);
    hash_version(s);

    /* Load it once now, so that a broken file is reported before any game
     * (unless the agent runs elsewhere, where begin reports it). */
    if (s->opts.no_load_check)
        return &s->base;
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    int ref;
    int budget = s->opts.budget_ms > 0 ? s->opts.budget_ms : 1000;
    aw_sandbox *sb = open_agent(s, 0, budget, &ref, &fault);
    if (!sb) {
        aw_fail(err, AW_EINVAL, "%s", fault.msg);
        seat_free(&s->base);
        return NULL;
    }
    /* It serves the first game when it has that game's budget. */
    s->sb = sb;
    s->sb_budget = budget;
    s->sb_clean = true;
    s->agent_ref = ref;
    return &s->base;
}

aw_seat *aw_luaseat_make(void *spec, FILE *output, aw_error *err)
{
    const aw_luaseat_spec *m = spec;
    aw_luaseat_opts lo = *m->opts;
    lo.output = output;
    return aw_luaseat_new(m->path, &lo, err);
}

int aw_luaseat_child_prepare(void)
{
    return aw_sandbox_watchdog_start();
}
