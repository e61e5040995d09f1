/* The driver's step API (game.h) with seats that answer later: a game
 * whose seats return AW_SEAT_PENDING writes the same log as the same game
 * answered at once — whether the synchronous driver waits for each, or a
 * driver of its own hands the answers over in reverse order, as an event
 * loop would — and the policy (faults, substitutes, timing) is the same
 * one. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "test.h"
#include "wrap_seat.h"

/* Wraps a C player: asks it at once but keeps its answer back. */
typedef struct later {
    wrap_seat w;
    int rc;
    aw_seat_reply reply;
    aw_seat_fault fault;
    char text[4096];
    bool waiting;
} later;

static int later_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    later *l = (later *)w;
    (void)reply;
    (void)f;
    if (w->base.ops->wait)
        CHECK(!l->waiting);
    memset(&l->reply, 0, sizeof l->reply);
    l->reply.target = AW_NO_AGENT;
    l->rc = wrap_pass(w, kind, info, set, &l->reply, &l->fault);
    if (l->rc == 0 && l->reply.text) { /* the inner text is only borrowed until its next call */
        size_t n = l->reply.len < sizeof l->text ? l->reply.len : sizeof l->text - 1;
        memcpy(l->text, l->reply.text, n);
        l->reply.text = l->text;
        l->reply.len = n;
    }
    l->waiting = true;
    return AW_SEAT_PENDING;
}

static int later_wait(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *f)
{
    later *l = (later *)s;
    CHECK(l->waiting);
    l->waiting = false;
    *reply = l->reply;
    *f = l->fault;
    return l->rc;
}

static const aw_seat_ops later_ops = {
    .begin = wrap_seat_begin, .request = wrap_seat_request, .free = wrap_seat_free, .wait = later_wait};

enum mode { AT_ONCE, LATER_SYNC, LATER_REVERSED, LATER_NO_WAIT };

static aw_seat *make_seat(enum mode m, uint64_t seed, int a)
{
    aw_seat *inner = a % 2 ? aw_cseat_chaos(seed * 31 + (uint64_t)a) : aw_cseat_random(seed * 17 + (uint64_t)a);
    if (m == AT_ONCE)
        return inner;
    later *l = wrap_seat_new(sizeof *l, inner, later_request);
    if (m != LATER_NO_WAIT)
        l->w.base.ops = &later_ops;
    return &l->w.base;
}

/* Plays one game; returns its CSV log and JSON events (caller frees). */
static char *play(enum mode m, const char *preset, int players, uint64_t seed, aw_game_result *res, char **events)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, preset, players, NULL) == 0);
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= players; a++)
        seats[a] = make_seat(m, seed, a);
    char *buf = NULL, *ev = NULL;
    size_t len = 0, evlen = 0;
    FILE *csv = open_memstream(&buf, &len), *evf = open_memstream(&ev, &evlen);
    aw_gamelog log;
    aw_gamelog_init(&log, csv, NULL, evf);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = seed;
    go.log = &log;
    aw_error err;
    if (m != LATER_REVERSED) {
        CHECK(aw_game_play(&go, seats, res, &err) == 0);
    } else {
        aw_game *gm = aw_game_start(&go, seats, &err);
        CHECK(gm != NULL);
        aw_request req;
        int batches = 0;
        while (gm && aw_game_next(gm, &req) == 0) {
            for (int i = 0; i < req.nseats; i++)
                CHECK_INT(aw_game_ask(gm, req.seats[i]), AW_SEAT_PENDING);
            /* Until every seat of the batch has answered, there is no next batch. */
            aw_request again;
            CHECK_INT(aw_game_next(gm, &again), -AW_ESTATE);
            for (int i = req.nseats - 1; i >= 0; i--) {
                int a = req.seats[i];
                aw_seat_reply reply;
                aw_seat_fault fault;
                int rc = seats[a]->ops->wait(seats[a], &reply, &fault);
                aw_game_answer(gm, a, rc, &reply, &fault);
                aw_game_answer(gm, a, rc, &reply, &fault); /* a second answer is ignored */
            }
            batches++;
        }
        CHECK(batches > 10);
        if (gm)
            aw_game_end(gm, res);
    }
    aw_gamelog_free(&log);
    fclose(csv);
    fclose(evf);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    *events = ev;
    return buf;
}

/* The events without the per-call times, which differ from run to run. */
static void drop_times(char *s)
{
    char *p = s;
    while ((p = strstr(p, "\"us\":")) != NULL) {
        char *q = p + 5;
        while (*q >= '0' && *q <= '9')
            q++;
        memmove(p + 5, q, strlen(q) + 1);
        p += 5;
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the lines of s in place. */
static void sort_lines(char *s)
{
    size_t n = 0, cap = 64;
    char **v = malloc(cap * sizeof *v);
    char *copy = strdup(s);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        if (n == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[n++] = line;
    }
    qsort(v, n, sizeof *v, cmp_str);
    char *p = s;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\n", v[i]);
    *p = 0;
    free(copy);
    free(v);
}

int main(void)
{
    const char *presets[] = {"aiwolf", "seed2015", "regulation"};
    int compared = 0;
    for (int pi = 0; pi < 3; pi++)
        for (int players = 5; players <= 15; players += 5)
            for (uint64_t seed = 1; seed <= 3; seed++) {
                aw_game_result r0, r1, r2;
                char *e0, *e1, *e2;
                char *l0 = play(AT_ONCE, presets[pi], players, seed, &r0, &e0);
                char *l1 = play(LATER_SYNC, presets[pi], players, seed, &r1, &e1);
                char *l2 = play(LATER_REVERSED, presets[pi], players, seed, &r2, &e2);
                drop_times(e0);
                drop_times(e1);
                drop_times(e2);
                CHECK_MSG(strcmp(l0, l1) == 0, "%s %d players seed %llu: waiting changes the log", presets[pi],
                          players, (unsigned long long)seed);
                CHECK_MSG(strcmp(l0, l2) == 0, "%s %d players seed %llu: answers in reverse change the log",
                          presets[pi], players, (unsigned long long)seed);
                CHECK_MSG(strcmp(e0, e1) == 0, "%s %d players seed %llu: events differ", presets[pi], players,
                          (unsigned long long)seed);
                /* Answers given in reverse log their calls in reverse, nothing else. */
                sort_lines(e0);
                sort_lines(e2);
                CHECK_MSG(strcmp(e0, e2) == 0, "%s %d players seed %llu: events differ", presets[pi], players,
                          (unsigned long long)seed);
                CHECK_INT(r0.calls, r1.calls);
                CHECK_INT(r0.faults, r2.faults);
                CHECK_INT(r0.winner, r2.winner);
                compared++;
                free(l0);
                free(l1);
                free(l2);
                free(e0);
                free(e1);
                free(e2);
            }
    CHECK_INT(compared, 27);

    /* A seat that says "later" but cannot be waited for: every request to it
     * is a fault of kind lost, and the game still ends by the rules. */
    aw_game_result r;
    char *e;
    char *l = play(LATER_NO_WAIT, "aiwolf", 5, 9, &r, &e);
    CHECK(r.winner != AW_TEAM_NONE);
    CHECK_INT(r.faults, (long long)r.calls);
    CHECK(strstr(e, "\"fault\":\"lost\"") != NULL);
    CHECK(strstr(l, ",result,") != NULL);
    free(l);
    free(e);
    return test_done();
}
