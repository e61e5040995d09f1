/* The rating (runtime/contest/rating.c) on games simulated from known
 * skills: it recovers them, its 95 % intervals cover them about 95 % of the
 * time, per-role skill finds a role an entry is good at, excluded entries
 * are fitted but not rated, and duplicate deals (schedule.c) lower the
 * ranking's standard error against plain games of the same count. Links
 * only rating.c, schedule.c and core. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rating.h"
#include "rng.h"
#include "schedule.h"
#include "test.h"
#include "sim_contest.h"

#define N 8
static const double true_skill[N] = {-0.5, -0.3, -0.1, 0.0, 0.05, 0.15, 0.3, 0.4}; /* sums to 0 */
#define BASE (-0.2)

static double gauss(aw_rng *r)
{
    return sqrt(-2 * log(sim_unif(r))) * cos(6.283185307179586 * sim_unif(r));
}

static void sched(aw_schedule *s, long games_per_entry, int duplicate, uint64_t seed)
{
    aw_error err;
    CHECK(sim_schedule(s, N, games_per_entry, duplicate, seed, &err) == 0);
}

/* The synthetic game, from the team strength
 *   eta = BASE + sum over seats of side * (skill + bonus)
 * (`bonus`: entry 0's extra skill as SEER). Without deal luck (rho = 0)
 * the village wins with probability sigmoid(eta), as the rating's model
 * says. With rho > 0 the game is decided as a deterministic game is: the
 * village wins when eta + 1.7 * (sqrt(rho) z_deal + sqrt(1 - rho) z_game)
 * > 0, z_deal drawn once per deal (its seed), shared by its copies. */
static aw_team play(const aw_sched_unit *u, const aw_sched_game *g, double rho, double z_deal, double bonus,
                    aw_rng *r)
{
    double eta = BASE;
    for (int a = 1; a <= u->players; a++) {
        aw_team t = aw_role_team(g->role[a]);
        int side = t == AW_TEAM_VILLAGER ? 1 : t == AW_TEAM_WEREWOLF ? -1 : 0;
        double s = true_skill[u->entry[a]] + (u->entry[a] == 0 && g->role[a] == AW_SEER ? bonus : 0);
        eta += side * s;
    }
    if (rho > 0)
        return eta + 1.7 * (sqrt(rho) * z_deal + sqrt(1 - rho) * gauss(r)) > 0 ? AW_TEAM_VILLAGER
                                                                                : AW_TEAM_WEREWOLF;
    return sim_unif(r) < 1 / (1 + exp(-eta)) ? AW_TEAM_VILLAGER : AW_TEAM_WEREWOLF;
}

/* Simulates the schedule into d. */
static void simulate(const aw_schedule *s, aw_rating_data *d, double rho, double bonus, aw_rng *r)
{
    uint64_t last_seed = 0;
    double z = 0;
    for (int u = 0; u < s->nunits; u++) {
        const aw_sched_unit *un = &s->units[u];
        const aw_sched_game *g = &un->games[0];
        if (u == 0 || g->seed != last_seed)
            z = gauss(r);
        last_seed = g->seed;
        aw_team w = play(un, g, rho, z, bonus, r);
        aw_rating_data_add(d, un->players, un->entry, g->role, w, g->seed, un->first);
    }
}

/* A simulated contest's games: the schedule for games_per_entry (duplicate
 * deals of K copies) from the master seed, results drawn by r. *games: how
 * many. */
static aw_rating_data *contest_games(long games_per_entry, int duplicate, uint64_t seed, double rho, double bonus,
                                     aw_rng *r, long *games)
{
    aw_schedule s;
    sched(&s, games_per_entry, duplicate, seed);
    aw_rating_data *d = aw_rating_data_new(N);
    simulate(&s, d, rho, bonus, r);
    if (games)
        *games = s.ngames;
    aw_schedule_free(&s);
    return d;
}

static void test_recovers_skills(void)
{
    aw_rng r;
    aw_rng_seed(&r, 11);
    long ngames;
    aw_rating_data *d = contest_games(20000, 0, 7, 0, 0, &r, &ngames);
    aw_rating fit;
    aw_error err;
    CHECK(aw_rating_fit(d, NULL, &fit, &err) == 0);
    CHECK(fit.converged);
    CHECK_INT(fit.games_fitted, ngames);
    for (int e = 0; e < N; e++) {
        CHECK(fit.rated[e]);
        CHECK_MSG(fabs(fit.skill[e] - true_skill[e]) < 4 * fit.se[e], "entry %d: %.3f ± %.3f, true %.3f", e,
                  fit.skill[e], fit.se[e], true_skill[e]);
        CHECK_MSG(fit.se[e] > 0.005 && fit.se[e] < 0.05, "entry %d se %.4f", e, fit.se[e]);
    }
    CHECK_MSG(fabs(fit.village_p[15] - 1 / (1 + exp(-BASE))) < 0.02, "village %.3f", fit.village_p[15]);
    /* Ordered as the true skills but for the close pair 3/4. */
    int order[N];
    CHECK_INT(aw_rating_order(&fit, order), N);
    CHECK_INT(order[0], 7);
    CHECK_INT(order[N - 1], 0);
    CHECK(aw_rating_outranks(&fit, 7, 0) > 0.999);
    CHECK(fabs(aw_rating_outranks(&fit, 3, 4) + aw_rating_outranks(&fit, 4, 3) - 1) < 1e-12);
    /* No role bonus: role skills near the skill. */
    for (int e = 0; e < N; e++)
        for (int k = 0; k < AW_NROLES; k++)
            if (fit.role_games[e * AW_NROLES + k])
                CHECK_MSG(fabs(fit.role_skill[e * AW_NROLES + k] - fit.skill[e]) < 4 * fit.role_se[e * AW_NROLES + k],
                          "entry %d role %d: %.3f ± %.3f, skill %.3f", e, k, fit.role_skill[e * AW_NROLES + k],
                          fit.role_se[e * AW_NROLES + k], fit.skill[e]);
    CHECK(fit.role_games[0 * AW_NROLES + AW_SEER] > 0);
    CHECK_INT(fit.role_games[0 * AW_NROLES + AW_FOX], 0);
    /* Independent games: the clustered and the independent figures agree. */
    CHECK_MSG(fabs(fit.se_diff / fit.se_diff_indep - 1) < 0.15, "%.4f vs %.4f", fit.se_diff, fit.se_diff_indep);

    /* Entry 7 excluded: fitted as a player, not rated; the others'
     * differences stay. */
    bool include[N];
    for (int e = 0; e < N; e++)
        include[e] = e != 7;
    aw_rating_opts o = {.include = include};
    aw_rating fx;
    CHECK(aw_rating_fit(d, &o, &fx, &err) == 0);
    CHECK(!fx.rated[7]);
    CHECK(fx.skill[7] == 0);
    double mean = 0;
    for (int e = 0; e < 7; e++)
        mean += true_skill[e] / 7;
    for (int e = 0; e < 7; e++)
        CHECK_MSG(fabs(fx.skill[e] - (true_skill[e] - mean)) < 4 * fx.se[e], "masked: entry %d %.3f, true %.3f", e,
                  fx.skill[e], true_skill[e] - mean);
    CHECK(fabs(aw_rating_outranks(&fx, 7, 0) - 0.5) < 1e-12);
    CHECK_INT(aw_rating_unresolved(&fx, 0.95, NULL) <= 6, 1);
    aw_rating_free(&fx);
    aw_rating_free(&fit);
    aw_rating_data_free(d);
}

/* Over many small contests the 95 % intervals cover the true (centred)
 * skills about 95 % of the time, and a pair is said to be separated the
 * wrong way round rarely. */
/* Entry 0 much better as SEER: its SEER skill stands out, the others' do
 * not. */
static void test_role_skill(void)
{
    aw_rng r;
    aw_rng_seed(&r, 12);
    aw_rating_data *d = contest_games(8000, 0, 8, 0, 1.5, &r, NULL);
    aw_rating fit;
    aw_error err;
    CHECK(aw_rating_fit(d, NULL, &fit, &err) == 0);
    double s0 = fit.role_skill[0 * AW_NROLES + AW_SEER], se0 = fit.role_se[0 * AW_NROLES + AW_SEER];
    CHECK_MSG(s0 - fit.skill[0] > 0.5 && s0 - 1.96 * se0 > fit.skill[0], "seer %.3f ± %.3f, skill %.3f", s0, se0,
              fit.skill[0]);
    double v0 = fit.role_skill[0 * AW_NROLES + AW_VILLAGER];
    CHECK_MSG(v0 < s0 - 0.5, "entry 0 villager %.3f, seer %.3f", v0, s0);
    for (int e = 1; e < N; e++) {
        double se = fit.role_skill[e * AW_NROLES + AW_SEER], sse = fit.role_se[e * AW_NROLES + AW_SEER];
        CHECK_MSG(fabs(se - fit.skill[e]) < 3 * sse, "entry %d seer %.3f ± %.3f, skill %.3f", e, se, sse,
                  fit.skill[e]);
    }
    aw_rating_free(&fit);
    aw_rating_data_free(d);
}

static void test_coverage(void)
{
    int reps = 200, covered = 0, total = 0, wrong = 0, separated = 0, tested = 0;
    aw_rng r;
    aw_rng_seed(&r, 99);
    for (int k = 0; k < reps; k++) {
        aw_rating_data *d = contest_games(300, 0, 1000 + (uint64_t)k, 0, 0, &r, NULL);
        aw_rating fit;
        aw_error err;
        if (aw_rating_fit(d, NULL, &fit, &err) == 0) {
            for (int e = 0; e < N; e++) {
                covered += fabs(fit.skill[e] - true_skill[e]) <= 1.96 * fit.se[e];
                total++;
            }
            for (int i = 0; i < N; i++)
                for (int j = 0; j < N; j++)
                    if (true_skill[i] < true_skill[j] && ++tested && aw_rating_outranks(&fit, i, j) >= 0.95)
                        wrong++;
                    else if (true_skill[i] > true_skill[j] && aw_rating_outranks(&fit, i, j) >= 0.95)
                        separated++;
        }
        aw_rating_free(&fit);
        aw_rating_data_free(d);
    }
    double cov = (double)covered / total;
    printf("coverage of the 95 %% intervals: %.3f (%d of %d); separated %d pairs right, %d wrong\n", cov, covered,
           total, separated, wrong);
    CHECK_MSG(cov > 0.925 && cov < 0.975, "coverage %.3f", cov);
    CHECK_INT(total, reps * N);
    CHECK_MSG(wrong < 0.025 * tested && separated > 0.5 * tested, "%d wrong, %d right of %d", wrong, separated,
              tested);
}

/* Duplicate deals against plain games of the same count, games decided
 * as deterministic games are (most of their luck is the deal's): the
 * standard deviation of the estimated skill differences over many
 * simulated contests (the ranking's true standard error) is lower, and
 * the clustered standard error the fit reports follows it. */
#define PAIRS (N * (N - 1) / 2)
static double ranking_sd(int duplicate, double rho, int reps, double *reported, double *indep, long *games)
{
    aw_rng r;
    aw_rng_seed(&r, 5 + (uint64_t)duplicate);
    double sum[PAIRS] = {0}, sq[PAIRS] = {0}, rep = 0, ind = 0;
    int ok = 0;
    for (int k = 0; k < reps; k++) {
        aw_rating_data *d = contest_games(450, duplicate, 5000 + (uint64_t)k, rho, 0, &r, games);
        aw_rating fit;
        aw_error err;
        if (aw_rating_fit(d, NULL, &fit, &err) == 0) {
            int q = 0;
            for (int i = 0; i < N; i++)
                for (int j = i + 1; j < N; j++, q++) {
                    double e = fit.skill[i] - fit.skill[j];
                    sum[q] += e;
                    sq[q] += e * e;
                }
            rep += fit.se_diff * fit.se_diff;
            ind += fit.se_diff_indep * fit.se_diff_indep;
            ok++;
        }
        aw_rating_free(&fit);
        aw_rating_data_free(d);
    }
    CHECK_INT(ok, reps);
    double var = 0;
    for (int q = 0; q < PAIRS; q++)
        var += (sq[q] - sum[q] * sum[q] / ok) / (ok - 1);
    *reported = sqrt(rep / ok);
    *indep = sqrt(ind / ok);
    return sqrt(var / PAIRS);
}

static void test_duplicate_gain(void)
{
    int reps = 150;
    double rho = 0.8;
    static const int ks[] = {0, 2, 3, 5, 15};
    double sd[5], rep[5], ind[5];
    long games[5];
    printf("ranking SE (sd of skill differences over %d contests), %.0f %% of the luck the deal's:\n", reps,
           100 * rho);
    for (int i = 0; i < 5; i++) {
        sd[i] = ranking_sd(ks[i], rho, reps, &rep[i], &ind[i], &games[i]);
        char label[32] = "plain";
        if (ks[i])
            snprintf(label, sizeof label, "dup K=%d", ks[i]);
        printf("  %-9s %ld games: measured %.4f (%3.0f %% of plain), reported %.4f (as independent %.4f)\n", label,
               games[i], sd[i], 100 * sd[i] / sd[0], rep[i], ind[i]);
        /* The same number of games, within one deal's copies. */
        CHECK(labs(games[i] - games[0]) < ks[i] + 1);
        /* What the fit reports holds for how the games were drawn. */
        CHECK_MSG(fabs(rep[i] / sd[i] - 1) < 0.2, "K=%d reported %.4f, measured %.4f", ks[i], rep[i], sd[i]);
    }
    CHECK_MSG(sd[2] < 0.85 * sd[0], "duplicate K=3 %.4f, plain %.4f", sd[2], sd[0]);
    CHECK_MSG(sd[1] < sd[0] && sd[3] < sd[0], "K=2 %.4f, K=5 %.4f, plain %.4f", sd[1], sd[3], sd[0]);
    /* Taken as independent, duplicate games would be credited with less
     * precision than they have. */
    CHECK(ind[2] > 1.1 * rep[2]);
}

/* An entry that wins every game still gets a finite skill; no decided
 * game is an error; games of ignored entries are not taken. */
static void test_edges(void)
{
    aw_rating_data *d = aw_rating_data_new(3);
    int entry[6] = {0, 0, 1, 2, 1, 2};
    aw_role role[6] = {AW_ROLE_NONE, AW_WEREWOLF, AW_VILLAGER, AW_VILLAGER, AW_SEER, AW_POSSESSED};
    aw_rating fit;
    aw_error err;
    aw_rating_data_add(d, 5, entry, role, AW_TEAM_NONE, 1, 0);
    CHECK(aw_rating_fit(d, NULL, &fit, &err) < 0);
    aw_rating_free(&fit);
    int bad[6] = {0, 0, 1, 7, 1, 2};
    aw_rating_data_add(d, 5, bad, role, AW_TEAM_VILLAGER, 2, 1);
    CHECK_INT(aw_rating_data_games(d), 1);
    for (int k = 0; k < 40; k++) {
        /* Entry 0 always on the winning side. */
        int e2[6] = {0, k % 2 ? 0 : 1, 1, 2, k % 2 ? 1 : 0, 2};
        aw_rating_data_add(d, 5, e2, role, k % 2 ? AW_TEAM_WEREWOLF : AW_TEAM_VILLAGER, 10 + (uint64_t)k, 2 + k);
    }
    CHECK(aw_rating_fit(d, NULL, &fit, &err) == 0);
    CHECK(fit.converged);
    CHECK(isfinite(fit.skill[0]) && fit.skill[0] > 0.5 && fit.skill[0] < 10);
    CHECK_INT(fit.games_skipped, 1);
    CHECK_INT(fit.games_fitted, 40);
    aw_rating_free(&fit);
    aw_rating_data_free(d);
}

/* The same games added in another order (as a contest's workers finish
 * them) give the same figures, bit for bit. */
static void test_order(void)
{
    aw_schedule s;
    sched(&s, 600, 3, 21);
    aw_rng r;
    aw_rng_seed(&r, 22);
    aw_team *won = calloc((size_t)s.nunits, sizeof *won);
    for (int u = 0; u < s.nunits; u++)
        won[u] = play(&s.units[u], &s.units[u].games[0], 0, 0, 0, &r);
    aw_rating_data *a = aw_rating_data_new(N), *b = aw_rating_data_new(N);
    for (int u = 0; u < s.nunits; u++) {
        const aw_sched_unit *x = &s.units[u], *y = &s.units[s.nunits - 1 - u];
        aw_rating_data_add(a, x->players, x->entry, x->games[0].role, won[u], x->games[0].seed, x->first);
        aw_rating_data_add(b, y->players, y->entry, y->games[0].role, won[s.nunits - 1 - u], y->games[0].seed, y->first);
    }
    aw_rating fa, fb;
    aw_error err;
    CHECK(aw_rating_fit(a, NULL, &fa, &err) == 0);
    CHECK(aw_rating_fit(b, NULL, &fb, &err) == 0);
    CHECK(memcmp(fa.skill, fb.skill, N * sizeof *fa.skill) == 0);
    CHECK(memcmp(fa.cov, fb.cov, N * N * sizeof *fa.cov) == 0);
    CHECK(memcmp(fa.role_skill, fb.role_skill, N * AW_NROLES * sizeof *fa.role_skill) == 0);
    CHECK(fa.clustered && fa.clusters * 3 == fa.games_fitted + fa.games_skipped);
    aw_rating_free(&fa);
    aw_rating_free(&fb);
    aw_rating_data_free(a);
    aw_rating_data_free(b);
    free(won);
    aw_schedule_free(&s);
}

int main(void)
{
    test_order();
    test_recovers_skills();
    test_role_skill();
    test_coverage();
    test_duplicate_gain();
    test_edges();
    return test_done();
}
