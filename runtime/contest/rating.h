/* rating: a skill for every entry of a contest, apart from the luck of the
 * deal, fitted on the games played (games.tsv).
 *
 * The model (a Bradley–Terry team model, logistic): a game between the
 * village team and the werewolf team is won by the village team with
 * probability
 *     P = 1 / (1 + exp(-(b_p + sum over village seats of s_e - sum over
 *                         werewolf-team seats of s_e)))
 * where s_e is the skill of the entry in the seat (an entry holding two
 * seats counts twice), and b_p the baseline of a p-player game (the role
 * table's advantage for the village; roles are dealt from the table, so a
 * role baseline is the size baseline). Seats of the OTHERS team (fox) count
 * for neither side, and games won by OTHERS or by nobody are not fitted.
 * Skills are in log-odds per seat: +0.1 means the team's odds of winning
 * are e^0.1 = 1.105 times those with an average entry in that seat.
 *
 * Fitted by Newton's method on the log-likelihood with a weak normal prior
 * N(0, prior_sd^2) on every skill (keeps the fit finite when an entry wins
 * or loses everything; pins the common level, which no game can tell) and
 * N(0, 10^2) on the baselines. Reported skills are centred on the included
 * entries' mean. When every game is a deal of its own (independent games)
 * their covariance is the model's, H^-1 (H the negated Hessian of the
 * penalised log-likelihood). When games share luck (a duplicate deal's
 * copies, a regulation set) it is the sandwich H^-1 (sum_c u_c u_c^T) H^-1
 * * C/(C-1), scores u_c summed over each cluster c of games, which holds
 * however the games of a cluster are correlated; with fewer than 50
 * clusters the sandwich understates, and every variance is then at least
 * the model's. The model's H^-1 is kept beside it (cov_indep): what the
 * same games would be credited with as independent deals, so their ratio
 * is what duplicate deals' cancelling of luck gains.
 *
 * Per-role skill: a second fit, with the skills and baselines held, of a
 * deviation d_{e,r} per entry and role with prior N(0, role_prior_sd^2):
 * the role skill is s_e + d_{e,r}, shrunk to the entry's skill when it has
 * few games in that role. Its interval is conditional on the first fit's
 * other estimates (only the entry's own skill's variance is added).
 *
 * Entries outside `include` are fitted (their seats are in the games) but
 * neither rated nor counted in the centring.
 *
 * Pure computation on its own data; uses core (settings' roles, util).
 * Ownership: aw_rating_data_free and aw_rating_free release what the
 * matching _new / _fit took. */
#ifndef AW_RATING_H
#define AW_RATING_H

#include <stdbool.h>
#include <stdint.h>

#include "settings.h"
#include "util.h"

typedef struct aw_rating_data aw_rating_data;

aw_rating_data *aw_rating_data_new(int nentries);
void aw_rating_data_free(aw_rating_data *d);
/* One game: entry[1..players] and role[1..players] per seat, the winning
 * team (AW_TEAM_NONE: none), the cluster of games it shares luck with (its
 * deal or set; a distinct value for an independent game), and its index in
 * the contest: the fit takes the games in that order, so the same games
 * give the same figures in whatever order they were added. Entry numbers
 * outside 0..nentries-1 make the game ignored. */
void aw_rating_data_add(aw_rating_data *d, int players, const int *entry, const aw_role *role, aw_team winner,
                        uint64_t cluster, long index);
long aw_rating_data_games(const aw_rating_data *d);

typedef struct aw_rating_opts {
    const bool *include;  /* [nentries], or NULL: all */
    double prior_sd;      /* of a skill; 0: 2.0 */
    double role_prior_sd; /* of a role deviation; 0: 0.5 */
} aw_rating_opts;

typedef struct aw_rating {
    int n;                 /* entries */
    bool *rated;           /* [n]: included and in at least one fitted game */
    double *skill;         /* [n]: centred on the rated entries' mean; 0 when not rated */
    double *se;            /* [n]: its standard error */
    double *cov;           /* [n][n]: covariance of the centred skills (see above) */
    double *cov_indep;     /* [n][n]: the same with games taken as independent */
    double *role_skill;    /* [n][AW_NROLES]: s_e + d_{e,r} */
    double *role_se;       /* [n][AW_NROLES] */
    long *role_games;      /* [n][AW_NROLES]: fitted games in that role */
    long *games;           /* [n]: fitted games the entry played */
    double village_p[AW_MAX_PLAYERS + 1]; /* the village team's win probability
                                             between average entries; -1: no games */
    long games_fitted;     /* decided between village and werewolves */
    long games_skipped;    /* won by OTHERS or by nobody */
    long clusters;
    bool clustered;        /* some cluster has two games or more: cov is the sandwich */
    bool floored;          /* clustered, with few clusters: variances at least cov_indep's */
    int iterations;
    bool converged;
    double se_diff;        /* the ranking's standard error: root mean square of
                              SE(s_i - s_j) over pairs of rated entries (clustered) */
    double se_diff_indep;  /* the same with games taken as independent */
} aw_rating;

/* Fits r from d. Returns 0, or -1 with err filled (nothing to fit). r is
 * then zeroed; aw_rating_free is safe either way. */
int aw_rating_fit(const aw_rating_data *d, const aw_rating_opts *o, aw_rating *r, aw_error *err);
void aw_rating_free(aw_rating *r);

/* P(skill_i > skill_j) from the normal approximation of the difference
 * (clustered covariance); 0.5 when either is not rated. */
double aw_rating_outranks(const aw_rating *r, int i, int j);
/* The rated entries by skill, best first, into order (returns how many). */
int aw_rating_order(const aw_rating *r, int *order);
/* How many pairs adjacent in the skill order are not separated at `level`
 * (P(higher outranks lower) < level); the entries of those pairs are set
 * in mark[] (when not NULL). */
int aw_rating_unresolved(const aw_rating *r, double level, bool *mark);

/* The normal distribution function. */
double aw_normal_cdf(double z);

#endif
