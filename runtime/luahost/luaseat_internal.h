/* luaseat_internal: what the files of the Lua seat share (nothing outside
 * runtime/luahost/luaseat*.c may include it): the seat's state, what the
 * host last wrote into the agent's info, one call's context, and the
 * functions one part calls in another. luaseat.h is the contract.
 *
 * The parts: luaseat_info.c (the `info` view and `setting` tables),
 * luaseat_call.c (one protected call, tracebacks, faults, printed output),
 * luaseat_load.c (loading the agent file and its modules, sandboxes made and
 * renewed, hot reload), luaseat.c (the seat's ops). Each uses only those
 * before it in that list. */
#ifndef AW_LUASEAT_INTERNAL_H
#define AW_LUASEAT_INTERNAL_H

#include "luaseat.h"
#include "sandbox.h"

/* Longest reply text copied out of the agent; longer ones are passed on
 * truncated to one byte over the engine's limit, so the engine refuses them. */
#define REPLY_MAX 8193

/* Slots of the agent's methods' names kept in a sandbox (luaseat_call.c). */
#define LS_METHOD_SLOTS 12

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
    const void *info_ptr; /* the view's info table (its address), NULL with no view: aiwolf.talks */
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
    /* The view's alive and role arrays as last written into statusMap and
     * roleMap (agents 1..n), to see with one comparison each that neither
     * changed; raw_valid false: not written yet. */
    bool raw_valid;
    bool raw_alive[AW_MAX_PLAYERS + 1];
    aw_role raw_role[AW_MAX_PLAYERS + 1];
} view_mem;

typedef struct luaseat {
    aw_seat base;
    char *path;
    char *chunkname;           /* "@" path: the agent's chunk's name (made at its first load) */
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
    int method_refs[LS_METHOD_SLOTS]; /* sb's registry refs of the methods' names ([0] LUA_NOREF: none made; luaseat_call.c) */
    /* What ls_runs_nothing found of the agent's table since the seat last
     * entered its sandbox: bit m of shape_known, whether method m's absence
     * is known, of shape_absent, that it is absent (bit 0: known, and a
     * plain table). Set to 0 before anything enters the sandbox. */
    unsigned shape_known, shape_absent;
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

/* luaseat_info.c */
void ls_view_forget(view_mem *v);
void ls_push_info(lua_State *L, luaseat *s, const aw_info *in);
void ls_push_setting(lua_State *L, int kt, const aw_settings *set, uint64_t seed);
/* The module aiwolf.talks (its loader): the talks of the info of the call
 * under way, read without a table per talk (docs/agents.md). */
int ls_open_talks(lua_State *L);

/* luaseat_call.c */
void ls_seat_fault(aw_seat_fault *f, aw_fault_kind kind, const char *msg);
void ls_method_fault(aw_seat_fault *f, aw_fault_kind kind, const char *method, const char *msg);
aw_fault_kind ls_map_fault(aw_fault_kind k);
int ls_do_call(lua_State *L);
int ls_do_name(lua_State *L);
bool ls_runs_nothing(luaseat *s, aw_req_kind kind);
bool ls_names_nothing(luaseat *s);
bool ls_reads_no_info(luaseat *s, aw_req_kind kind);
/* Runs fn (ls_do_call, ls_do_name) with c in the seat's sandbox, the
 * agent's errors given a traceback. */
int ls_run(luaseat *s, lua_CFunction fn, call_ctx *c, aw_fault *fault);
void ls_flush_output(luaseat *s);

/* luaseat_load.c */
bool ls_watching(const luaseat *s);
aw_sandbox *ls_open_agent(luaseat *s, uint64_t seed, int budget_ms, int *ref, aw_fault *fault);
void ls_close_agent(luaseat *s);
bool ls_renew_agent(luaseat *s, uint64_t seed, aw_fault *fault);
void ls_hash_version(luaseat *s);
bool ls_maybe_reload(luaseat *s);
void ls_swap_live(luaseat *s);
void ls_free_modules(module_src *mods, int n);
uint64_t ls_file_signature(const luaseat *s);
uint64_t ls_signature(const luaseat *s, module_src **mods, int *nmods);

#endif
