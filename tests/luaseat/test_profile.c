/* The profile of `play --profile` (profile.h): counts add up by function,
 * merging keeps the totals and the names, the first name given sticks, and
 * an agent that makes functions without end (load in a loop) cannot make the
 * host's table grow past its cap: the rest count together, none lost. Then
 * a seat's profile of a whole game: its agent's hot function is there, with
 * most of the samples. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaseat.h"
#include "luaseat_talks.h"
#include "profile.h"
#include "test.h"
#include "lua_game.h"

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
    char dir[] = "/tmp/aiwolf-profile-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[64], where[80];
    snprintf(path, sizeof path, "%s/hot.lua", dir);
    snprintf(where, sizeof where, "%s:2", path);
    lua_game_write(path, "local agent = {}\n"
                         "local function hot(n) local x = 0 for i = 1, n do x = x + i end return x end\n"
                         "function agent:update(info) self.info = info end\n"
                         "function agent:vote() hot(20000) return nil end\n"
                         "return agent\n");
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    aw_luaseat_talks(&lo);
    lo.profile = true;
    lo.limits.budget_ms = 2000;
    aw_error err;
    aw_seat *seat = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(seat != NULL, "%s", err.msg);
    remove(path);
    rmdir(dir);
    if (!seat)
        return;
    aw_game_result res;
    free(lua_game_play(seat, 4, &res));
    const aw_profile *p = aw_luaseat_profile(seat);
    CHECK(p != NULL);
    if (p) {
        found h = look(p, where);
        CHECK_MSG(h.n * 10 >= aw_profile_total(p) * 9, "hot: %llu of %llu", (unsigned long long)h.n,
                  (unsigned long long)aw_profile_total(p));
        CHECK(strcmp(h.name, "hot") == 0);
    }
    seat->ops->free(seat);
}

int main(void)
{
    test_counts();
    test_cap();
    test_game();
    return test_done();
}
