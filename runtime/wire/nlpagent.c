/* nlpagent: an agent behind the NLP division's packets (see nlpagent.h). */
#include "nlpagent.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"

void aw_nlp_agent_init(aw_nlp_agent *a, aw_seat *inner)
{
    memset(a, 0, sizeof *a);
    a->inner = inner;
    a->alive_day = -1;
    aw_settings_preset(&a->set, "aiwolf", 5, NULL);
}

static void clear_talks(aw_nlp_agent *a, aw_talk *t, int *n)
{
    for (int i = 0; i < *n; i++) {
        if (t[i].parsed && a->talk.free_parsed)
            a->talk.free_parsed(NULL, t[i].parsed);
        free(t[i].text);
    }
    *n = 0;
}

static void clear_game(aw_nlp_agent *a)
{
    clear_talks(a, a->talks, &a->ntalks);
    clear_talks(a, a->whispers, &a->nwhispers);
    for (int i = 1; i <= a->n; i++) {
        free(a->names[i]);
        a->names[i] = NULL;
    }
    a->n = a->me = 0;
    a->alive_day = -1;
    free(a->profile);
    a->profile = NULL;
}

void aw_nlp_agent_free(aw_nlp_agent *a)
{
    clear_game(a);
    free(a->talks);
    free(a->whispers);
    free(a->votes);
    free(a->attack_votes);
    memset(a, 0, sizeof *a);
}

int aw_nlp_agent_index(const aw_nlp_agent *a, const char *name)
{
    if (!name)
        return 0;
    for (int i = 1; i <= a->n; i++)
        if (!strcmp(a->names[i], name))
            return i;
    return 0;
}

/* An agent named in a packet: its index, or 0 (counted) when unknown. */
static int who(aw_nlp_agent *a, const char *name)
{
    int i = aw_nlp_agent_index(a, name);
    if (!i && name)
        a->unknown_names++;
    return i;
}

/* Whether talk (day, idx) is in list[0..n) already: a group-chat server
 * broadcasts each talk and sends it again in the next history. Histories
 * come in order, so only an entry not past the last one is looked for. */
static bool have_talk(const aw_talk *list, int n, int day, int idx)
{
    if (n == 0 || list[n - 1].day != day || list[n - 1].idx < idx)
        return false;
    for (int i = n - 1; i >= 0 && list[i].day == day; i--)
        if (list[i].idx == idx)
            return true;
    return false;
}

static void add_talks(aw_nlp_agent *a, const aw_nlp_talk *src, int n, bool whisper)
{
    aw_talk **list = whisper ? &a->whispers : &a->talks;
    int *cnt = whisper ? &a->nwhispers : &a->ntalks, *cap = whisper ? &a->cap_whispers : &a->cap_talks;
    for (int i = 0; i < n; i++) {
        if (*cnt >= AW_NLP_MAX_HISTORY * 4)
            return; /* a day's talks are bounded; a server that sends more is ignored past this */
        if (have_talk(*list, *cnt, src[i].day, src[i].idx))
            continue;
        if (*cnt == *cap) {
            *cap = *cap ? *cap * 2 : 32;
            *list = aw_xrealloc(*list, sizeof **list * (size_t)*cap);
        }
        aw_talk *t = &(*list)[(*cnt)++];
        memset(t, 0, sizeof *t);
        t->day = src[i].day;
        t->idx = src[i].idx;
        t->turn = src[i].turn;
        t->agent = who(a, src[i].agent);
        t->len = strlen(src[i].text);
        t->text = aw_xstrndup(src[i].text, t->len);
        void *parsed = NULL;
        aw_error err;
        if (a->talk.validate && a->talk.validate(NULL, t->text, t->len, AW_VALIDATE_LENIENT, &parsed, &err) == 0)
            t->parsed = parsed;
    }
}

static void set_votes(aw_nlp_agent *a, aw_vote **dst, int *nd, const aw_nlp_vote *v, int n)
{
    *dst = aw_xrealloc(*dst, sizeof **dst * (size_t)(n ? n : 1));
    *nd = 0;
    for (int i = 0; i < n; i++) {
        int ag = who(a, v[i].agent), tg = who(a, v[i].target);
        if (ag && tg)
            (*dst)[(*nd)++] = (aw_vote){v[i].day, ag, tg};
    }
}

static void set_judge(aw_nlp_agent *a, aw_judge *j, const aw_nlp_judge *src)
{
    memset(j, 0, sizeof *j);
    if (!src->agent)
        return;
    j->day = src->day;
    j->agent = who(a, src->agent);
    j->target = who(a, src->target);
    j->result = src->result;
    if (!j->agent || !j->target)
        memset(j, 0, sizeof *j);
}

/* The settings the seat sees: the aiwolf preset for n players with what the
 * NLP setting says. */
static void apply_setting(aw_nlp_agent *a, const aw_nlp_setting *s)
{
    int players = s->agent_count;
    aw_settings st;
    if (aw_settings_preset(&st, "aiwolf", players, NULL) < 0)
        return;
    int sum = 0;
    for (int r = 0; r < AW_NROLES; r++)
        sum += s->role_num[r];
    if (sum == players)
        memcpy(st.role_count, s->role_num, sizeof st.role_count);
    st.max_talk = s->talk.max_count_per_agent;
    st.max_talk_turn = s->talk.max_count_per_agent;
    st.max_whisper = s->whisper.max_count_per_agent;
    st.max_whisper_turn = s->whisper.max_count_per_agent;
    st.max_skip = s->talk.max_skip;
    st.max_revote = s->vote_max_count;
    st.max_attack_revote = s->attack_max_count;
    st.enable_no_attack = s->attack_allow_no_target;
    st.vote_visible = s->vote_visibility;
    st.time_limit_ms = s->timeout_action_ms;
    st.max_days = s->max_day > 0 ? s->max_day : 0;
    st.validation = AW_VALIDATE_OFF;
    a->set = st;
    a->nset = *s;
    a->has_setting = true;
}

/* Sets the game's agents from an info's status_map (at INITIALIZE, or when
 * the names change: a new game without INITIALIZE seen). */
static void set_names(aw_nlp_agent *a, const aw_nlp_info *in)
{
    bool same = in->nseats == a->n;
    for (int i = 0; same && i < in->nseats; i++)
        same = !strcmp(in->seats[i].name, a->names[i + 1]);
    if (!same) {
        clear_game(a);
        for (int i = 0; i < in->nseats; i++)
            a->names[i + 1] = aw_xstrdup(in->seats[i].name);
        a->n = in->nseats;
    }
    a->me = aw_nlp_agent_index(a, in->agent);
}

static bool ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return false;
    return true;
}

/* A request of the whisper (not the talk): its remain_count and length
 * rule are the whisper's. */
static bool whisper_req(aw_nlp_req r)
{
    return r == AW_NLP_WHISPER || r == AW_NLP_WHISPER_PHASE_START || r == AW_NLP_WHISPER_PHASE_END ||
           r == AW_NLP_WHISPER_BROADCAST;
}

static void apply_info(aw_nlp_agent *a, const aw_nlp_info *in)
{
    set_names(a, in);
    aw_info *v = &a->info;
    v->agent = a->me;
    v->day = in->day;
    v->n = a->n;
    for (int i = 0; i < a->n; i++) {
        v->alive[i + 1] = in->seats[i].alive;
        v->role[i + 1] = in->seats[i].role;
        v->remain_talk[i + 1] = v->remain_whisper[i + 1] = -1;
    }
    v->my_role = a->me ? v->role[a->me] : AW_ROLE_NONE;
    if (in->profile) {
        free(a->profile);
        a->profile = aw_xstrdup(in->profile);
    }
    set_judge(a, &v->divine_result, &in->divine_result);
    set_judge(a, &v->medium_result, &in->medium_result);
    /* executed_agent is yesterday's; the server says today's execution only
     * through status_map (the night's packets show the agent dead): made
     * latestExecutedAgent as in the protocol division, so that agents see
     * who died tonight */
    v->executed = v->latest_executed = who(a, in->executed_agent);
    if (a->request == AW_NLP_INITIALIZE || a->request == AW_NLP_DAILY_INITIALIZE || a->alive_day != in->day) {
        a->alive_day = in->day;
        for (int i = 1; i <= a->n; i++)
            a->alive_then[i] = v->alive[i];
    } else {
        for (int i = 1; i <= a->n; i++)
            if (a->alive_then[i] && !v->alive[i])
                v->latest_executed = i;
    }
    v->attacked = who(a, in->attacked_agent);
    v->nlast_dead = 0;
    if (v->attacked && !v->alive[v->attacked])
        v->last_dead[v->nlast_dead++] = v->attacked;
    if (in->nvotes || a->request == AW_NLP_DAILY_INITIALIZE) {
        set_votes(a, &a->votes, &a->nvotes, in->votes, in->nvotes);
        v->votes = v->latest_votes = a->votes;
        v->nvotes = v->nlatest_votes = a->nvotes;
    }
    if (in->nattack_votes) {
        set_votes(a, &a->attack_votes, &a->nattack_votes, in->attack_votes, in->nattack_votes);
        v->attack_votes = v->latest_attack_votes = a->attack_votes;
        v->nattack_votes = v->nlatest_attack_votes = a->nattack_votes;
    }
    if (a->me && in->remain_count >= 0) {
        if (whisper_req(a->request))
            v->remain_whisper[a->me] = in->remain_count;
        else
            v->remain_talk[a->me] = in->remain_count;
    }
    aw_info_nlp *x = &a->nlp;
    x->names = (const char *const *)a->names;
    x->profile = a->profile;
    x->lang = a->lang ? a->lang : a->me && !ascii(a->names[a->me]) ? "ja" : "en";
    x->remain_count = in->remain_count;
    x->remain_length = in->remain_length;
    x->remain_skip = in->remain_skip;
    v->nlp = x;
}

/* The group chat: who is in the phase, who has finished, and whether the
 * seat speaks now (chat_speak): at the phase's start; then once the
 * server has broadcast its last talk back (chat_waiting over) and another
 * agent has spoken since (chat_heard) or every other one has finished
 * (said Over or used its count); never after its own Over, nor with no
 * count or length left. */
static void chat_update(aw_nlp_agent *a, const aw_nlp_packet *p)
{
    a->chat_speak = false;
    switch (p->request) {
    case AW_NLP_TALK_PHASE_START:
    case AW_NLP_WHISPER_PHASE_START:
        a->chat = p->request == AW_NLP_TALK_PHASE_START ? AW_NLP_TALK : AW_NLP_WHISPER;
        a->chat_waiting = a->chat_done = false;
        a->chat_heard = true;
        for (int i = 1; i <= a->n; i++) {
            a->chat_said[i] = 0;
            a->chat_in[i] = a->info.alive[i] && i != a->me &&
                            (a->chat == AW_NLP_TALK || a->info.role[i] == AW_WEREWOLF);
        }
        break;
    case AW_NLP_TALK_BROADCAST:
    case AW_NLP_WHISPER_BROADCAST: {
        if (!a->chat || p->new_is_whisper != (a->chat == AW_NLP_WHISPER))
            return; /* outside its phase: heard (in the list), nothing to say */
        int who_ = aw_nlp_agent_index(a, p->new_talk.agent);
        if (who_ == a->me) {
            a->chat_waiting = false;
            if (p->new_talk.over)
                a->chat_done = true;
        } else if (who_) {
            a->chat_heard = true;
            const aw_nlp_talk_setting *ts = a->chat == AW_NLP_WHISPER ? &a->nset.whisper : &a->nset.talk;
            if (++a->chat_said[who_] >= ts->max_count_per_agent && a->has_setting)
                a->chat_in[who_] = false;
            if (p->new_talk.over)
                a->chat_in[who_] = false;
        }
        break;
    }
    case AW_NLP_TALK_PHASE_END:
    case AW_NLP_WHISPER_PHASE_END:
        a->chat = 0;
        return;
    default:
        a->chat = 0; /* any other request ends a phase the server did not end */
        return;
    }
    bool others = false;
    for (int i = 1; i <= a->n; i++)
        others |= a->chat_in[i];
    const aw_info_nlp *x = &a->nlp;
    a->chat_speak = a->chat && !a->chat_waiting && !a->chat_done && (a->chat_heard || !others) &&
                    x->remain_count != 0 && x->remain_length != 0;
}

int aw_nlp_agent_take(aw_nlp_agent *a, const char *msg, size_t len, aw_error *err)
{
    aw_nlp_packet p;
    if (aw_nlp_decode(msg, len, &p, err) < 0)
        return -AW_EINVAL;
    a->request = p.request;
    if (p.request == AW_NLP_INITIALIZE) {
        clear_game(a);
        memset(&a->info, 0, sizeof a->info);
        a->begun = false;
    }
    if (p.has_setting)
        apply_setting(a, &p.setting);
    if (p.has_info) {
        apply_info(a, &p.info);
        if (!a->me) {
            aw_nlp_packet_free(&p);
            return aw_fail(err, AW_EINVAL, "info.agent is not in info.status_map");
        }
    }
    if (p.request != AW_NLP_NAME && !a->me) {
        aw_nlp_packet_free(&p);
        return aw_fail(err, AW_EINVAL, "a %s request without info: the agents are not known",
                       aw_nlp_req_name(a->request));
    }
    if (p.request == AW_NLP_DAILY_INITIALIZE) {
        clear_talks(a, a->talks, &a->ntalks);
        clear_talks(a, a->whispers, &a->nwhispers);
    }
    if (p.has_talks)
        add_talks(a, p.talks, p.ntalks, false);
    if (p.has_whispers)
        add_talks(a, p.whispers, p.nwhispers, true);
    for (int r = 0; r < AW_NROLES; r++)
        a->info.existing_role[r] = a->set.role_count[r] > 0;
    if (p.has_new)
        add_talks(a, &p.new_talk, 1, p.new_is_whisper);
    chat_update(a, &p);
    a->info.talks = a->talks;
    a->info.ntalks = a->ntalks;
    a->info.whispers = a->whispers;
    a->info.nwhispers = a->nwhispers;
    const aw_nlp_talk_setting *ts = whisper_req(p.request) ? &a->nset.whisper : &a->nset.talk;
    a->nlp.per_talk = a->has_setting ? ts->per_talk : -1;
    a->nlp.base_length = a->has_setting ? ts->base_length : -1;
    a->nlp.mention_length = a->has_setting ? ts->mention_length : -1;
    if (a->n && a->set.players != a->n) {
        /* no setting seen (or one that disagrees): the table from the names */
        aw_settings st;
        if (aw_settings_preset(&st, "aiwolf", a->n, NULL) == 0) {
            st.validation = AW_VALIDATE_OFF;
            a->set = st;
        }
    }
    aw_nlp_packet_free(&p);
    return (int)a->request;
}

/* ---- rendering ---- */

void aw_nlp_render_talk(const char *text, size_t len, int speaker, const char *const *names, int n,
                        const char *lang, const aw_nlp_talk_setting *ts, int remain_length, aw_buf *out)
{
    aw_buf r;
    aw_buf_init(&r);
    aw_nlp_render(text, len, speaker, names, n, lang, &r);
    const char *c = r.data ? r.data : "";
    bool plain = len == 4 && (!memcmp(text, "Skip", 4) || !memcmp(text, "Over", 4));
    if (plain || !ts || (ts->per_talk < 0 && ts->base_length < 0 && ts->per_agent < 0)) {
        aw_buf_add(out, c, r.len);
    } else {
        /* as the server does (logic/communication.go): with a daily or base
         * length, the text before the first mention within base + remain,
         * the text after it within mention_length + remain (mentions are
         * looked for only under a daily or base length and a mention
         * length); then both within per_talk */
        int remain = remain_length > 0 ? remain_length : 0;
        bool daily = ts->base_length >= 0 || ts->per_agent >= 0;
        aw_nlp_length rule = {
            .mentions = daily && ts->mention_length >= 0,
            .before = daily ? (ts->base_length > 0 ? ts->base_length : 0) + remain : -1,
            .after = ts->mention_length + remain,
            .per_talk = ts->per_talk,
            .in_word = ts->count_in_word == 1,
            .count_spaces = ts->count_spaces == 1,
        };
        aw_nlp_fit(c, r.len, speaker, names, n, &rule, out);
    }
    aw_buf_free(&r);
}

/* ---- answering ---- */

static aw_req_kind seat_kind(aw_nlp_req r)
{
    switch (r) {
    case AW_NLP_INITIALIZE: return AW_REQ_INITIALIZE;
    case AW_NLP_DAILY_INITIALIZE: return AW_REQ_DAILY_INITIALIZE;
    case AW_NLP_TALK: return AW_REQ_TALK;
    case AW_NLP_WHISPER: return AW_REQ_WHISPER;
    case AW_NLP_TALK_PHASE_START:
    case AW_NLP_TALK_BROADCAST: return AW_REQ_TALK; /* when it speaks */
    case AW_NLP_WHISPER_PHASE_START:
    case AW_NLP_WHISPER_BROADCAST: return AW_REQ_WHISPER;
    case AW_NLP_VOTE: return AW_REQ_VOTE;
    case AW_NLP_DIVINE: return AW_REQ_DIVINE;
    case AW_NLP_GUARD: return AW_REQ_GUARD;
    case AW_NLP_ATTACK: return AW_REQ_ATTACK;
    case AW_NLP_DAILY_FINISH: return AW_REQ_DAILY_FINISH;
    case AW_NLP_FINISH: return AW_REQ_FINISH;
    default: return AW_REQ_NONE;
    }
}

static void begin(aw_nlp_agent *a, int agent, uint64_t seed)
{
    a->begin_fault = (aw_seat_fault){AW_FAULT_NONE, ""};
    a->begin_name = a->inner->ops->begin(a->inner, agent, seed, &a->begin_fault);
    a->begun = true;
}

void aw_nlp_agent_answer(aw_nlp_agent *a, aw_buf *out, bool *has_reply, aw_seat_fault *f)
{
    *f = (aw_seat_fault){AW_FAULT_NONE, ""};
    *has_reply = aw_nlp_req_wants_reply(a->request) || a->chat_speak;
    bool chat = a->request >= AW_NLP_TALK_PHASE_START;
    if (chat && !a->chat_speak)
        return; /* the group chat: nothing to say now, the seat is not asked */
    if (a->request == AW_NLP_NAME) {
        if (!a->team && !a->begun)
            begin(a, 0, 0);
        const char *name = a->team ? a->team : a->begin_name;
        aw_nlp_one_line(name ? name : "aiwolf", strlen(name ? name : "aiwolf"), out);
        if (!a->team)
            *f = a->begin_fault;
        return;
    }
    if (a->request == AW_NLP_INITIALIZE || !a->begun) {
        /* the agent's own seed: from the game and its name, so a game
         * replays; nothing the server keeps secret goes into it */
        uint64_t seed = aw_fnv64(0xcbf29ce484222325ull, a->names[a->me], strlen(a->names[a->me]));
        if (a->profile)
            seed = aw_fnv64(seed, a->profile, strlen(a->profile));
        begin(a, a->me, seed);
    }
    aw_seat_reply r = {NULL, 0, AW_NO_AGENT};
    int src = -1;
    aw_req_kind kind = seat_kind(a->request);
    if (a->begin_name) {
        src = a->inner->ops->request(a->inner, kind, &a->info, &a->set, &r, f);
    } else {
        *f = a->begin_fault;
        if (f->kind == AW_FAULT_NONE) {
            f->kind = AW_FAULT_LOST;
            snprintf(f->msg, sizeof f->msg, "the agent failed to load at the start of the game");
        }
    }
    if (src < 0 && f->kind == AW_FAULT_NONE)
        f->kind = AW_FAULT_ERROR;
    if (!*has_reply)
        return;
    if (aw_req_wants_text(kind)) {
        if (src == 0 && r.text) {
            const aw_nlp_talk_setting *ts =
                !a->has_setting ? NULL : whisper_req(a->request) ? &a->nset.whisper : &a->nset.talk;
            size_t at = out->len;
            aw_nlp_render_talk(r.text, r.len, a->me, (const char *const *)a->names, a->n, a->nlp.lang, ts,
                               a->nlp.remain_length, out);
            if (chat && out->len - at == 4 && !memcmp(out->data + at, "Over", 4))
                a->chat_done = true; /* Over: nothing more today, whatever the server says */
        } else {
            aw_buf_adds(out, "Skip"); /* no answer: say nothing this turn (the server may make it Over) */
        }
        if (chat) {
            a->chat_waiting = true; /* until the server broadcasts it back */
            a->chat_heard = false;
            a->chat_speak = false;
        }
    } else if (src == 0 && r.target >= 1 && r.target <= a->n) {
        aw_buf_adds(out, a->names[r.target]);
    }
}
