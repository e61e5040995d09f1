/* A request the agent has nothing for (no info yet, no update, no method)
 * does not enter the sandbox (ls_runs_nothing); everything an agent can
 * see of a call stays as it was: an agent whose methods come through a
 * metatable is asked for update and each method at every request, and
 * methods an agent adds to itself mid-game are called from the next
 * request on (what the host found of the agent's table is forgotten
 * whenever agent code runs); without getName an agent keeps its file's
 * name. The driver builds no view for a request the seat says it will
 * not read (reads_view): an agent without update gets none, one that
 * gains update mid-game gets one from then on. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaseat.h"
#include "test.h"
#include "lua_game.h"

/* The faults of seat 1, one message a line. */
static void keep_fault(void *ud, int agent, aw_req_kind kind, uint64_t ns, const aw_seat_fault *f)
{
    (void)kind;
    (void)ns;
    if (agent == 1 && f)
        fprintf(ud, "%s\n", f->msg);
}

/* A seat around the Lua seat that counts the requests it is given a view
 * for and those it is not (info NULL), and passes reads_view on. */
typedef struct counting_seat {
    aw_seat base;
    aw_seat *inner;
    int with_view, without_view;
} counting_seat;

static const char *cs_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    aw_seat *in = ((counting_seat *)s)->inner;
    return in->ops->begin(in, agent, seed, f);
}

static int cs_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *r,
                      aw_seat_fault *f)
{
    counting_seat *c = (counting_seat *)s;
    if (info)
        c->with_view++;
    else
        c->without_view++;
    return c->inner->ops->request(c->inner, kind, info, set, r, f);
}

static bool cs_reads_view(aw_seat *s, aw_req_kind kind)
{
    aw_seat *in = ((counting_seat *)s)->inner;
    return !in->ops->reads_view || in->ops->reads_view(in, kind);
}

static void cs_free(aw_seat *s)
{
    (void)s;
}

static const aw_seat_ops counting_ops = {
    .begin = cs_begin, .request = cs_request, .free = cs_free, .reads_view = cs_reads_view};

/* Plays one game with the agent text in seat 1; returns what it printed
 * (faults: its faults' messages instead, and it may fault). With c, the
 * seat is played inside c, which counts its views. */
static char *play_agent(const char *dir, const char *text, uint64_t seed, bool faults, counting_seat *c)
{
    char path[300];
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    lua_game_write(path, text);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.output = faults ? NULL : f;
    aw_error err;
    aw_seat *lua = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(lua != NULL, "%s", err.msg);
    if (lua) {
        aw_game_result res;
        if (c) {
            memset(c, 0, sizeof *c);
            c->base.ops = &counting_ops;
            c->inner = lua;
        }
        free(lua_game_play_calls(c ? &c->base : lua, seed, &res, faults ? keep_fault : NULL, f));
        if (!faults)
            CHECK_INT(res.faults, 0);
        lua->ops->free(lua);
    }
    fclose(f);
    unlink(path);
    return out;
}

static char *play_printed(const char *dir, const char *text, uint64_t seed)
{
    return play_agent(dir, text, seed, false, NULL);
}

static char *play_faults(const char *dir, const char *text, uint64_t seed)
{
    return play_agent(dir, text, seed, true, NULL);
}

static int count_after(const char *out, const char *label)
{
    const char *p = strstr(out, label);
    return p ? atoi(p + strlen(label)) : -1;
}

int main(void)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_calls_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);

    /* Class-style through a function __index: every request looks its
     * methods up, so the agent sees each lookup. */
    char *out = play_printed(dir,
                             "local n = {}\n"
                             "local agent = setmetatable({}, {__index = function(t, k)\n"
                             "  n[k] = (n[k] or 0) + 1\n"
                             "  if k == 'finish' then return function()\n"
                             "    print('initialize ' .. (n.initialize or 0) .. ' update ' .. (n.update or 0) ..\n"
                             "          ' dayStart ' .. (n.dayStart or 0))\n"
                             "  end end\n"
                             "end})\n"
                             "return agent\n",
                             3);
    CHECK_MSG(count_after(out, "initialize ") == 1, "initialize was looked up %d times, not once: %s",
              count_after(out, "initialize "), out);
    CHECK_MSG(count_after(out, "dayStart ") >= 2, "dayStart was looked up %d times: %s", count_after(out, "dayStart "),
              out);
    CHECK_MSG(count_after(out, "update ") > count_after(out, "dayStart "), "update was looked up %d times: %s",
              count_after(out, "update "), out);
    free(out);

    /* A plain table that gains update and vote mid-game: both are called
     * from then on. */
    out = play_printed(dir,
                       "local updates, votes = 0, 0\n"
                       "local agent = {}\n"
                       "function agent:dayStart()\n"
                       "  if not self.update then\n"
                       "    self.update = function() updates = updates + 1 end\n"
                       "    self.vote = function() votes = votes + 1 end\n"
                       "  end\n"
                       "end\n"
                       "function agent:finish() print('updates ' .. updates .. ' votes ' .. votes) end\n"
                       "return agent\n",
                       3);
    CHECK_MSG(count_after(out, "updates ") > 0 && count_after(out, "votes ") > 0,
              "methods added mid-game were not called: %s", out);
    free(out);

    /* update added at the first dayStart is called at every request from
     * then on, as for an agent that had it all along and counts from its
     * first dayStart (the same game: neither answers anything): what the
     * host found of the agent's table is not kept past a call. */
    out = play_printed(dir,
                       "local updates = 0\n"
                       "local agent = {}\n"
                       "function agent:dayStart()\n"
                       "  if not self.update then self.update = function() updates = updates + 1 end end\n"
                       "end\n"
                       "function agent:finish() print('updates ' .. updates) end\n"
                       "return agent\n",
                       5);
    char *ref = play_printed(dir,
                             "local updates, started = 0, false\n"
                             "local agent = {}\n"
                             "function agent:update() if started then updates = updates + 1 end end\n"
                             "function agent:dayStart() started = true end\n"
                             "function agent:finish() print('updates ' .. updates) end\n"
                             "return agent\n",
                             5);
    CHECK_MSG(count_after(out, "updates ") > 0 && count_after(out, "updates ") == count_after(ref, "updates "),
              "update added mid-game ran %d times, %d expected", count_after(out, "updates "),
              count_after(ref, "updates "));
    free(out);
    free(ref);

    /* Only finish: every other request runs nothing, finish still runs. */
    out = play_printed(dir, "return { finish = function() print('finished') end }\n", 3);
    CHECK_MSG(strstr(out, "finished") != NULL, "finish did not run: %s", out);
    free(out);

    /* getName: an agent without it keeps its file's name and what its file
     * printed while loading is shown, game after game; one whose getName
     * comes through a metatable is asked for it. */
    static const struct {
        const char *text, *name;
    } named[] = {
        {"print('loaded')\nreturn { finish = function() end }\n", "agent"},
        {"return setmetatable({}, {__index = {getName = function() return 'classy' end}})\n", "classy"},
    };
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
        char path[300];
        snprintf(path, sizeof path, "%s/agent.lua", dir);
        lua_game_write(path, named[i].text);
        char *printed = NULL;
        size_t plen = 0;
        FILE *f = open_memstream(&printed, &plen);
        aw_luaseat_opts lo;
        memset(&lo, 0, sizeof lo);
        lo.output = f;
        aw_error err;
        aw_seat *lua = aw_luaseat_new(path, &lo, &err);
        CHECK_MSG(lua != NULL, "%s", err.msg);
        for (int game = 1; lua && game <= 3; game++) {
            aw_game_result res;
            char *log = lua_game_play(lua, (uint64_t)game, &res);
            char name[80];
            lua_game_name(log, name, sizeof name);
            CHECK_MSG(strcmp(name, named[i].name) == 0, "game %d: named %s, not %s", game, name, named[i].name);
            free(log);
        }
        if (lua)
            lua->ops->free(lua);
        fclose(f);
        if (i == 0) {
            int loads = 0;
            for (const char *p = printed; (p = strstr(p, "loaded")) != NULL; p++)
                loads++;
            /* once per game (the load check's run serves the first) */
            CHECK_MSG(loads == 3, "the file's print was shown %d times, not 3: %s", loads, printed);
        }
        free(printed);
        unlink(path);
    }

    /* The agent's errors, raised under the call's one message handler: a
     * traceback of the agent's frames where there are several; none for an
     * error in a sentence's __tostring (raised again from the host). */
    const char *thrower = "local agent = {}\n"
                          "local function deep(n) if n == 0 then error('deep') end return deep(n - 1) end\n"
                          "local function mid() local x = deep(2); return x end\n"
                          "local started = false\n"
                          "function agent:dayStart() if not started then started = true; mid() end end\n"
                          "function agent:talk()\n"
                          "  return setmetatable({}, {__tostring = function()\n"
                          "    local function f() error('text') end\n"
                          "    local x = f(); return x end})\n"
                          "end\n"
                          "function agent:vote() error('vote', 2) end\n"
                          "return agent\n";
    char want[3][1200];
    snprintf(want[0], sizeof want[0],
             "dayStart(): %s/agent.lua:2: deep [traceback: %s/agent.lua:2 (tail call), %s/agent.lua:3, %s/agent.lua:5]\n",
             dir, dir, dir, dir);
    snprintf(want[1], sizeof want[1], "talk(): %s/agent.lua:8: text\n", dir);
    snprintf(want[2], sizeof want[2], "vote(): %s/agent.lua:11: vote [traceback: %s/agent.lua:11]\n", dir, dir);
    bool seen[3] = {false, false, false};
    for (uint64_t seed = 1; seed <= 20 && !(seen[0] && seen[1] && seen[2]); seed++) {
        out = play_faults(dir, thrower, seed);
        for (int i = 0; i < 3; i++)
            seen[i] = seen[i] || strstr(out, want[i]) != NULL;
        free(out);
    }
    for (int i = 0; i < 3; i++)
        CHECK_MSG(seen[i], "no fault reads %s", want[i]);

    /* An agent without update is looked at whole after each of its calls
     * (a small table), or method by method (more than 32 keys): a vote
     * method it adds at its first dayStart is called from then on, either
     * way. */
    counting_seat cs;
    for (int big = 0; big <= 1; big++) {
        char text[1200];
        snprintf(text, sizeof text,
                 "local votes = 0\n"
                 "local agent = {}\n"
                 "if %d == 1 then for i = 1, 40 do agent['field' .. i] = i end end\n"
                 "function agent:dayStart()\n"
                 "  if not self.vote then self.vote = function() votes = votes + 1 end end\n"
                 "end\n"
                 "function agent.talk() return 'Over' end\n"
                 "function agent.finish() print('votes ' .. votes) end\n"
                 "return agent\n",
                 big);
        out = play_agent(dir, text, 3, false, &cs);
        CHECK_MSG(count_after(out, "votes ") > 0, "%s table: a vote added mid-game was not called: %s",
                  big ? "a big" : "a small", out);
        free(out);
    }

    /* Views: none for an agent without update that answers in text or
     * not at all; one for a method whose reply could be a name (vote: a
     * character's name in an NLP game is read through info); one at every
     * request for an agent with initialize and update, and from the
     * request after it gains update. */
    out = play_agent(dir,
                       "local agent = {}\n"
                       "function agent.talk() return 'Over' end\n"
                       "function agent.finish() print('finished') end\n"
                       "return agent\n",
                       3, false, &cs);
    CHECK_MSG(strstr(out, "finished") != NULL, "finish did not run: %s", out);
    CHECK_MSG(cs.with_view == 0 && cs.without_view > 0, "views given %d, not given %d", cs.with_view,
              cs.without_view);
    free(out);
    out = play_agent(dir,
                       "local votes = 0\n"
                       "local agent = {}\n"
                       "function agent.vote() votes = votes + 1 end\n"
                       "function agent.finish() print('votes ' .. votes) end\n"
                       "return agent\n",
                       3, false, &cs);
    CHECK_MSG(count_after(out, "votes ") > 0 && cs.with_view == count_after(out, "votes "),
              "%d views for %d votes", cs.with_view, count_after(out, "votes "));
    free(out);
    out = play_agent(dir,
                       "local agent = {}\n"
                       "function agent:initialize(info) self.day = info.day end\n"
                       "function agent:update(info) self.day = info.day end\n"
                       "function agent:finish() print('day ' .. self.day) end\n"
                       "return agent\n",
                       3, false, &cs);
    CHECK_MSG(count_after(out, "day ") > 0 && cs.without_view == 0 && cs.with_view > 0,
              "%s: views given %d, not given %d", out, cs.with_view, cs.without_view);
    free(out);
    out = play_agent(dir,
                       "local agent, days = {}, 0\n"
                       "function agent:dayStart()\n"
                       "  if not self.update then self.update = function(_, info) days = info.day end end\n"
                       "end\n"
                       "function agent.finish() print('days ' .. days) end\n"
                       "return agent\n",
                       3, false, &cs);
    CHECK_MSG(count_after(out, "days ") > 0 && cs.without_view > 0 && cs.with_view > 0,
              "%s: views given %d, not given %d", out, cs.with_view, cs.without_view);
    free(out);

    rmdir(dir);
    return test_done();
}
