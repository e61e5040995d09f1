/* worker: plays a contest's units on long-lived confined children (see
 * worker.h). */
#include "worker.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent.h"
#include "childseat.h"
#include "game.h"
#include "gamelog.h"
#include "gzlog.h"
#include "logrules.h"
#include "results.h"
#include "talkhooks.h"

/* An entry that does not load plays nonetheless: every game it is in, its
 * seat cannot start, so each of its requests gets the rules' substitute
 * and counts as a fault (lost) against it. */
typedef struct broken_seat {
    aw_seat base;
    char msg[400];
} broken_seat;

static const char *broken_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    (void)agent;
    (void)seed;
    f->kind = AW_FAULT_LOST;
    snprintf(f->msg, sizeof f->msg, "the entry does not load: %s", ((broken_seat *)s)->msg);
    return NULL;
}

static int broken_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                          aw_seat_reply *reply, aw_seat_fault *f)
{
    (void)kind;
    (void)info;
    (void)set;
    (void)reply;
    f->kind = AW_FAULT_LOST;
    snprintf(f->msg, sizeof f->msg, "the entry does not load: %s", ((broken_seat *)s)->msg);
    return -1;
}

static void broken_free(aw_seat *s)
{
    free(s);
}

static const aw_seat_ops broken_ops = {.begin = broken_begin, .request = broken_request, .free = broken_free};

typedef struct worker {
    const aw_worker_opts *o;
    FILE *out;
    aw_seat **pool;  /* [nentries * copies] */
    bool *child;     /* [nentries * copies]: a child seat (not a broken one) */
    aw_settings set[AW_MAX_PLAYERS + 1];
    bool have_set[AW_MAX_PLAYERS + 1];
    aw_game_record rec;
    const int *used; /* the current unit's pool index per seat */
    aw_buf line;
    aw_buf notes; /* the current game's fault messages */
    bool rules_per_log; /* logs/aiwolf.rules holds other rules: each log gets LOG.rules */
} worker;

#define FAULT_NOTES 3 /* fault messages kept per seat and game */

static void note_fault(worker *w, int agent, aw_req_kind kind, const aw_seat_fault *f);
static void note_cpu(worker *w, int agent, uint64_t cpu);

static void on_call(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *f)
{
    worker *w = ud;
    aw_game_record *r = &w->rec;
    if (agent < 1 || agent > AW_MAX_PLAYERS)
        return;
    note_fault(w, agent, kind, f);
    if (kind == AW_REQ_NONE)
        return;
    r->calls[agent]++;
    r->times[agent][aw_time_bucket(ns)]++;
    /* The agent's own CPU time, as its child reported it (calls that did
     * not reach the agent have none; a notification's comes later, to
     * on_late). */
    uint64_t cpu;
    int i = w->used ? w->used[agent] : -1;
    if (i >= 0 && w->child[i] && aw_childseat_call_cpu(w->pool[i], &cpu))
        note_cpu(w, agent, cpu);
}

/* A notification's outcome, which its child seat reported with the seat's
 * next answer: its fault and its own CPU time (never the request's it
 * went with). Its call was counted by on_call. */
static void on_late(void *ud, int agent, const aw_seat_late *l)
{
    worker *w = ud;
    if (agent < 1 || agent > AW_MAX_PLAYERS)
        return;
    note_fault(w, agent, l->kind, &l->fault);
    if (l->cpu_known)
        note_cpu(w, agent, l->cpu_ns);
}

static void note_cpu(worker *w, int agent, uint64_t cpu)
{
    aw_game_record *r = &w->rec;
    r->cpu[agent][aw_time_bucket(cpu)]++;
    uint64_t us = cpu / 1000u;
    if (us > r->cpu_max_us[agent])
        r->cpu_max_us[agent] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

static void note_fault(worker *w, int agent, aw_req_kind kind, const aw_seat_fault *f)
{
    aw_game_record *r = &w->rec;
    if (f && f->kind > AW_FAULT_NONE && f->kind < AW_NFAULTS) {
        int k = 0;
        for (int i = 1; i < AW_NFAULTS; i++)
            k += r->faults[agent][i];
        /* Faults count faulty calls (a start that failed is only noted:
         * its calls fault too), so that an entry's faults never pass its
         * calls. */
        if (kind != AW_REQ_NONE)
            r->faults[agent][f->kind]++;
        /* Why, for the organiser: the first few of each seat's faults. */
        if (k < FAULT_NOTES)
            aw_buf_printf(&w->notes, "Agent[%02d]\t%s\t%s\t%s\t%s\n", agent, w->o->names[r->entry[agent]],
                          kind == AW_REQ_NONE ? "START" : aw_req_name(kind), aw_fault_kind_name(f->kind), f->msg);
        else if (k == FAULT_NOTES)
            aw_buf_printf(&w->notes, "Agent[%02d]\t%s\t-\t-\t(further faults of this seat are only counted)\n",
                          agent, w->o->names[r->entry[agent]]);
    }
}

static int say_error(worker *w, const char *fmt, const char *arg)
{
    fputs("E ", w->out);
    fprintf(w->out, fmt, arg);
    fputc('\n', w->out);
    fflush(w->out);
    return 1;
}

static const aw_settings *settings_for(worker *w, int players, aw_error *err)
{
    if (!w->have_set[players]) {
        if (aw_settings_from(&w->set[players], w->o->preset, players, w->o->sets, w->o->nsets, err) < 0)
            return NULL;
        w->set[players].time_limit_ms = w->o->limits.budget_ms;
        w->have_set[players] = true;
    }
    return &w->set[players];
}

/* Plays one game of a unit and reports it. Returns 0, or -1 when the
 * worker cannot go on (it has said why). */
static int play_one(worker *w, aw_seat **seats, const aw_settings *set, int unit, int g, long index, uint64_t seed,
                    const aw_role *deal, const int *entry)
{
    aw_game_record *r = &w->rec;
    memset(r, 0, sizeof *r);
    r->index = index;
    r->unit = unit;
    r->game = g;
    r->seed = seed;
    r->players = set->players;
    memcpy(r->entry, entry, sizeof r->entry);
    snprintf(r->log, sizeof r->log, "logs/%06ld.log.gz", index);
    char path[4096], tmp[4096];
    snprintf(path, sizeof path, "%s/%s", w->o->dir, r->log);
    snprintf(tmp, sizeof tmp, "%s/logs/.%06ld.log.tmp", w->o->dir, index);
    aw_error err;
    FILE *csv = aw_gzlog_open_write(tmp, &err);
    if (!csv)
        return -say_error(w, "cannot write a game's log: %s", err.msg);
    aw_gamelog log;
    aw_gamelog_init(&log, csv, NULL, NULL);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    aw_talkhooks_game(&go);
    go.settings = set;
    go.seed = seed;
    go.deal = deal;
    go.log = &log;
    go.game_no = (int)(index + 1);
    go.call = on_call;
    go.call_ud = w;
    go.late = on_late;
    go.late_ud = w;
    aw_buf_clear(&w->notes);
    aw_game_result res;
    int rc = aw_game_play(&go, seats, &res, &err);
    int flushed = aw_gamelog_flush(&log);
    aw_gamelog_free(&log);
    if (fclose(csv) != 0 || flushed < 0) {
        remove(tmp);
        return -say_error(w, "cannot write a game's log: %s", "disk full?");
    }
    if (rc < 0) {
        remove(tmp);
        return -say_error(w, "a game could not start: %s", err.msg);
    }
    if (aw_logrules_beside(path, w->rules_per_log ? set : NULL, &err) < 0) {
        remove(tmp);
        return -say_error(w, "%s", err.msg);
    }
    if (rename(tmp, path) != 0)
        return -say_error(w, "cannot write a game's log: %s", strerror(errno));
    /* The faults' messages beside the log (logs/N.faults), so that an
     * organiser can see why an entry failed. */
    snprintf(path, sizeof path, "%s/logs/%06ld.faults", w->o->dir, index);
    if (w->notes.len) {
        FILE *nf = fopen(tmp, "we");
        bool ok = nf && fwrite(w->notes.data, 1, w->notes.len, nf) == w->notes.len;
        if (nf && fclose(nf) != 0)
            ok = false;
        if (!ok || rename(tmp, path) != 0) {
            remove(tmp);
            return -say_error(w, "cannot write a game's faults: %s", strerror(errno));
        }
    } else {
        remove(path); /* from an earlier try of this game */
    }
    r->winner = res.winner;
    r->abandoned = res.abandoned;
    r->days = res.days;
    for (int a = 1; a <= set->players; a++)
        r->role[a] = res.role[a];
    aw_buf_clear(&w->line);
    aw_buf_adds(&w->line, "R ");
    aw_record_format(r, &w->line);
    fwrite(w->line.data, 1, w->line.len, w->out);
    fflush(w->out);
    return 0;
}

/* "U unit first players ngames e1,e2,... seed:roles ..." */
static int play_unit(worker *w, char *line)
{
    char *save = NULL;
    char *tok = strtok_r(line, " ", &save);
    long v[4];
    for (int i = 0; i < 4; i++) {
        tok = strtok_r(NULL, " ", &save);
        char *e;
        if (!tok || (v[i] = strtol(tok, &e, 10), *e) || v[i] < 0)
            return -say_error(w, "bad unit line from the runner%s", "");
    }
    int unit = (int)v[0], players = (int)v[2], ngames = (int)v[3];
    long first = v[1];
    if (players < 3 || players > AW_MAX_PLAYERS || ngames < 1)
        return -say_error(w, "bad unit line from the runner%s", "");
    aw_error err;
    const aw_settings *set = settings_for(w, players, &err);
    if (!set)
        return -say_error(w, "%s", err.msg);
    int entry[AW_MAX_PLAYERS + 1] = {0};
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
    int used[AW_MAX_PLAYERS + 1] = {0};
    tok = strtok_r(NULL, " ", &save);
    char *es = tok, *esave = NULL;
    for (int a = 1; a <= players; a++) {
        char *t = strtok_r(a == 1 ? es : NULL, ",", &esave), *e;
        long x = t ? strtol(t, &e, 10) : -1;
        if (!t || *e || x < 0 || x >= w->o->nentries)
            return -say_error(w, "bad unit line from the runner%s", "");
        entry[a] = (int)x;
        int copy = 0;
        for (int b = 1; b < a; b++)
            copy += entry[b] == entry[a];
        if (copy >= w->o->copies)
            return -say_error(w, "an entry holds more seats than it has children%s", "");
        used[a] = entry[a] * w->o->copies + copy;
        seats[a] = w->pool[used[a]];
    }
    w->used = used;
    for (int g = 0; g < ngames; g++) {
        tok = strtok_r(NULL, " ", &save);
        char *colon = tok ? strchr(tok, ':') : NULL, *e;
        if (!colon || strlen(colon + 1) != (size_t)players)
            return -say_error(w, "bad unit line from the runner%s", "");
        *colon = 0;
        uint64_t seed = strtoull(tok, &e, 10);
        if (*e)
            return -say_error(w, "bad unit line from the runner%s", "");
        aw_role deal[AW_MAX_PLAYERS + 1];
        deal[0] = AW_ROLE_NONE;
        for (int a = 1; a <= players; a++) {
            int d = colon[a] - '0';
            if (d < 0 || d >= AW_NROLES)
                return -say_error(w, "bad unit line from the runner%s", "");
            deal[a] = (aw_role)d;
        }
        if (play_one(w, seats, set, unit, g, first + g, seed, deal, entry) < 0) {
            w->used = NULL;
            return -1;
        }
    }
    w->used = NULL;
    /* Children lost in this unit start again now, before the next unit's
     * seeds reach this process; under the regulation every child of the
     * unit starts a fresh instance. */
    for (int a = 1; a <= players; a++) {
        if (!w->child[used[a]])
            continue;
        aw_seat_fault f;
        aw_childseat_ready(w->pool[used[a]], w->o->keep_instance, &f);
    }
    fprintf(w->out, "D %d\n", unit);
    fflush(w->out);
    return 0;
}

int aw_contest_worker(const aw_worker_opts *o, FILE *in, FILE *out)
{
    worker w;
    memset(&w, 0, sizeof w);
    w.o = o;
    w.out = out;
    aw_buf_init(&w.line);
    aw_buf_init(&w.notes);
    int n = o->nentries * o->copies;
    w.pool = aw_xcalloc((size_t)n, sizeof *w.pool);
    w.child = aw_xcalloc((size_t)n, sizeof *w.child);
    aw_agent_opts ao;
    memset(&ao, 0, sizeof ao);
    ao.limits = o->limits;
    ao.limits.isolate = true;
    ao.keep_instance = o->keep_instance;
    ao.no_load_check = true; /* no entry's code runs in the worker */
    aw_error err;
    const aw_settings *base = settings_for(&w, 5, &err);
    int status = 0;
    if (!base) {
        status = say_error(&w, "%s", err.msg);
        goto done;
    }
    char logs[4096];
    snprintf(logs, sizeof logs, "%s/logs", o->dir);
    if (mkdir(logs, 0777) != 0 && errno != EEXIST) {
        status = say_error(&w, "cannot create the logs folder: %s", strerror(errno));
        goto done;
    }
    /* The rules beside the logs, for aiwolf check and replay (logrules.h). */
    int claimed = aw_logrules_claim_folder(logs, base, &err);
    if (claimed < 0) {
        status = say_error(&w, "%s", err.msg);
        goto done;
    }
    w.rules_per_log = claimed == 0;
    for (int e = 0; e < o->nentries; e++) {
        for (int k = 0; k < o->copies; k++) {
            int i = e * o->copies + k;
            ao.limits.read_dir = o->read_dirs[e];
            w.pool[i] = aw_agent_new(o->entries[e], &ao, &err);
            if (w.pool[i]) {
                w.child[i] = true;
                continue;
            }
            if (k == 0) {
                fprintf(w.out, "W entry %s does not load; it plays every game with its calls faulted: ", o->entries[e]);
                for (const char *c = err.msg; *c; c++)
                    fputc(*c == '\n' ? ' ' : *c, w.out);
                fputc('\n', w.out);
                fflush(w.out);
            }
            broken_seat *b = aw_xcalloc(1, sizeof *b);
            b->base.ops = &broken_ops;
            snprintf(b->msg, sizeof b->msg, "%.390s", err.msg);
            w.pool[i] = &b->base;
        }
    }
    /* Every child starts now, before any game's seed is known here. An
     * entry that cannot start is said once (by its first child). */
    for (int i = 0; i < n; i++)
        if (w.child[i]) {
            aw_seat_fault f = {AW_FAULT_NONE, ""};
            if (aw_childseat_ready(w.pool[i], false, &f) < 0 && i % o->copies == 0) {
                fprintf(w.out, "W entry %s cannot start (it plays its games with its calls faulted): ",
                        o->entries[i / o->copies]);
                for (const char *c = f.msg; *c; c++)
                    fputc(*c == '\n' ? ' ' : *c, w.out);
                fputc('\n', w.out);
                fflush(w.out);
            }
        }
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = 0;
        if (line[0] == 'U' && line[1] == ' ') {
            if (play_unit(&w, line) < 0) {
                status = 1;
                break;
            }
        } else if (strcmp(line, "Q") == 0) {
            break;
        } else {
            status = say_error(&w, "unknown line from the runner: %.80s", line);
            break;
        }
    }
    free(line);
done:
    for (int i = 0; i < n; i++)
        if (w.pool[i])
            w.pool[i]->ops->free(w.pool[i]);
    free(w.pool);
    free(w.child);
    aw_buf_free(&w.line);
    aw_buf_free(&w.notes);
    return status;
}
