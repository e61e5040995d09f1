/* nlp_server: the host side of the NLP division's WebSocket protocol (see
 * nlp_server.h). Uses jansson through wire_json.h. */
#include "nlp_server.h"

#include <stdio.h>
#include <string.h>

#include "nlprules.h"
#include "wire_json.h"

#define CHAT_QUEUE_MAX 16   /* talks an agent may send ahead of its turn in a group chat */
#define CHAT_DROP_MAX 4096  /* unasked messages past those (dropped) before it is put out */

void aw_nlp_srv_init(aw_nlp_srv *c)
{
    memset(c, 0, sizeof *c);
    aw_buf_init(&c->reply);
    aw_buf_init(&c->queue);
    c->awaiting = -1;
}

void aw_nlp_srv_free(aw_nlp_srv *c)
{
    aw_buf_free(&c->reply);
    aw_buf_free(&c->queue);
}

void aw_nlp_game_id(uint64_t ms, uint64_t rand_hi, uint64_t rand_lo, char out[27])
{
    static const char digits[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"; /* Crockford's base 32 */
    unsigned char b[16];
    for (int i = 0; i < 6; i++)
        b[i] = (unsigned char)(ms >> (40 - 8 * i));
    for (int i = 0; i < 2; i++)
        b[6 + i] = (unsigned char)(rand_hi >> (8 - 8 * i));
    for (int i = 0; i < 8; i++)
        b[8 + i] = (unsigned char)(rand_lo >> (56 - 8 * i));
    /* 26 digits of 5 bits: 130 bits, the first two zero */
    for (int d = 0; d < 26; d++) {
        unsigned v = 0;
        for (int k = 0; k < 5; k++) {
            int bit = d * 5 + k - 2; /* bit of b, from the top */
            v = v << 1 | (bit >= 0 ? (unsigned)(b[bit / 8] >> (7 - bit % 8)) & 1u : 0u);
        }
        out[d] = digits[v];
    }
    out[26] = '\0';
}

void aw_nlp_srv_reset(aw_nlp_srv *c, const char *game_id)
{
    snprintf(c->game_id, sizeof c->game_id, "%s", game_id ? game_id : "");
    c->talk_sent = c->whisper_sent = 0;
    c->awaiting = -1;
    c->late = 0;
    c->have_reply = false;
    c->reply.len = 0;
    c->set = NULL;
    c->n = 0;
    c->chat = 0;
    c->talk_cast = c->whisper_cast = 0;
    c->queue.len = 0;
    c->queued = 0;
    c->dropped = 0;
    c->after_chat = false;
    c->chat_over = false;
}

static void oset(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

/* Agent a as the agents know it: its character's name, or Agent[NN]. */
static json_t *jname(const aw_settings *s, int a)
{
    const char *c = aw_nlp_character(s, a);
    if (c)
        return json_string(c);
    char b[16];
    snprintf(b, sizeof b, "Agent[%02d]", a);
    return json_string(b);
}

static void name_key(const aw_settings *s, int a, char *out, size_t cap)
{
    const char *c = aw_nlp_character(s, a);
    if (c)
        snprintf(out, cap, "%s", c);
    else
        snprintf(out, cap, "Agent[%02d]", a);
}

static json_t *jjudge(const aw_settings *s, const aw_judge *j)
{
    json_t *o = json_object();
    oset(o, "day", json_integer(j->day));
    oset(o, "agent", jname(s, j->agent));
    oset(o, "target", jname(s, j->target));
    oset(o, "result", json_string(aw_species_name(j->result)));
    return o;
}

static json_t *jvotes(const aw_settings *s, const aw_vote *v, int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        oset(o, "day", json_integer(v[i].day));
        oset(o, "agent", jname(s, v[i].agent));
        oset(o, "target", jname(s, v[i].target));
        json_array_append_new(arr, o);
    }
    return arr;
}

static bool is(const aw_talk *t, const char *w)
{
    return t->text && t->len == strlen(w) && memcmp(t->text, w, t->len) == 0;
}

/* What an NLP agent reads of talk t in a game of n players: a protocol
 * sentence (a Lua seat's "VOTE Agent[02]") rendered in the game's language
 * with the characters' names and cut to the game's length rule, as
 * `connect --nlp` renders its agents' sentences; any other text as the log
 * holds it. */
static json_t *jtext(const aw_settings *s, int players, const aw_talk *t)
{
    const char *text = t->text ? t->text : "";
    size_t len = t->text ? t->len : 0;
    const char *names[AW_MAX_PLAYERS + 1] = {NULL};
    if (players > AW_MAX_PLAYERS)
        players = AW_MAX_PLAYERS;
    for (int a = 1; a <= players; a++)
        names[a] = aw_nlp_character(s, a);
    aw_buf r;
    aw_buf_init(&r);
    json_t *j;
    if (aw_nlp_render(text, len, t->agent, names, players, aw_nlp_lang(s), &r)) {
        aw_buf cut;
        aw_buf_init(&cut);
        aw_nlp_cut(s, players, t->agent, r.data ? r.data : "", r.len, &cut);
        j = aw_wire_json_text(cut.data ? cut.data : "", cut.len);
        aw_buf_free(&cut);
    } else {
        j = aw_wire_json_text(text, len);
    }
    aw_buf_free(&r);
    return j;
}

/* A game whose talk or whisper is a group chat (aiwolf-nlp-common 0.7.0). */
static bool chat_game(const aw_settings *s)
{
    return s->talk_duration > 0 || s->whisper_duration > 0;
}

/* One talk as the agents get it. Under a group chat every talk has the
 * 0.7.0 server's "time" (Unix ms), which here is 0: the clock stays the
 * server's (an agent learns nothing from when others talked). */
static json_t *jtalk(const aw_settings *s, int players, const aw_talk *t)
{
    json_t *o = json_object();
    oset(o, "idx", json_integer(t->idx));
    oset(o, "day", json_integer(t->day));
    oset(o, "turn", json_integer(t->turn));
    oset(o, "agent", jname(s, t->agent));
    oset(o, "text", jtext(s, players, t));
    oset(o, "skip", json_boolean(is(t, "Skip")));
    oset(o, "over", json_boolean(is(t, "Over")));
    if (chat_game(s))
        oset(o, "time", json_integer(0));
    return o;
}

/* The entries of list[0..n) not sent yet (from *sent on), and *sent moved
 * past them; players: the game's. */
static json_t *jhistory(const aw_settings *s, int players, const aw_talk *list, int n, int *sent)
{
    json_t *arr = json_array();
    int from = *sent <= n ? *sent : 0;
    for (int i = from; i < n; i++)
        json_array_append_new(arr, jtalk(s, players, &list[i]));
    *sent = n;
    return arr;
}

/* The profile INITIALIZE carries for agent a, or NULL. */
static const char *profile_of(const aw_nlp_srv *c, const aw_settings *s, int a)
{
    const char *p = c->profiles && a >= 1 && a <= AW_MAX_PLAYERS ? c->profiles[a] : NULL;
    if (!p)
        p = aw_nlp_profile(s, a);
    return p && *p ? p : NULL;
}

static json_t *jinfo(const aw_nlp_srv *c, int request, const aw_info *v, const aw_settings *s)
{
    json_t *o = json_object();
    oset(o, "game_id", json_string(c->game_id));
    oset(o, "day", json_integer(v->day));
    oset(o, "agent", jname(s, v->agent));
    const char *profile = request == AW_REQ_INITIALIZE ? profile_of(c, s, v->agent) : NULL;
    if (profile)
        oset(o, "profile", aw_wire_json_text(profile, strlen(profile)));
    if (v->medium_result.agent)
        oset(o, "medium_result", jjudge(s, &v->medium_result));
    if (v->divine_result.agent)
        oset(o, "divine_result", jjudge(s, &v->divine_result));
    if (v->executed)
        oset(o, "executed_agent", jname(s, v->executed));
    /* who died in the night is public (the attack that killed) */
    if (v->nlast_dead > 0)
        oset(o, "attacked_agent", jname(s, v->last_dead[0]));
    if (v->nvotes)
        oset(o, "vote_list", jvotes(s, v->votes, v->nvotes));
    if (v->nattack_votes)
        oset(o, "attack_vote_list", jvotes(s, v->attack_votes, v->nattack_votes));
    json_t *sm = json_object(), *rm = json_object();
    for (int a = 1; a <= v->n; a++) {
        char k[64];
        name_key(s, a, k, sizeof k);
        oset(sm, k, json_string(v->alive[a] ? "ALIVE" : "DEAD"));
        if (v->role[a] != AW_ROLE_NONE)
            oset(rm, k, json_string(aw_role_name(v->role[a])));
    }
    oset(o, "status_map", sm);
    oset(o, "role_map", rm);
    if (request == AW_REQ_TALK || request == AW_REQ_WHISPER) {
        const int *remain = request == AW_REQ_TALK ? v->remain_talk : v->remain_whisper;
        int r = v->agent >= 1 && v->agent <= v->n ? remain[v->agent] : -1;
        oset(o, "remain_count", json_integer(r >= 0 ? r : 0));
        oset(o, "remain_skip", json_integer(s->max_skip > 0 ? s->max_skip : 0));
    }
    return o;
}

static json_t *jtalk_setting(const aw_settings *s, int per_agent, int turns, int duration)
{
    json_t *t = json_object(), *count = json_object(), *len = json_object();
    oset(count, "per_agent", json_integer(per_agent));
    oset(count, "per_day", json_integer(turns)); /* rounds of the talk, as the official server counts */
    oset(t, "max_count", count);
    if (s->talk_length > 0 || s->mention_length > 0) {
        oset(len, "count_in_word", json_false());
        oset(len, "count_spaces", json_false());
        if (s->mention_length > 0)
            oset(len, "mention_length", json_integer(s->mention_length));
        if (s->talk_length > 0)
            oset(len, "base_length", json_integer(s->talk_length));
    }
    oset(t, "max_length", len);
    oset(t, "max_skip", json_integer(s->max_skip > 0 ? s->max_skip : 0));
    if (duration > 0)
        oset(t, "duration", json_integer(duration)); /* a group chat (0.7.0) */
    return t;
}

static json_t *jsetting(const aw_settings *s)
{
    json_t *o = json_object();
    oset(o, "agent_count", json_integer(s->players));
    if (s->max_days > 0)
        oset(o, "max_day", json_integer(s->max_days));
    /* The NLP format's six roles always (its agents know no others: a
     * role that is not in its Role enum breaks them), any other only when
     * the game deals it. */
    static const char *const nlp_roles[] = {"WEREWOLF", "POSSESSED", "SEER", "BODYGUARD", "VILLAGER", "MEDIUM"};
    json_t *rn = json_object();
    for (int r = 0; r < AW_NROLES; r++) {
        bool listed = false;
        for (size_t k = 0; k < sizeof nlp_roles / sizeof *nlp_roles; k++)
            listed |= strcmp(nlp_roles[k], aw_role_name((aw_role)r)) == 0;
        if (listed || s->role_count[r] > 0)
            oset(rn, aw_role_name((aw_role)r), json_integer(s->role_count[r]));
    }
    oset(o, "role_num_map", rn);
    oset(o, "vote_visibility", json_boolean(s->vote_visible));
    oset(o, "talk", jtalk_setting(s, s->max_talk, s->max_talk_turn, s->talk_duration));
    oset(o, "whisper", jtalk_setting(s, s->max_whisper, s->max_whisper_turn, s->whisper_duration));
    json_t *vote = json_object(), *attack = json_object(), *timeout = json_object();
    oset(vote, "max_count", json_integer(s->max_revote));
    oset(vote, "allow_self_vote", json_false());
    oset(o, "vote", vote);
    oset(attack, "max_count", json_integer(s->max_attack_revote));
    oset(attack, "allow_self_vote", json_false());
    oset(attack, "allow_no_target", json_boolean(s->enable_no_attack));
    oset(o, "attack_vote", attack);
    oset(timeout, "action", json_integer(s->time_limit_ms));
    oset(timeout, "response", json_integer(s->time_limit_ms));
    oset(o, "timeout", timeout);
    return o;
}

/* ---- the group chat (aiwolf-nlp-common 0.7.0) ---- */

/* The phase request is under s: AW_REQ_TALK or AW_REQ_WHISPER when it
 * asks for a talk of a group chat, else 0. */
static int chat_phase(const aw_settings *s, int request)
{
    if (request == AW_REQ_TALK && s->talk_duration > 0)
        return AW_REQ_TALK;
    if (request == AW_REQ_WHISPER && s->whisper_duration > 0)
        return AW_REQ_WHISPER;
    return 0;
}

/* Appends packet p (consumed) to out as one more message: after a NUL
 * byte when out (from base on) holds one already. */
static int emit(json_t *p, aw_buf *out, size_t base, aw_seat_fault *fault)
{
    if (out->len > base)
        aw_buf_addc(out, '\0');
    aw_error err;
    if (aw_wire_json_dump(p, out, &err) < 0) {
        fault->kind = AW_FAULT_ERROR;
        snprintf(fault->msg, sizeof fault->msg, "%s", err.msg);
        return -1;
    }
    return 0;
}

static json_t *packet(const char *request)
{
    json_t *p = json_object();
    oset(p, "request", json_string(request));
    return p;
}

/* TALK_BROADCAST (WHISPER_BROADCAST) for each talk of the day the agent
 * has not been sent in one. */
static int chat_cast(aw_nlp_srv *c, int phase, const aw_info *info, const aw_settings *set, aw_buf *out,
                     size_t base, aw_seat_fault *fault)
{
    bool wh = phase == AW_REQ_WHISPER;
    const aw_talk *list = wh ? info->whispers : info->talks;
    int n = wh ? info->nwhispers : info->ntalks, *cast = wh ? &c->whisper_cast : &c->talk_cast;
    if (!list || *cast > n)
        return 0;
    for (; *cast < n; (*cast)++) {
        json_t *p = packet(wh ? "WHISPER_BROADCAST" : "TALK_BROADCAST");
        oset(p, "info", jinfo(c, phase, info, set));
        oset(p, wh ? "new_whisper" : "new_talk", jtalk(set, info->n, &list[*cast]));
        if (emit(p, out, base, fault) < 0)
            return -1;
    }
    return 0;
}

/* The phase is over for the agent: what it has not heard of it, then
 * TALK_PHASE_END (WHISPER_PHASE_END); the talks it queued go. */
static int chat_end(aw_nlp_srv *c, const aw_info *info, const aw_settings *set, aw_buf *out, size_t base,
                    aw_seat_fault *fault)
{
    int phase = c->chat;
    c->chat = 0;
    c->after_chat = true;
    c->dropped += c->queued;
    c->queued = 0;
    c->queue.len = 0;
    if (chat_cast(c, phase, info, set, out, base, fault) < 0)
        return -1;
    json_t *p = packet(phase == AW_REQ_WHISPER ? "WHISPER_PHASE_END" : "TALK_PHASE_END");
    oset(p, "info", jinfo(c, -1, info, set));
    return emit(p, out, base, fault);
}

/* The agent's turn in the phase: TALK_PHASE_START at its first, what it
 * has not heard; its answer is the next talk it sends (or one queued). */
static int chat_turn(aw_nlp_srv *c, int phase, const aw_info *info, const aw_settings *set, aw_buf *out,
                     size_t base, aw_seat_fault *fault)
{
    if (c->chat != phase) {
        c->chat = phase;
        c->chat_over = false;
        json_t *p = packet(phase == AW_REQ_WHISPER ? "WHISPER_PHASE_START" : "TALK_PHASE_START");
        oset(p, "info", jinfo(c, phase, info, set));
        if (emit(p, out, base, fault) < 0)
            return -1;
    }
    if (chat_cast(c, phase, info, set, out, base, fault) < 0)
        return -1;
    c->awaiting = phase;
    c->have_reply = false;
    if (c->chat_over) {
        /* Over ends its talking for the phase (the official server asks
         * it no more; the engine asks every agent each turn) */
        c->reply.len = 0;
        aw_buf_adds(&c->reply, "Over");
        c->have_reply = true;
    } else if (c->queued > 0) {
        /* the first talk queued is the answer */
        size_t len = strlen(c->queue.data);
        c->reply.len = 0;
        aw_buf_add(&c->reply, c->queue.data, len);
        memmove(c->queue.data, c->queue.data + len + 1, c->queue.len - len - 1);
        c->queue.len -= len + 1;
        c->queued--;
        c->have_reply = true;
    }
    return 0;
}

bool aw_nlp_srv_ready(const aw_nlp_srv *c)
{
    return c->awaiting >= 0 && c->have_reply;
}

int aw_nlp_srv_send(aw_nlp_srv *c, int request, const aw_info *info, const aw_settings *set, aw_buf *out,
                    aw_seat_fault *fault)
{
    size_t base = out->len;
    const char *rname = aw_wire_request_name(request);
    if (request != AW_WIRE_REQ_NAME && info && set) {
        c->set = set;
        c->n = info->n;
        int phase = chat_phase(set, request);
        if (c->chat && c->chat != phase && chat_end(c, info, set, out, base, fault) < 0)
            return -1;
        if (request == AW_REQ_INITIALIZE || request == AW_REQ_DAILY_INITIALIZE) {
            c->talk_cast = c->whisper_cast = 0;
            c->after_chat = false; /* what was late is surely in by a new day */
        }
        if (phase)
            return chat_turn(c, phase, info, set, out, base, fault);
    }
    json_t *p = packet(rname ? rname : "?");
    if (request != AW_WIRE_REQ_NAME && info && set) {
        if (request == AW_REQ_INITIALIZE || request == AW_REQ_DAILY_INITIALIZE)
            c->talk_sent = c->whisper_sent = 0;
        oset(p, "info", jinfo(c, request, info, set));
        if (request == AW_REQ_INITIALIZE || request == AW_REQ_DAILY_INITIALIZE)
            oset(p, "setting", jsetting(set));
        bool wolf_view = info->whispers != NULL;
        if (request == AW_REQ_TALK || request == AW_REQ_DAILY_FINISH)
            oset(p, "talk_history", jhistory(set, info->n, info->talks, info->ntalks, &c->talk_sent));
        if (request == AW_REQ_WHISPER || request == AW_REQ_ATTACK || (request == AW_REQ_DAILY_FINISH && wolf_view))
            oset(p, "whisper_history", jhistory(set, info->n, info->whispers, info->nwhispers, &c->whisper_sent));
    }
    if (emit(p, out, base, fault) < 0)
        return -1;
    if (aw_wire_request_has_reply(request)) {
        c->awaiting = request;
        c->have_reply = false;
    }
    return 0;
}

/* An answer as the log keeps it: line breaks go, as the official server
 * drops "\n", and tabs become spaces (one line a talk). */
static void add_line(aw_buf *b, const char *msg, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char ch = msg[i];
        if (ch != '\n' && ch != '\r')
            aw_buf_addc(b, ch == '\t' ? ' ' : ch);
    }
}

/* Only white space (what the official server's TrimSpace leaves empty,
 * in ASCII): a group chat ignores it. */
static bool blank(const char *msg, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (msg[i] != ' ' && msg[i] != '\t' && msg[i] != '\n' && msg[i] != '\r' && msg[i] != '\v' && msg[i] != '\f')
            return false;
    return true;
}

static void trim(const char **s, size_t *len);

/* After a group chat, while a target is owed: msg is no agent's name, so a
 * late talk rather than the answer. */
static bool late_talk(const aw_nlp_srv *c, const char *msg, size_t len)
{
    int r = c->awaiting;
    if (!c->set || !(r == AW_REQ_VOTE || r == AW_REQ_DIVINE || r == AW_REQ_GUARD || r == AW_REQ_ATTACK))
        return false;
    trim(&msg, &len);
    return !aw_nlp_agent_of(c->set, c->n, msg, len);
}

int aw_nlp_srv_feed(aw_nlp_srv *c, const char *msg, size_t len, aw_seat_fault *fault)
{
    if (c->late > 0) {
        c->late--;
        return 0;
    }
    bool owed = c->awaiting >= 0 && !c->have_reply;
    if ((c->chat || c->after_chat) && (!owed || c->chat) && blank(msg, len))
        return 0; /* the group chat ignores an empty talk */
    if (!owed && (c->chat || c->after_chat)) {
        /* a talk before the agent's turn: queued for it (one with a NUL,
         * which would split the queue, is dropped); past the queue, or
         * once the phase is over, dropped, as the official server refuses
         * talks past the count and drains what is left at the phase's end */
        if (c->chat && c->queued < CHAT_QUEUE_MAX && !memchr(msg, '\0', len)) {
            add_line(&c->queue, msg, len);
            aw_buf_addc(&c->queue, '\0');
            c->queued++;
            return 0;
        }
        if (++c->dropped > CHAT_DROP_MAX) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "sent more than %d talks nobody could take", CHAT_DROP_MAX);
            return -1;
        }
        return 0;
    }
    if (!owed) {
        fault->kind = AW_FAULT_REPLY;
        snprintf(fault->msg, sizeof fault->msg, "sent a message nobody asked for");
        return -1;
    }
    if (c->after_chat && late_talk(c, msg, len)) {
        /* a talk of the phase that came after its end (sent before the
         * agent heard TALK_PHASE_END: the engine may have ended the phase
         * while the rest of a burst was on its way), not the answer */
        if (++c->dropped > CHAT_DROP_MAX) {
            fault->kind = AW_FAULT_REPLY;
            snprintf(fault->msg, sizeof fault->msg, "sent more than %d talks nobody could take", CHAT_DROP_MAX);
            return -1;
        }
        return 0;
    }
    c->reply.len = 0;
    add_line(&c->reply, msg, len);
    c->have_reply = true;
    return 1;
}

void aw_nlp_srv_expire(aw_nlp_srv *c)
{
    /* in a group chat a talk that comes late is the next turn's (queued) */
    if (c->awaiting >= 0 && !c->have_reply && !c->chat)
        c->late++;
    c->awaiting = -1;
    c->have_reply = false;
}

static void trim(const char **s, size_t *len)
{
    while (*len && ((*s)[0] == ' ' || (*s)[0] == '\t'))
        (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
        (*len)--;
}

int aw_nlp_srv_reply(aw_nlp_srv *c, int request, aw_seat_reply *reply, aw_seat_fault *fault)
{
    const char *t = c->reply.data ? c->reply.data : "";
    size_t len = c->reply.len;
    c->awaiting = -1;
    c->have_reply = false;
    reply->text = NULL;
    reply->len = 0;
    reply->target = AW_NO_AGENT;
    bool target = request == AW_REQ_VOTE || request == AW_REQ_DIVINE || request == AW_REQ_GUARD ||
                  request == AW_REQ_ATTACK;
    if (!target) {
        if (request == AW_REQ_TALK || request == AW_REQ_WHISPER) {
            if (len == 9 && memcmp(t, "ForceSkip", 9) == 0)
                t = "Skip", len = 4;
            if (c->chat && len == 4 && memcmp(t, "Over", 4) == 0)
                c->chat_over = true;
        } else {
            trim(&t, &len); /* NAME */
        }
        reply->text = len ? t : NULL;
        reply->len = len;
        return 0;
    }
    trim(&t, &len);
    int a = c->set ? aw_nlp_agent_of(c->set, c->n, t, len) : 0;
    if (!a) {
        fault->kind = AW_FAULT_REPLY;
        aw_buf b;
        aw_buf_init(&b);
        aw_buf_add_term(&b, t, len < 64 ? len : 64);
        snprintf(fault->msg, sizeof fault->msg, "no agent is called \"%.*s\"", (int)(b.len < 100 ? b.len : 100),
                 b.data ? b.data : "");
        aw_buf_free(&b);
        return -1;
    }
    reply->target = a;
    return 0;
}
