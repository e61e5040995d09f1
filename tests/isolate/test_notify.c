/* test_notify: notifications that do not wait. A child seat takes
 * INITIALIZE, DAILY_INITIALIZE and DAILY_FINISH at once and sends them with
 * the seat's next request; their faults must still be the notification's:
 *  - a game of random.lua agents writes the same log, and the same events
 *    line for line but for the time of each call ("us"), in process, in
 *    child seats, and in child seats that wait for every notification (the
 *    protocol before);
 *  - agents that fail in a notification (a Lua error in the update of
 *    DAILY_FINISH, an endless loop in dayStart, a process that exits in
 *    INITIALIZE or in DAILY_FINISH) get the same faults — agent, request, day, kind, message —
 *    as in process (or, for the exit, as with waiting), the same game log,
 *    the same engine events in the same order, and as many calls; only
 *    the line of a notification's fault moves, marked "late", to before
 *    that seat's next call line.
 * Uses childseat, cseat, game, gamelog, luaseat. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "childseat.h"
#include "cseat.h"
#include "game.h"
#include "gamelog.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "spectate.h"
#include "talkhooks.h"
#include "test.h"
#include "wrap_seat.h"
#include "seat_game.h"

enum { IN_PROCESS, QUEUED, WAITING };
static const char *mode_name[] = {"in process", "child seats", "child seats that wait"};

/* A C player whose process exits in INITIALIZE, or in the DAILY_FINISH of
 * day 0 (after two notifications that went well, sent with it). */
typedef struct exiter {
    wrap_seat w;
    aw_req_kind at;
} exiter;

static int ex_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                      aw_seat_fault *f)
{
    if (kind == ((exiter *)w)->at)
        _exit(3);
    return wrap_pass(w, kind, info, set, r, f);
}

static aw_seat *make_exiter(void *ud, FILE *out, aw_error *err, aw_req_kind at)
{
    (void)out;
    (void)err;
    exiter *x = wrap_seat_new(sizeof *x, aw_cseat_random(*(uint64_t *)ud), ex_request);
    x->at = at;
    return &x->w.base;
}

static aw_seat *exit_initialize(void *ud, FILE *out, aw_error *err)
{
    return make_exiter(ud, out, err, AW_REQ_INITIALIZE);
}

static aw_seat *exit_finish(void *ud, FILE *out, aw_error *err)
{
    return make_exiter(ud, out, err, AW_REQ_DAILY_FINISH);
}

static void to_buf(void *ud, const char *line, size_t len)
{
    aw_buf_add(ud, line, len);
}

/* Plays one game: seat a runs paths[a-1] (a Lua file, or "random", "exit"
 * or "exit-finish" for the C players). */
static void play(int mode, const char **paths, int n, uint64_t seed, played *out)
{
    aw_settings s;
    CHECK(aw_settings_preset(&s, "aiwolf", n, NULL) == 0);
    aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
    uint64_t cseed[AW_MAX_PLAYERS + 1];
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.limits.budget_ms = 100;
    for (int a = 1; a <= n; a++) {
        const char *p = paths[a - 1];
        bool c = strncmp(p, "exit", 4) == 0 || strcmp(p, "random") == 0;
        cseed[a] = seed * 100 + (uint64_t)a;
        aw_error err;
        if (mode == IN_PROCESS) {
            seats[a] = c ? aw_cseat_random(cseed[a]) : aw_luaseat_new(p, &lo, &err);
        } else {
            aw_childseat_opts co;
            memset(&co, 0, sizeof co);
            co.limits.budget_ms = 100;
            co.persistent = true;
            co.wait_notifications = mode == WAITING;
            aw_luaseat_opts clo = lo;
            if (!c) {
                co.talk = aw_luaseat_talks_deferred(&clo);
                co.child_prepare = aw_luaseat_child_prepare;
            }
            aw_luaseat_spec m = {p, &clo};
            aw_childseat_make mk = strcmp(p, "exit") == 0          ? exit_initialize
                                   : strcmp(p, "exit-finish") == 0 ? exit_finish
                                                                    : seat_game_crandom;
            seats[a] = c ? aw_childseat_new(mk, &cseed[a], &co, &err)
                         : aw_childseat_new(aw_luaseat_make, &m, &co, &err);
        }
        CHECK_MSG(seats[a] != NULL, "%s", err.msg);
    }
    played_log pl;
    played_log_open(out, &pl);
    /* a live spectator: after the result line it gets the full record,
     * late lines included, exactly as the events file has it */
    aw_buf live;
    aw_buf_init(&live);
    aw_spectate *sp = aw_spectate_new(false, to_buf, &live);
    aw_spectate_attach(sp, &pl.log);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &s;
    go.seed = seed;
    go.log = &pl.log;
    aw_talkhooks_game(&go);
    aw_error err;
    CHECK_MSG(aw_game_play(&go, seats, &out->res, &err) == 0, "%s", err.msg);
    played_log_close(&pl);
    CHECK_MSG(live.len >= out->events_len &&
                  memcmp(live.data + live.len - out->events_len, out->events, out->events_len) == 0,
              "%s: the spectator's full record is not the events file", mode_name[mode]);
    /* while the game ran, no late line (where it stands tells what came next) */
    if (live.len >= out->events_len) {
        char *pub = aw_xstrndup(live.data, live.len - out->events_len);
        CHECK_MSG(strstr(pub, "\"late\"") == NULL, "%s: a late line while the game ran", mode_name[mode]);
        free(pub);
    }
    aw_spectate_free(sp);
    aw_buf_free(&live);
    for (int a = 1; a <= n; a++)
        seats[a]->ops->free(seats[a]);
}

/* The events without the calls' times (and how long a time-out ran) and
 * late marks, split in three: the
 * other events in order, the call lines without a fault in order, and the
 * fault lines sorted; and the number of late lines. */
typedef struct split {
    aw_buf other, calls, faults;
    int late;
} split;

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void split_events(const char *ev, size_t len, split *s)
{
    aw_buf_init(&s->other);
    aw_buf_init(&s->calls);
    aw_buf_init(&s->faults);
    s->late = 0;
    char *copy = aw_xstrndup(ev, len);
    char *lines[20000];
    int nf = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *us = strstr(l, ",\"us\":");
        if (us) {
            char *end = us + 6;
            while (*end >= '0' && *end <= '9')
                end++;
            memmove(us, end, strlen(end) + 1);
        }
        /* (a time-out's message goes on to say how long it ran, or, on a
         * loaded machine, that the wall-clock bound passed first and after
         * how much CPU: measured figures, compared only up to "exceeded") */
        char *exceeded = strstr(l, " ms exceeded");
        char *end = exceeded ? strchr(exceeded + 12, '"') : NULL;
        if (end)
            memmove(exceeded + 12, end, strlen(end) + 1);
        char *late = strstr(l, ",\"late\":true");
        if (late) {
            memmove(late, late + 12, strlen(late + 12) + 1);
            s->late++;
        }
        if (strstr(l, "\"fault\":") && nf < 20000)
            lines[nf++] = l;
        else if (strstr(l, "\"event\":\"call\""))
            aw_buf_printf(&s->calls, "%s\n", l);
        else
            aw_buf_printf(&s->other, "%s\n", l);
    }
    qsort(lines, (size_t)nf, sizeof *lines, cmp_line);
    for (int i = 0; i < nf; i++)
        aw_buf_printf(&s->faults, "%s\n", lines[i]);
    free(copy);
}

static void split_free(split *s)
{
    aw_buf_free(&s->other);
    aw_buf_free(&s->calls);
    aw_buf_free(&s->faults);
}

static bool same(const aw_buf *a, const aw_buf *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Compares game b (mode mb) with the reference a. */
static void compare(const char *what, const played *a, const played *b, int mb, bool faults)
{
    CHECK_MSG(a->csv_len == b->csv_len && memcmp(a->csv, b->csv, a->csv_len) == 0, "%s, %s: the log differs", what,
              mode_name[mb]);
    split x, y;
    split_events(a->events, a->events_len, &x);
    split_events(b->events, b->events_len, &y);
    CHECK_MSG(same(&x.other, &y.other), "%s, %s: other events differ", what, mode_name[mb]);
    CHECK_MSG(same(&x.faults, &y.faults), "%s, %s: the faults differ:\n%.*s---\n%.*s", what, mode_name[mb],
              (int)x.faults.len, x.faults.data, (int)y.faults.len, y.faults.data);
    CHECK_MSG(faults == (x.faults.len > 0), "%s: %s faults", what, faults ? "no" : "unexpected");
    if (!faults || mb == WAITING) {
        /* without faults (or with waiting) every line where it was */
        CHECK_MSG(same(&x.calls, &y.calls), "%s, %s: the calls differ", what, mode_name[mb]);
        CHECK_INT(y.late, 0);
    } else {
        /* a notification's fault line came late: one more call line
         * without a fault for each (its own, earlier), no other change */
        CHECK_MSG(y.late > 0, "%s, %s: no late fault", what, mode_name[mb]);
        int cx = 0, cy = 0;
        for (size_t i = 0; i < x.calls.len; i++)
            cx += x.calls.data[i] == '\n';
        for (size_t i = 0; i < y.calls.len; i++)
            cy += y.calls.data[i] == '\n';
        CHECK_MSG(cy == cx + y.late, "%s, %s: %d call lines, %d before, %d late", what, mode_name[mb], cy, cx, y.late);
    }
    CHECK_INT(b->res.faults, a->res.faults);
    CHECK_INT(b->res.calls, a->res.calls);
    CHECK(memcmp(b->res.seat_faults, a->res.seat_faults, sizeof a->res.seat_faults) == 0);
    split_free(&x);
    split_free(&y);
}

/* The fault lines of agent a in events, in order. */
static int count_lines(const char *ev, const char *needle)
{
    int n = 0;
    for (const char *p = ev; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

int main(void)
{
    char dir[] = "/tmp/aiwolf-notify-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char finish[256], start[256];
    snprintf(finish, sizeof finish, "%s/finish.lua", dir);
    snprintf(start, sizeof start, "%s/start.lua", dir);
    /* DAILY_FINISH calls update only: on day 0, the second update is its. */
    write_file(finish, "local a = {}\n"
                       "function a:update(info)\n"
                       "  if self.day ~= info.day then self.day, self.n = info.day, 0 end\n"
                       "  self.n = self.n + 1\n"
                       "  if info.day == 0 and self.n == 2 then error('dailyFinish fails') end\n"
                       "end\n"
                       "return a\n");
    write_file(start, "return { dayStart = function() while true do end end }\n");

    /* 1. No fault: the same log and events. */
    const char *rnd[] = {"agents/random.lua", "agents/random.lua", "agents/random.lua", "agents/random.lua",
                         "agents/random.lua", "agents/random.lua", "agents/random.lua", "agents/random.lua",
                         "agents/random.lua"};
    played ref, p;
    play(IN_PROCESS, rnd, 9, 5, &ref);
    for (int m = QUEUED; m <= WAITING; m++) {
        play(m, rnd, 9, 5, &p);
        compare("random.lua", &ref, &p, m, false);
        played_free(&p);
    }
    played_free(&ref);

    /* 2. Lua faults in notifications, as in process. */
    const char *lua[] = {finish, start, "agents/random.lua", "agents/random.lua", "agents/random.lua"};
    play(IN_PROCESS, lua, 5, 8, &ref);
    CHECK_MSG(count_lines(ref.events, "\"agent\":1,\"call\":\"DAILY_FINISH\",\"us\"") >= 1 &&
                  strstr(ref.events, "dailyFinish fails"), "no DAILY_FINISH fault in process");
    CHECK_MSG(count_lines(ref.events, "\"agent\":2,\"call\":\"DAILY_INITIALIZE\"") >= 2 &&
                  strstr(ref.events, "\"agent\":2,\"call\":\"DAILY_INITIALIZE\"") &&
                  strstr(ref.events, "\"fault\":\"timeout\""), "no DAILY_INITIALIZE time-out in process");
    for (int m = QUEUED; m <= WAITING; m++) {
        play(m, lua, 5, 8, &p);
        compare("Lua faults", &ref, &p, m, true);
        played_free(&p);
    }
    played_free(&ref);

    /* 3. A process that exits in INITIALIZE: as when every notification was
     * waited for (the agent is lost in INITIALIZE or DAILY_FINISH, out of
     * the game after). */
    const char *ex[] = {"random", "exit", "exit-finish", "random", "random"};
    play(WAITING, ex, 5, 3, &ref);
    CHECK_MSG(strstr(ref.events, "\"agent\":2,\"call\":\"INITIALIZE\"") &&
                  strstr(ref.events, "INITIALIZE: connection closed: the agent's process exited with status 3") &&
                  strstr(ref.events, "DAILY_FINISH: connection closed: the agent's process exited with status 3"),
              "no INITIALIZE or DAILY_FINISH loss");
    play(QUEUED, ex, 5, 3, &p);
    compare("exit in INITIALIZE", &ref, &p, QUEUED, true);
    CHECK(strstr(p.events, "\"agent\":2,\"call\":\"INITIALIZE\",\"us\":0,\"late\":true,\"fault\":\"lost\","
                           "\"message\":\"INITIALIZE: connection closed: the agent's process exited with status 3\"") !=
          NULL);
    played_free(&p);
    played_free(&ref);

    unlink(finish);
    unlink(start);
    rmdir(dir);
    return test_done();
}
