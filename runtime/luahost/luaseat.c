/* luaseat: the in-process Lua agent seat (see luaseat.h): its ops; the
 * parts are in luaseat_internal.h. */
#include "luaseat_internal.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

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

static const char *seat_version(aw_seat *base)
{
    return ((luaseat *)base)->version;
}

static const char *seat_begin(aw_seat *base, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    luaseat *s = (luaseat *)base;
    if ((s->opts.watch || s->opts.watch_live) && ls_maybe_reload(s))
        ls_close_agent(s); /* a new version starts in a new sandbox */
    s->agent = agent;
    s->games++;
    s->agent_seed = agent_seed;
    snprintf(s->name, sizeof s->name, "%s", s->default_name);
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    /* The agent's own math.random is seeded from the game and its seat, so a
     * game replays exactly and no two agents draw the same numbers. */
    if (!ls_renew_agent(s, agent_seed, &fault)) {
        s->sb = ls_open_agent(s, agent_seed, s->opts.limits.budget_ms, &s->agent_ref, &fault);
        if (!s->sb) {
            ls_seat_fault(f, ls_map_fault(fault.kind), fault.msg);
            return NULL;
        }
        s->sb_budget = s->opts.limits.budget_ms;
    }
    s->sb_clean = true;
    call_ctx c = {.s = s, .kind = AW_REQ_NONE};
    if (!ls_names_nothing(s) && ls_run(s, ls_do_name, &c, &fault) < 0) {
        s->sb_clean = false;
        ls_method_fault(f, ls_map_fault(fault.kind), c.method, fault.msg);
        ls_flush_output(s);
        return s->name; /* the agent still plays; getName failed */
    }
    ls_flush_output(s);
    return s->name;
}

static int seat_request(aw_seat *base, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                        aw_seat_reply *reply, aw_seat_fault *f)
{
    luaseat *s = (luaseat *)base;
    if (!s->sb) {
        ls_seat_fault(f, AW_FAULT_LOST, "the agent failed to load at the start of the game");
        return -1;
    }
    /* Mid-game, the agent file is looked at before every call, the folder's
     * modules at most every 200 ms: a folder walk per call would cost more
     * than most calls. */
    if (s->opts.watch_live) {
        uint64_t now = aw_now_ns();
        if (ls_file_signature(s) != s->file_signature || now - s->checked_ns > 200000000ull) {
            s->checked_ns = now;
            if (ls_maybe_reload(s))
                ls_swap_live(s);
        }
    }
    if (kind == AW_REQ_INITIALIZE) {
        /* A new game for the same instance (the regulation's sets): a new
         * info; nothing made for the last game stands for this one. */
        ls_view_forget(&s->view);
    }
    if (set)
        s->validation = set->validation;
    if (s->view.ref == LUA_NOREF && ls_runs_nothing(s, kind)) {
        /* What the call would give: no reply, nothing printed. */
        reply->target = AW_NO_AGENT;
        return 0;
    }
    call_ctx c = {.s = s, .kind = kind, .info = info, .set = set, .reply_fault = AW_FAULT_NONE};
    aw_fault fault; /* not zeroed whole (a 512-byte message) at every call */
    fault.kind = AW_FAULT_NONE;
    fault.msg[0] = '\0';
    fault.elapsed_ns = fault.wall_ns = 0;
    s->cur_info = info;
    int rc = ls_run(s, ls_do_call, &c, &fault);
    s->cur_info = NULL;
    ls_flush_output(s);
    if (rc < 0) {
        s->sb_clean = false;
        ls_method_fault(f, ls_map_fault(fault.kind), c.method, fault.msg);
        /* A call stopped while info was being updated leaves it half-done. */
        if (s->view.building)
            ls_view_forget(&s->view);
        return -1;
    }
    if (c.reply_fault != AW_FAULT_NONE) {
        ls_seat_fault(f, c.reply_fault, c.reply_msg);
        return -1;
    }
    if (c.has_text) {
        reply->text = s->reply;
        reply->len = s->reply_len;
    }
    reply->target = c.has_target ? c.target : AW_NO_AGENT;
    return 0;
}

/* The driver asks before each request (seat.h): no view is built for a
 * request seat_request answers without reading it. Not while the agent
 * may be reloaded first (watch_live), nor at an INITIALIZE that would
 * drop a view first. */
static bool seat_reads_view(aw_seat *base, aw_req_kind kind)
{
    luaseat *s = (luaseat *)base;
    if (!s->sb)
        return false; /* a fault at once */
    return s->opts.watch_live || s->view.ref != LUA_NOREF || !ls_reads_no_info(s, kind);
}

static void seat_free(aw_seat *base)
{
    luaseat *s = (luaseat *)base;
    ls_close_agent(s);
    free(s->path);
    free(s->chunkname);
    free(s->source);
    aw_buf_free(&s->code);
    aw_buf_free(&s->scratch);
    aw_modcache_free(s->modcache);
    ls_free_modules(s->mods, s->nmods);
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
    .reads_view = seat_reads_view,
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
    s->agent_ref = s->swap_ref = s->keys_ref = s->method_refs[0] = LUA_NOREF;
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
    s->signature = ls_signature(s, ls_watching(s) ? &s->mods : NULL, &s->nmods);
    s->file_signature = ls_file_signature(s);
    ls_hash_version(s);

    /* Load it once now, so that a broken file is reported before any game
     * (unless the agent runs elsewhere, where begin reports it). */
    if (s->opts.no_load_check)
        return &s->base;
    aw_fault fault = {AW_FAULT_NONE, "", 0, 0};
    int ref;
    int budget = s->opts.limits.budget_ms > 0 ? s->opts.limits.budget_ms : 1000;
    aw_sandbox *sb = ls_open_agent(s, 0, budget, &ref, &fault);
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
