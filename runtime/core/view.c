/* view: gameInfo of one agent from the engine's state; the only code that
 * filters information (see view.h). */
#include "view.h"

#include <string.h>

void aw_view_build(const aw_engine *g, int agent, aw_req_kind kind, aw_info *out)
{
    const aw_state *st = aw_engine_state(g);
    const aw_settings *set = aw_engine_settings(g);
    memset(out, 0, sizeof *out);
    out->agent = agent;
    out->day = st->day;
    out->n = st->n;
    aw_role me = st->role[agent];
    out->my_role = me;
    const aw_role_info *mine = aw_role_info_of(me);
    bool wolf = mine->wolf;
    bool reveal_all = kind == AW_REQ_FINISH;

    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        out->role[a] = AW_ROLE_NONE;
        out->remain_talk[a] = -1;
        out->remain_whisper[a] = -1;
    }
    /* Agents 1..n whole arrays at a time (a loop testing each agent was
     * half of a view's cost); the others keep the defaults above. */
    int n = st->n;
    memcpy(out->alive + 1, st->alive + 1, sizeof *out->alive * (size_t)n);
    memcpy(out->remain_talk + 1, st->remain_talk + 1, sizeof *out->remain_talk * (size_t)n);
    if (wolf)
        memcpy(out->remain_whisper + 1, st->remain_whisper + 1, sizeof *out->remain_whisper * (size_t)n);
    if (reveal_all) {
        memcpy(out->role + 1, st->role + 1, sizeof *out->role * (size_t)n);
    } else {
        if (agent >= 1 && agent <= n)
            out->role[agent] = me;
        /* Holders of a role with fellows (werewolves, freemasons) know each other. */
        if (mine->fellows)
            for (int a = 1; a <= n; a++)
                if (st->role[a] == me)
                    out->role[a] = me;
    }
    for (int r = 0; r < AW_NROLES; r++)
        out->existing_role[r] = set->role_count[r] > 0;

    out->talks = st->talks;
    out->ntalks = st->ntalks;
    if (wolf) {
        out->whispers = st->whispers;
        out->nwhispers = st->nwhispers;
    }
    if (set->vote_visible) {
        out->votes = st->votes;
        out->nvotes = st->nvotes;
        out->latest_votes = st->latest_votes;
        out->nlatest_votes = st->nlatest_votes;
    }
    out->executed = st->executed;
    out->latest_executed = st->latest_executed;
    memcpy(out->last_dead, st->last_dead, sizeof out->last_dead);
    out->nlast_dead = st->nlast_dead;

    if (mine->night == AW_NIGHT_DIVINE && st->divine_result.agent == agent)
        out->divine_result = st->divine_result;
    if (mine->medium && st->medium_result.agent) {
        /* every medium learns it, each as its own judge */
        out->medium_result = st->medium_result;
        out->medium_result.agent = agent;
    }
    if (wolf) {
        out->attacked = st->attacked;
        out->attack_votes = st->attack_votes;
        out->nattack_votes = st->nattack_votes;
        out->latest_attack_votes = st->latest_attack_votes;
        out->nlatest_attack_votes = st->nlatest_attack_votes;
    }
    if (mine->night == AW_NIGHT_GUARD)
        out->guarded = st->guarded;
}
