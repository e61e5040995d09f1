/* luaseat_call: one protected call into the agent (update, the method, its
 * reply), tracebacks, faults and printed output (see luaseat_internal.h). */
#include "luaseat_internal.h"
#include "luaseat_nlp.h"

#include <lauxlib.h>
#include <math.h>
#include <string.h>

#include "luamods.h"

void ls_seat_fault(aw_seat_fault *f, aw_fault_kind kind, const char *msg)
{
    f->kind = kind;
    snprintf(f->msg, sizeof f->msg, "%s", msg);
}

/* A fault that happened while the agent's method ran, named after it:
 * "update(): x.lua:3: oops". Reply faults already name the method. */
void ls_method_fault(aw_seat_fault *f, aw_fault_kind kind, const char *method, const char *msg)
{
    if (!method || kind == AW_FAULT_REPLY) {
        ls_seat_fault(f, kind, msg);
        return;
    }
    f->kind = kind;
    snprintf(f->msg, sizeof f->msg, "%s(): %s", method, msg);
}

/* A failed sandbox call as a seat's fault (the same kinds; util.h). */
aw_fault_kind ls_map_fault(aw_fault_kind k)
{
    return k == AW_FAULT_NONE ? AW_FAULT_ERROR : k;
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
 * whatever the message). It is the handler of the whole protected call
 * (ls_run: aw_sandbox_run_handled), which calls the agent with lua_call: it
 * runs where the error was raised, with the agent's frames still there. */
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

/* The agent's methods, by slot: their names are interned once per sandbox
 * (registry entries, s->method_refs), so that a call looks a method up
 * with a string the state already holds, never hashing a C string. */
enum { M_UPDATE = 1, M_INITIALIZE, M_GETNAME, M_DAYSTART, M_TALK, M_WHISPER, M_VOTE, M_DIVINE, M_GUARD, M_ATTACK,
       M_FINISH, M_COUNT = M_FINISH };
_Static_assert(M_COUNT < LS_METHOD_SLOTS, "the names fit the seat's refs");
static const char *const method_names[M_COUNT + 1] = {
    [M_UPDATE] = "update", [M_INITIALIZE] = "initialize", [M_GETNAME] = "getName", [M_DAYSTART] = "dayStart",
    [M_TALK] = "talk",     [M_WHISPER] = "whisper",       [M_VOTE] = "vote",       [M_DIVINE] = "divine",
    [M_GUARD] = "guard",   [M_ATTACK] = "attack",         [M_FINISH] = "finish",
};

/* Their lengths (name_slot). */
static const size_t method_len[M_COUNT + 1] = {
    [M_UPDATE] = 6, [M_INITIALIZE] = 10, [M_GETNAME] = 7, [M_DAYSTART] = 8, [M_TALK] = 4, [M_WHISPER] = 7,
    [M_VOTE] = 4,   [M_DIVINE] = 6,      [M_GUARD] = 5,   [M_ATTACK] = 6,   [M_FINISH] = 6,
};

/* The slot of the method a request calls, 0 for none. */
static int method_slot(aw_req_kind k)
{
    switch (k) {
    case AW_REQ_DAILY_INITIALIZE:
        return M_DAYSTART;
    case AW_REQ_TALK:
        return M_TALK;
    case AW_REQ_WHISPER:
        return M_WHISPER;
    case AW_REQ_VOTE:
        return M_VOTE;
    case AW_REQ_DIVINE:
        return M_DIVINE;
    case AW_REQ_GUARD:
        return M_GUARD;
    case AW_REQ_ATTACK:
        return M_ATTACK;
    case AW_REQ_FINISH:
        return M_FINISH;
    default:
        return 0;
    }
}

static const char *method_for(aw_req_kind k)
{
    int m = method_slot(k);
    return m ? method_names[m] : NULL;
}

/* Makes the methods' names into the registry once per sandbox: each
 * name is one registry entry (s->method_refs[m]), one lookup away. */
static void intern_method_names(lua_State *L, luaseat *s)
{
    if (s->method_refs[0] != LUA_NOREF)
        return;
    for (int m = 1; m <= M_COUNT; m++) {
        lua_pushstring(L, method_names[m]);
        s->method_refs[m] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    s->method_refs[0] = 0; /* all made */
}

/* Pushes agent[name of method m] (looked up with metamethods: class-style
 * agents work). */
static int get_method(lua_State *L, luaseat *s, int agent, int m)
{
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->method_refs[m]);
    return lua_gettable(L, agent);
}

/* Calls agent:method() (method slot m) if the agent has that method;
 * leaves nres results, or none if there is no such method. Returns whether
 * the method existed. An error goes on up to the call's handler
 * (add_traceback) as it was raised (a time-out is the sandbox's to
 * report). */
static bool call_method(lua_State *L, call_ctx *c, int agent, int m, int nres)
{
    c->method = method_names[m];
    if (get_method(L, c->s, agent, m) == LUA_TNIL) {
        lua_pop(L, 1);
        return false;
    }
    lua_pushvalue(L, agent);
    lua_call(L, 1, nres);
    return true;
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
            /* An error in it is the agent's error, passed on with no
             * traceback: raised again from here, where the handler finds
             * none of the agent's frames. (lua_error raises a memory error
             * again as a memory error.) */
            if (lua_pcall(L, 1, 1, 0) != LUA_OK)
                lua_error(L);
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
int ls_do_call(lua_State *L)
{
    call_ctx *c = lua_touserdata(L, 1);
    luaseat *s = c->s;
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->agent_ref);
    int agent = lua_gettop(L);
    intern_method_names(L, s);
    bool init = c->kind == AW_REQ_INITIALIZE;
    int info = 0;
    if (s->view.ref != LUA_NOREF) {
        if (!c->info) /* the driver took the seat at its word (reads_view): a host bug */
            return luaL_error(L, "no view for a request that reads it");
        ls_push_info(L, s, c->info);
        info = lua_gettop(L);
    }
    c->method = init ? "initialize" : "update";
    if (get_method(L, s, agent, init ? M_INITIALIZE : M_UPDATE) != LUA_TNIL) {
        if (!c->info)
            return luaL_error(L, "no view for a request that reads it");
        if (!info) {
            int fn = lua_gettop(L);
            ls_push_info(L, s, c->info);
            info = lua_gettop(L);
            lua_pushvalue(L, fn);
        } /* else the method is on top already: called from there */
        lua_pushvalue(L, agent);
        lua_pushvalue(L, info);
        if (init) {
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->keys_ref); /* made by push_info */
            ls_push_setting(L, lua_gettop(L), c->set, s->agent_seed);
            lua_remove(L, -2);
        }
        lua_call(L, init ? 3 : 2, 0);
    }
    if (init)
        return 0;
    int m = method_slot(c->kind);
    if (!m)
        return 0;
    bool wants = aw_req_needs_reply(c->kind);
    if (call_method(L, c, agent, m, wants ? 1 : 0) && wants)
        take_reply(L, c, -1);
    return 0;
}

/* What a rescan learns at once (every method's slot and bit 0). */
#define SHAPE_ALL ((2u << M_COUNT) - 1u)
/* Tables of at most this many keys are read whole in a rescan (one pass
 * of lua_next); larger ones method by method, as asked. */
#define SHAPE_SCAN_KEYS 32

/* The slot of the method named by the string at index k, or 0. */
static int name_slot(lua_State *L, int k)
{
    size_t len;
    const char *key = lua_tolstring(L, k, &len); /* a string: no conversion */
    for (int slot = 1; slot <= M_COUNT; slot++)
        if (method_len[slot] == len && memcmp(method_names[slot], key, len) == 0)
            return slot;
    return 0;
}

/* Reads the plain agent table at index t whole: the methods it has, into
 * s->shape_absent (all of whose bits the caller set). Returns false, with
 * nothing learnt, for a table of more than SHAPE_SCAN_KEYS keys. Raw and
 * allocation-free: lua_next from nil on a table. */
static bool scan_agent(lua_State *L, luaseat *s, int t)
{
    unsigned present = 0;
    int keys = 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        if (++keys > SHAPE_SCAN_KEYS) {
            lua_settop(L, t);
            return false;
        }
        if (lua_type(L, -2) == LUA_TSTRING)
            present |= 1u << name_slot(L, -2);
        lua_settop(L, -2); /* the value; the key stays for lua_next */
    }
    s->shape_absent &= ~(present & ~1u);
    return true;
}

/* Whether a request would run nothing (ls_runs_nothing), or the name
 * asked at the start of a game (ls_names_nothing: no getName), so that it
 * need not enter the sandbox: the game's info not made yet (no view to bring up to date), the
 * agent a plain table (no metatable, so no __index could run) that has
 * neither update (initialize at INITIALIZE) nor the request's method (nor
 * getName).
 * Looked at with raw reads only, outside any call: no agent code runs and
 * nothing is allocated. False whenever in doubt (the names not interned
 * yet: the sandbox's first call).
 *
 * What it finds is kept (s->shape_known, s->shape_absent) until the seat
 * next enters its sandbox (every place that does sets shape_known to 0):
 * only the agent's own code, which runs only inside its own sandbox's
 * calls, can change its table. Each look after that learns every method
 * at once (scan_agent), so a seat that enters its sandbox once a day pays
 * one look a day, not one per kind of request it meets. */
static bool lacks(luaseat *s, unsigned need)
{
    if (!s->sb || s->view.ref != LUA_NOREF || s->method_refs[0] == LUA_NOREF)
        return false;
    if ((s->shape_known & need) != need) {
        lua_State *L = aw_sandbox_state(s->sb);
        int top = lua_gettop(L);
        /* Between calls the stack is nearly empty and has LUA_MINSTACK free
         * slots: checking for 4 (the agent, a key and a value, or a name
         * and a value per method) then allocates nothing. */
        if (top > 8 || !lua_checkstack(L, 4))
            return false;
        int plain = lua_rawgeti(L, LUA_REGISTRYINDEX, s->agent_ref) == LUA_TTABLE && !lua_getmetatable(L, -1);
        if (!plain) {
            s->shape_known = SHAPE_ALL; /* nothing is known to be absent */
            s->shape_absent = 0;
        } else {
            /* An agent without update never gets info, so it is looked at
             * again after each of its calls: a small table is read whole,
             * what a call changed learnt in one pass whichever requests
             * come next. One with update is looked at only until its
             * first call made info (then lacks answers at once): for the
             * methods asked. */
            lua_rawgeti(L, LUA_REGISTRYINDEX, s->method_refs[M_UPDATE]);
            bool whole = lua_rawget(L, top + 1) == LUA_TNIL;
            lua_settop(L, top + 1);
            s->shape_known = SHAPE_ALL;
            s->shape_absent = SHAPE_ALL;
            if (!whole || !scan_agent(L, s, top + 1)) {
                s->shape_known = 1u;
                s->shape_absent = 1u; /* bit 0: a plain table */
                for (int slot = 1; slot <= M_COUNT; slot++)
                    if (need & 1u << slot) {
                        lua_rawgeti(L, LUA_REGISTRYINDEX, s->method_refs[slot]);
                        if (lua_rawget(L, top + 1) == LUA_TNIL)
                            s->shape_absent |= 1u << slot;
                        lua_settop(L, top + 1);
                        s->shape_known |= 1u << slot;
                    }
            }
        }
        lua_settop(L, top);
    }
    return (s->shape_absent & need) == need;
}

bool ls_runs_nothing(luaseat *s, aw_req_kind kind)
{
    int m = kind == AW_REQ_INITIALIZE ? 0 : method_slot(kind);
    return lacks(s, 1u | 1u << (kind == AW_REQ_INITIALIZE ? M_INITIALIZE : M_UPDATE) | (m ? 1u << m : 0u));
}

/* Whether the request will not read the game's view (ls_do_call's info):
 * it runs nothing, or the agent (a plain table, no view made this game)
 * has neither update (initialize at INITIALIZE) nor a reply that could be
 * a name (a target in an NLP game, read through info's names): its method
 * is called without info. The same raw reads as ls_runs_nothing. */
bool ls_reads_no_info(luaseat *s, aw_req_kind kind)
{
    if (ls_runs_nothing(s, kind))
        return true;
    if (aw_req_needs_reply(kind) && !aw_req_wants_text(kind))
        return false;
    return lacks(s, 1u | 1u << (kind == AW_REQ_INITIALIZE ? M_INITIALIZE : M_UPDATE));
}

bool ls_names_nothing(luaseat *s)
{
    return lacks(s, 1u | 1u << M_GETNAME);
}

int ls_do_name(lua_State *L)
{
    call_ctx *c = lua_touserdata(L, 1);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->s->agent_ref);
    int agent = lua_gettop(L);
    intern_method_names(L, c->s);
    bool has = call_method(L, c, agent, M_GETNAME, 1);
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

int ls_run(luaseat *s, lua_CFunction fn, call_ctx *c, aw_fault *fault)
{
    s->shape_known = 0; /* agent code runs */
    return aw_sandbox_run_handled(s->sb, fn, add_traceback, c, fault);
}

void ls_flush_output(luaseat *s)
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
