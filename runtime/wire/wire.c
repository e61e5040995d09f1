/* wire: the official AIWolf wire format (see wire.h). JSON trees are built
 * with jansson in the order the official server writes keys (jansson keeps
 * insertion order), then dumped compact; decoding checks every field's type
 * and range before anything reaches a seat. */
#include "wire.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "wire_json.h"

/* ---- names ---------------------------------------------------------------- */

/* The engine's requests keep the engine's names (aw_req_name); the wire
 * adds the two that happen before a game: NAME and ROLE. */
const char *aw_wire_request_name(int request)
{
    if (request == AW_WIRE_REQ_NAME)
        return "NAME";
    if (request == AW_WIRE_REQ_ROLE)
        return "ROLE";
    if (request <= AW_REQ_NONE || request > AW_REQ_FINISH)
        return NULL;
    return aw_req_name((aw_req_kind)request);
}

int aw_wire_request_parse(const char *s)
{
    if (strcmp(s, "NAME") == 0)
        return AW_WIRE_REQ_NAME;
    if (strcmp(s, "ROLE") == 0)
        return AW_WIRE_REQ_ROLE;
    for (int r = AW_REQ_INITIALIZE; r <= AW_REQ_FINISH; r++)
        if (strcmp(aw_req_name((aw_req_kind)r), s) == 0)
            return r;
    return -1;
}

bool aw_wire_request_has_reply(int request)
{
    if (request == AW_WIRE_REQ_NAME || request == AW_WIRE_REQ_ROLE)
        return true;
    if (request <= AW_REQ_NONE || request > AW_REQ_FINISH)
        return false;
    return aw_req_needs_reply((aw_req_kind)request);
}

/* roleNumMap comes in the iteration order of the official server's HashMap
 * (the same in every recording): a fact of the wire format, not of the
 * roles. A role of the table the official server does not know follows in
 * enum order. */
static const char *const role_num_order[] = {"FREEMASON", "SEER",      "VILLAGER", "POSSESSED", "ANY",
                                             "FOX",       "BODYGUARD", "MEDIUM",   "WEREWOLF"};
#define NROLE_NUM_ORDER (sizeof role_num_order / sizeof role_num_order[0])

static bool role_num_listed(aw_role r)
{
    for (size_t i = 0; i < NROLE_NUM_ORDER; i++)
        if (strcmp(aw_role_name(r), role_num_order[i]) == 0)
            return true;
    return false;
}

/* ---- settings ------------------------------------------------------------- */

void aw_wire_setting_from(aw_wire_setting *w, const aw_settings *s, uint64_t agent_seed)
{
    memset(w, 0, sizeof *w);
    w->enable_no_attack = s->enable_no_attack;
    w->enable_no_execution = s->enable_no_execution;
    w->enable_role_request = false; /* roles are dealt by the engine; nobody is asked */
    w->talk_on_first_day = s->talk_on_first_day;
    w->validate_utterance = s->validation != AW_VALIDATE_OFF;
    w->votable_in_first_day = false;
    w->vote_visible = s->vote_visible;
    w->whisper_before_revote = s->whisper_before_revote;
    w->max_attack_revote = s->max_attack_revote;
    w->max_revote = s->max_revote;
    w->max_skip = s->max_skip;
    w->max_talk = s->max_talk;
    w->max_talk_turn = s->max_talk_turn;
    w->max_whisper = s->max_whisper;
    w->max_whisper_turn = s->max_whisper_turn;
    w->player_num = s->players;
    w->time_limit = s->time_limit_ms;
    /* The official field is a Java long: the same 64 bits, read as signed. */
    w->random_seed = (int64_t)agent_seed;
    memcpy(w->role_num, s->role_count, sizeof w->role_num);
    w->role_num_any = 0;
}

int aw_wire_setting_apply(const aw_wire_setting *w, aw_settings *s, aw_error *err)
{
    s->enable_no_attack = w->enable_no_attack;
    s->enable_no_execution = w->enable_no_execution;
    s->talk_on_first_day = w->talk_on_first_day;
    if (!w->validate_utterance)
        s->validation = AW_VALIDATE_OFF;
    else if (s->validation == AW_VALIDATE_OFF)
        s->validation = AW_VALIDATE_STRICT;
    s->vote_visible = w->vote_visible;
    s->whisper_before_revote = w->whisper_before_revote;
    s->max_attack_revote = w->max_attack_revote;
    s->max_revote = w->max_revote;
    s->max_skip = w->max_skip;
    s->max_talk = w->max_talk;
    s->max_talk_turn = w->max_talk_turn;
    s->max_whisper = w->max_whisper;
    s->max_whisper_turn = w->max_whisper_turn;
    s->players = w->player_num;
    if (w->time_limit > 0)
        s->time_limit_ms = w->time_limit;
    memcpy(s->role_count, w->role_num, sizeof s->role_count);
    return aw_settings_check(s, err);
}

/* ---- encoding ------------------------------------------------------------- */

static void oset(json_t *o, const char *key, json_t *v)
{
    json_object_set_new(o, key, v ? v : json_null());
}

/* Text from agents may hold bytes that are not UTF-8 (with validation off);
 * jansson refuses those, so they become U+FFFD. */
static json_t *jtext(const char *s, size_t len)
{
    json_t *j = json_stringn(s, len);
    if (j)
        return j;
    aw_buf b;
    aw_buf_init(&b);
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        size_t n = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        json_t *probe = n && i + n <= len ? json_stringn(s + i, n) : NULL;
        if (probe && c != 0) {
            aw_buf_add(&b, s + i, n);
            i += n;
        } else {
            aw_buf_adds(&b, "\xEF\xBF\xBD");
            i++;
        }
        json_decref(probe);
    }
    j = json_stringn(b.data, b.len);
    aw_buf_free(&b);
    return j;
}

static json_t *jagent(int a)
{
    return json_integer(a > 0 ? a : -1);
}

static json_t *jtalks(const aw_talk *t, int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        oset(o, "agent", json_integer(t[i].agent));
        oset(o, "day", json_integer(t[i].day));
        oset(o, "idx", json_integer(t[i].idx));
        oset(o, "text", jtext(t[i].text ? t[i].text : "", t[i].text ? t[i].len : 0));
        oset(o, "turn", json_integer(t[i].turn));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *jvotes(const aw_vote *v, int n)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        oset(o, "agent", json_integer(v[i].agent));
        oset(o, "day", json_integer(v[i].day));
        oset(o, "target", json_integer(v[i].target));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *jjudge(const aw_judge *j)
{
    if (!j->agent)
        return json_null();
    json_t *o = json_object();
    oset(o, "agent", json_integer(j->agent));
    oset(o, "day", json_integer(j->day));
    oset(o, "result", json_string(aw_species_name(j->result)));
    oset(o, "target", json_integer(j->target));
    return o;
}

/* A map keyed by agent, in ascending order as the official server writes it. */
static json_t *jmap_int(const int *vals, int n)
{
    json_t *o = json_object();
    for (int a = 1; a <= n; a++)
        if (vals[a] >= 0) {
            char k[16];
            snprintf(k, sizeof k, "%d", a);
            oset(o, k, json_integer(vals[a]));
        }
    return o;
}

static void role_entry(json_t *rm, const aw_info *v, int a)
{
    char k[16];
    snprintf(k, sizeof k, "%d", a);
    oset(rm, k, json_string(aw_role_name(v->role[a])));
}

/* own_first: the official server lists the receiver's own role first in
 * roleMap and then its fellows; only FINISH lists every role by index. */
static json_t *jinfo(const aw_info *v, int cursed_fox, const aw_talk *whispers, int nwhispers, bool own_first)
{
    json_t *o = json_object();
    oset(o, "agent", json_integer(v->agent));
    oset(o, "attackVoteList", jvotes(v->attack_votes, v->nattack_votes));
    oset(o, "attackedAgent", jagent(v->attacked));
    oset(o, "cursedFox", jagent(cursed_fox));
    oset(o, "day", json_integer(v->day));
    oset(o, "divineResult", jjudge(&v->divine_result));
    oset(o, "executedAgent", jagent(v->executed));
    json_t *roles = json_array();
    aw_role by_name[AW_NROLES]; /* existingRoleList is sorted by name */
    aw_roles_by_name(by_name);
    for (int i = 0; i < AW_NROLES; i++)
        if (v->existing_role[by_name[i]])
            json_array_append_new(roles, json_string(aw_role_name(by_name[i])));
    oset(o, "existingRoleList", roles);
    oset(o, "guardedAgent", jagent(v->guarded));
    json_t *dead = json_array();
    for (int i = 0; i < v->nlast_dead; i++)
        json_array_append_new(dead, json_integer(v->last_dead[i]));
    oset(o, "lastDeadAgentList", dead);
    oset(o, "latestAttackVoteList", jvotes(v->latest_attack_votes, v->nlatest_attack_votes));
    oset(o, "latestExecutedAgent", jagent(v->latest_executed));
    oset(o, "latestVoteList", jvotes(v->latest_votes, v->nlatest_votes));
    oset(o, "mediumResult", jjudge(&v->medium_result));
    oset(o, "remainTalkMap", jmap_int(v->remain_talk, v->n));
    oset(o, "remainWhisperMap", jmap_int(v->remain_whisper, v->n));
    json_t *rm = json_object();
    bool own = own_first && v->agent >= 1 && v->agent <= v->n && v->role[v->agent] != AW_ROLE_NONE;
    if (own)
        role_entry(rm, v, v->agent);
    for (int a = 1; a <= v->n; a++)
        if (v->role[a] != AW_ROLE_NONE && !(own && a == v->agent))
            role_entry(rm, v, a);
    oset(o, "roleMap", rm);
    json_t *sm = json_object();
    for (int a = 1; a <= v->n; a++) {
        char k[16];
        snprintf(k, sizeof k, "%d", a);
        oset(sm, k, json_string(v->alive[a] ? "ALIVE" : "DEAD"));
    }
    oset(o, "statusMap", sm);
    oset(o, "talkList", jtalks(v->talks, v->ntalks));
    oset(o, "voteList", jvotes(v->votes, v->nvotes));
    oset(o, "whisperList", jtalks(whispers, nwhispers));
    return o;
}

static json_t *jsetting(const aw_wire_setting *w)
{
    json_t *o = json_object();
    oset(o, "enableNoAttack", json_boolean(w->enable_no_attack));
    oset(o, "enableNoExecution", json_boolean(w->enable_no_execution));
    oset(o, "enableRoleRequest", json_boolean(w->enable_role_request));
    oset(o, "maxAttackRevote", json_integer(w->max_attack_revote));
    oset(o, "maxRevote", json_integer(w->max_revote));
    oset(o, "maxSkip", json_integer(w->max_skip));
    oset(o, "maxTalk", json_integer(w->max_talk));
    oset(o, "maxTalkTurn", json_integer(w->max_talk_turn));
    oset(o, "maxWhisper", json_integer(w->max_whisper));
    oset(o, "maxWhisperTurn", json_integer(w->max_whisper_turn));
    oset(o, "playerNum", json_integer(w->player_num));
    oset(o, "randomSeed", json_integer((json_int_t)w->random_seed));
    json_t *rn = json_object();
    for (size_t i = 0; i < NROLE_NUM_ORDER; i++) {
        aw_role r = aw_role_parse(role_num_order[i]);
        if (strcmp(role_num_order[i], "ANY") == 0)
            oset(rn, "ANY", json_integer(w->role_num_any));
        else if (r != AW_ROLE_NONE)
            oset(rn, role_num_order[i], json_integer(w->role_num[r]));
    }
    for (int r = 0; r < AW_NROLES; r++)
        if (!role_num_listed((aw_role)r))
            oset(rn, aw_role_name((aw_role)r), json_integer(w->role_num[r]));
    oset(o, "roleNumMap", rn);
    oset(o, "talkOnFirstDay", json_boolean(w->talk_on_first_day));
    oset(o, "timeLimit", json_integer(w->time_limit));
    oset(o, "validateUtterance", json_boolean(w->validate_utterance));
    oset(o, "votableInFirstDay", json_boolean(w->votable_in_first_day));
    oset(o, "voteVisible", json_boolean(w->vote_visible));
    oset(o, "whisperBeforeRevote", json_boolean(w->whisper_before_revote));
    return o;
}

/* Dumps a packet (which it consumes) compactly, with `<` and `>` written as
 * the official server does; neither byte can occur outside a string. */
static int dump(json_t *packet, aw_buf *out, aw_error *err)
{
    char *s = packet ? json_dumps(packet, JSON_COMPACT) : NULL;
    json_decref(packet);
    if (!s)
        return aw_fail(err, AW_ENOMEM, "cannot encode the packet");
    for (const char *p = s; *p;) {
        size_t run = strcspn(p, "<>");
        aw_buf_add(out, p, run);
        p += run;
        if (*p) {
            aw_buf_adds(out, *p == '<' ? "\\u003C" : "\\u003E");
            p++;
        }
    }
    free(s);
    return 0;
}

static json_t *jpacket(int request, json_t *info, json_t *setting, json_t *talks, json_t *whispers)
{
    json_t *o = json_object();
    oset(o, "gameInfo", info);
    oset(o, "gameSetting", setting);
    oset(o, "request", json_string(aw_wire_request_name(request)));
    oset(o, "talkHistory", talks);
    oset(o, "whisperHistory", whispers);
    return o;
}

int aw_wire_encode_packet(const aw_wire_packet *p, aw_buf *out, aw_error *err)
{
    if (!aw_wire_request_name(p->request))
        return aw_fail(err, AW_EINVAL, "unknown request %d", p->request);
    json_t *info =
        p->has_info ? jinfo(&p->info.v, p->info.cursed_fox, p->info.whisper_store, p->info.nwhisper_store,
                                   p->request != AW_REQ_FINISH) : NULL;
    json_t *setting = p->has_setting ? jsetting(&p->setting) : NULL;
    json_t *talks = p->has_talk_history ? jtalks(p->talk_history, p->ntalk_history) : NULL;
    json_t *whispers = p->has_whisper_history ? jtalks(p->whisper_history, p->nwhisper_history) : NULL;
    return dump(jpacket(p->request, info, setting, talks, whispers), out, err);
}

void aw_wire_cursor_reset(aw_wire_cursor *c)
{
    c->talk = c->whisper = -1;
    c->role_request = false;
}

/* The official server's "minimize": the entries from the cursor on, unless
 * the list is shorter than the cursor (then all of it); the cursor moves to
 * the end either way. */
static json_t *minimize(int *cursor, const aw_talk *t, int n)
{
    int from = *cursor >= 0 && n >= *cursor ? *cursor : 0;
    *cursor = n;
    return jtalks(t + from, n - from);
}

int aw_wire_encode_request(aw_wire_cursor *c, int request, const aw_info *info, const aw_settings *set,
                           uint64_t agent_seed, aw_buf *out, aw_error *err)
{
    if (!aw_wire_request_name(request))
        return aw_fail(err, AW_EINVAL, "unknown request %d", request);
    if (request == AW_WIRE_REQ_NAME || request == AW_WIRE_REQ_ROLE)
        return dump(jpacket(request, NULL, NULL, NULL, NULL), out, err);
    if (!info)
        return aw_fail(err, AW_EINVAL, "%s needs a gameInfo", aw_wire_request_name(request));
    const aw_talk *wh = info->whispers;
    int nwh = info->whispers ? info->nwhispers : 0;
    if (request == AW_REQ_INITIALIZE || request == AW_REQ_DAILY_INITIALIZE) {
        bool role_request = c->role_request; /* the seat's, not the day's */
        aw_wire_cursor_reset(c);
        c->role_request = role_request;
        json_t *setting = NULL;
        if (request == AW_REQ_INITIALIZE) {
            if (!set)
                return aw_fail(err, AW_EINVAL, "INITIALIZE needs the settings");
            aw_wire_setting w;
            aw_wire_setting_from(&w, set, agent_seed);
            w.enable_role_request = c->role_request;
            setting = jsetting(&w);
        }
        return dump(jpacket(request, jinfo(info, 0, wh, nwh, true), setting, NULL, NULL), out, err);
    }
    /* The official server sends a whole gameInfo to a revote (so the agent
     * sees the latest round), and after today's execution to the night's
     * requests (so it sees latestExecutedAgent); everything else gets only
     * the talk and whisper entries it has not been sent. A full gameInfo
     * does not move the cursor. */
    bool full = request == AW_REQ_FINISH;
    if (request == AW_REQ_VOTE && info->nlatest_votes > 0)
        full = true;
    if (request == AW_REQ_ATTACK && info->nlatest_attack_votes > 0)
        full = true;
    if (info->latest_executed > 0 && (request == AW_REQ_DIVINE || request == AW_REQ_GUARD ||
                                      request == AW_REQ_WHISPER || request == AW_REQ_ATTACK))
        full = true;
    if (full)
        return dump(jpacket(request, jinfo(info, 0, wh, nwh, request != AW_REQ_FINISH), NULL, NULL, NULL), out, err);
    json_t *talks = minimize(&c->talk, info->talks, info->ntalks);
    json_t *whispers = minimize(&c->whisper, wh, nwh);
    return dump(jpacket(request, NULL, NULL, talks, whispers), out, err);
}

/* ---- decoding ------------------------------------------------------------- */

static void free_talks(aw_talk *t, int n, void (*free_parsed)(void *, void *), void *ud)
{
    for (int i = 0; i < n; i++) {
        free(t[i].text);
        if (t[i].parsed && free_parsed)
            free_parsed(ud, t[i].parsed);
    }
    free(t);
}

static void info_free(aw_wire_info *w, void (*free_parsed)(void *, void *), void *ud)
{
    free_talks(w->talk_store, w->v.ntalks, free_parsed, ud);
    free_talks(w->whisper_store, w->nwhisper_store, free_parsed, ud);
    memset(w, 0, sizeof *w);
}

/* Points the aw_info view at this struct's own arrays. */
static void info_fix(aw_wire_info *w)
{
    w->v.talks = w->talk_store;
    w->v.whispers = aw_role_is_wolf(w->v.my_role) ? w->whisper_store : NULL;
    w->v.nwhispers = w->v.whispers ? w->nwhisper_store : 0;
    w->v.votes = w->votes;
    w->v.latest_votes = w->latest_votes;
    w->v.attack_votes = w->attack_votes;
    w->v.latest_attack_votes = w->latest_attack_votes;
}

static void info_empty(aw_wire_info *w)
{
    memset(w, 0, sizeof *w);
    for (int a = 0; a <= AW_MAX_PLAYERS; a++) {
        w->v.role[a] = AW_ROLE_NONE;
        w->v.remain_talk[a] = -1;
        w->v.remain_whisper[a] = -1;
    }
    w->v.my_role = AW_ROLE_NONE;
    w->cursed_fox = -1;
    info_fix(w);
}

void aw_wire_packet_free(aw_wire_packet *p)
{
    info_free(&p->info, NULL, NULL);
    free_talks(p->talk_history, p->ntalk_history, NULL, NULL);
    free_talks(p->whisper_history, p->nwhisper_history, NULL, NULL);
    memset(p, 0, sizeof *p);
}

static int bad(aw_error *err, const char *where, const char *key, const char *what)
{
    return aw_fail(err, AW_EINVAL, "%s%s%s: %s", where, *where && *key ? "." : "", key, what);
}

/* Fetches an integer in [lo, hi]; a missing key gives def unless required. */
static int get_int(json_t *o, const char *where, const char *key, long long lo, long long hi, bool required,
                   long long def, long long *out, aw_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v) {
        if (required)
            return bad(err, where, key, "missing");
        *out = def;
        return 0;
    }
    if (!json_is_integer(v))
        return bad(err, where, key, "expected an integer");
    long long x = json_integer_value(v);
    if (x < lo || x > hi) {
        char m[96];
        snprintf(m, sizeof m, "%lld is out of range %lld..%lld", x, lo, hi);
        return bad(err, where, key, m);
    }
    *out = x;
    return 0;
}

static int get_bool(json_t *o, const char *key, bool *out, aw_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return bad(err, "gameSetting", key, "expected true or false");
    *out = json_is_true(v);
    return 0;
}

/* An agent field: -1 (none) or 1..18; none becomes 0. */
static int get_agent(json_t *o, const char *where, const char *key, int *out, aw_error *err)
{
    long long x = 0;
    if (get_int(o, where, key, -1, AW_MAX_PLAYERS, false, -1, &x, err) < 0)
        return -1;
    if (x == 0)
        return bad(err, where, key, "0 is not an agent");
    *out = x > 0 ? (int)x : 0;
    return 0;
}

/* A map key: the decimal form of 1..18. */
static int agent_key(const char *k)
{
    if (k[0] < '1' || k[0] > '9')
        return -1;
    int a = 0;
    for (const char *c = k; *c; c++) {
        if (*c < '0' || *c > '9' || a > AW_MAX_PLAYERS)
            return -1;
        a = a * 10 + (*c - '0');
    }
    return a <= AW_MAX_PLAYERS ? a : -1;
}

static int dec_talks(json_t *arr, const char *where, aw_talk **out, int *nout, aw_error *err)
{
    *out = NULL;
    *nout = 0;
    if (!json_is_array(arr))
        return bad(err, where, "", "expected a list");
    size_t n = json_array_size(arr);
    if (n > 1000000)
        return bad(err, where, "", "too many entries");
    aw_talk *t = aw_xcalloc(n ? n : 1, sizeof *t);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(arr, i);
        char w[64];
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        long long agent, day, idx, turn;
        json_t *text = json_is_object(e) ? json_object_get(e, "text") : NULL;
        if (!json_is_object(e)) {
            bad(err, w, "", "expected an object");
            goto fail;
        }
        if (get_int(e, w, "agent", 1, AW_MAX_PLAYERS, true, 0, &agent, err) < 0 ||
            get_int(e, w, "day", 0, INT_MAX, true, 0, &day, err) < 0 ||
            get_int(e, w, "idx", 0, INT_MAX, true, 0, &idx, err) < 0 ||
            get_int(e, w, "turn", 0, INT_MAX, true, 0, &turn, err) < 0)
            goto fail;
        if (!json_is_string(text)) {
            bad(err, w, "text", "expected a string");
            goto fail;
        }
        t[i].agent = (int)agent;
        t[i].day = (int)day;
        t[i].idx = (int)idx;
        t[i].turn = (int)turn;
        t[i].len = json_string_length(text);
        t[i].text = aw_xstrndup(json_string_value(text), t[i].len);
        *nout = (int)i + 1;
    }
    *out = t;
    return 0;
fail:
    free_talks(t, *nout, NULL, NULL);
    *nout = 0;
    return -AW_EINVAL;
}

static int dec_votes(json_t *o, const char *key, aw_vote *out, int *nout, aw_error *err)
{
    *nout = 0;
    json_t *arr = json_object_get(o, key);
    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return bad(err, "gameInfo", key, "expected a list");
    if (json_array_size(arr) > AW_MAX_PLAYERS)
        return bad(err, "gameInfo", key, "more votes than agents");
    for (size_t i = 0; i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        char w[64];
        snprintf(w, sizeof w, "gameInfo.%s[%zu]", key, i);
        long long agent, day, target;
        if (!json_is_object(e))
            return bad(err, w, "", "expected an object");
        if (get_int(e, w, "agent", 1, AW_MAX_PLAYERS, true, 0, &agent, err) < 0 ||
            get_int(e, w, "day", 0, INT_MAX, true, 0, &day, err) < 0 ||
            get_int(e, w, "target", 1, AW_MAX_PLAYERS, true, 0, &target, err) < 0)
            return -AW_EINVAL;
        out[i] = (aw_vote){(int)day, (int)agent, (int)target};
        *nout = (int)i + 1;
    }
    return 0;
}

static int dec_judge(json_t *o, const char *key, aw_judge *out, aw_error *err)
{
    memset(out, 0, sizeof *out);
    json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j))
        return 0;
    char w[32];
    snprintf(w, sizeof w, "gameInfo.%s", key);
    if (!json_is_object(j))
        return bad(err, w, "", "expected an object or null");
    long long agent, day, target;
    if (get_int(j, w, "agent", 1, AW_MAX_PLAYERS, true, 0, &agent, err) < 0 ||
        get_int(j, w, "day", 0, INT_MAX, true, 0, &day, err) < 0 ||
        get_int(j, w, "target", 1, AW_MAX_PLAYERS, true, 0, &target, err) < 0)
        return -AW_EINVAL;
    const char *r = json_string_value(json_object_get(j, "result"));
    if (!r || (strcmp(r, "HUMAN") != 0 && strcmp(r, "WEREWOLF") != 0))
        return bad(err, w, "result", "expected HUMAN or WEREWOLF");
    *out = (aw_judge){(int)day, (int)agent, (int)target, strcmp(r, "HUMAN") == 0 ? AW_HUMAN : AW_WOLF};
    return 0;
}

static int dec_int_map(json_t *o, const char *key, int n, int *vals, aw_error *err)
{
    json_t *m = json_object_get(o, key);
    if (!m)
        return 0;
    if (!json_is_object(m))
        return bad(err, "gameInfo", key, "expected an object");
    const char *k;
    json_t *v;
    json_object_foreach(m, k, v)
    {
        int a = agent_key(k);
        if (a < 1 || a > n)
            return bad(err, "gameInfo", key, "a key is not an agent of the game");
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
            return bad(err, "gameInfo", key, "expected counts from 0");
        vals[a] = (int)json_integer_value(v);
    }
    return 0;
}

static int dec_info(json_t *o, aw_wire_info *w, aw_error *err)
{
    info_empty(w);
    aw_info *v = &w->v;
    if (!json_is_object(o))
        return bad(err, "gameInfo", "", "expected an object or null");
    long long x;
    if (get_int(o, "gameInfo", "agent", 1, AW_MAX_PLAYERS, true, 0, &x, err) < 0)
        return -AW_EINVAL;
    v->agent = (int)x;
    if (get_int(o, "gameInfo", "day", 0, INT_MAX, true, 0, &x, err) < 0)
        return -AW_EINVAL;
    v->day = (int)x;

    /* statusMap names every agent 1..n. */
    json_t *sm = json_object_get(o, "statusMap");
    if (!json_is_object(sm))
        return bad(err, "gameInfo", "statusMap", "expected an object");
    const char *k;
    json_t *e;
    bool seen[AW_MAX_PLAYERS + 1] = {false};
    json_object_foreach(sm, k, e)
    {
        int a = agent_key(k);
        const char *s = json_string_value(e);
        if (a < 1)
            return bad(err, "gameInfo", "statusMap", "a key is not an agent 1..18");
        if (!s || (strcmp(s, "ALIVE") != 0 && strcmp(s, "DEAD") != 0))
            return bad(err, "gameInfo", "statusMap", "expected ALIVE or DEAD");
        v->alive[a] = strcmp(s, "ALIVE") == 0;
        seen[a] = true;
        if (a > v->n)
            v->n = a;
    }
    for (int a = 1; a <= v->n; a++)
        if (!seen[a])
            return bad(err, "gameInfo", "statusMap", "agents are not numbered 1..n");
    if (v->agent > v->n)
        return bad(err, "gameInfo", "agent", "not an agent of the game");

    json_t *rm = json_object_get(o, "roleMap");
    if (rm && !json_is_object(rm))
        return bad(err, "gameInfo", "roleMap", "expected an object");
    json_object_foreach(rm, k, e)
    {
        int a = agent_key(k);
        const char *s = json_string_value(e);
        aw_role r = s ? aw_role_parse(s) : AW_ROLE_NONE;
        if (a < 1 || a > v->n)
            return bad(err, "gameInfo", "roleMap", "a key is not an agent of the game");
        if (r == AW_ROLE_NONE)
            return bad(err, "gameInfo", "roleMap", "expected a role name");
        v->role[a] = r;
    }
    v->my_role = v->role[v->agent];

    if (dec_int_map(o, "remainTalkMap", v->n, v->remain_talk, err) < 0 ||
        dec_int_map(o, "remainWhisperMap", v->n, v->remain_whisper, err) < 0)
        return -AW_EINVAL;

    json_t *el = json_object_get(o, "existingRoleList");
    if (el && !json_is_array(el))
        return bad(err, "gameInfo", "existingRoleList", "expected a list");
    for (size_t i = 0; i < json_array_size(el); i++) {
        const char *s = json_string_value(json_array_get(el, i));
        aw_role r = s ? aw_role_parse(s) : AW_ROLE_NONE;
        if (r == AW_ROLE_NONE)
            return bad(err, "gameInfo", "existingRoleList", "expected role names");
        v->existing_role[r] = true;
    }

    json_t *tl = json_object_get(o, "talkList");
    if (tl && dec_talks(tl, "gameInfo.talkList", &w->talk_store, &v->ntalks, err) < 0)
        return -AW_EINVAL;
    w->talk_cap = v->ntalks;
    json_t *wl = json_object_get(o, "whisperList");
    if (wl && dec_talks(wl, "gameInfo.whisperList", &w->whisper_store, &w->nwhisper_store, err) < 0)
        return -AW_EINVAL;
    w->whisper_cap = w->nwhisper_store;

    if (dec_votes(o, "voteList", w->votes, &v->nvotes, err) < 0 ||
        dec_votes(o, "latestVoteList", w->latest_votes, &v->nlatest_votes, err) < 0 ||
        dec_votes(o, "attackVoteList", w->attack_votes, &v->nattack_votes, err) < 0 ||
        dec_votes(o, "latestAttackVoteList", w->latest_attack_votes, &v->nlatest_attack_votes, err) < 0)
        return -AW_EINVAL;
    if (get_agent(o, "gameInfo", "executedAgent", &v->executed, err) < 0 ||
        get_agent(o, "gameInfo", "latestExecutedAgent", &v->latest_executed, err) < 0 ||
        get_agent(o, "gameInfo", "attackedAgent", &v->attacked, err) < 0 ||
        get_agent(o, "gameInfo", "guardedAgent", &v->guarded, err) < 0 ||
        get_agent(o, "gameInfo", "cursedFox", &w->cursed_fox, err) < 0)
        return -AW_EINVAL;
    json_t *ld = json_object_get(o, "lastDeadAgentList");
    if (ld && !json_is_array(ld))
        return bad(err, "gameInfo", "lastDeadAgentList", "expected a list");
    if (json_array_size(ld) > AW_MAX_PLAYERS)
        return bad(err, "gameInfo", "lastDeadAgentList", "too many agents");
    for (size_t i = 0; i < json_array_size(ld); i++) {
        json_t *a = json_array_get(ld, i);
        if (!json_is_integer(a) || json_integer_value(a) < 1 || json_integer_value(a) > v->n)
            return bad(err, "gameInfo", "lastDeadAgentList", "expected agents of the game");
        v->last_dead[v->nlast_dead++] = (int)json_integer_value(a);
    }
    if (dec_judge(o, "divineResult", &v->divine_result, err) < 0 ||
        dec_judge(o, "mediumResult", &v->medium_result, err) < 0)
        return -AW_EINVAL;
    info_fix(w);
    return 0;
}

static int dec_setting(json_t *o, aw_wire_setting *w, aw_error *err)
{
    memset(w, 0, sizeof *w);
    if (!json_is_object(o))
        return bad(err, "gameSetting", "", "expected an object or null");
    const struct {
        const char *key;
        int *field;
        long long lo;
    } ints[] = {
        {"maxAttackRevote", &w->max_attack_revote, 0}, {"maxRevote", &w->max_revote, 0},
        {"maxSkip", &w->max_skip, -1},                 {"maxTalk", &w->max_talk, 0},
        {"maxTalkTurn", &w->max_talk_turn, 0},         {"maxWhisper", &w->max_whisper, 0},
        {"maxWhisperTurn", &w->max_whisper_turn, 0},   {"playerNum", &w->player_num, 1},
        {"timeLimit", &w->time_limit, -1},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long long x = 0;
        if (get_int(o, "gameSetting", ints[i].key, ints[i].lo, 1000000000, true, 0, &x, err) < 0)
            return -AW_EINVAL;
        *ints[i].field = (int)x;
    }
    json_t *seed = json_object_get(o, "randomSeed");
    if (!json_is_integer(seed))
        return bad(err, "gameSetting", "randomSeed", "expected a 64-bit integer");
    w->random_seed = (int64_t)json_integer_value(seed);
    if (get_bool(o, "enableNoAttack", &w->enable_no_attack, err) < 0 ||
        get_bool(o, "enableNoExecution", &w->enable_no_execution, err) < 0 ||
        get_bool(o, "enableRoleRequest", &w->enable_role_request, err) < 0 ||
        get_bool(o, "talkOnFirstDay", &w->talk_on_first_day, err) < 0 ||
        get_bool(o, "validateUtterance", &w->validate_utterance, err) < 0 ||
        get_bool(o, "votableInFirstDay", &w->votable_in_first_day, err) < 0 ||
        get_bool(o, "voteVisible", &w->vote_visible, err) < 0 ||
        get_bool(o, "whisperBeforeRevote", &w->whisper_before_revote, err) < 0)
        return -AW_EINVAL;
    json_t *rn = json_object_get(o, "roleNumMap");
    if (!json_is_object(rn))
        return bad(err, "gameSetting", "roleNumMap", "expected an object");
    const char *k;
    json_t *e;
    json_object_foreach(rn, k, e)
    {
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) > AW_MAX_PLAYERS)
            return bad(err, "gameSetting", "roleNumMap", "expected counts 0..18");
        int c = (int)json_integer_value(e);
        if (strcmp(k, "ANY") == 0) {
            w->role_num_any = c;
            continue;
        }
        aw_role r = aw_role_parse(k);
        if (r == AW_ROLE_NONE)
            return bad(err, "gameSetting", "roleNumMap", "unknown role");
        w->role_num[r] = c;
    }
    return 0;
}

int aw_wire_decode(const char *line, size_t len, aw_wire_packet *p, aw_error *err)
{
    memset(p, 0, sizeof *p);
    info_empty(&p->info);
    json_error_t je;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        aw_fail(err, AW_EINVAL, "not JSON: %s", je.text);
        if (err)
            err->col = je.position;
        return -AW_EINVAL;
    }
    int rc = -AW_EINVAL;
    if (!json_is_object(root)) {
        bad(err, "", "packet", "expected an object");
        goto out;
    }
    const char *req = json_string_value(json_object_get(root, "request"));
    p->request = req ? aw_wire_request_parse(req) : -1;
    if (p->request < 0) {
        bad(err, "", "request", "missing or unknown");
        goto out;
    }
    json_t *gi = json_object_get(root, "gameInfo");
    if (gi && !json_is_null(gi)) {
        if (dec_info(gi, &p->info, err) < 0)
            goto out;
        p->has_info = true;
    }
    json_t *gs = json_object_get(root, "gameSetting");
    if (gs && !json_is_null(gs)) {
        if (dec_setting(gs, &p->setting, err) < 0)
            goto out;
        p->has_setting = true;
    }
    json_t *th = json_object_get(root, "talkHistory");
    if (th && !json_is_null(th)) {
        if (dec_talks(th, "talkHistory", &p->talk_history, &p->ntalk_history, err) < 0)
            goto out;
        p->has_talk_history = true;
    }
    json_t *wh = json_object_get(root, "whisperHistory");
    if (wh && !json_is_null(wh)) {
        if (dec_talks(wh, "whisperHistory", &p->whisper_history, &p->nwhisper_history, err) < 0)
            goto out;
        p->has_whisper_history = true;
    }
    rc = 0;
out:
    json_decref(root);
    if (rc < 0)
        aw_wire_packet_free(p);
    return rc;
}

/* ---- client --------------------------------------------------------------- */

void aw_wire_client_init(aw_wire_client *c)
{
    memset(c, 0, sizeof *c);
    info_empty(&c->info);
}

void aw_wire_client_free(aw_wire_client *c)
{
    info_free(&c->info, c->free_parsed, c->ud);
    c->has_info = false;
}

/* Appends the entries of a delta that the list does not hold yet. */
static void merge(aw_talk **store, int *n, int *cap, const aw_talk *add, int nadd)
{
    for (int i = 0; i < nadd; i++) {
        bool dup = false;
        for (int j = *n - 1; j >= 0 && !dup; j--)
            dup = (*store)[j].day == add[i].day && (*store)[j].idx == add[i].idx;
        if (dup)
            continue;
        if (*n == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *store = aw_xrealloc(*store, (size_t)*cap * sizeof **store);
        }
        aw_talk *t = &(*store)[(*n)++];
        *t = add[i];
        t->text = aw_xstrndup(add[i].text, add[i].len);
        t->parsed = NULL;
    }
}

int aw_wire_client_apply(aw_wire_client *c, aw_wire_packet *p, aw_error *err)
{
    if (!p->has_info && (p->has_talk_history || p->has_whisper_history) && !c->has_info)
        return aw_fail(err, AW_ESTATE, "%s: talk deltas before any gameInfo", aw_wire_request_name(p->request));
    if (p->has_info) {
        info_free(&c->info, c->free_parsed, c->ud);
        c->info = p->info; /* moves the lists; both pointers are fixed below */
        info_empty(&p->info);
        p->has_info = false;
        c->has_info = true;
    }
    aw_wire_info *w = &c->info;
    if (p->has_talk_history)
        merge(&w->talk_store, &w->v.ntalks, &w->talk_cap, p->talk_history, p->ntalk_history);
    if (p->has_whisper_history)
        merge(&w->whisper_store, &w->nwhisper_store, &w->whisper_cap, p->whisper_history, p->nwhisper_history);
    if (p->has_setting) {
        c->setting = p->setting;
        c->has_setting = true;
    }
    if (c->parse) {
        for (; w->parsed_talks < w->v.ntalks; w->parsed_talks++)
            c->parse(c->ud, &w->talk_store[w->parsed_talks]);
        for (; w->parsed_whispers < w->nwhisper_store; w->parsed_whispers++)
            c->parse(c->ud, &w->whisper_store[w->parsed_whispers]);
    }
    info_fix(w);
    return 0;
}

/* ---- replies -------------------------------------------------------------- */

void aw_wire_reply_text(const char *line, size_t len, const char **text, size_t *text_len)
{
    if (len && line[len - 1] == '\r')
        len--;
    *text = len ? line : NULL;
    *text_len = len;
}

int aw_wire_reply_target(const char *line, size_t len, int *target, aw_error *err)
{
    static const char head[] = "{\"agentIdx\":";
    const size_t hl = sizeof head - 1;
    if (len && line[len - 1] == '\r')
        len--;
    if (len == 0) {
        *target = AW_NO_AGENT;
        return 0;
    }
    if (len < hl + 2 || memcmp(line, head, hl) != 0 || line[len - 1] != '}')
        return aw_fail(err, AW_EINVAL, "expected exactly {\"agentIdx\":N}");
    long long v = 0;
    size_t ndig = len - hl - 1;
    if (ndig > 10)
        return aw_fail(err, AW_EINVAL, "agent number too large");
    for (size_t i = hl; i < len - 1; i++) {
        if (line[i] < '0' || line[i] > '9')
            return aw_fail(err, AW_EINVAL, "expected exactly {\"agentIdx\":N}");
        v = v * 10 + (line[i] - '0');
    }
    if (v > INT_MAX)
        return aw_fail(err, AW_EINVAL, "agent number too large");
    *target = (int)v;
    return 0;
}

int aw_wire_reply_role(const char *line, size_t len, aw_role *role, aw_error *err)
{
    if (len && line[len - 1] == '\r')
        len--;
    char buf[16];
    if (len == 0 || len >= sizeof buf)
        return aw_fail(err, AW_EINVAL, "expected none or a role name");
    memcpy(buf, line, len);
    buf[len] = '\0';
    if (strcmp(buf, "none") == 0) {
        *role = AW_ROLE_NONE;
        return 0;
    }
    aw_role r = aw_role_parse(buf);
    if (r == AW_ROLE_NONE)
        return aw_fail(err, AW_EINVAL, "expected none or a role name");
    *role = r;
    return 0;
}

void aw_wire_format_target(int target, aw_buf *out)
{
    if (target > 0)
        aw_buf_printf(out, "{\"agentIdx\":%d}", target);
}

/* ---- line framing --------------------------------------------------------- */

void aw_wire_reader_init(aw_wire_reader *r, size_t max_line)
{
    aw_buf_init(&r->buf);
    r->start = r->scanned = 0;
    r->max_line = max_line;
}

void aw_wire_reader_free(aw_wire_reader *r)
{
    aw_buf_free(&r->buf);
}

void aw_wire_reader_feed(aw_wire_reader *r, const void *data, size_t len)
{
    /* Drop what was returned once it is most of the buffer. */
    if (r->start && r->start >= r->buf.len / 2) {
        memmove(r->buf.data, r->buf.data + r->start, r->buf.len - r->start);
        r->buf.len -= r->start;
        r->buf.data[r->buf.len] = '\0';
        r->start = 0;
    }
    aw_buf_add(&r->buf, data, len);
}

int aw_wire_reader_next(aw_wire_reader *r, const char **line, size_t *len)
{
    if (!r->buf.data)
        return 0;
    char *base = r->buf.data + r->start;
    size_t avail = r->buf.len - r->start;
    char *nl = avail > r->scanned ? memchr(base + r->scanned, '\n', avail - r->scanned) : NULL;
    if (!nl) {
        r->scanned = avail;
        return avail > r->max_line ? -1 : 0;
    }
    size_t n = (size_t)(nl - base);
    if (n > r->max_line)
        return -1;
    *nl = '\0';
    *line = base;
    *len = n;
    r->start += n + 1;
    r->scanned = 0;
    return 1;
}

size_t aw_wire_reader_pending(const aw_wire_reader *r)
{
    return r->buf.len - r->start;
}

/* ---- shared with the other codecs (wire_json.h) ------------------------- */

json_t *aw_wire_json_text(const char *s, size_t len)
{
    return jtext(s, len);
}

int aw_wire_json_dump(json_t *v, aw_buf *out, aw_error *err)
{
    return dump(v, out, err);
}
