/* cmd_play_profile: `aiwolf play --profile`'s report (see cli.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "profile.h"
#include "util.h"

typedef struct row {
    const char *where, *name;
    uint64_t n;
} row;

typedef struct rows {
    row *r;
    size_t n, cap;
} rows;

static void take(void *ud, const char *where, const char *name, uint64_t n)
{
    rows *rs = ud;
    if (rs->n == rs->cap) {
        rs->cap = rs->cap ? rs->cap * 2 : 64;
        rs->r = aw_xrealloc(rs->r, rs->cap * sizeof *rs->r);
    }
    rs->r[rs->n++] = (row){where, name, n};
}

/* The most first; equal counts by place, so the report is the same every
 * time for the same samples. */
static int by_count(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->where, y->where);
}

/* The rows of one table by count, each with its share of total: at most
 * 30, none under 0.5 %; the rest on one line ("other WHAT"). */
static void print_rows(FILE *out, rows *rs, uint64_t total, long games, const char *what, bool callers)
{
    qsort(rs->r, rs->n, sizeof *rs->r, by_count);
    uint64_t rest = 0;
    size_t shown = 0, left = 0;
    for (size_t i = 0; i < rs->n; i++) {
        double share = 100.0 * (double)rs->r[i].n / (double)total;
        if (shown == 30 || share < 0.5) {
            rest += rs->r[i].n;
            left++;
            continue;
        }
        shown++;
        if (callers)
            aw_cli_line(out, "  %5.1f%%  %12.0f  %s -> %s", share, (double)rs->r[i].n / (double)games, rs->r[i].where,
                        rs->r[i].name);
        else if (rs->r[i].name[0])
            aw_cli_line(out, "  %5.1f%%  %12.0f  %s (%s)", share, (double)rs->r[i].n / (double)games, rs->r[i].name,
                        rs->r[i].where);
        else
            aw_cli_line(out, "  %5.1f%%  %12.0f  %s", share, (double)rs->r[i].n / (double)games, rs->r[i].where);
    }
    if (left)
        fprintf(out, "  %5.1f%%  %12.0f  (%zu other %s%s)\n", 100.0 * (double)rest / (double)total,
                (double)rest / (double)games, left, what, left == 1 ? "" : "s");
}

void aw_cli_print_profile(FILE *out, const char *entry, const aw_profile *p, int seats, long games)
{
    uint64_t total = aw_profile_total(p);
    if (games < 1)
        games = 1;
    fputc('\n', out);
    aw_cli_line(out, "profile of %s (%d seat%s, %ld game%s): %.0f VM instructions of Lua a game (sampled)",
                entry, seats, seats == 1 ? "" : "s", games, games == 1 ? "" : "s", (double)total / (double)games);
    if (!total) {
        fprintf(out, "  (no samples: its calls ran too few VM instructions in all)\n");
        return;
    }
    rows rs = {NULL, 0, 0};
    aw_profile_each(p, take, &rs);
    fprintf(out, "  %6s  %12s  %s\n", "share", "a game", "function (where it is defined)");
    print_rows(out, &rs, total, games, "function", false);
    /* the library's part (lua/aiwolf/...) again, by the agent's own line
     * that called into it: what the author can change */
    uint64_t lib = aw_profile_callers_total(p);
    if (lib) {
        rs.n = 0;
        aw_profile_each_caller(p, take, &rs);
        fprintf(out, "  the library's %.1f%% (aiwolf.agent, aiwolf.protocol) by the line of %s that called it:\n",
                100.0 * (double)lib / (double)total, entry);
        fprintf(out, "  %6s  %12s  %s\n", "share", "a game", "line -> the library function it called");
        print_rows(out, &rs, total, games, "line", true);
    }
    free(rs.r);
}
