/* test_talk_text: what an agent says becomes a talk only as one line of
 * valid UTF-8 (engine.c, chan_record): with validation off, so that no
 * protocol check hides it, a seat says in turn printable ASCII, UTF-8
 * text, and texts with a tab, a control byte, DEL, a NUL, a byte that is
 * no UTF-8, a broken sequence and a newline; the game's log must hold the
 * good ones word for word and none of the others (Skip, or Over once the
 * skips are used up, in their place). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#include "c_game.h"
#include "cseat.h"

static const struct {
    const char *text;
    size_t len;
    bool good;
} says[] = {
#define S(lit, good) {lit, sizeof lit - 1, good}
    S("plain words, Agent[02] ~!", true),
    S("caf\xc3\xa9 \xe4\xba\xba\xe7\x8b\xbc \xf0\x9f\x90\xba", true),
    S("tab\there", false),
    S("bell\x01here", false),
    S("del\x7fhere", false),
    S("nul\0here", false),
    S("byte\xffhere", false),
    S("cut\xe4\xbahere", false),
    S("newline\nhere", false),
#undef S
};
enum { NSAYS = sizeof says / sizeof says[0] };

typedef struct talker {
    aw_seat base;
    int next;
} talker;

static const char *tk_begin(aw_seat *s, int agent, uint64_t seed, aw_seat_fault *f)
{
    (void)s, (void)agent, (void)seed, (void)f;
    return "talker";
}

static int tk_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set, aw_seat_reply *reply,
                      aw_seat_fault *fault)
{
    (void)set, (void)fault;
    talker *t = (talker *)s;
    reply->text = NULL;
    reply->len = 0;
    reply->target = AW_NO_AGENT;
    if (kind == AW_REQ_TALK) {
        reply->text = says[t->next % NSAYS].text;
        reply->len = says[t->next % NSAYS].len;
        t->next++;
    } else if (kind == AW_REQ_VOTE || kind == AW_REQ_DIVINE || kind == AW_REQ_GUARD || kind == AW_REQ_ATTACK) {
        reply->target = info && info->agent == 1 ? 2 : 1;
    }
    return 0;
}

static void tk_free(aw_seat *s)
{
    free(s);
}

static const aw_seat_ops tk_ops = {.begin = tk_begin, .request = tk_request, .free = tk_free};

int main(void)
{
    aw_settings set;
    aw_error err;
    CHECK_MSG(aw_settings_preset(&set, "aiwolf", 5, &err) == 0, "%s", err.msg);
    CHECK_MSG(aw_settings_set(&set, "validation=off", &err) == 0, "%s", err.msg);
    int said = 0;
    bool seen[NSAYS] = {false};
    for (uint64_t seed = 1; seed <= 20; seed++) {
        aw_seat *seats[AW_MAX_PLAYERS + 1] = {0};
        talker *t = calloc(1, sizeof *t);
        t->base.ops = &tk_ops;
        t->next = (int)seed; /* each game starts elsewhere in the list */
        seats[1] = &t->base;
        for (int a = 2; a <= set.players; a++)
            seats[a] = aw_cseat_random(seed * 17 + (uint64_t)a);
        char *buf = NULL;
        size_t len = 0;
        FILE *csv = open_memstream(&buf, &len);
        aw_game_result res;
        CHECK_MSG(c_game_play(&set, seed, seats, NULL, csv, &res, &err) == 0, "%s", err.msg);
        fclose(csv);
        said += t->next - (int)seed;
        /* talk lines of agent 1: "day,talk,idx,turn,1,TEXT" */
        for (char *line = buf; line && *line;) {
            char *end = memchr(line, '\n', len - (size_t)(line - buf));
            size_t n = end ? (size_t)(end - line) : strlen(line);
            int day, idx, turn, agent, off = 0;
            if (sscanf(line, "%d,talk,%d,%d,%d,%n", &day, &idx, &turn, &agent, &off) == 4 && off > 0 && agent == 1) {
                const char *text = line + off;
                size_t tl = n - (size_t)off;
                /* what the rules put in a bad text's place (Skip, Over after too many) */
                bool known = tl == 4 && (memcmp(text, "Skip", 4) == 0 || memcmp(text, "Over", 4) == 0);
                for (int i = 0; i < NSAYS; i++)
                    if (says[i].len == tl && memcmp(says[i].text, text, tl) == 0) {
                        CHECK_MSG(says[i].good, "seed %llu: a bad text (#%d) was logged as said",
                                  (unsigned long long)seed, i);
                        seen[i] = true;
                        known = true;
                    }
                CHECK_MSG(known, "seed %llu: agent 1 said %.*s", (unsigned long long)seed, (int)tl, text);
            }
            line = end ? end + 1 : NULL;
        }
        free(buf);
        for (int a = 1; a <= set.players; a++)
            seats[a]->ops->free(seats[a]);
    }
    CHECK(said > 3 * NSAYS); /* every text was said, several times */
    for (int i = 0; i < NSAYS; i++)
        CHECK_MSG(seen[i] == says[i].good, "text #%d: %s", i, seen[i] ? "logged" : "never logged");
    return test_done();
}
