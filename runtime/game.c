/* game: the synchronous driver (see game.h). */
#include "game.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "view.h"

typedef struct hooks_ud {
    aw_gamelog *log;
    const aw_game_opts *opts;
} hooks_ud;

static void on_event(void *ud, const aw_event *ev)
{
    hooks_ud *h = ud;
    if (h->log)
        aw_gamelog_event(h->log, ev);
}

static int on_validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    hooks_ud *h = ud;
    return h->opts->validate(h->opts->validate_ud, text, len, mode, parsed, err);
}

static void on_free_parsed(void *ud, void *parsed)
{
    hooks_ud *h = ud;
    h->opts->free_parsed(h->opts->validate_ud, parsed);
}

static int on_choose(void *ud, aw_choice kind, int agent, const int *options, int n)
{
    hooks_ud *h = ud;
    return h->opts->choose(h->opts->choose_ud, kind, agent, options, n);
}

int aw_game_play(const aw_game_opts *opts, aw_seat **seats, aw_game_result *res, aw_error *err)
{
    const aw_settings *set = opts->settings;
    int n = set->players;
    const char *names[AW_MAX_PLAYERS + 1] = {0};
    char *owned[AW_MAX_PLAYERS + 1] = {0};
    aw_seat_fault pending_fault[AW_MAX_PLAYERS + 1];
    memset(pending_fault, 0, sizeof pending_fault);
    memset(res, 0, sizeof *res);

    /* Names come first, as NAME does on the official server. A seat that
     * fails to give one is named after its index. */
    for (int a = 1; a <= n; a++) {
        aw_seat_fault f = {AW_SEAT_OK, ""};
        const char *nm = seats[a]->ops->begin(seats[a], a, aw_rng_derive(opts->seed, (uint64_t)a), &f);
        if (!nm && opts->log)
            pending_fault[a] = f;
        if (nm) {
            /* Names go into a CSV field: keep them to one line without commas. */
            size_t len = strnlen(nm, 64);
            owned[a] = aw_xstrndup(nm, len);
            for (char *c = owned[a]; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == ',' || *c == 0x7f)
                    *c = '_';
            names[a] = owned[a];
        }
    }

    hooks_ud hud = {opts->log, opts};
    aw_engine_hooks hooks = {on_event, opts->validate ? on_validate : NULL,
                             opts->free_parsed ? on_free_parsed : NULL, opts->choose ? on_choose : NULL, &hud};
    aw_engine *g = aw_engine_new(set, opts->seed, names, opts->deal, &hooks, err);
    for (int a = 1; a <= n; a++)
        free(owned[a]);
    if (!g)
        return -AW_EINVAL;
    if (opts->log) {
        aw_gamelog_begin(opts->log, g, opts->game_no);
        for (int a = 1; a <= n; a++)
            if (seats[a]->ops->version)
                aw_gamelog_version(opts->log, a, seats[a]->ops->version(seats[a]));
        for (int a = 1; a <= n; a++)
            if (pending_fault[a].kind != AW_SEAT_OK)
                aw_gamelog_call(opts->log, a, AW_REQ_NONE, 0, &pending_fault[a]);
    }

    aw_request req;
    aw_info info;
    while (aw_engine_next(g, &req) == 0) {
        for (int i = 0; i < req.nseats; i++) {
            int a = req.seats[i];
            aw_view_build(g, a, req.kind, &info);
            aw_seat_reply reply = {NULL, 0, AW_NO_AGENT};
            aw_seat_fault fault = {AW_SEAT_OK, ""};
            uint64_t t0 = aw_now_ns();
            int rc = seats[a]->ops->request(seats[a], req.kind, &info, set, &reply, &fault);
            uint64_t dt = aw_now_ns() - t0;
            res->calls++;
            if (rc < 0 && fault.kind == AW_SEAT_OK)
                fault.kind = AW_SEAT_ERROR;
            if (rc < 0)
                res->faults++;
            if (opts->log)
                aw_gamelog_call(opts->log, a, req.kind, dt, rc < 0 ? &fault : NULL);
            if (!aw_req_needs_reply(req.kind))
                continue;
            if (aw_req_wants_text(req.kind))
                aw_engine_reply_text(g, a, rc < 0 ? NULL : reply.text, reply.len);
            else
                aw_engine_reply_target(g, a, rc < 0 ? AW_NO_AGENT : reply.target);
        }
    }

    const aw_state *st = aw_engine_state(g);
    res->winner = st->winner;
    res->days = st->day;
    for (int a = 1; a <= n; a++) {
        res->role[a] = st->role[a];
        res->alive[a] = st->alive[a];
        if (st->alive[a]) {
            if (st->role[a] == AW_WEREWOLF)
                res->wolves++;
            else
                res->humans++;
        }
    }
    if (opts->log)
        aw_gamelog_flush(opts->log);
    aw_engine_free(g);
    return 0;
}
