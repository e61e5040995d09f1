/* winrate: the per-game ratio estimator and its interval (see winrate.h). */
#include "winrate.h"

#include <math.h>

#define Z95 1.959963984540054

void aw_winrate_add(aw_winrate *r, int wins, int seats)
{
    if (seats < 1)
        return;
    double w = wins, m = seats;
    r->games++;
    r->seats += seats;
    r->wins += wins;
    r->ww += w * w;
    r->mm += m * m;
    r->wm += w * m;
}

void aw_winrate_merge(aw_winrate *a, const aw_winrate *b)
{
    a->games += b->games;
    a->seats += b->seats;
    a->wins += b->wins;
    a->ww += b->ww;
    a->mm += b->mm;
    a->wm += b->wm;
}

double aw_winrate_rate(const aw_winrate *r)
{
    return r->seats ? (double)r->wins / (double)r->seats : 0;
}

double aw_t95(double df)
{
    /* Exact to three decimals for few degrees of freedom; beyond, the
     * Cornish-Fisher expansion around the normal quantile (error < 1e-4
     * from 10 on). */
    static const double small[] = {0, 12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281};
    if (df < 1)
        return Z95;
    if (df <= 10) {
        int k = (int)df;
        double f = df - k;
        return k == 10 ? small[10] : small[k] + f * (small[k + 1] - small[k]);
    }
    double z = Z95, z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
    return z + (z3 + z) / (4 * df) + (5 * z5 + 16 * z3 + 3 * z) / (96 * df * df) +
           (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df * df * df);
}

void aw_wilson_z(double p, double n, double z, double *lo, double *hi)
{
    if (n <= 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double den = 1 + z * z / n;
    double centre = (p + z * z / (2 * n)) / den;
    double half = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den;
    *lo = centre - half < 0 ? 0 : centre - half;
    *hi = centre + half > 1 ? 1 : centre + half;
}

double aw_winrate_neff(const aw_winrate *r)
{
    if (r->games < 1)
        return 0;
    double n = (double)r->games, m = (double)r->seats, R = aw_winrate_rate(r);
    if (r->games < 2 || r->wins == 0 || r->wins == r->seats)
        return n; /* no spread to measure: one result per game */
    /* sum((w - R m)^2), from the sums */
    double ss = r->ww - 2 * R * r->wm + R * R * r->mm;
    if (ss < 0)
        ss = 0;
    double v = n / (n - 1) * ss / (m * m);
    double neff = v > 0 ? R * (1 - R) / v : m;
    return neff;
}

void aw_winrate_interval(const aw_winrate *r, double *lo, double *hi)
{
    double neff = aw_winrate_neff(r);
    aw_wilson_z(aw_winrate_rate(r), neff, aw_t95((double)r->games - 1), lo, hi);
}

int aw_mean_interval(long n, double sum, double sumsq, double min, double max, double *mean, double *lo,
                     double *hi)
{
    double k = (double)n;
    *mean = n > 0 ? sum / k : 0;
    *lo = *hi = *mean;
    if (n < 2)
        return AW_MEAN_FEW;
    double var = (sumsq - k * *mean * *mean) / (k - 1);
    /* rounding leaves a few ulps where the results agree */
    if (var <= 1e-12 * (sumsq / k))
        return AW_MEAN_SAME;
    double half = aw_t95(k - 1) * sqrt(var / k);
    *lo = *mean - half < min ? min : *mean - half;
    *hi = *mean + half > max ? max : *mean + half;
    return AW_MEAN_INTERVAL;
}
