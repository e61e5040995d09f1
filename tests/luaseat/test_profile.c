/* The profile of `play --profile` (profile.h): counts add up by function,
 * merging keeps the totals and the names, the first name given sticks, and
 * an agent that makes functions without end (load in a loop) cannot make the
 * host's table grow past its cap: the rest count together, none lost. Then
 * a seat's profile of a whole game: its agent's hot function is there, with
 * most of the samples. */
#include <stdio.h>
#include <string.h>

#include "cseat.h"
#include "game.h"
#include "luaseat.h"
#include "luaseat_talks.h"
#include "profile.h"
#include "talkhooks.h"
#include "test.h"

typedef struct found {
    const char *where;
    uint64_t n, rows, sum;
    char name[64];
} found;

static void visit(void *ud, const char *where, const char *name, uint64_t n)
{
    found *f = ud;
    f->rows++;
    f->sum += n;
    if (f->where && strcmp(where, f->where) == 0) {
        f->n = n;
        snprintf(f->name, sizeof f->name, "%s", name);
    }
}

static found look(const aw_profile *p, const char *where)
{
    found f = {where, 0, 0, 0, ""};
    aw_profile_each(p, visit, &f);
    return f;
}

static void test_counts(void)
{
    aw_profile *a = aw_profile_new(), *b = aw_profile_new();
    aw_profile_add(a, "x.lua:3", NULL, 100);
    aw_profile_add(a, "x.lua:3", "f", 50);
    aw_profile_add(a, "x.lua:3", "g", 1);
    aw_profile_add(a, "x.lua:9", "h", 7);
    found f = look(a, "x.lua:3");
    CHECK(f.n == 151 && strcmp(f.name, "f") == 0 && f.rows == 2 && f.sum == 158);
    CHECK(aw_profile_total(a) == 158);
    aw_profile_add(b, "x.lua:9", NULL, 3);
    aw_profile_add(b, "y.lua:1", "k", 5);
    aw_profile_merge(b, a);
    CHECK(aw_profile_total(b) == 166);
    f = look(b, "x.lua:9");
    CHECK(f.n == 10 && strcmp(f.name, "h") == 0 && f.rows == 3 && f.sum == 166);
    aw_profile_free(a);
    aw_profile_free(b);
}

static void test_cap(void)
{
    aw_profile *p = aw_profile_new();
    char where[32];
    for (int i = 0; i < 10000; i++) {
        snprintf(where, sizeof where, "[string \"f\"]:%d", i);
        aw_profile_add(p, where, "f", 2);
    }
    found f = look(p, "(functions past the first 4096)");
    CHECK_MSG(f.rows == 4097 && f.n == 2 * (10000 - 4096) && f.sum == 20000, "rows %llu, other %llu, sum %llu",
              (unsigned long long)f.rows, (unsigned long long)f.n, (unsigned long long)f.sum);
    /* the functions kept still count */
    aw_profile_add(p, "[string \"f\"]:7", NULL, 5);
    CHECK(look(p, "[string \"f\"]:7").n == 7);
    aw_profile *q = aw_profile_new();
    aw_profile_merge(q, p);
    CHECK(aw_profile_total(q) == 20005 && look(q, "(functions past the first 4096)").n == 2 * (10000 - 4096));
    aw_profile_free(p);
    aw_profile_free(q);
}

static void test_game(void)
{
    static const char agent[] = "local agent = {}\n"
                                "local function hot(n) local x = 0 for i = 1, n do x = x + i end return x end\n"
                                "function agent:update(info) self.info = info end\n"
                                "function agent:vote() hot(20000) return nil end\n"
                                "return agent\n";
    const char *path = "build-profile-agent.lua";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(agent, f);
    fclose(f);
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, &err) == 0);
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.profile = true;
    lo.budget_ms = 2000;
    aw_seat *seats[6];
    seats[1] = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(seats[1] != NULL, "%s", err.msg);
    remove(path);
    if (!seats[1])
        return;
    for (int a = 2; a <= 5; a++)
        seats[a] = aw_cseat_random((uint64_t)a);
    aw_game_opts go;
    memset(&go, 0, sizeof go);
    go.settings = &set;
    go.seed = 4;
    aw_talkhooks_game(&go);
    aw_game_result res;
    CHECK(aw_game_play(&go, seats, &res, &err) == 0);
    const aw_profile *p = aw_luaseat_profile(seats[1]);
    CHECK(p != NULL);
    if (p) {
        found h = look(p, "build-profile-agent.lua:2");
        CHECK_MSG(h.n * 10 >= aw_profile_total(p) * 9, "hot: %llu of %llu", (unsigned long long)h.n,
                  (unsigned long long)aw_profile_total(p));
        CHECK(strcmp(h.name, "hot") == 0);
    }
    for (int a = 1; a <= 5; a++)
        seats[a]->ops->free(seats[a]);
}

int main(void)
{
    test_counts();
    test_cap();
    test_game();
    return test_done();
}
