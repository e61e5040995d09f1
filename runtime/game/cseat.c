/* cseat: the random C player (see cseat.h). */
#include "cseat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

typedef struct cseat {
    aw_seat base;
    aw_rng rng;
    uint64_t seed;
    char text[64];
} cseat;

static const char *random_begin(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    (void)f;
    (void)agent; /* agent_seed is already the seat's own */
    cseat *c = (cseat *)s;
    aw_rng_seed(&c->rng, aw_rng_derive(agent_seed, c->seed));
    return "crandom";
}

static int pick(cseat *c, const aw_info *info, bool humans_only)
{
    int cand[AW_MAX_PLAYERS], n = 0;
    for (int a = 1; a <= info->n; a++)
        if (info->alive[a] && a != info->agent && !(humans_only && aw_role_is_wolf(info->role[a])))
            cand[n++] = a;
    return n ? cand[aw_rng_below(&c->rng, (uint32_t)n)] : AW_NO_AGENT;
}

static int random_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                          aw_seat_reply *reply, aw_seat_fault *f)
{
    (void)set;
    (void)f;
    cseat *c = (cseat *)s;
    switch (kind) {
    case AW_REQ_TALK:
    case AW_REQ_WHISPER: {
        uint32_t r = aw_rng_below(&c->rng, 4);
        if (r == 0)
            snprintf(c->text, sizeof c->text, "Over");
        else if (r == 1)
            snprintf(c->text, sizeof c->text, "Skip");
        else
            snprintf(c->text, sizeof c->text, "%s Agent[%02d]", kind == AW_REQ_TALK ? "VOTE" : "ATTACK",
                     pick(c, info, kind == AW_REQ_WHISPER));
        reply->text = c->text;
        reply->len = strlen(c->text);
        return 0;
    }
    case AW_REQ_VOTE:
    case AW_REQ_DIVINE:
    case AW_REQ_GUARD:
        reply->target = pick(c, info, false);
        return 0;
    case AW_REQ_ATTACK:
        reply->target = pick(c, info, true);
        return 0;
    default:
        return 0;
    }
}

static void random_free(aw_seat *s)
{
    free(s);
}

static const aw_seat_ops random_ops = {.begin = random_begin, .request = random_request, .free = random_free};

static const char *chaos_begin(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    random_begin(s, agent, agent_seed, f);
    return "cchaos";
}

/* A target that is wrong in one of the ways the rules must handle. */
static int wrong_target(cseat *c, const aw_info *info)
{
    switch (aw_rng_below(&c->rng, 5)) {
    case 0:
        return AW_NO_AGENT;
    case 1:
        return info->agent;
    case 2:
        return info->n + 1 + (int)aw_rng_below(&c->rng, 3);
    case 3:
        for (int a = 1; a <= info->n; a++)
            if (!info->alive[a])
                return a;
        return -1;
    default:
        for (int a = 1; a <= info->n; a++)
            if (a != info->agent && aw_role_is_wolf(info->role[a]))
                return a;
        return 0;
    }
}

static int chaos_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    cseat *c = (cseat *)s;
    uint32_t r = aw_rng_below(&c->rng, 12);
    if (aw_req_wants_text(kind)) {
        static const char *const odd[] = {"", "OVER", "Over ", "hello world", "VOTE Agent[1]", "SKIP",
                                          "VOTE  Agent[01]", "BECAUSE (VOTE Agent[01])", "line\nbreak"};
        if (r < 3) {
            const char *t = odd[aw_rng_below(&c->rng, sizeof odd / sizeof odd[0])];
            snprintf(c->text, sizeof c->text, "%s", t);
            reply->text = c->text;
            reply->len = strlen(c->text);
            return 0;
        }
        if (r == 3)
            return 0; /* no answer */
        if (r < 7) {
            snprintf(c->text, sizeof c->text, "Skip");
            reply->text = c->text;
            reply->len = 4;
            return 0;
        }
        return random_request(s, kind, info, set, reply, f);
    }
    if (!aw_req_needs_reply(kind))
        return 0;
    if (r < 4) {
        reply->target = wrong_target(c, info);
        return 0;
    }
    if (r < 8) {
        /* favourites: the lowest living agents, so votes pile up and tie */
        for (int a = 1; a <= info->n; a++)
            if (info->alive[a] && a != info->agent && (aw_rng_below(&c->rng, 2) || a == info->n)) {
                reply->target = a;
                return 0;
            }
    }
    return random_request(s, kind, info, set, reply, f);
}

static const aw_seat_ops chaos_ops = {.begin = chaos_begin, .request = chaos_request, .free = random_free};

aw_seat *aw_cseat_chaos(uint64_t seed)
{
    aw_seat *s = aw_cseat_random(seed);
    if (s)
        s->ops = &chaos_ops;
    return s;
}

aw_seat *aw_cseat_random(uint64_t seed)
{
    cseat *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base.ops = &random_ops;
    c->seed = seed;
    return &c->base;
}
