/* aiwolf.talks, the day's talks read without a table per talk, hands a Lua
 * agent what its view holds and nothing more: the talks of the call under
 * way; whispers only when the view has them (a non-werewolf's view has
 * none, whatever count comes with the missing list); nothing for an
 * earlier game's info kept by the agent into the next game of the same
 * instance (the regulation's sets: INITIALIZE again, no new begin); and
 * the same after the agent's file is reloaded mid-game (watch_live). The
 * seat is driven with views made here, so that each case is exact. The
 * module's functions are those meta/aiwolf/talks.lua annotates. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaseat.h"
#include "luaseat_talks.h"
#include "talkhooks.h"
#include "settings.h"
#include "test.h"
#include "util.h"
#include "lua_game.h"

static const char *agent_v1 =
    "local T = require 'aiwolf.talks'\n"
    "local a = {}\n"
    "local function list(info, whisper)\n"
    "  local out = {}\n"
    "  for i, agent, day, idx, turn, text in T.talks(info, 0, whisper) do\n"
    "    local tree = T.tree(info, i, whisper)\n"
    "    out[#out + 1] = agent .. ':' .. day .. ':' .. idx .. ':' .. turn .. ':' .. text .. ':' ..\n"
    "                    (tree and tree.verb or '-')\n"
    "  end\n"
    "  return tostring(T.count(info, whisper)) .. '[' .. table.concat(out, ',') .. ']'\n"
    "end\n"
    "function a:show(tag, info)\n"
    "  local line = tag .. ' ' .. list(info, false) .. ' ' .. list(info, true)\n"
    "  if self.old then\n"
    "    line = line .. ' old ' .. list(self.old, false) .. list(self.old, true) .. tostring(T.tree(self.old, 1))\n"
    "  end\n"
    "  print(line)\n"
    "end\n"
    "function a:initialize(info)\n"
    "  if not self.info then\n"
    "    local keys = {}\n"
    "    for k, v in pairs(T) do keys[#keys + 1] = k .. ':' .. type(v) end\n"
    "    table.sort(keys)\n"
    "    print('keys ' .. table.concat(keys, ','))\n"
    "  end\n"
    "  self.old = self.info\n"
    "  self.info = info\n"
    "  self:show('init', info)\n"
    "end\n"
    "function a:update(info) self:show('v1', info) end\n"
    "function a:talk() return 'Over' end\n"
    "return a\n";

/* v2 (swapped in mid-game) reads with its own require of the module. */
static const char *agent_v2 =
    "local T = require 'aiwolf.talks'\n"
    "local a = {}\n"
    "function a:update(info)\n"
    "  local out = {}\n"
    "  for _, agent, _, idx, _, text in T.talks(info, 1) do out[#out + 1] = agent .. ':' .. idx .. ':' .. text end\n"
    "  print('v2 ' .. tostring(T.count(info)) .. '[' .. table.concat(out, ',') .. '] ' ..\n"
    "        tostring(T.count(info, true)))\n"
    "end\n"
    "function a:talk() return 'Skip' end\n"
    "return a\n";

static aw_talk talk(int day, int idx, int agent, const char *text, void *parsed)
{
    aw_talk t = {.day = day, .idx = idx, .turn = 0, .agent = agent, .text = (char *)text, .len = strlen(text),
                 .parsed = parsed};
    return t;
}

int main(void)
{
    char dir[256], path[300];
    snprintf(dir, sizeof dir, "/tmp/aiwolf_talks_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/agent.lua", dir);
    lua_game_write(path, agent_v1);

    char *out = NULL;
    size_t outlen = 0;
    aw_luaseat_opts lo;
    memset(&lo, 0, sizeof lo);
    lo.output = open_memstream(&out, &outlen);
    lo.limits.budget_ms = 2000;
    lo.watch_live = true;
    aw_luaseat_talks(&lo);
    aw_error err;
    aw_seat *seat = aw_luaseat_new(path, &lo, &err);
    CHECK_MSG(seat != NULL, "%s", err.msg);
    if (!seat)
        return test_done();
    aw_settings set;
    CHECK(aw_settings_preset(&set, "aiwolf", 5, &err) == 0);

    /* Trees the host parsed (as the engine's talk hook does). */
    void *vote = NULL, *attack = NULL;
    aw_talk_hooks hooks = aw_talkhooks();
    CHECK(hooks.validate(NULL, "VOTE Agent[03]", 14, AW_VALIDATE_STRICT, &vote, &err) == 0);
    CHECK(hooks.validate(NULL, "ATTACK Agent[04]", 16, AW_VALIDATE_STRICT, &attack, &err) == 0);
    aw_talk talks[3] = {talk(1, 0, 2, "VOTE Agent[03]", vote), talk(1, 1, 3, "Over", NULL),
                        talk(1, 2, 4, "Skip", NULL)};
    aw_talk whispers[1] = {talk(1, 0, 5, "ATTACK Agent[04]", attack)};

    aw_info in;
    memset(&in, 0, sizeof in);
    in.agent = 1;
    in.n = 5;
    in.my_role = AW_VILLAGER;
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        in.alive[a] = a >= 1 && a <= 5;
        in.role[a] = a == 1 ? AW_VILLAGER : AW_ROLE_NONE;
        in.remain_talk[a] = in.remain_whisper[a] = -1;
    }
    in.existing_role[AW_VILLAGER] = in.existing_role[AW_WEREWOLF] = true;

    aw_seat_fault f;
    aw_seat_reply reply;
    CHECK(seat->ops->begin(seat, 1, 7, &f) != NULL);
    /* Game 1, day 0: nothing said. */
    CHECK_INT(seat->ops->request(seat, AW_REQ_INITIALIZE, &in, &set, &reply, &f), 0);
    /* Day 1: two talks so far (the third, later, is in the same array);
     * a villager's view: no whisper list, whatever its count says. */
    in.day = 1;
    in.talks = talks;
    in.ntalks = 2;
    in.whispers = NULL;
    in.nwhispers = 1;
    CHECK_INT(seat->ops->request(seat, AW_REQ_TALK, &in, &set, &reply, &f), 0);
    /* The same day, a werewolf's view (a test's liberty: roles do not change). */
    in.ntalks = 3;
    in.my_role = in.role[1] = AW_WEREWOLF;
    in.whispers = whispers;
    in.nwhispers = 1;
    CHECK_INT(seat->ops->request(seat, AW_REQ_TALK, &in, &set, &reply, &f), 0);
    /* Game 2 of the same instance: the agent kept game 1's info. */
    in.day = 0;
    in.ntalks = 0;
    in.whispers = NULL;
    in.nwhispers = 0;
    CHECK_INT(seat->ops->request(seat, AW_REQ_INITIALIZE, &in, &set, &reply, &f), 0);
    in.day = 1;
    in.ntalks = 1;
    CHECK_INT(seat->ops->request(seat, AW_REQ_TALK, &in, &set, &reply, &f), 0);
    /* Mid-game reload: the new version reads the same way. */
    lua_game_write(path, agent_v2); /* another size: the watcher sees it */
    in.ntalks = 3;
    CHECK_INT(seat->ops->request(seat, AW_REQ_TALK, &in, &set, &reply, &f), 0);
    CHECK(reply.text != NULL && reply.len == 4 && memcmp(reply.text, "Skip", 4) == 0);
    seat->ops->free(seat);
    fclose(lo.output);

    /* The module's functions are those meta/aiwolf/talks.lua annotates. */
    aw_buf keys;
    aw_buf_init(&keys);
    aw_buf_adds(&keys, "[Agent[01] agent] keys ");
    FILE *meta = fopen("meta/aiwolf/talks.lua", "r");
    CHECK(meta != NULL);
    char line[512];
    int nkeys = 0;
    while (meta && fgets(line, sizeof line, meta)) {
        char name[64];
        if (sscanf(line, "function T.%63[a-z_](", name) == 1)
            aw_buf_printf(&keys, "%s%s:function", nkeys++ ? "," : "", name); /* the file lists them sorted */
    }
    if (meta)
        fclose(meta);
    aw_buf_adds(&keys, "\n");
    CHECK_INT(nkeys, 3);
    CHECK_MSG(out && strncmp(out, keys.data, keys.len) == 0, "the module's functions differ from meta/:\n%s\nnot\n%s",
              out ? out : "", keys.data);
    const char *got = out && strncmp(out, keys.data, keys.len) == 0 ? out + keys.len : out;
    aw_buf_free(&keys);
    const char *want = "[Agent[01] agent] init 0[] 0[]\n"
                       "[Agent[01] agent] v1 2[2:1:0:0:VOTE Agent[03]:VOTE,3:1:1:0:Over:-] 0[]\n"
                       "[Agent[01] agent] v1 3[2:1:0:0:VOTE Agent[03]:VOTE,3:1:1:0:Over:-,4:1:2:0:Skip:-] "
                       "1[5:1:0:0:ATTACK Agent[04]:ATTACK]\n"
                       "[Agent[01] agent] init 0[] 0[] old nil[]nil[]nil\n"
                       "[Agent[01] agent] v1 1[2:1:0:0:VOTE Agent[03]:VOTE] 0[] old nil[]nil[]nil\n"
                       "[Agent[01] agent] v2 3[3:1:Over,4:2:Skip] 0\n";
    CHECK_MSG(got && strcmp(got, want) == 0, "the agent read\n%s\nnot\n%s", got ? got : "", want);
    free(out);
    hooks.free_parsed(NULL, vote);
    hooks.free_parsed(NULL, attack);
    unlink(path);
    rmdir(dir);
    return test_done();
}
