/* Spectators learn nothing from when the night's lines come (issue 23): a
 * person plays seat 1 (a thread here) in many games, as each role, and at
 * every view the seat publishes the test notes what the live stream
 * (spectate.h) has given out so far. Whatever the role, each night the
 * person has exactly one night turn (a seer's DIVINE, a werewolf's ATTACK,
 * a villager's night step), and the stream's state at each of the
 * person's steps is the same: at the night turn it holds the day up to
 * its end and nothing of the night; when the new day's DAILY_INITIALIZE is
 * shown, still nothing of the night (the dawn is held, so that a night
 * without a secret request cannot come out sooner); at the person's next
 * step the dawn is out. So the moment the night's lines come is the
 * moment the person's night turn ends, for every role: no wall clock is
 * measured, the order is what is checked. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "humanseat.h"
#include "person_game.h"
#include "spectate.h"
#include "talkhooks.h"
#include "test.h"

#define MAX_STEPS 512

/* What the stream had given out when the seat published one view. */
typedef struct step {
    char request[24];
    int day;
    bool answers;   /* the view asks for an answer */
    bool alive;     /* the seat is alive in the view */
    long lines;     /* stream lines so far */
    int status_day; /* the newest day whose status lines are out (-1: none) */
    char last[40];  /* what the newest stream line is ("call:VOTE", "execute", ...) */
} step;

typedef struct watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    aw_seat *seat;
    long lines;
    int status_day;
    char last[40];
    step steps[MAX_STEPS];
    int nsteps;
    uint64_t seen;  /* views published */
    aw_buf view;    /* the latest */
    bool over;
} watch;

static void str_field(const char *json, const char *key, char *out, size_t size)
{
    const char *q = strstr(json, key);
    out[0] = 0;
    if (!q)
        return;
    q += strlen(key);
    size_t n = strcspn(q, "\"");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), q);
}

/* The stream's sink (the game's thread). */
static void sink(void *ud, const char *line, size_t len)
{
    watch *w = ud;
    char *l = strndup(line, len);
    pthread_mutex_lock(&w->mu);
    w->lines++;
    char ev[24], call[20];
    str_field(l, "\"event\":\"", ev, sizeof ev);
    if (strcmp(ev, "status") == 0 && field(l, "\"day\":") > w->status_day)
        w->status_day = (int)field(l, "\"day\":");
    if (strcmp(ev, "call") == 0) {
        str_field(l, "\"call\":\"", call, sizeof call);
        snprintf(w->last, sizeof w->last, "call:%s", call);
    } else {
        snprintf(w->last, sizeof w->last, "%s", ev);
    }
    pthread_mutex_unlock(&w->mu);
    free(l);
}

/* The seat's views (the game's thread, the seat's lock held). */
static void publish(void *ud, const char *json, size_t len)
{
    watch *w = ud;
    if (!strstr(json, "\"type\":\"view\""))
        return;
    pthread_mutex_lock(&w->mu);
    if (w->nsteps < MAX_STEPS) {
        step *s = &w->steps[w->nsteps++];
        str_field(json, "\"request\":\"", s->request, sizeof s->request);
        s->day = (int)field(json, "\"day\":");
        s->answers = !strstr(json, "\"answer\":\"none\"");
        int me = (int)field(json, "\"agent\":");
        const char *al = strstr(json, "\"alive\":[");
        s->alive = false;
        for (const char *p = al ? al + 9 : ""; *p && *p != ']';) {
            if ((int)strtol(p, (char **)&p, 10) == me)
                s->alive = true;
            if (*p == ',')
                p++;
        }
        s->lines = w->lines;
        s->status_day = w->status_day;
        snprintf(s->last, sizeof s->last, "%s", w->last);
    }
    aw_buf_clear(&w->view);
    aw_buf_add(&w->view, json, len);
    w->seen++;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* The person: answers every request at once (a confirmation, an agent,
 * Over). */
static void *person(void *arg)
{
    watch *w = arg;
    const char *tok = aw_human_token(w->seat);
    uint64_t last = 0;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (w->seen == last && !w->over)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->seen == last) {
            pthread_mutex_unlock(&w->mu);
            break;
        }
        last = w->seen;
        char *v = strdup(w->view.data);
        pthread_mutex_unlock(&w->mu);
        uint64_t seq = (uint64_t)field(v, "\"seq\":");
        aw_error err;
        int rc = 0;
        if (strstr(v, "\"answer\":\"confirm\""))
            rc = aw_human_answer(w->seat, tok, strlen(tok), seq, NULL, 0, AW_NO_AGENT, &err);
        else if (strstr(v, "\"answer\":\"target\""))
            rc = aw_human_answer(w->seat, tok, strlen(tok), seq, NULL, 0, alive_other(v, (int)field(v, "\"agent\":")),
                                 &err);
        else if (strstr(v, "\"answer\":\"text\""))
            rc = aw_human_answer(w->seat, tok, strlen(tok), seq, "Over", 4, 0, &err);
        CHECK_MSG(rc == 0, "%s", err.msg);
        free(v);
    }
    return NULL;
}

static bool night_turn(const char *req)
{
    return !strcmp(req, "NIGHT") || !strcmp(req, "DIVINE") || !strcmp(req, "GUARD") || !strcmp(req, "ATTACK");
}

static int nights_seen[AW_NROLES], confirms_seen[AW_NROLES];

/* One game with the person as `role`; checks every night of it. */
static void one_game(int players, aw_role role, uint64_t seed)
{
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", players, NULL) == 0);
    watch *w = calloc(1, sizeof *w);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    aw_buf_init(&w->view);
    w->status_day = -1;
    aw_human_opts ho = {"Person", 600000, publish, w}; /* the person always answers: no deadline plays a part */
    aw_error err;
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    w->seat = seats[1] = aw_human_new(&ho, &err);
    CHECK(seats[1] != NULL);
    for (int a = 2; a <= players; a++)
        seats[a] = aw_cseat_random(seed * 7 + (uint64_t)a);
    aw_gamelog log;
    aw_gamelog_init(&log, NULL, NULL, NULL);
    aw_spectate *sp = aw_spectate_new(false, sink, w);
    aw_spectate_attach(sp, &log);
    person_thread pt = {person, w, &w->mu, &w->cv, &w->over};
    aw_game_result res;
    int rc = play_with_person(&set, seed, role, &log, seats, &pt, &res, &err);
    CHECK_MSG(rc == 0, "%s", err.msg);
    CHECK_INT(res.role[1], role);
    CHECK(w->nsteps < MAX_STEPS);

    /* Each night the seat lives through from dusk: exactly one night turn,
     * and the stream as described above at it and at the steps after. */
    const char *name = aw_role_name(role);
    for (int i = 0; i < w->nsteps; i++) {
        const step *s = &w->steps[i];
        if (strcmp(s->request, "DAILY_FINISH") != 0 || !s->alive)
            continue;
        int d = s->day, turns = 0, j = i + 1;
        const step *turn = NULL;
        /* the night: up to the next day's DAILY_INITIALIZE or the end */
        for (; j < w->nsteps && strcmp(w->steps[j].request, "DAILY_INITIALIZE") && strcmp(w->steps[j].request, "FINISH");
             j++)
            if (night_turn(w->steps[j].request)) {
                turns++;
                turn = &w->steps[j];
                confirms_seen[role] += !strcmp(turn->request, "NIGHT");
            }
        if (j == w->nsteps || !strcmp(w->steps[j].request, "FINISH")) {
            /* The game ended in the night: the result gave everything out. */
            CHECK_MSG(turns <= 1, "%s, day %d: %d night turns", name, d, turns);
            continue;
        }
        const step *dawn = &w->steps[j];
        /* Executed at the vote: no night turn, nothing to wait for. */
        if (!turn && !dawn->alive)
            continue;
        CHECK_MSG(turns == 1, "%s, seed %llu, night %d: %d night turns", name, (unsigned long long)seed, d, turns);
        if (turns != 1)
            continue;
        nights_seen[role]++;
        /* At the night turn: the day is out up to its end, nothing of the
         * night (no dawn: no status line of day d+1). */
        CHECK_MSG(turn->status_day == d, "%s, night %d: the stream was at day %d at the night turn", name, d,
                  turn->status_day);
        CHECK_MSG(!strcmp(turn->last, "call:DAILY_FINISH") || !strcmp(turn->last, "call:VOTE") ||
                      !strcmp(turn->last, "vote") || !strcmp(turn->last, "execute") || !strcmp(turn->last, "substitute"),
                  "%s, night %d: the stream's last line at the night turn was %s", name, d, turn->last);
        /* When the new day is shown: not one line more (the dawn is held
         * until every agent has answered DAILY_INITIALIZE). */
        CHECK_INT(dawn->day, d + 1);
        CHECK_MSG(dawn->lines == turn->lines && dawn->status_day == d,
                  "%s, night %d: %ld lines at the night turn, %ld (day %d) at DAILY_INITIALIZE", name, d, turn->lines,
                  dawn->lines, dawn->status_day);
        /* At the person's next step: the dawn is out. */
        if (j + 1 < w->nsteps) {
            const step *next = &w->steps[j + 1];
            CHECK_MSG(next->status_day == d + 1 && next->lines > dawn->lines,
                      "%s, night %d: the dawn not out at %s (stream at day %d)", name, d, next->request,
                      next->status_day);
        }
    }
    aw_spectate_free(sp);
    aw_gamelog_free(&log);
    for (int a = 1; a <= players; a++)
        seats[a]->ops->free(seats[a]);
    aw_buf_free(&w->view);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

int main(void)
{
    /* 5 players: one werewolf (no whispers), so every role's night is one
     * turn; 15 players for the bodyguard and the medium. */
    const aw_role five[] = {AW_SEER, AW_VILLAGER, AW_POSSESSED, AW_WEREWOLF};
    const aw_role fifteen[] = {AW_SEER, AW_VILLAGER, AW_BODYGUARD, AW_MEDIUM};
    for (uint64_t seed = 1; seed <= 40; seed++)
        for (int r = 0; r < 4; r++)
            one_game(5, five[r], seed);
    for (uint64_t seed = 1; seed <= 10; seed++)
        for (int r = 0; r < 4; r++)
            one_game(15, fifteen[r], 100 + seed);
    printf("nights checked:");
    for (int r = 0; r < AW_NROLES; r++)
        if (nights_seen[r])
            printf(" %s %d (%d night steps)", aw_role_name((aw_role)r), nights_seen[r], confirms_seen[r]);
    printf("\n");
    CHECK(nights_seen[AW_SEER] >= 40 && nights_seen[AW_VILLAGER] >= 40);
    /* the villager's nights are all night steps; the seer's none but on
     * nights it cannot divine (never: it divines every night it lives) */
    CHECK_INT(confirms_seen[AW_VILLAGER], nights_seen[AW_VILLAGER]);
    CHECK_INT(confirms_seen[AW_SEER], 0);
    CHECK(nights_seen[AW_BODYGUARD] > 0 && confirms_seen[AW_BODYGUARD] > 0); /* night 0: no guard */
    return test_done();
}
