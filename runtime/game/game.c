/* game: the synchronous driver (see game.h). */
#include "game.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "view.h"

struct aw_game {
    aw_game_opts opts;
    aw_seat **seats;
    aw_engine *g;
    aw_request req;                     /* the current batch */
    bool in_batch[AW_MAX_PLAYERS + 1];  /* asked in it and not answered yet, or not asked yet */
    bool answered[AW_MAX_PLAYERS + 1];
    int left;                           /* seats of the batch still to answer */
    uint64_t t0[AW_MAX_PLAYERS + 1];    /* when each was asked */
    uint64_t calls;
    int faults;
    int seat_faults[AW_MAX_PLAYERS + 1][AW_FAULT_LOST + 1];
};

static void on_event(void *ud, const aw_event *ev)
{
    aw_game *gm = ud;
    if (gm->opts.log)
        aw_gamelog_event(gm->opts.log, ev);
    if (gm->opts.event)
        gm->opts.event(gm->opts.event_ud, ev);
}

static int on_validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    aw_game *gm = ud;
    return gm->opts.talk.validate(gm->opts.validate_ud, text, len, mode, parsed, err);
}

static void on_free_parsed(void *ud, void *parsed)
{
    aw_game *gm = ud;
    gm->opts.talk.free_parsed(gm->opts.validate_ud, parsed);
}

static int on_choose(void *ud, aw_choice kind, int agent, const int *options, int n)
{
    aw_game *gm = ud;
    return gm->opts.choose(gm->opts.choose_ud, kind, agent, options, n);
}

aw_game *aw_game_start(const aw_game_opts *opts, aw_seat **seats, aw_error *err)
{
    const aw_settings *set = opts->settings;
    int n = set->players;
    const char *names[AW_MAX_PLAYERS + 1] = {0};
    char *owned[AW_MAX_PLAYERS + 1] = {0};
    aw_seat_fault pending_fault[AW_MAX_PLAYERS + 1];
    memset(pending_fault, 0, sizeof pending_fault);
    aw_game *gm = aw_xcalloc(1, sizeof *gm);
    gm->opts = *opts;
    gm->seats = seats;

    /* Names come first, as NAME does on the official server. A seat that
     * fails to give one is named after its index. Each seat gets its own
     * one-way seed, never the game's (seat.h). */
    for (int a = 1; a <= n; a++) {
        aw_seat_fault f = {AW_FAULT_NONE, ""};
        const char *nm = seats[a]->ops->begin(seats[a], a, aw_rng_derive(opts->seed, (uint64_t)a), &f);
        /* A seat that cannot play, or whose getName failed (it plays under
         * its default name): the fault goes to the log either way. */
        if (!nm || f.kind != AW_FAULT_NONE)
            pending_fault[a] = f;
        if ((!nm || f.kind != AW_FAULT_NONE) && opts->call) {
            if (f.kind == AW_FAULT_NONE)
                f.kind = AW_FAULT_ERROR;
            opts->call(opts->call_ud, a, AW_REQ_NONE, 0, &f);
        }
        if (nm && opts->verbatim_names) {
            names[a] = nm;
        } else if (nm) {
            /* Names go into a CSV field: keep them to one line without commas. */
            size_t len = strnlen(nm, 64);
            owned[a] = aw_xstrndup(nm, len);
            for (char *c = owned[a]; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == ',' || *c == 0x7f)
                    *c = '_';
            names[a] = owned[a];
        }
    }

    aw_engine_hooks hooks = {on_event, {opts->talk.validate ? on_validate : NULL,
                             opts->talk.free_parsed ? on_free_parsed : NULL}, opts->choose ? on_choose : NULL, gm};
    for (int a = 1; a <= n; a++) {
        aw_seat_fault *f = &pending_fault[a];
        if (f->kind > AW_FAULT_NONE && f->kind <= AW_FAULT_LOST)
            gm->seat_faults[a][f->kind]++;
    }
    gm->g = aw_engine_new(set, opts->seed, names, opts->deal, &hooks, err);
    for (int a = 1; a <= n; a++)
        free(owned[a]);
    if (!gm->g) {
        free(gm);
        return NULL;
    }
    if (opts->log) {
        aw_gamelog_begin(opts->log, gm->g, opts->game_no);
        for (int a = 1; a <= n; a++)
            if (seats[a]->ops->version)
                aw_gamelog_version(opts->log, a, seats[a]->ops->version(seats[a]));
        for (int a = 1; a <= n; a++)
            if (pending_fault[a].kind != AW_FAULT_NONE)
                aw_gamelog_call(opts->log, a, AW_REQ_NONE, 0, &pending_fault[a]);
    }
    return gm;
}

const aw_engine *aw_game_engine(const aw_game *gm)
{
    return gm->g;
}

int aw_game_next(aw_game *gm, aw_request *req)
{
    if (gm->left > 0)
        return -AW_ESTATE;
    if (aw_engine_next(gm->g, &gm->req) != 0)
        return 1;
    memset(gm->in_batch, 0, sizeof gm->in_batch);
    memset(gm->answered, 0, sizeof gm->answered);
    for (int i = 0; i < gm->req.nseats; i++)
        gm->in_batch[gm->req.seats[i]] = true;
    gm->left = gm->req.nseats;
    *req = gm->req;
    return 0;
}

int aw_game_ask(aw_game *gm, int a)
{
    if (a < 1 || a > AW_MAX_PLAYERS || !gm->in_batch[a] || gm->answered[a])
        return -AW_EINVAL;
    aw_seat *seat = gm->seats[a];
    /* No view for a seat that will not read it (an agent that ignores
     * info, asked for something it has no method for). */
    aw_info info, *view = NULL;
    if (!seat->ops->reads_view || seat->ops->reads_view(seat, gm->req.kind)) {
        aw_view_build(gm->g, a, gm->req.kind, &info);
        view = &info;
    }
    aw_seat_reply reply = {NULL, 0, AW_NO_AGENT};
    aw_seat_fault fault; /* not zeroed whole (a 512-byte message) at every call */
    fault.kind = AW_FAULT_NONE;
    fault.msg[0] = '\0';
    gm->t0[a] = aw_now_ns();
    int rc = seat->ops->request(seat, gm->req.kind, view, gm->opts.settings, &reply, &fault);
    if (rc == AW_SEAT_PENDING)
        return AW_SEAT_PENDING;
    aw_game_answer(gm, a, rc, &reply, &fault);
    return 0;
}

/* The outcomes of notifications seat a took at once and delivered later
 * (seat.h's late): a fault is counted and logged as the notification's, on
 * its day, before whatever the seat answers next. */
static void take_late(aw_game *gm, int a)
{
    aw_seat *s = gm->seats[a];
    if (!s->ops->late)
        return;
    aw_seat_late l;
    while (s->ops->late(s, &l) > 0) {
        if (l.fault.kind > AW_FAULT_NONE && l.fault.kind <= AW_FAULT_LOST) {
            gm->faults++;
            gm->seat_faults[a][l.fault.kind]++;
            if (gm->opts.log)
                aw_gamelog_call_late(gm->opts.log, a, l.kind, l.day, &l.fault);
            if (l.fault.kind == AW_FAULT_LOST)
                aw_engine_fail(gm->g, a);
        }
        if (gm->opts.late)
            gm->opts.late(gm->opts.late_ud, a, &l);
    }
}

void aw_game_answer(aw_game *gm, int a, int rc, const aw_seat_reply *reply, const aw_seat_fault *fault)
{
    if (a < 1 || a > AW_MAX_PLAYERS || !gm->in_batch[a] || gm->answered[a])
        return;
    take_late(gm, a);
    uint64_t dt = aw_now_ns() - gm->t0[a];
    gm->answered[a] = true;
    gm->left--;
    gm->calls++;
    aw_seat_fault f;
    f.kind = AW_FAULT_NONE;
    f.msg[0] = '\0';
    if (rc < 0 || rc == AW_SEAT_PENDING) {
        if (fault)
            f = *fault;
        if (f.kind == AW_FAULT_NONE)
            f.kind = AW_FAULT_ERROR;
        rc = -1;
        gm->faults++;
        if (f.kind > AW_FAULT_NONE && f.kind <= AW_FAULT_LOST)
            gm->seat_faults[a][f.kind]++;
        if (f.kind == AW_FAULT_LOST)
            aw_engine_fail(gm->g, a); /* gone for good: counted under an error ratio */
    }
    if (gm->opts.log)
        aw_gamelog_call(gm->opts.log, a, gm->req.kind, dt, rc < 0 ? &f : NULL);
    if (gm->opts.call)
        gm->opts.call(gm->opts.call_ud, a, gm->req.kind, dt, rc < 0 ? &f : NULL);
    if (!aw_req_needs_reply(gm->req.kind))
        return;
    bool ok = rc >= 0 && reply;
    /* An answer without text (talk() returned nil, or the agent has no
     * whisper()) is the agent's legal Skip: an empty text, which the rules
     * log as Skip without a remark. No text after a fault stays NULL: "no
     * answer", shown as such. */
    if (aw_req_wants_text(gm->req.kind))
        aw_engine_reply_text(gm->g, a, ok ? (reply->text ? reply->text : "") : NULL,
                             ok && reply->text ? reply->len : 0);
    else
        aw_engine_reply_target(gm->g, a, ok ? reply->target : AW_NO_AGENT);
}

void aw_game_fail(aw_game *gm, int a)
{
    aw_engine_fail(gm->g, a);
}

void aw_game_end(aw_game *gm, aw_game_result *res)
{
    for (int a = 1; a <= aw_engine_state(gm->g)->n; a++)
        take_late(gm, a);
    if (res) {
        memset(res, 0, sizeof *res);
        const aw_state *st = aw_engine_state(gm->g);
        res->winner = st->winner;
        res->days = st->day;
        res->calls = gm->calls;
        res->faults = gm->faults;
        res->abandoned = st->abandoned;
        res->failed = st->nfailed;
        memcpy(res->seat_faults, gm->seat_faults, sizeof res->seat_faults);
        for (int a = 1; a <= st->n; a++) {
            res->role[a] = st->role[a];
            res->alive[a] = st->alive[a];
            if (st->alive[a]) {
                if (aw_role_is_wolf(st->role[a]))
                    res->wolves++;
                else
                    res->humans++;
            }
        }
    }
    if (gm->opts.log)
        aw_gamelog_flush(gm->opts.log);
    aw_engine_free(gm->g);
    free(gm);
}

int aw_game_play(const aw_game_opts *opts, aw_seat **seats, aw_game_result *res, aw_error *err)
{
    memset(res, 0, sizeof *res);
    aw_game *gm = aw_game_start(opts, seats, err);
    if (!gm)
        return -AW_EINVAL;
    aw_request req;
    while (aw_game_next(gm, &req) == 0) {
        int pending[AW_MAX_PLAYERS], np = 0;
        for (int i = 0; i < req.nseats; i++)
            if (aw_game_ask(gm, req.seats[i]) == AW_SEAT_PENDING)
                pending[np++] = req.seats[i];
        for (int i = 0; i < np; i++) {
            int a = pending[i];
            aw_seat_reply reply = {NULL, 0, AW_NO_AGENT};
            aw_seat_fault fault = {AW_FAULT_LOST, "the seat said it would answer later but cannot be waited for"};
            int rc = -1;
            if (seats[a]->ops->wait) {
                fault.kind = AW_FAULT_NONE;
                fault.msg[0] = 0;
                rc = seats[a]->ops->wait(seats[a], &reply, &fault);
            }
            aw_game_answer(gm, a, rc, &reply, &fault);
        }
    }
    aw_game_end(gm, res);
    return 0;
}
