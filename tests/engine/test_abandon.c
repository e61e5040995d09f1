/* The error ratio (settings' error_ratio, engine.h's aw_engine_fail):
 * games of C players some of whom go lost (a fault of kind lost on every
 * call from a drawn call on, as a closed connection), under the NLP
 * presets and other rules with a ratio, at 5, 9, 13 and 15 players. Every
 * log must check legal with the same outcome (abandoned, the failed count)
 * and replay byte for byte; games must be abandoned at every kind of phase
 * end and also go on below the limit; without a ratio nothing changes. */
#include <stdlib.h>
#include <string.h>

#include "logcheck.h"
#include "logreplay.h"
#include "cseat.h"
#include "rng.h"
#include "test.h"
#include "c_game.h"
#include "wrap_seat.h"

typedef struct goner {
    wrap_seat w;
    int lost_at;         /* lost from this call on; 0: never */
    aw_req_kind lost_on; /* the request it first failed (AW_REQ_NONE: none) */
} goner;

static int g_request(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                     aw_seat_fault *f)
{
    goner *x = (goner *)w;
    if (x->lost_at && w->calls >= x->lost_at) {
        if (x->lost_on == AW_REQ_NONE)
            x->lost_on = kind;
        return wrap_fault(f, AW_FAULT_LOST, "gone");
    }
    return wrap_pass(w, kind, info, set, r, f);
}

static int validate_text(void *ud, const char *text, size_t len, aw_validation mode, aw_error *err)
{
    (void)ud;
    return aw_protocol_validate(text, len, mode, err);
}

/* The kind of the last line before the final status block that is not an
 * error line: where (after which phase) the game was abandoned. */
static const char *end_kind(const char *csv, int players)
{
    const char *starts[4096];
    int n = 0;
    for (const char *p = csv; *p && n < 4096; p = strchr(p, '\n') + 1) {
        starts[n++] = p;
        if (!strchr(p, '\n'))
            break;
    }
    static char kind[16];
    snprintf(kind, sizeof kind, "?");
    for (int i = n - 2 - players; i >= 0; i--) {
        const char *c1 = strchr(starts[i], ',');
        size_t k = c1 ? strcspn(c1 + 1, ",\n") : 0;
        if (c1 && !(k == 5 && !strncmp(c1 + 1, "error", 5))) {
            snprintf(kind, sizeof kind, "%.*s", (int)(k < 15 ? k : 15), c1 + 1);
            break;
        }
    }
    return kind;
}

static long games, abandoned, went_on, with_errors;
static char kinds_seen[16][16];
static int nkinds;

static void note(const char *k)
{
    for (int i = 0; i < nkinds; i++)
        if (!strcmp(kinds_seen[i], k))
            return;
    if (nkinds < 16)
        snprintf(kinds_seen[nkinds++], sizeof kinds_seen[0], "%s", k);
}

static void run(const char *preset, const char *set_extra, int players, int count, uint64_t first)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, preset, players, &err) == 0);
    if (set_extra)
        CHECK_MSG(aw_settings_set(&set, set_extra, &err) == 0, "%s", err.msg);
    for (int i = 0; i < count; i++) {
        uint64_t seed = first + (uint64_t)i;
        aw_rng rng;
        aw_rng_seed(&rng, seed * 7919);
        aw_seat *seats[AW_MAX_PLAYERS + 1];
        for (int a = 1; a <= players; a++) {
            goner *x = wrap_seat_new(sizeof *x,
                                     a % 2 ? aw_cseat_chaos(seed * 13 + (uint64_t)a)
                                           : aw_cseat_random(seed * 17 + (uint64_t)a),
                                     g_request);
            /* about one seat in four goes, at a call from 1 to 80 */
            if (aw_rng_below(&rng, 4) == 0)
                x->lost_at = 1 + (int)aw_rng_below(&rng, 80);
            seats[a] = &x->w.base;
        }
        char *buf = NULL;
        size_t len = 0;
        FILE *csv = open_memstream(&buf, &len);
        aw_game_result res;
        CHECK(c_game_play(&set, seed, seats, c_game_validate, csv, &res, &err) == 0);
        fclose(csv);
        /* every seat lost before FINISH is counted (also when a team won
         * the morning it was counted: the error ratio comes first) */
        int lost = 0;
        for (int a = 1; a <= players; a++) {
            aw_req_kind k = ((goner *)seats[a])->lost_on;
            lost += k != AW_REQ_NONE && k != AW_REQ_FINISH;
            seats[a]->ops->free(seats[a]);
        }
        int limit_now = aw_settings_error_limit(&set, players);
        CHECK_MSG(limit_now == 0 || lost == res.failed, "%s %dp seed %llu: %d seats lost, %d counted", preset, players,
                  (unsigned long long)seed, lost, res.failed);
        games++;
        char ctx[80];
        snprintf(ctx, sizeof ctx, "%s %s %dp seed %llu", preset, set_extra ? set_extra : "", players,
                 (unsigned long long)seed);
        aw_logcheck_options opt;
        memset(&opt, 0, sizeof opt);
        opt.validate = validate_text;
        aw_logcheck_report rep;
        int v = aw_logcheck(buf, len, &set, &opt, &rep, &err);
        CHECK_MSG(v == AW_LOG_LEGAL, "%s: check: line %ld: %s\n  %s", ctx, rep.line, rep.reason, rep.text);
        if (v == AW_LOG_LEGAL) {
            CHECK_MSG(rep.abandoned == res.abandoned && rep.failed == res.failed && rep.winner == res.winner &&
                          rep.days == res.days,
                      "%s: check says abandoned %d failed %d, the game %d %d", ctx, rep.abandoned, rep.failed,
                      res.abandoned, res.failed);
        }
        aw_replay_report rr;
        v = aw_replay(buf, len, &set, NULL, &rr, &err);
        CHECK_MSG(v == AW_REPLAY_REPRODUCED, "%s: replay: line %ld ours \"%s\" log \"%s\" %s", ctx, rr.diff_line,
                  rr.ours, rr.theirs, rr.problem);
        int limit = aw_settings_error_limit(&set, players);
        if (res.abandoned) {
            abandoned++;
            CHECK(res.winner == AW_TEAM_NONE && limit > 0 && res.failed >= limit);
            note(end_kind(buf, players));
        } else {
            CHECK(res.failed < limit || limit == 0);
            if (res.failed > 0)
                went_on++;
        }
        if (strstr(buf, ",error,"))
            with_errors++;
        CHECK(limit > 0 || !strstr(buf, ",error,"));
        free(buf);
    }
}

int main(void)
{
    int scale = getenv("AIWOLF_SANITIZED") ? 5 : 1;
    run("nlp", NULL, 5, 300 / scale, 1);
    run("nlp", NULL, 9, 200 / scale, 1);
    run("nlp13", NULL, 13, 300 / scale, 1);
    run("nlp-en", "error_ratio=0.4", 13, 200 / scale, 1000);
    run("aiwolf", "error_ratio=0.3", 15, 200 / scale, 1);
    run("aiwolf", "error_ratio=1", 5, 50 / scale, 1);
    run("seed2015", "error_ratio=0.25", 12, 100 / scale, 1);
    long before = with_errors;
    run("aiwolf", NULL, 5, 100 / scale, 1); /* no ratio: no error line */
    CHECK(with_errors == before);
    printf("%ld games: %ld abandoned, %ld went on with agents failed below the limit; ends after:", games, abandoned,
           went_on);
    for (int i = 0; i < nkinds; i++)
        printf(" %s", kinds_seen[i]);
    printf("\n");
    CHECK(abandoned > 50);
    CHECK(went_on > 20);
    /* abandoned at the ends of several kinds of phase: after the talk (a
     * talk line), the votes (execute), the divination (divine), the guard,
     * the attack (the next day's status block is the final one) */
    CHECK(nkinds >= 4);
    return test_done();
}
