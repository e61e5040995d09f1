/* rating: role-adjusted skill with intervals (see rating.h). */
#include "rating.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BASE_PRIOR_SD 10.0
#define MAX_ITER 50
#define FEW_CLUSTERS 50 /* below: a variance is at least the model's */
#define MAX_NNZ (AW_MAX_PLAYERS + 1)

typedef struct rgame {
    uint64_t cluster;
    long index;
    uint16_t entry[AW_MAX_PLAYERS];
    int8_t role[AW_MAX_PLAYERS];
    uint8_t players;
    int8_t winner;
} rgame;

struct aw_rating_data {
    int n;
    rgame *g;
    long len, cap;
};

aw_rating_data *aw_rating_data_new(int nentries)
{
    aw_rating_data *d = aw_xcalloc(1, sizeof *d);
    d->n = nentries;
    return d;
}

void aw_rating_data_free(aw_rating_data *d)
{
    if (!d)
        return;
    free(d->g);
    free(d);
}

long aw_rating_data_games(const aw_rating_data *d)
{
    return d->len;
}

void aw_rating_data_add(aw_rating_data *d, int players, const int *entry, const aw_role *role, aw_team winner,
                        uint64_t cluster, long index)
{
    if (players < 1 || players > AW_MAX_PLAYERS || d->n > 65535)
        return;
    for (int a = 1; a <= players; a++)
        if (entry[a] < 0 || entry[a] >= d->n || role[a] < 0 || role[a] >= AW_NROLES)
            return;
    if (d->len == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 1024;
        d->g = aw_xrealloc(d->g, (size_t)d->cap * sizeof *d->g);
    }
    rgame *g = &d->g[d->len++];
    memset(g, 0, sizeof *g);
    g->cluster = cluster;
    g->index = index;
    g->players = (uint8_t)players;
    g->winner = (int8_t)winner;
    for (int a = 1; a <= players; a++) {
        g->entry[a - 1] = (uint16_t)entry[a];
        g->role[a - 1] = (int8_t)role[a];
    }
}

static bool fitted(const rgame *g)
{
    return g->winner == AW_TEAM_VILLAGER || g->winner == AW_TEAM_WEREWOLF;
}

static int side(int role)
{
    aw_team t = aw_role_team((aw_role)role);
    return t == AW_TEAM_VILLAGER ? 1 : t == AW_TEAM_WEREWOLF ? -1 : 0;
}

double aw_normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

static double sigmoid(double x)
{
    return x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
}

/* log(1 + exp(x)) without overflow. */
static double softplus(double x)
{
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/* The design, built once: each fitted game as a sparse row (parameter
 * indices and coefficients: skills of the seats' entries, +1 village, -1
 * werewolf team, summed per entry; the baseline of its size, 1), its
 * result and cluster, and its (entry, role) keys for the per-role fit. */
typedef struct row {
    uint8_t nnz, y;
    uint16_t idx[MAX_NNZ];
    int8_t x[MAX_NNZ];
} row;

typedef struct rkey {
    uint16_t p;   /* skill parameter */
    uint8_t role;
    int8_t coef;  /* summed sides of the entry's seats in that role */
} rkey;

typedef struct design {
    long n;
    row *row;
    uint64_t *cluster;
    uint32_t *koff; /* [n+1]: game i's keys are key[koff[i]..koff[i+1]), grouped by p */
    rkey *key;
} design;

/* (qsort_r is GNU; this keeps to C11.) */
static const rgame *sort_games;
static int cmp_index(const void *a, const void *b)
{
    long i = *(const long *)a, j = *(const long *)b;
    long x = sort_games[i].index, y = sort_games[j].index;
    return x != y ? (x < y ? -1 : 1) : (i < j ? -1 : i > j);
}

static void design_build(const aw_rating_data *data, const int *pidx, const int *bidx, design *ds)
{
    memset(ds, 0, sizeof *ds);
    long n = 0;
    bool sorted = true;
    for (long i = 0; i < data->len; i++) {
        n += fitted(&data->g[i]);
        sorted &= i == 0 || data->g[i - 1].index <= data->g[i].index;
    }
    /* The games in index order. */
    long *ord = aw_xcalloc((size_t)data->len + 1, sizeof *ord);
    for (long i = 0; i < data->len; i++)
        ord[i] = i;
    if (!sorted) {
        sort_games = data->g;
        qsort(ord, (size_t)data->len, sizeof *ord, cmp_index);
    }
    ds->row = aw_xcalloc((size_t)n + 1, sizeof *ds->row);
    ds->cluster = aw_xcalloc((size_t)n + 1, sizeof *ds->cluster);
    ds->koff = aw_xcalloc((size_t)n + 1, sizeof *ds->koff);
    ds->key = aw_xcalloc((size_t)n * AW_MAX_PLAYERS + 1, sizeof *ds->key);
    uint32_t nk = 0;
    for (long oi = 0; oi < data->len; oi++) {
        const rgame *g = &data->g[ord[oi]];
        if (!fitted(g))
            continue;
        row *r = &ds->row[ds->n];
        ds->cluster[ds->n] = g->cluster;
        ds->koff[ds->n] = nk;
        r->y = g->winner == AW_TEAM_VILLAGER;
        int sd[AW_MAX_PLAYERS];
        for (int a = 0; a < g->players; a++)
            sd[a] = side(g->role[a]);
        for (int a = 0; a < g->players; a++) {
            if (!sd[a])
                continue;
            int p = pidx[g->entry[a]], k = 0;
            while (k < r->nnz && r->idx[k] != p)
                k++;
            if (k == r->nnz) {
                r->idx[k] = (uint16_t)p;
                r->x[k] = 0;
                r->nnz++;
                /* This entry's first seat: its keys, one per role it holds. */
                uint32_t first = nk;
                for (int b = a; b < g->players; b++) {
                    if (!sd[b] || g->entry[b] != g->entry[a])
                        continue;
                    uint32_t q = first;
                    while (q < nk && ds->key[q].role != (uint8_t)g->role[b])
                        q++;
                    if (q == nk)
                        ds->key[nk++] = (rkey){(uint16_t)p, (uint8_t)g->role[b], 0};
                    ds->key[q].coef = (int8_t)(ds->key[q].coef + sd[b]);
                }
            }
            r->x[k] = (int8_t)(r->x[k] + sd[a]);
        }
        r->idx[r->nnz] = (uint16_t)bidx[g->players];
        r->x[r->nnz++] = 1;
        /* Indices in order: accumulate's upper triangle is then b >= a. */
        for (int a = 1; a < r->nnz; a++)
            for (int b = a; b > 0 && r->idx[b - 1] > r->idx[b]; b--) {
                uint16_t ti = r->idx[b];
                r->idx[b] = r->idx[b - 1];
                r->idx[b - 1] = ti;
                int8_t tx = r->x[b];
                r->x[b] = r->x[b - 1];
                r->x[b - 1] = tx;
            }
        ds->n++;
    }
    ds->koff[ds->n] = nk;
    free(ord);
}

static void design_free(design *ds)
{
    free(ds->row);
    free(ds->cluster);
    free(ds->koff);
    free(ds->key);
}

static double dot(const row *r, const double *theta)
{
    double e = 0;
    for (int k = 0; k < r->nnz; k++)
        e += r->x[k] * theta[r->idx[k]];
    return e;
}

/* In-place Cholesky factorisation of the d×d positive definite a (lower
 * triangle). Returns -1 when a is not positive definite. */
static int cholesky(double *a, int d)
{
    for (int j = 0; j < d; j++) {
        double s = a[j * d + j];
        for (int k = 0; k < j; k++)
            s -= a[j * d + k] * a[j * d + k];
        if (!(s > 0))
            return -1;
        double l = sqrt(s);
        a[j * d + j] = l;
        for (int i = j + 1; i < d; i++) {
            double t = a[i * d + j];
            const double *ri = a + (size_t)i * d, *rj = a + (size_t)j * d;
            for (int k = 0; k < j; k++)
                t -= ri[k] * rj[k];
            a[i * d + j] = t / l;
        }
    }
    return 0;
}

/* Solves L L^T x = b in place (b becomes x). */
static void chol_solve(const double *l, int d, double *b)
{
    for (int i = 0; i < d; i++) {
        double t = b[i];
        for (int k = 0; k < i; k++)
            t -= l[i * d + k] * b[k];
        b[i] = t / l[i * d + i];
    }
    for (int i = d - 1; i >= 0; i--) {
        double t = b[i];
        for (int k = i + 1; k < d; k++)
            t -= l[k * d + i] * b[k];
        b[i] = t / l[i * d + i];
    }
}

/* The inverse of the factorised matrix, into inv (d×d). */
static void chol_inverse(const double *l, int d, double *inv)
{
    double *col = aw_xcalloc((size_t)d, sizeof *col);
    for (int j = 0; j < d; j++) {
        memset(col, 0, (size_t)d * sizeof *col);
        col[j] = 1;
        chol_solve(l, d, col);
        for (int i = 0; i < d; i++)
            inv[i * d + j] = col[i];
    }
    free(col);
}

/* The penalised log-likelihood, its gradient and (negated) Hessian at
 * theta. m skills first, then the baselines. */
static double accumulate(const design *ds, int m, int d, const double *theta, double lam, double *g, double *h)
{
    memset(g, 0, (size_t)d * sizeof *g);
    memset(h, 0, (size_t)d * (size_t)d * sizeof *h);
    double ll = 0;
    for (long i = 0; i < ds->n; i++) {
        const row *r = &ds->row[i];
        double eta = dot(r, theta);
        double y = r->y;
        double mu = sigmoid(eta);
        double w = mu * (1 - mu);
        ll += y * eta - softplus(eta);
        /* The upper triangle only (mirrored below). */
        for (int a = 0; a < r->nnz; a++) {
            int ia = r->idx[a];
            g[ia] += r->x[a] * (y - mu);
            double wa = w * r->x[a];
            double *ha = h + (size_t)ia * d;
            for (int b = a; b < r->nnz; b++)
                ha[r->idx[b]] += wa * r->x[b];
        }
    }
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++)
            h[(size_t)j * d + i] = h[(size_t)i * d + j];
    for (int j = 0; j < d; j++) {
        double l = j < m ? lam : 1.0 / (BASE_PRIOR_SD * BASE_PRIOR_SD);
        ll -= 0.5 * l * theta[j] * theta[j];
        g[j] -= l * theta[j];
        h[j * d + j] += l;
    }
    return ll;
}

/* (qsort_r is GNU; this keeps to C11.) */
static const uint64_t *sort_clusters;
static int cmp_cluster(const void *a, const void *b)
{
    long i = *(const long *)a, j = *(const long *)b;
    if (sort_clusters[i] != sort_clusters[j])
        return sort_clusters[i] < sort_clusters[j] ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The "meat" of the sandwich: sum over clusters of u_c u_c^T, u_c the
 * clusters' summed scores. Returns the number of clusters. */
static long cluster_meat(const design *ds, int d, const double *theta, double *meat)
{
    long n = ds->n;
    long *ord = aw_xcalloc((size_t)n + 1, sizeof *ord);
    for (long i = 0; i < n; i++)
        ord[i] = i;
    sort_clusters = ds->cluster;
    qsort(ord, (size_t)n, sizeof *ord, cmp_cluster);
    double *u = aw_xcalloc((size_t)d, sizeof *u);
    int *touched = aw_xcalloc((size_t)d, sizeof *touched);
    bool *on = aw_xcalloc((size_t)d, sizeof *on);
    int nt = 0;
    long clusters = 0;
    memset(meat, 0, (size_t)d * (size_t)d * sizeof *meat);
    for (long k = 0; k < n; k++) {
        const row *r = &ds->row[ord[k]];
        double res = r->y - sigmoid(dot(r, theta));
        for (int a = 0; a < r->nnz; a++) {
            u[r->idx[a]] += r->x[a] * res;
            if (!on[r->idx[a]]) {
                on[r->idx[a]] = true;
                touched[nt++] = r->idx[a];
            }
        }
        if (k + 1 == n || ds->cluster[ord[k + 1]] != ds->cluster[ord[k]]) {
            for (int a = 0; a < nt; a++)
                for (int b = 0; b < nt; b++)
                    meat[(size_t)touched[a] * d + touched[b]] += u[touched[a]] * u[touched[b]];
            for (int a = 0; a < nt; a++) {
                u[touched[a]] = 0;
                on[touched[a]] = false;
            }
            nt = 0;
            clusters++;
        }
    }
    free(ord);
    free(u);
    free(touched);
    free(on);
    return clusters;
}

/* How many distinct clusters the games have (a hash set of their keys). */
static long distinct_clusters(const design *ds)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)ds->n)
        cap *= 2;
    uint64_t *key = aw_xcalloc(cap, sizeof *key);
    bool *used = aw_xcalloc(cap, sizeof *used);
    long count = 0;
    for (long i = 0; i < ds->n; i++) {
        uint64_t k = ds->cluster[i];
        size_t h = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
        while (used[h] && key[h] != k)
            h = (h + 1) & (cap - 1);
        if (!used[h]) {
            used[h] = true;
            key[h] = k;
            count++;
        }
    }
    free(key);
    free(used);
    return count;
}

/* c = a b for d×d matrices. */
static void matmul(const double *a, const double *b, double *c, int d)
{
    memset(c, 0, (size_t)d * (size_t)d * sizeof *c);
    for (int i = 0; i < d; i++)
        for (int k = 0; k < d; k++) {
            double aik = a[(size_t)i * d + k];
            if (aik == 0)
                continue;
            const double *bk = b + (size_t)k * d;
            double *ci = c + (size_t)i * d;
            for (int j = 0; j < d; j++)
                ci[j] += aik * bk[j];
        }
}

/* The covariance of the rated entries' centred skills from the parameters'
 * covariance v (d×d), into out (n×n, entries' numbers). */
static void centre_cov(const aw_rating *r, const int *pidx, const double *v, int d, double *out)
{
    int n = r->n, m = 0;
    double *rowmean = aw_xcalloc((size_t)n, sizeof *rowmean);
    double grand = 0;
    for (int i = 0; i < n; i++)
        m += r->rated[i];
    for (int i = 0; i < n; i++) {
        if (!r->rated[i])
            continue;
        for (int j = 0; j < n; j++)
            if (r->rated[j])
                rowmean[i] += v[(size_t)pidx[i] * d + pidx[j]];
        rowmean[i] /= m;
        grand += rowmean[i];
    }
    grand /= m;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            out[(size_t)i * n + j] = r->rated[i] && r->rated[j]
                                         ? v[(size_t)pidx[i] * d + pidx[j]] - rowmean[i] - rowmean[j] + grand
                                         : 0;
    free(rowmean);
}

static double contrast_var(const double *cov, int n, int i, int j)
{
    double v = cov[(size_t)i * n + i] + cov[(size_t)j * n + j] - 2 * cov[(size_t)i * n + j];
    return v > 0 ? v : 0;
}

/* The variance of skill_i - skill_j as reported (see rating.h). */
static double diff_var(const aw_rating *r, int i, int j)
{
    double v = contrast_var(r->cov, r->n, i, j);
    return r->floored ? fmax(v, contrast_var(r->cov_indep, r->n, i, j)) : v;
}

static double rms_diff(const aw_rating *r, bool indep)
{
    double sum = 0;
    long pairs = 0;
    int n = r->n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (r->rated[i] && r->rated[j]) {
                sum += indep ? contrast_var(r->cov_indep, n, i, j) : diff_var(r, i, j);
                pairs++;
            }
    return pairs ? sqrt(sum / (double)pairs) : 0;
}

/* The per-role deviations, the first fit held: for every entry on its
 * own (every other seat at the first fit's skills), Newton steps on its
 * deviations d_{p,r} (p its skill parameter) with prior N(0, tau^2). Each
 * entry's block is AW_NROLES square; var gets the block's inverse's
 * diagonal (the deviation's conditional variance), cnt the games. */
static void fit_roles(const design *ds, int m, const double *theta, double tau, double *dev, double *var, long *cnt)
{
    enum { R = AW_NROLES };
    size_t nd = (size_t)m * R;
    double *grad = aw_xcalloc(nd, sizeof *grad);
    double *hes = aw_xcalloc(nd * R, sizeof *hes);
    double *eta0 = aw_xcalloc((size_t)ds->n + 1, sizeof *eta0);
    for (long i = 0; i < ds->n; i++)
        eta0[i] = dot(&ds->row[i], theta);
    memset(dev, 0, nd * sizeof *dev);
    memset(cnt, 0, nd * sizeof *cnt);
    for (uint32_t q = 0; q < ds->koff[ds->n]; q++)
        cnt[(size_t)ds->key[q].p * R + ds->key[q].role]++;
    for (int it = 0; it < 20; it++) {
        for (size_t k = 0; k < nd; k++)
            grad[k] = -dev[k] / (tau * tau);
        memset(hes, 0, nd * R * sizeof *hes);
        for (size_t k = 0; k < nd; k++)
            hes[k * R + k % R] = 1 / (tau * tau);
        for (long i = 0; i < ds->n; i++) {
            double y = ds->row[i].y;
            /* Each entry of the game on its own: its keys are together. */
            for (uint32_t q = ds->koff[i], end = ds->koff[i + 1]; q < end;) {
                uint32_t e = q;
                size_t p = ds->key[q].p;
                double eta = eta0[i];
                while (e < end && ds->key[e].p == p) {
                    eta += ds->key[e].coef * dev[p * R + ds->key[e].role];
                    e++;
                }
                double mu = sigmoid(eta), res = y - mu, w = mu * (1 - mu);
                for (uint32_t a = q; a < e; a++) {
                    size_t ka = p * R + ds->key[a].role;
                    grad[ka] += ds->key[a].coef * res;
                    for (uint32_t b = q; b < e; b++)
                        hes[ka * R + ds->key[b].role] += w * ds->key[a].coef * ds->key[b].coef;
                }
                q = e;
            }
        }
        double big = 0;
        for (int p = 0; p < m; p++) {
            double *h = hes + (size_t)p * R * R, *gp = grad + (size_t)p * R;
            if (cholesky(h, R) < 0)
                continue;
            chol_solve(h, R, gp);
            for (int k = 0; k < R; k++) {
                dev[(size_t)p * R + k] += gp[k];
                big = fmax(big, fabs(gp[k]));
            }
            double inv[R * R];
            chol_inverse(h, R, inv);
            for (int k = 0; k < R; k++)
                var[(size_t)p * R + k] = inv[k * R + k];
        }
        if (big < 1e-3) /* Newton's: what is left is about its square */
            break;
    }
    free(grad);
    free(hes);
    free(eta0);
}

int aw_rating_fit(const aw_rating_data *data, const aw_rating_opts *o, aw_rating *r, aw_error *err)
{
    memset(r, 0, sizeof *r);
    int n = data->n;
    double psd = o && o->prior_sd > 0 ? o->prior_sd : 2.0;
    double tau = o && o->role_prior_sd > 0 ? o->role_prior_sd : 0.5;
    const bool *include = o ? o->include : NULL;
    /* Parameters: a skill for every entry in a fitted game, a baseline for
     * every player count. */
    int *pidx = aw_xcalloc((size_t)n + 1, sizeof *pidx);
    int *ent_of = aw_xcalloc((size_t)n + 1, sizeof *ent_of);
    long *games = aw_xcalloc((size_t)n + 1, sizeof *games);
    int bidx[AW_MAX_PLAYERS + 1];
    int nv[AW_MAX_PLAYERS + 1] = {0}, nw[AW_MAX_PLAYERS + 1] = {0};
    bool size_seen[AW_MAX_PLAYERS + 1] = {0};
    long fitted_games = 0, skipped = 0;
    for (long i = 0; i < data->len; i++) {
        const rgame *g = &data->g[i];
        if (!fitted(g)) {
            skipped++;
            continue;
        }
        fitted_games++;
        if (!size_seen[g->players]) {
            size_seen[g->players] = true;
            for (int a = 0; a < g->players; a++) {
                nv[g->players] += side(g->role[a]) > 0;
                nw[g->players] += side(g->role[a]) < 0;
            }
        }
        for (int a = 0; a < g->players; a++) {
            bool first = true;
            for (int b = 0; b < a; b++)
                first &= g->entry[b] != g->entry[a];
            games[g->entry[a]] += first;
        }
    }
    int m = 0;
    for (int e = 0; e < n; e++)
        if (games[e]) {
            pidx[e] = m;
            ent_of[m++] = e;
        } else {
            pidx[e] = -1;
        }
    int d = m;
    for (int p = 0; p <= AW_MAX_PLAYERS; p++)
        bidx[p] = size_seen[p] ? d++ : -1;
    int nrated = 0;
    for (int e = 0; e < n; e++)
        nrated += games[e] && (!include || include[e]);
    if (!fitted_games || !nrated) {
        free(pidx);
        free(ent_of);
        free(games);
        return aw_fail(err, AW_EINVAL, "no game decided between the village and the werewolves to rate");
    }
    double lam = 1.0 / (psd * psd);
    design ds;
    design_build(data, pidx, bidx, &ds);
    double *theta = aw_xcalloc((size_t)d, sizeof *theta);
    double *step = aw_xcalloc((size_t)d, sizeof *step);
    double *g = aw_xcalloc((size_t)d, sizeof *g);
    double *h = aw_xcalloc((size_t)d * (size_t)d, sizeof *h);
    double ll = accumulate(&ds, m, d, theta, lam, g, h);
    int it = 0;
    bool converged = false;
    for (; it < MAX_ITER; it++) {
        if (cholesky(h, d) < 0)
            break;
        memcpy(step, g, (size_t)d * sizeof *step);
        chol_solve(h, d, step);
        double big = 0;
        for (int j = 0; j < d; j++)
            big = fmax(big, fabs(step[j]));
        /* Newton with step halving: the penalised likelihood is concave. */
        double t = 1.0, nll = ll;
        for (int half = 0; half < 30; half++, t *= 0.5) {
            for (int j = 0; j < d; j++)
                theta[j] += t * step[j];
            nll = accumulate(&ds, m, d, theta, lam, g, h);
            if (nll >= ll - 1e-9 * (1 + fabs(ll)))
                break;
            for (int j = 0; j < d; j++)
                theta[j] -= t * step[j];
        }
        ll = nll;
        if (big * t < 1e-6) { /* the error is then about its square */
            converged = true;
            it++;
            break;
        }
    }
    /* h holds the Hessian at theta (the last accumulate). */
    double *hinv = aw_xcalloc((size_t)d * (size_t)d, sizeof *hinv);
    double *meat = aw_xcalloc((size_t)d * (size_t)d, sizeof *meat);
    double *tmp = aw_xcalloc((size_t)d * (size_t)d, sizeof *tmp);
    double *v = aw_xcalloc((size_t)d * (size_t)d, sizeof *v);
    if (!converged) /* (else h is the Hessian at theta already) */
        accumulate(&ds, m, d, theta, lam, g, h);
    if (cholesky(h, d) < 0) {
        free(theta), free(step), free(g), free(h), free(hinv), free(meat), free(tmp), free(v);
        free(pidx), free(ent_of), free(games);
        design_free(&ds);
        return aw_fail(err, AW_EINVAL, "the rating's fit failed (its Hessian is singular)");
    }
    chol_inverse(h, d, hinv);
    /* The sandwich only when some games share a cluster. */
    long clusters = distinct_clusters(&ds);
    if (clusters < ds.n) {
        clusters = cluster_meat(&ds, d, theta, meat);
        matmul(hinv, meat, tmp, d);
        matmul(tmp, hinv, v, d);
        double corr = clusters > 1 ? (double)clusters / (double)(clusters - 1) : 1.0;
        for (size_t k = 0; k < (size_t)d * (size_t)d; k++)
            v[k] *= corr;
    }

    r->n = n;
    r->rated = aw_xcalloc((size_t)n, sizeof *r->rated);
    r->skill = aw_xcalloc((size_t)n, sizeof *r->skill);
    r->se = aw_xcalloc((size_t)n, sizeof *r->se);
    r->cov = aw_xcalloc((size_t)n * (size_t)n, sizeof *r->cov);
    r->cov_indep = aw_xcalloc((size_t)n * (size_t)n, sizeof *r->cov_indep);
    r->role_skill = aw_xcalloc((size_t)n * AW_NROLES, sizeof *r->role_skill);
    r->role_se = aw_xcalloc((size_t)n * AW_NROLES, sizeof *r->role_se);
    r->role_games = aw_xcalloc((size_t)n * AW_NROLES, sizeof *r->role_games);
    r->games = games;
    r->games_fitted = fitted_games;
    r->games_skipped = skipped;
    r->clusters = clusters;
    r->iterations = it;
    r->converged = converged;
    double mean = 0;
    for (int e = 0; e < n; e++) {
        r->rated[e] = games[e] && (!include || include[e]);
        if (r->rated[e])
            mean += theta[pidx[e]];
    }
    mean /= nrated;
    for (int e = 0; e < n; e++)
        if (r->rated[e])
            r->skill[e] = theta[pidx[e]] - mean;
    /* Independent games (no cluster of two): the model's covariance; else
     * the sandwich, floored by the model's when clusters are few (the
     * sandwich then understates). */
    r->clustered = clusters < fitted_games;
    r->floored = r->clustered && clusters < FEW_CLUSTERS;
    centre_cov(r, pidx, r->clustered ? v : hinv, d, r->cov);
    centre_cov(r, pidx, hinv, d, r->cov_indep);
    for (int e = 0; e < n; e++) {
        double ve = fmax(0, r->cov[(size_t)e * n + e]);
        if (r->floored)
            ve = fmax(ve, r->cov_indep[(size_t)e * n + e]);
        r->se[e] = r->rated[e] ? sqrt(ve) : 0;
    }
    r->se_diff = rms_diff(r, false);
    r->se_diff_indep = rms_diff(r, true);
    for (int p = 0; p <= AW_MAX_PLAYERS; p++)
        r->village_p[p] = size_seen[p] ? sigmoid(theta[bidx[p]] + (nv[p] - nw[p]) * mean) : -1;

    double *dev = aw_xcalloc((size_t)m * AW_NROLES + 1, sizeof *dev);
    double *hd = aw_xcalloc((size_t)m * AW_NROLES + 1, sizeof *hd);
    long *cnt = aw_xcalloc((size_t)m * AW_NROLES + 1, sizeof *cnt);
    fit_roles(&ds, m, theta, tau, dev, hd, cnt);
    design_free(&ds);
    for (int e = 0; e < n; e++)
        for (int k = 0; k < AW_NROLES && r->rated[e]; k++) {
            size_t q = (size_t)pidx[e] * AW_NROLES + (size_t)k;
            r->role_games[e * AW_NROLES + k] = cnt[q];
            if (cnt[q]) {
                r->role_skill[e * AW_NROLES + k] = r->skill[e] + dev[q];
                r->role_se[e * AW_NROLES + k] = sqrt(r->se[e] * r->se[e] + hd[q]);
            }
        }
    free(dev), free(hd), free(cnt);
    free(theta), free(step), free(g), free(h), free(hinv), free(meat), free(tmp), free(v);
    free(pidx), free(ent_of);
    return 0;
}

void aw_rating_free(aw_rating *r)
{
    free(r->rated);
    free(r->skill);
    free(r->se);
    free(r->cov);
    free(r->cov_indep);
    free(r->role_skill);
    free(r->role_se);
    free(r->role_games);
    free(r->games);
    memset(r, 0, sizeof *r);
}

double aw_rating_outranks(const aw_rating *r, int i, int j)
{
    if (!r->rated || !r->rated[i] || !r->rated[j] || i == j)
        return 0.5;
    double v = diff_var(r, i, j);
    double diff = r->skill[i] - r->skill[j];
    if (!(v > 1e-300))
        return diff > 0 ? 1.0 : diff < 0 ? 0.0 : 0.5;
    return aw_normal_cdf(diff / sqrt(v));
}

static const aw_rating *order_r;
static int order_cmp(const void *a, const void *b)
{
    int i = *(const int *)a, j = *(const int *)b;
    double x = order_r->skill[i], y = order_r->skill[j];
    if (x != y)
        return x > y ? -1 : 1;
    return i - j;
}

int aw_rating_order(const aw_rating *r, int *order)
{
    int k = 0;
    for (int i = 0; i < r->n; i++)
        if (r->rated && r->rated[i])
            order[k++] = i;
    order_r = r;
    qsort(order, (size_t)k, sizeof *order, order_cmp);
    return k;
}

int aw_rating_unresolved(const aw_rating *r, double level, bool *mark)
{
    int *order = aw_xcalloc((size_t)r->n + 1, sizeof *order);
    int k = aw_rating_order(r, order), u = 0;
    for (int i = 0; i + 1 < k; i++)
        if (aw_rating_outranks(r, order[i], order[i + 1]) < level) {
            u++;
            if (mark)
                mark[order[i]] = mark[order[i + 1]] = true;
        }
    free(order);
    return u;
}
