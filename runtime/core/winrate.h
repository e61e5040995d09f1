/* winrate: an entry's win rate over games in which it may hold several
 * seats, and its 95 % interval, with the game (not the seat) as the unit
 * that was sampled.
 *
 * The seats an entry holds in one game are not independent results: two of
 * them on the same team win or lose together, two on opposite teams cannot
 * both win. So the interval is built from the games: game g gives the
 * entry w_g wins over m_g seats, the win rate is the ratio estimator
 * R = sum(w) / sum(m) (points over seats, as before), and its variance is
 * the cluster-robust (linearised) one,
 *     V = n / (n - 1) * sum((w_g - R m_g)^2) / sum(m)^2      (n games).
 * The interval is Wilson's score interval at the effective number of seats
 * n_eff = R (1 - R) / V (the seats divided by the design effect), with
 * Student's t quantile for n - 1 degrees of freedom instead of the normal
 * one: few games give few independent results. Seats on one team make the
 * design effect above 1 (a narrower interval would be too narrow), seats on
 * opposite teams below 1 (the per-seat interval would be too wide). When
 * the games show no spread (R is 0 or 1, or a single game) n_eff is the
 * number of games. With one seat per game this is Wilson's interval on the
 * games (n_eff = n - 1, from the n / (n - 1) above), with the t quantile.
 * tests/contest/test_winrate.c checks the coverage by simulation.
 *
 * Pure arithmetic; no allocation. */
#ifndef AW_WINRATE_H
#define AW_WINRATE_H

typedef struct aw_winrate {
    long games;         /* games with at least one seat */
    long seats, wins;
    double ww, mm, wm;  /* sums over games of w^2, m^2, w*m */
} aw_winrate;

/* Adds one game: wins of seats (seats >= 1). */
void aw_winrate_add(aw_winrate *r, int wins, int seats);
/* Adds the games of b to a. */
void aw_winrate_merge(aw_winrate *a, const aw_winrate *b);

/* The rate (wins / seats; 0 without seats) and its 95 % interval (0..1
 * without games). */
double aw_winrate_rate(const aw_winrate *r);
void aw_winrate_interval(const aw_winrate *r, double *lo, double *hi);
/* The effective number of independent seats the interval uses. */
double aw_winrate_neff(const aw_winrate *r);

/* The two-sided 95 % quantile of Student's t with df degrees of freedom
 * (df < 1: the normal one's, 1.96). */
double aw_t95(double df);
/* Wilson's score interval of rate p on n (possibly fractional) independent
 * results at quantile z. */
void aw_wilson_z(double p, double n, double z, double *lo, double *hi);

/* The mean of n independent results in [min, max] (given by their sum and
 * sum of squares) and its 95 % interval: Student's t at n-1 degrees of
 * freedom, cut to [min, max]. Returns AW_MEAN_INTERVAL when it gives one,
 * else why none can be given: AW_MEAN_FEW (fewer than two results) or
 * AW_MEAN_SAME (results that all agree: a spread of 0 in a sample says
 * nothing of the spread to come, and an interval of width 0 would read as
 * certainty); *lo and *hi are then the mean. */
enum { AW_MEAN_INTERVAL = 0, AW_MEAN_FEW = 1, AW_MEAN_SAME = 2 };
int aw_mean_interval(long n, double sum, double sumsq, double min, double max, double *mean, double *lo,
                             double *hi);

#endif
