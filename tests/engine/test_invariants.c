/* Invariants over many seeded games between C players (careful random ones
 * and erratic ones), under every preset and every player count:
 *  - every game's CSV log passes the log checker (an independent
 *    implementation of the rules) under the same preset;
 *  - no seat is asked to act while dead, and only the right roles are asked
 *    to divine, guard, attack or whisper;
 *  - no seat's view ever shows what its role may not know (checked against
 *    the roles revealed at the end);
 *  - the same seed gives a byte-identical log, different seeds differ.
 * Under the sanitizers (AIWOLF_SANITIZED=1) a tenth of the games run. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "logcheck.h"
#include "protocol.h"
#include "test.h"
#include "wrap_seat.h"
#include "c_game.h"

/* ---- the spy: wraps a player and records every view it is given -------- */

typedef struct seen {
    aw_req_kind kind;
    aw_info info;
} seen;

typedef struct spy {
    wrap_seat w; /* its agent: w.agent */
    seen *log;
    int n, cap;
    const char *where;
} spy;

static void spy_begun(wrap_seat *w)
{
    ((spy *)w)->n = 0;
}

static int spy_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                       aw_seat_reply *reply, aw_seat_fault *f)
{
    spy *p = (spy *)w;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 256;
        p->log = realloc(p->log, sizeof(seen) * (size_t)p->cap);
    }
    p->log[p->n].kind = kind;
    p->log[p->n].info = *info;
    p->n++;
    return wrap_pass(w, kind, info, set, reply, f);
}

static void spy_done(wrap_seat *w)
{
    free(((spy *)w)->log);
}

static aw_seat *spy_new(aw_seat *inner)
{
    spy *p = wrap_seat_new(sizeof *p, inner, spy_request);
    p->w.begun = spy_begun;
    p->w.done = spy_done;
    return &p->w.base;
}

/* Everything agent `me` saw during the game, checked against the true roles. */
static void check_views(const spy *p, const aw_role *truth, int n, const char *ctx)
{
    int me = p->w.agent;
    aw_role mine = truth[me];
    CHECK_MSG(p->n > 0, "%s: agent %d was told nothing", ctx, me); /* the spy saw the game */
    for (int i = 0; i < p->n; i++) {
        const seen *s = &p->log[i];
        const aw_info *in = &s->info;
        bool finish = s->kind == AW_REQ_FINISH;
        CHECK_MSG(in->agent == me && in->my_role == mine, "%s: agent %d told it is %d", ctx, me, in->agent);
        /* asked to act only when alive, and only in its role */
        if (aw_req_needs_reply(s->kind))
            CHECK_MSG(in->alive[me], "%s: dead agent %d asked to %s", ctx, me, aw_req_name(s->kind));
        if (s->kind == AW_REQ_DIVINE)
            CHECK_MSG(mine == AW_SEER, "%s: %s asked to divine", ctx, aw_role_name(mine));
        if (s->kind == AW_REQ_GUARD)
            CHECK_MSG(mine == AW_BODYGUARD, "%s: %s asked to guard", ctx, aw_role_name(mine));
        if (s->kind == AW_REQ_ATTACK || s->kind == AW_REQ_WHISPER)
            CHECK_MSG(mine == AW_WEREWOLF, "%s: %s asked to %s", ctx, aw_role_name(mine), aw_req_name(s->kind));
        for (int a = 1; a <= n; a++) {
            if (in->role[a] == AW_ROLE_NONE)
                continue;
            CHECK_MSG(in->role[a] == truth[a], "%s: agent %d shown a wrong role for %d", ctx, me, a);
            bool allowed = finish || a == me || (mine == AW_WEREWOLF && truth[a] == AW_WEREWOLF) ||
                           (mine == AW_FREEMASON && truth[a] == AW_FREEMASON);
            CHECK_MSG(allowed, "%s: %s %d saw the role of %d (%s) at %s", ctx, aw_role_name(mine), me, a,
                      aw_role_name(truth[a]), aw_req_name(s->kind));
        }
        if (!finish)
            for (int a = 1; a <= n; a++)
                if (a != me && !(mine == AW_WEREWOLF && truth[a] == AW_WEREWOLF) &&
                    !(mine == AW_FREEMASON && truth[a] == AW_FREEMASON))
                    CHECK(in->role[a] == AW_ROLE_NONE);
        if (mine != AW_WEREWOLF) {
            CHECK_MSG(in->whispers == NULL && in->nwhispers == 0, "%s: %s saw whispers", ctx, aw_role_name(mine));
            CHECK_MSG(in->attacked == 0 && in->nattack_votes == 0 && in->nlatest_attack_votes == 0,
                      "%s: %s saw the attack", ctx, aw_role_name(mine));
            for (int a = 1; a <= n; a++)
                CHECK(in->remain_whisper[a] == -1);
        }
        if (mine != AW_SEER)
            CHECK_MSG(in->divine_result.agent == 0, "%s: %s saw a divination", ctx, aw_role_name(mine));
        else if (in->divine_result.agent)
            CHECK(in->divine_result.agent == me &&
                  in->divine_result.result == aw_role_species(truth[in->divine_result.target]));
        if (mine != AW_MEDIUM)
            CHECK_MSG(in->medium_result.agent == 0, "%s: %s saw a medium result", ctx, aw_role_name(mine));
        else if (in->medium_result.agent)
            CHECK(in->medium_result.result == aw_role_species(truth[in->medium_result.target]));
        if (mine != AW_BODYGUARD)
            CHECK_MSG(in->guarded == 0, "%s: %s saw the guard", ctx, aw_role_name(mine));
    }
}

/* ---- one game ------------------------------------------------------------ */

static int validate_text(void *ud, const char *text, size_t len, aw_validation mode, aw_error *err)
{
    (void)ud;
    return aw_protocol_validate(text, len, mode, err);
}

/* Plays one game and returns its CSV log (caller frees). */
static char *play(const aw_settings *set, uint64_t seed, bool chaos, aw_seat **seats_out_or_null,
                  aw_game_result *res)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= set->players; a++) {
        aw_seat *inner = chaos && (a % 2 == 0 || seed % 3 == 0) ? aw_cseat_chaos(seed * 31 + (uint64_t)a)
                                                                : aw_cseat_random(seed * 17 + (uint64_t)a);
        seats[a] = spy_new(inner);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *csv = open_memstream(&buf, &len);
    aw_error err;
    int rc = c_game_play(set, seed, seats, c_game_validate, csv, res, &err);
    CHECK_MSG(rc == 0, "game failed to start: %s", err.msg);
    fclose(csv);

    char ctx[96];
    snprintf(ctx, sizeof ctx, "%s %dp seed %llu", set->preset, set->players, (unsigned long long)seed);
    for (int a = 1; a <= set->players; a++) {
        check_views((spy *)seats[a], res->role, set->players, ctx);
        if (seats_out_or_null)
            seats_out_or_null[a] = seats[a];
        else
            seats[a]->ops->free(seats[a]);
    }
    return buf;
}

static long games_run, illegal;

static void run_games_set(const char *preset, const char *override, int players, int count, uint64_t first_seed,
                          bool chaos)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, preset, players, &err) == 0);
    if (override)
        CHECK_MSG(aw_settings_set(&set, override, &err) == 0, "%s", err.msg);
    aw_logcheck_options opt;
    memset(&opt, 0, sizeof opt);
    opt.validate = validate_text;
    opt.roles = set.role_count;
    int wins[3] = {0};
    for (int i = 0; i < count; i++) {
        uint64_t seed = first_seed + (uint64_t)i;
        aw_game_result res;
        char *csv = play(&set, seed, chaos, NULL, &res);
        aw_logcheck_report rep;
        int v = aw_logcheck(csv, strlen(csv), &set, &opt, &rep, &err);
        games_run++;
        if (v != AW_LOG_LEGAL) {
            illegal++;
            if (illegal <= 5)
                fprintf(stderr, "%s %dp seed %llu: line %ld: %s\n  %s\n", preset, players, (unsigned long long)seed,
                        rep.line, rep.reason, rep.text);
        } else {
            CHECK(rep.winner == res.winner && rep.days == res.days);
        }
        /* The winner follows the rule: no werewolf alive, or humans <= werewolves. */
        CHECK(res.winner == AW_TEAM_VILLAGER ? res.wolves == 0 : res.wolves > 0 && res.humans <= res.wolves);
        /* Role counts hold. */
        int count_by_role[AW_NROLES] = {0};
        for (int a = 1; a <= players; a++)
            count_by_role[res.role[a]]++;
        CHECK(memcmp(count_by_role, set.role_count, sizeof count_by_role) == 0);
        if (res.winner >= 0 && res.winner < 3)
            wins[res.winner]++;
        free(csv);
    }
    /* Both sides win sometimes: a rule that made one side always win would show. */
    if (count >= 200)
        CHECK_MSG(wins[0] > 0 && wins[1] > 0, "%s %dp: village %d, werewolves %d", preset, players, wins[0], wins[1]);
}

static void run_games(const char *preset, int players, int count, uint64_t first_seed, bool chaos)
{
    run_games_set(preset, NULL, players, count, first_seed, chaos);
}

static void determinism(void)
{
    aw_settings set;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", 15, &err);
    aw_game_result res;
    char *a = play(&set, 42, true, NULL, &res);
    char *b = play(&set, 42, true, NULL, &res);
    char *c = play(&set, 43, true, NULL, &res);
    CHECK_MSG(strcmp(a, b) == 0, "the same seed gave two different logs");
    CHECK_MSG(strcmp(a, c) != 0, "seeds 42 and 43 gave the same log");
    free(a);
    free(b);
    free(c);
}

/* A table decided before it starts (as many werewolves as humans): like the
 * official server, the game logs the day-0 status and the result at once. */
static void decided_at_start(void)
{
    aw_settings set;
    aw_error err;
    aw_settings_preset(&set, "aiwolf", 4, &err);
    memset(set.role_count, 0, sizeof set.role_count);
    set.role_count[AW_WEREWOLF] = 2;
    set.role_count[AW_VILLAGER] = 2;
    CHECK(aw_settings_check(&set, &err) == 0);
    CHECK(aw_settings_check_playable(&set, &err) < 0);
    aw_game_result res;
    char *csv = play(&set, 5, false, NULL, &res);
    CHECK(res.winner == AW_TEAM_WEREWOLF && res.days == 0);
    int lines = 0;
    for (const char *p = csv; *p; p++)
        lines += *p == '\n';
    CHECK_INT(lines, 5);
    CHECK(strstr(csv, "0,result,2,2,WEREWOLF\n") != NULL);
    free(csv);
}

int main(void)
{
    decided_at_start();
    int scale = getenv("AIWOLF_SANITIZED") ? 10 : 1;
    determinism();
    /* 10,000 games at 5 and 15 players under the official rules */
    run_games("aiwolf", 5, 2500 / scale, 1, false);
    run_games("aiwolf", 5, 2500 / scale, 100001, true);
    run_games("aiwolf", 15, 2500 / scale, 1, false);
    run_games("aiwolf", 15, 2500 / scale, 100001, true);
    /* the other presets, and every size */
    run_games("seed2015", 5, 500 / scale, 1, true);
    run_games("seed2015", 15, 500 / scale, 1, true);
    run_games("regulation", 5, 500 / scale, 1, true);
    run_games("regulation", 15, 500 / scale, 1, true);
    for (int n = AW_MIN_PLAYERS; n <= AW_MAX_PLAYERS; n++) {
        run_games("aiwolf", n, 60 / scale + 1, 7000, true);
        run_games("seed2015", n, 20 / scale + 1, 7000, true);
        run_games("regulation", n, 20 / scale + 1, 7000, true);
    }
    /* single settings changed away from the presets */
    static const char *const overrides[] = {
        "enable_no_attack=true", "enable_no_execution=true", "whisper_before_revote=true", "talk_on_first_day=true",
        "max_revote=3", "max_attack_revote=0", "max_skip=0", "max_talk=3", "max_talk_turn=2", "whisper_single_wolf=true",
        "invalid_attack=random", "invalid_divine=random", "invalid_guard=random", "guard_dead_target=false",
        "divine_dead_target=true", "talk_end_all_skip_turns=1", "validation=off", "validation=lenient",
        "vote_visible=false", "max_whisper=1"};
    for (size_t i = 0; i < sizeof overrides / sizeof overrides[0]; i++) {
        run_games_set("aiwolf", overrides[i], 7, 100 / scale + 1, 500, true);
        run_games_set("aiwolf", overrides[i], 15, 100 / scale + 1, 500, true);
        run_games_set("seed2015", overrides[i], 12, 40 / scale + 1, 500, true);
    }
    printf("%ld games, %ld with an illegal log\n", games_run, illegal);
    CHECK(illegal == 0);
    return test_done();
}
