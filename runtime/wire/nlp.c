/* nlp: the NLP division's packets (see nlp.h). */
#include "nlp.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static const char *const req_names[AW_NLP_NREQ] = {
    [AW_NLP_NAME] = "NAME",     [AW_NLP_INITIALIZE] = "INITIALIZE", [AW_NLP_DAILY_INITIALIZE] = "DAILY_INITIALIZE",
    [AW_NLP_TALK] = "TALK",     [AW_NLP_WHISPER] = "WHISPER",       [AW_NLP_VOTE] = "VOTE",
    [AW_NLP_DIVINE] = "DIVINE", [AW_NLP_GUARD] = "GUARD",           [AW_NLP_ATTACK] = "ATTACK",
    [AW_NLP_DAILY_FINISH] = "DAILY_FINISH", [AW_NLP_FINISH] = "FINISH",
    [AW_NLP_TALK_PHASE_START] = "TALK_PHASE_START", [AW_NLP_TALK_PHASE_END] = "TALK_PHASE_END",
    [AW_NLP_TALK_BROADCAST] = "TALK_BROADCAST", [AW_NLP_WHISPER_PHASE_START] = "WHISPER_PHASE_START",
    [AW_NLP_WHISPER_PHASE_END] = "WHISPER_PHASE_END", [AW_NLP_WHISPER_BROADCAST] = "WHISPER_BROADCAST",
};

const char *aw_nlp_req_name(aw_nlp_req r)
{
    return (int)r >= 0 && r < AW_NLP_NREQ ? req_names[r] : NULL;
}

bool aw_nlp_req_wants_reply(aw_nlp_req r)
{
    return r == AW_NLP_NAME || r == AW_NLP_TALK || r == AW_NLP_WHISPER || r == AW_NLP_VOTE || r == AW_NLP_DIVINE ||
           r == AW_NLP_GUARD || r == AW_NLP_ATTACK;
}

/* ---- decoding ---- */

/* A string field: NULL *out when absent or null and !required. */
static int get_str(json_t *o, const char *where, const char *key, bool required, size_t max, char **out,
                   aw_error *err)
{
    *out = NULL;
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            return aw_fail(err, AW_EINVAL, "%s: \"%s\" is missing", where, key);
        return 0;
    }
    if (!json_is_string(v))
        return aw_fail(err, AW_EINVAL, "%s: \"%s\" is not a string", where, key);
    size_t n = json_string_length(v);
    if (n > max)
        return aw_fail(err, AW_EINVAL, "%s: \"%s\" is too long (%zu bytes; at most %zu)", where, key, n, max);
    *out = aw_xstrndup(json_string_value(v), n); /* jansson refuses NUL inside without JSON_ALLOW_NUL */
    return 0;
}

/* A name: 1 to AW_NLP_MAX_NAME bytes with no control character. */
static int get_name(json_t *o, const char *where, const char *key, bool required, char **out, aw_error *err)
{
    if (get_str(o, where, key, required, AW_NLP_MAX_NAME, out, err) < 0)
        return -1;
    if (!*out)
        return 0;
    bool ok = **out != 0;
    for (const unsigned char *c = (const unsigned char *)*out; *c && ok; c++)
        ok = *c >= 0x20 && *c != 0x7f;
    if (!ok) {
        free(*out);
        *out = NULL;
        return aw_fail(err, AW_EINVAL, "%s: \"%s\" is not a name (empty or with a control character)", where, key);
    }
    return 0;
}

static int get_int(json_t *o, const char *where, const char *key, bool required, int lo, int hi, int dflt, int *out,
                   aw_error *err)
{
    *out = dflt;
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v)) {
        if (required)
            return aw_fail(err, AW_EINVAL, "%s: \"%s\" is missing", where, key);
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return aw_fail(err, AW_EINVAL, "%s: \"%s\" is not an integer from %d to %d", where, key, lo, hi);
    *out = (int)json_integer_value(v);
    return 0;
}

static int get_bool(json_t *o, const char *where, const char *key, int *out, aw_error *err)
{
    *out = -1;
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return aw_fail(err, AW_EINVAL, "%s: \"%s\" is not true or false", where, key);
    *out = json_is_true(v);
    return 0;
}

static json_t *get_obj(json_t *o, const char *where, const char *key, bool *bad, aw_error *err)
{
    json_t *v = json_object_get(o, key);
    if (!v || json_is_null(v))
        return NULL;
    if (!json_is_object(v)) {
        *bad = true;
        aw_fail(err, AW_EINVAL, "%s: \"%s\" is not an object", where, key);
        return NULL;
    }
    return v;
}

/* A list of objects, each decoded by one(e, where, out + i * size): the
 * array of len elements of size bytes is allocated (zeroed) into *out and
 * *n counts those begun, so that freeing *n of them is always right. */
static int decode_list(json_t *arr, const char *where, size_t size, void **out, int *n,
                       int (*one)(json_t *e, const char *where, void *elem, aw_error *err), aw_error *err)
{
    if (!json_is_array(arr))
        return aw_fail(err, AW_EINVAL, "%s is not a list", where);
    size_t len = json_array_size(arr);
    if (len > AW_NLP_MAX_HISTORY)
        return aw_fail(err, AW_EINVAL, "%s has %zu entries (at most %d)", where, len, AW_NLP_MAX_HISTORY);
    *out = len ? aw_xcalloc(len, size) : NULL;
    *n = 0;
    for (size_t i = 0; i < len; i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_object(e))
            return aw_fail(err, AW_EINVAL, "%s[%zu] is not an object", where, i);
        (*n)++;
        if (one(e, where, (char *)*out + i * size, err) < 0)
            return -1;
    }
    return 0;
}

static int decode_talk(json_t *e, const char *where, void *elem, aw_error *err)
{
    aw_nlp_talk *t = elem;
    int skip, over;
    if (get_int(e, where, "idx", true, 0, INT_MAX, 0, &t->idx, err) < 0 ||
        get_int(e, where, "day", true, 0, INT_MAX, 0, &t->day, err) < 0 ||
        get_int(e, where, "turn", true, 0, INT_MAX, 0, &t->turn, err) < 0 ||
        get_name(e, where, "agent", true, &t->agent, err) < 0 ||
        get_str(e, where, "text", true, AW_NLP_MAX_TEXT, &t->text, err) < 0 ||
        get_bool(e, where, "skip", &skip, err) < 0 || get_bool(e, where, "over", &over, err) < 0)
        return -1;
    t->skip = skip == 1;
    t->over = over == 1;
    t->time = -1;
    json_t *tm = json_object_get(e, "time");
    if (tm && !json_is_null(tm)) {
        if (!json_is_integer(tm) || json_integer_value(tm) < 0)
            return aw_fail(err, AW_EINVAL, "%s: \"time\" is not a number of milliseconds", where);
        t->time = (long long)json_integer_value(tm);
    }
    return 0;
}

static int decode_vote(json_t *e, const char *where, void *elem, aw_error *err)
{
    aw_nlp_vote *v = elem;
    if (get_int(e, where, "day", true, 0, INT_MAX, 0, &v->day, err) < 0 ||
        get_name(e, where, "agent", true, &v->agent, err) < 0 ||
        get_name(e, where, "target", true, &v->target, err) < 0)
        return -1;
    return 0;
}

static int decode_talks(json_t *arr, const char *where, aw_nlp_talk **out, int *n, aw_error *err)
{
    void *p = NULL;
    int rc = decode_list(arr, where, sizeof **out, &p, n, decode_talk, err);
    *out = p;
    return rc;
}

static int decode_votes(json_t *arr, const char *where, aw_nlp_vote **out, int *n, aw_error *err)
{
    void *p = NULL;
    int rc = decode_list(arr, where, sizeof **out, &p, n, decode_vote, err);
    *out = p;
    return rc;
}

static int decode_judge(json_t *o, const char *where, aw_nlp_judge *j, aw_error *err)
{
    if (!json_is_object(o))
        return aw_fail(err, AW_EINVAL, "%s is not an object", where);
    char *res = NULL;
    if (get_int(o, where, "day", true, 0, INT_MAX, 0, &j->day, err) < 0 ||
        get_name(o, where, "agent", true, &j->agent, err) < 0 ||
        get_name(o, where, "target", true, &j->target, err) < 0 ||
        get_str(o, where, "result", true, 16, &res, err) < 0)
        return -1;
    int rc = 0;
    if (!strcmp(res, "HUMAN"))
        j->result = AW_HUMAN;
    else if (!strcmp(res, "WEREWOLF"))
        j->result = AW_WOLF;
    else
        rc = aw_fail(err, AW_EINVAL, "%s: \"result\" is neither HUMAN nor WEREWOLF", where);
    free(res);
    return rc;
}

static int cmp_seat(const void *a, const void *b)
{
    return strcmp(((const aw_nlp_seat *)a)->name, ((const aw_nlp_seat *)b)->name);
}

static int decode_info(json_t *o, aw_nlp_info *in, aw_error *err)
{
    const char *w = "info";
    if (get_str(o, w, "game_id", false, AW_NLP_MAX_NAME, &in->game_id, err) < 0 ||
        get_int(o, w, "day", true, 0, INT_MAX, 0, &in->day, err) < 0 ||
        get_name(o, w, "agent", true, &in->agent, err) < 0 ||
        get_str(o, w, "profile", false, AW_NLP_MAX_TEXT, &in->profile, err) < 0 ||
        get_name(o, w, "executed_agent", false, &in->executed_agent, err) < 0 ||
        get_name(o, w, "attacked_agent", false, &in->attacked_agent, err) < 0 ||
        get_int(o, w, "remain_count", false, INT_MIN, INT_MAX, -1, &in->remain_count, err) < 0 ||
        get_int(o, w, "remain_length", false, INT_MIN, INT_MAX, -1, &in->remain_length, err) < 0 ||
        get_int(o, w, "remain_skip", false, INT_MIN, INT_MAX, -1, &in->remain_skip, err) < 0)
        return -1;
    json_t *v;
    if ((v = json_object_get(o, "medium_result")) && !json_is_null(v) &&
        decode_judge(v, "info.medium_result", &in->medium_result, err) < 0)
        return -1;
    if ((v = json_object_get(o, "divine_result")) && !json_is_null(v) &&
        decode_judge(v, "info.divine_result", &in->divine_result, err) < 0)
        return -1;
    if ((v = json_object_get(o, "vote_list")) && !json_is_null(v) &&
        decode_votes(v, "info.vote_list", &in->votes, &in->nvotes, err) < 0)
        return -1;
    if ((v = json_object_get(o, "attack_vote_list")) && !json_is_null(v) &&
        decode_votes(v, "info.attack_vote_list", &in->attack_votes, &in->nattack_votes, err) < 0)
        return -1;

    json_t *sm = json_object_get(o, "status_map");
    if (!json_is_object(sm))
        return aw_fail(err, AW_EINVAL, "info: \"status_map\" is missing or not an object");
    size_t n = json_object_size(sm);
    if (n < 1 || n > AW_MAX_PLAYERS)
        return aw_fail(err, AW_EINVAL, "info: \"status_map\" has %zu agents (1 to %d)", n, AW_MAX_PLAYERS);
    in->seats = aw_xcalloc(n, sizeof *in->seats);
    const char *key;
    json_t *val;
    json_object_foreach(sm, key, val)
    {
        size_t kl = strlen(key);
        bool ok = kl >= 1 && kl <= AW_NLP_MAX_NAME;
        for (const unsigned char *c = (const unsigned char *)key; *c && ok; c++)
            ok = *c >= 0x20 && *c != 0x7f;
        if (!ok)
            return aw_fail(err, AW_EINVAL, "info.status_map: a key is not a name");
        const char *st = json_is_string(val) ? json_string_value(val) : "";
        if (strcmp(st, "ALIVE") && strcmp(st, "DEAD"))
            return aw_fail(err, AW_EINVAL, "info.status_map: a status is neither ALIVE nor DEAD");
        aw_nlp_seat *s = &in->seats[in->nseats++];
        s->name = aw_xstrdup(key);
        s->alive = !strcmp(st, "ALIVE");
        s->role = AW_ROLE_NONE;
    }
    qsort(in->seats, (size_t)in->nseats, sizeof *in->seats, cmp_seat);
    json_t *rm = json_object_get(o, "role_map");
    if (rm && !json_is_null(rm)) {
        if (!json_is_object(rm))
            return aw_fail(err, AW_EINVAL, "info: \"role_map\" is not an object");
        json_object_foreach(rm, key, val)
        {
            aw_nlp_seat probe = {.name = (char *)key};
            aw_nlp_seat *s = bsearch(&probe, in->seats, (size_t)in->nseats, sizeof *in->seats, cmp_seat);
            if (!s)
                return aw_fail(err, AW_EINVAL, "info.role_map: an agent that is not in status_map");
            aw_role r = json_is_string(val) ? aw_role_parse(json_string_value(val)) : AW_ROLE_NONE;
            if (r == AW_ROLE_NONE)
                return aw_fail(err, AW_EINVAL, "info.role_map: a role that is not known");
            s->role = r;
        }
    }
    return 0;
}

static int decode_talk_setting(json_t *o, const char *w, aw_nlp_talk_setting *t, aw_error *err)
{
    t->count_in_word = t->count_spaces = -1;
    t->per_talk = t->mention_length = t->per_agent = t->base_length = -1;
    t->duration = -1;
    if (!o)
        return 0;
    bool bad = false;
    json_t *mc = get_obj(o, w, "max_count", &bad, err);
    json_t *ml = bad ? NULL : get_obj(o, w, "max_length", &bad, err);
    if (bad)
        return -1;
    if (mc && (get_int(mc, w, "per_agent", false, 0, INT_MAX, 0, &t->max_count_per_agent, err) < 0 ||
               get_int(mc, w, "per_day", false, 0, INT_MAX, 0, &t->max_count_per_day, err) < 0))
        return -1;
    if (ml && (get_bool(ml, w, "count_in_word", &t->count_in_word, err) < 0 ||
               get_bool(ml, w, "count_spaces", &t->count_spaces, err) < 0 ||
               get_int(ml, w, "per_talk", false, -1, INT_MAX, -1, &t->per_talk, err) < 0 ||
               get_int(ml, w, "mention_length", false, -1, INT_MAX, -1, &t->mention_length, err) < 0 ||
               get_int(ml, w, "per_agent", false, -1, INT_MAX, -1, &t->per_agent, err) < 0 ||
               get_int(ml, w, "base_length", false, -1, INT_MAX, -1, &t->base_length, err) < 0))
        return -1;
    if (get_int(o, w, "duration", false, 0, INT_MAX, -1, &t->duration, err) < 0)
        return -1;
    return get_int(o, w, "max_skip", false, 0, INT_MAX, 0, &t->max_skip, err);
}

static int decode_setting(json_t *o, aw_nlp_setting *s, aw_error *err)
{
    const char *w = "setting";
    int vv;
    if (get_int(o, w, "agent_count", true, 1, AW_MAX_PLAYERS, 0, &s->agent_count, err) < 0 ||
        get_int(o, w, "max_day", false, -1, INT_MAX, -1, &s->max_day, err) < 0 ||
        get_bool(o, w, "vote_visibility", &vv, err) < 0)
        return -1;
    s->vote_visibility = vv == 1;
    json_t *rn = json_object_get(o, "role_num_map");
    if (rn && !json_is_null(rn)) {
        if (!json_is_object(rn))
            return aw_fail(err, AW_EINVAL, "setting: \"role_num_map\" is not an object");
        const char *key;
        json_t *val;
        json_object_foreach(rn, key, val)
        {
            aw_role r = aw_role_parse(key);
            if (r == AW_ROLE_NONE)
                return aw_fail(err, AW_EINVAL, "setting.role_num_map: a role that is not known");
            if (!json_is_integer(val) || json_integer_value(val) < 0 || json_integer_value(val) > AW_MAX_PLAYERS)
                return aw_fail(err, AW_EINVAL, "setting.role_num_map: a count that is not 0 to %d", AW_MAX_PLAYERS);
            s->role_num[r] = (int)json_integer_value(val);
        }
    }
    bool bad = false;
    json_t *talk = get_obj(o, w, "talk", &bad, err);
    json_t *wh = bad ? NULL : get_obj(o, w, "whisper", &bad, err);
    json_t *vote = bad ? NULL : get_obj(o, w, "vote", &bad, err);
    json_t *av = bad ? NULL : get_obj(o, w, "attack_vote", &bad, err);
    json_t *to = bad ? NULL : get_obj(o, w, "timeout", &bad, err);
    if (bad || decode_talk_setting(talk, "setting.talk", &s->talk, err) < 0 ||
        decode_talk_setting(wh, "setting.whisper", &s->whisper, err) < 0)
        return -1;
    int b1 = -1, b2 = -1, b3 = -1;
    if (vote && (get_int(vote, "setting.vote", "max_count", false, 0, INT_MAX, 0, &s->vote_max_count, err) < 0 ||
                 get_bool(vote, "setting.vote", "allow_self_vote", &b1, err) < 0))
        return -1;
    if (av && (get_int(av, "setting.attack_vote", "max_count", false, 0, INT_MAX, 0, &s->attack_max_count, err) < 0 ||
               get_bool(av, "setting.attack_vote", "allow_self_vote", &b2, err) < 0 ||
               get_bool(av, "setting.attack_vote", "allow_no_target", &b3, err) < 0))
        return -1;
    s->vote_allow_self = b1 == 1;
    s->attack_allow_self = b2 == 1;
    s->attack_allow_no_target = b3 == 1;
    if (to && (get_int(to, "setting.timeout", "action", false, 0, INT_MAX, 0, &s->timeout_action_ms, err) < 0 ||
               get_int(to, "setting.timeout", "response", false, 0, INT_MAX, 0, &s->timeout_response_ms, err) < 0))
        return -1;
    return 0;
}

int aw_nlp_decode(const char *msg, size_t len, aw_nlp_packet *out, aw_error *err)
{
    memset(out, 0, sizeof *out);
    out->info.remain_count = out->info.remain_length = out->info.remain_skip = -1;
    if (len > AW_NLP_MAX_PACKET)
        return aw_fail(err, AW_EINVAL, "a packet of %zu bytes (at most %u)", len, AW_NLP_MAX_PACKET);
    json_error_t je;
    json_t *root = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return aw_fail(err, AW_EINVAL, "not JSON: %s (column %d)", je.text, je.column);
    int rc = -1;
    if (!json_is_object(root)) {
        aw_fail(err, AW_EINVAL, "not a packet: the message is not a JSON object");
        goto done;
    }
    json_t *rq = json_object_get(root, "request");
    const char *rs = json_is_string(rq) ? json_string_value(rq) : NULL;
    int r = -1;
    for (int i = 0; rs && i < AW_NLP_NREQ; i++)
        if (!strcmp(rs, req_names[i]))
            r = i;
    if (r < 0) {
        aw_fail(err, AW_EINVAL, "not a packet: \"request\" is missing or not a known request");
        goto done;
    }
    out->request = (aw_nlp_req)r;
    json_t *v;
    bool bad = false;
    json_t *info = get_obj(root, "the packet", "info", &bad, err);
    json_t *setting = bad ? NULL : get_obj(root, "the packet", "setting", &bad, err);
    if (bad)
        goto done;
    out->has_info = info != NULL;
    out->has_setting = setting != NULL;
    if ((info && decode_info(info, &out->info, err) < 0) || (setting && decode_setting(setting, &out->setting, err) < 0))
        goto done;
    if ((v = json_object_get(root, "talk_history")) && !json_is_null(v)) {
        out->has_talks = true;
        if (decode_talks(v, "talk_history", &out->talks, &out->ntalks, err) < 0)
            goto done;
    }
    if ((v = json_object_get(root, "whisper_history")) && !json_is_null(v)) {
        out->has_whispers = true;
        if (decode_talks(v, "whisper_history", &out->whispers, &out->nwhispers, err) < 0)
            goto done;
    }
    /* a broadcast's talk: new_talk with TALK_BROADCAST, new_whisper with
     * WHISPER_BROADCAST (and required there); elsewhere ignored */
    if (out->request == AW_NLP_TALK_BROADCAST || out->request == AW_NLP_WHISPER_BROADCAST) {
        bool wh = out->request == AW_NLP_WHISPER_BROADCAST;
        const char *key = wh ? "new_whisper" : "new_talk";
        v = json_object_get(root, key);
        if (!json_is_object(v)) {
            aw_fail(err, AW_EINVAL, "a %s without \"%s\"", req_names[out->request], key);
            goto done;
        }
        out->has_new = true;
        out->new_is_whisper = wh;
        if (decode_talk(v, key, &out->new_talk, err) < 0)
            goto done;
    }
    rc = 0;
done:
    json_decref(root);
    if (rc < 0)
        aw_nlp_packet_free(out);
    return rc;
}

static void free_talks(aw_nlp_talk *t, int n)
{
    for (int i = 0; i < n; i++) {
        free(t[i].agent);
        free(t[i].text);
    }
    free(t);
}

static void free_votes(aw_nlp_vote *v, int n)
{
    for (int i = 0; i < n; i++) {
        free(v[i].agent);
        free(v[i].target);
    }
    free(v);
}

void aw_nlp_packet_free(aw_nlp_packet *p)
{
    aw_nlp_info *in = &p->info;
    free(in->game_id);
    free(in->agent);
    free(in->profile);
    free(in->medium_result.agent);
    free(in->medium_result.target);
    free(in->divine_result.agent);
    free(in->divine_result.target);
    free(in->executed_agent);
    free(in->attacked_agent);
    free_votes(in->votes, in->nvotes);
    free_votes(in->attack_votes, in->nattack_votes);
    for (int i = 0; i < in->nseats; i++)
        free(in->seats[i].name);
    free(in->seats);
    free_talks(p->talks, p->ntalks);
    free_talks(p->whispers, p->nwhispers);
    free(p->new_talk.agent);
    free(p->new_talk.text);
    memset(p, 0, sizeof *p);
    p->info.remain_count = p->info.remain_length = p->info.remain_skip = -1;
}

/* ---- encoding ---- */

static void oset(json_t *o, const char *k, json_t *v)
{
    json_object_set_new(o, k, v);
}

static json_t *jtalk(const aw_nlp_talk *t)
{
    json_t *o = json_object();
    oset(o, "idx", json_integer(t->idx));
    oset(o, "day", json_integer(t->day));
    oset(o, "turn", json_integer(t->turn));
    oset(o, "agent", json_string(t->agent ? t->agent : ""));
    oset(o, "text", json_string(t->text ? t->text : ""));
    oset(o, "skip", json_boolean(t->skip));
    oset(o, "over", json_boolean(t->over));
    if (t->time >= 0)
        oset(o, "time", json_integer(t->time));
    return o;
}

static json_t *jtalks(const aw_nlp_talk *t, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, jtalk(&t[i]));
    return a;
}

static json_t *jvotes(const aw_nlp_vote *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_object();
        oset(o, "day", json_integer(v[i].day));
        oset(o, "agent", json_string(v[i].agent ? v[i].agent : ""));
        oset(o, "target", json_string(v[i].target ? v[i].target : ""));
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *jjudge(const aw_nlp_judge *j)
{
    json_t *o = json_object();
    oset(o, "day", json_integer(j->day));
    oset(o, "agent", json_string(j->agent));
    oset(o, "target", json_string(j->target ? j->target : ""));
    oset(o, "result", json_string(aw_species_name(j->result)));
    return o;
}

static void opt_int(json_t *o, const char *k, int v)
{
    if (v >= 0)
        oset(o, k, json_integer(v));
}

static json_t *jtalk_setting(const aw_nlp_talk_setting *t)
{
    json_t *o = json_object(), *mc = json_object(), *ml = json_object();
    oset(mc, "per_agent", json_integer(t->max_count_per_agent));
    oset(mc, "per_day", json_integer(t->max_count_per_day));
    oset(o, "max_count", mc);
    if (t->count_in_word >= 0)
        oset(ml, "count_in_word", json_boolean(t->count_in_word));
    if (t->count_spaces >= 0)
        oset(ml, "count_spaces", json_boolean(t->count_spaces));
    opt_int(ml, "per_talk", t->per_talk);
    opt_int(ml, "mention_length", t->mention_length);
    opt_int(ml, "per_agent", t->per_agent);
    opt_int(ml, "base_length", t->base_length);
    oset(o, "max_length", ml);
    oset(o, "max_skip", json_integer(t->max_skip));
    opt_int(o, "duration", t->duration);
    return o;
}

static json_t *jinfo(const aw_nlp_info *in)
{
    json_t *o = json_object();
    oset(o, "game_id", json_string(in->game_id ? in->game_id : ""));
    oset(o, "day", json_integer(in->day));
    oset(o, "agent", json_string(in->agent ? in->agent : ""));
    if (in->profile)
        oset(o, "profile", json_string(in->profile));
    if (in->medium_result.agent)
        oset(o, "medium_result", jjudge(&in->medium_result));
    if (in->divine_result.agent)
        oset(o, "divine_result", jjudge(&in->divine_result));
    if (in->executed_agent)
        oset(o, "executed_agent", json_string(in->executed_agent));
    if (in->attacked_agent)
        oset(o, "attacked_agent", json_string(in->attacked_agent));
    if (in->nvotes)
        oset(o, "vote_list", jvotes(in->votes, in->nvotes));
    if (in->nattack_votes)
        oset(o, "attack_vote_list", jvotes(in->attack_votes, in->nattack_votes));
    json_t *sm = json_object(), *rm = json_object();
    for (int i = 0; i < in->nseats; i++) {
        oset(sm, in->seats[i].name, json_string(in->seats[i].alive ? "ALIVE" : "DEAD"));
        if (in->seats[i].role != AW_ROLE_NONE)
            oset(rm, in->seats[i].name, json_string(aw_role_name(in->seats[i].role)));
    }
    oset(o, "status_map", sm);
    oset(o, "role_map", rm);
    opt_int(o, "remain_count", in->remain_count);
    opt_int(o, "remain_length", in->remain_length);
    opt_int(o, "remain_skip", in->remain_skip);
    return o;
}

static json_t *jsetting(const aw_nlp_setting *s)
{
    json_t *o = json_object();
    oset(o, "agent_count", json_integer(s->agent_count));
    opt_int(o, "max_day", s->max_day);
    json_t *rn = json_object();
    for (int r = 0; r < AW_NROLES; r++)
        if (s->role_num[r])
            oset(rn, aw_role_name((aw_role)r), json_integer(s->role_num[r]));
    oset(o, "role_num_map", rn);
    oset(o, "vote_visibility", json_boolean(s->vote_visibility));
    oset(o, "talk", jtalk_setting(&s->talk));
    oset(o, "whisper", jtalk_setting(&s->whisper));
    json_t *v = json_object();
    oset(v, "max_count", json_integer(s->vote_max_count));
    oset(v, "allow_self_vote", json_boolean(s->vote_allow_self));
    oset(o, "vote", v);
    json_t *a = json_object();
    oset(a, "max_count", json_integer(s->attack_max_count));
    oset(a, "allow_self_vote", json_boolean(s->attack_allow_self));
    oset(a, "allow_no_target", json_boolean(s->attack_allow_no_target));
    oset(o, "attack_vote", a);
    json_t *t = json_object();
    oset(t, "action", json_integer(s->timeout_action_ms));
    oset(t, "response", json_integer(s->timeout_response_ms));
    oset(o, "timeout", t);
    return o;
}

void aw_nlp_encode(const aw_nlp_packet *p, aw_buf *out)
{
    json_t *o = json_object();
    const char *rq = aw_nlp_req_name(p->request);
    oset(o, "request", json_string(rq ? rq : ""));
    if (p->has_info)
        oset(o, "info", jinfo(&p->info));
    if (p->has_setting)
        oset(o, "setting", jsetting(&p->setting));
    if (p->has_talks)
        oset(o, "talk_history", jtalks(p->talks, p->ntalks));
    if (p->has_whispers)
        oset(o, "whisper_history", jtalks(p->whispers, p->nwhispers));
    if (p->has_new)
        oset(o, p->new_is_whisper ? "new_whisper" : "new_talk", jtalk(&p->new_talk));
    char *s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    if (s) {
        aw_buf_adds(out, s);
        free(s);
    }
}
