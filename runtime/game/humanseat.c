/* humanseat: a person as a seat (see humanseat.h). */
#define _GNU_SOURCE
#include "humanseat.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "protocol.h"

/* The longest text a person may send (the engine takes 8 KiB). */
#define HUMAN_MAX_TEXT 4096

typedef struct human {
    aw_seat base;
    char *name;
    char token[AW_HUMAN_TOKEN_LEN + 1];
    uint64_t timeout_ns;
    aw_human_clock_fn *now; /* the seat's clock: aw_now_ns, or the caller's */
    void *now_ud;
    aw_human_publish_fn *publish;
    void *ud;

    pthread_mutex_t mu;  /* everything below; publish and ready run under it */
    aw_human_ready_fn *ready;
    void *ready_ud;
    pthread_cond_t cv;   /* an answer came (on the monotonic clock) */
    int agent;
    uint64_t seq;        /* the latest request's number */
    aw_req_kind kind;    /* the pending request, AW_REQ_NONE when none */
    int players;
    aw_validation mode;
    uint64_t deadline;   /* on the seat's clock (h_now) */
    bool answered;
    bool closed;         /* aw_human_close: every request times out at once */
    int target;
    aw_buf text;         /* the answer's text; then the reply's (borrowed by the driver) */
    aw_buf view;         /* the latest view published, for late pages */
    uint64_t view_deadline;

    /* The night turn. Whatever its role, a seat alive at dusk that the
     * night asks nothing (no DIVINE, GUARD, ATTACK or WHISPER) gets a
     * night step of its own — a view of the night that the person
     * confirms, or lets run out, before the seat answers DAILY_INITIALIZE
     * — so the night waits on the person whatever the role, and nobody
     * watching the game learns the role from how long the night took. */
    bool dusk_alive;     /* alive at the day's end (DAILY_FINISH) */
    bool secret;         /* asked a night request since */
    bool night;          /* the pending request is the night step */
    aw_buf night_body;   /* the night view's fields, from the latest request before the night */
    aw_buf dawn;         /* the DAILY_INITIALIZE view, published when the night step ends */
} human;

static const char *human_begin(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *f)
{
    (void)agent_seed;
    (void)f;
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    h->agent = agent;
    h->kind = AW_REQ_NONE;
    h->answered = false;
    h->night = h->dusk_alive = h->secret = false;
    aw_buf_clear(&h->night_body);
    aw_buf_clear(&h->view);
    pthread_mutex_unlock(&h->mu);
    return h->name;
}

static void add_votes(aw_buf *b, const char *key, const aw_vote *v, int n)
{
    aw_buf_printf(b, ",\"%s\":[", key);
    for (int i = 0; i < n; i++)
        aw_buf_printf(b, "%s{\"day\":%d,\"agent\":%d,\"target\":%d}", i ? "," : "", v[i].day, v[i].agent,
                      v[i].target);
    aw_buf_addc(b, ']');
}

static void add_talks(aw_buf *b, const char *key, const aw_talk *t, int n)
{
    aw_buf_printf(b, ",\"%s\":[", key);
    for (int i = 0; i < n; i++) {
        aw_buf_printf(b, "%s{\"day\":%d,\"idx\":%d,\"turn\":%d,\"agent\":%d,\"text\":", i ? "," : "", t[i].day,
                      t[i].idx, t[i].turn, t[i].agent);
        aw_buf_add_json(b, t[i].text, t[i].len);
        aw_buf_addc(b, '}');
    }
    aw_buf_addc(b, ']');
}

static void add_judge(aw_buf *b, const char *key, const aw_judge *j)
{
    if (j->agent)
        aw_buf_printf(b, ",\"%s\":{\"day\":%d,\"agent\":%d,\"target\":%d,\"result\":\"%s\"}", key, j->day, j->agent,
                      j->target, aw_species_name(j->result));
}

static void add_remain(aw_buf *b, const char *key, const aw_info *info, const int *remain)
{
    aw_buf_printf(b, ",\"%s\":{", key);
    bool first = true;
    for (int a = 1; a <= info->n; a++)
        if (remain[a] >= 0) {
            aw_buf_printf(b, "%s\"%d\":%d", first ? "" : ",", a, remain[a]);
            first = false;
        }
    aw_buf_addc(b, '}');
}

static void view_head(aw_buf *b, uint64_t seq, const char *request, const char *answer, uint64_t left_ms)
{
    aw_buf_printf(b, "{\"type\":\"view\",\"seq\":%llu,\"request\":\"%s\",\"answer\":\"%s\",\"timeLeftMs\":%llu",
                  (unsigned long long)seq, request, answer, (unsigned long long)left_ms);
}

/* The view's fields after its head, and its closing brace. */
static void view_body(const aw_info *info, const aw_settings *set, aw_buf *b)
{
    static const char *const modes[] = {"strict", "lenient", "off"};
    aw_buf_printf(b, ",\"validation\":\"%s\"", set->validation <= AW_VALIDATE_OFF ? modes[set->validation] : "strict");
    aw_buf_printf(b, ",\"agent\":%d,\"day\":%d,\"players\":%d,\"myRole\":\"%s\"", info->agent, info->day, info->n,
                  aw_role_name(info->my_role));
    aw_buf_adds(b, ",\"roles\":{");
    bool first = true;
    for (int a = 1; a <= info->n; a++)
        if (info->role[a] != AW_ROLE_NONE) {
            aw_buf_printf(b, "%s\"%d\":\"%s\"", first ? "" : ",", a, aw_role_name(info->role[a]));
            first = false;
        }
    aw_buf_adds(b, "},\"alive\":[");
    first = true;
    for (int a = 1; a <= info->n; a++)
        if (info->alive[a]) {
            aw_buf_printf(b, "%s%d", first ? "" : ",", a);
            first = false;
        }
    aw_buf_adds(b, "],\"existingRoles\":[");
    first = true;
    for (int r = 0; r < AW_NROLES; r++)
        if (info->existing_role[r]) {
            aw_buf_printf(b, "%s\"%s\"", first ? "" : ",", aw_role_name((aw_role)r));
            first = false;
        }
    aw_buf_addc(b, ']');
    add_remain(b, "remainTalk", info, info->remain_talk);
    add_talks(b, "talks", info->talks, info->ntalks);
    if (info->whispers) {
        add_remain(b, "remainWhisper", info, info->remain_whisper);
        add_talks(b, "whispers", info->whispers, info->nwhispers);
    }
    if (info->votes)
        add_votes(b, "votes", info->votes, info->nvotes);
    if (info->latest_votes)
        add_votes(b, "latestVotes", info->latest_votes, info->nlatest_votes);
    aw_buf_printf(b, ",\"executed\":%d,\"latestExecuted\":%d,\"lastDead\":[", info->executed, info->latest_executed);
    for (int i = 0; i < info->nlast_dead; i++)
        aw_buf_printf(b, "%s%d", i ? "," : "", info->last_dead[i]);
    aw_buf_addc(b, ']');
    add_judge(b, "divineResult", &info->divine_result);
    add_judge(b, "mediumResult", &info->medium_result);
    if (info->attacked)
        aw_buf_printf(b, ",\"attacked\":%d", info->attacked);
    if (info->attack_votes)
        add_votes(b, "attackVotes", info->attack_votes, info->nattack_votes);
    if (info->latest_attack_votes)
        add_votes(b, "latestAttackVotes", info->latest_attack_votes, info->nlatest_attack_votes);
    if (info->guarded)
        aw_buf_printf(b, ",\"guarded\":%d", info->guarded);
    aw_buf_addc(b, '}');
}

void aw_human_view_json(const aw_info *info, aw_req_kind kind, const aw_settings *set, uint64_t seq,
                        uint64_t left_ms, aw_buf *b)
{
    view_head(b, seq, aw_req_name(kind),
              !aw_req_needs_reply(kind) ? "none" : aw_req_wants_text(kind) ? "text" : "target", left_ms);
    view_body(info, set, b);
}

static uint64_t now_default(void *ud)
{
    (void)ud;
    return aw_now_ns();
}

/* The seat's time: aw_now_ns, or the clock the caller gave. */
static uint64_t h_now(const human *h)
{
    return h->now(h->now_ud);
}

static uint64_t left_ms(const human *h, uint64_t deadline)
{
    uint64_t now = h_now(h);
    return deadline > now ? (deadline - now) / 1000000 : 0;
}

/* With h->mu held: what a request says of the night turn. The day's end
 * and each vote keep the night view's fields (what the seat knew last
 * before the night); a night request is the night's turn. */
static void night_note_locked(human *h, aw_req_kind kind, const aw_info *info, const aw_settings *set)
{
    switch (kind) {
    case AW_REQ_DAILY_FINISH:
        h->dusk_alive = info->alive[h->agent];
        h->secret = false;
        /* fall through */
    case AW_REQ_VOTE:
        aw_buf_clear(&h->night_body);
        view_body(info, set, &h->night_body);
        break;
    case AW_REQ_DIVINE:
    case AW_REQ_GUARD:
    case AW_REQ_ATTACK:
    case AW_REQ_WHISPER:
        h->secret = true;
        break;
    case AW_REQ_DAILY_INITIALIZE:
    case AW_REQ_FINISH:
        h->dusk_alive = false;
        break;
    default:
        break;
    }
}

/* With h->mu held: the night step, asked in place of DAILY_INITIALIZE
 * (whose view waits in h->dawn until the step ends). */
static void night_step_locked(human *h, const aw_info *info, const aw_settings *set)
{
    h->dusk_alive = false;
    h->seq++;
    h->kind = AW_REQ_DAILY_INITIALIZE;
    h->night = true;
    h->players = info->n;
    h->mode = set->validation;
    h->answered = false;
    h->deadline = h_now(h) + h->timeout_ns;
    aw_buf_clear(&h->view);
    view_head(&h->view, h->seq, "NIGHT", "confirm", h->timeout_ns / 1000000);
    aw_buf_add(&h->view, h->night_body.data, h->night_body.len);
    h->view_deadline = h->deadline;
    aw_buf_clear(&h->dawn);
    aw_human_view_json(info, AW_REQ_DAILY_INITIALIZE, set, h->seq + 1, 0, &h->dawn);
    if (h->publish)
        h->publish(h->ud, h->view.data, h->view.len);
}

static int human_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                         aw_seat_reply *reply, aw_seat_fault *f)
{
    (void)reply;
    (void)f;
    human *h = (human *)s;
    bool ask = aw_req_needs_reply(kind);
    pthread_mutex_lock(&h->mu);
    if (kind == AW_REQ_DAILY_INITIALIZE && info->day >= 1 && h->dusk_alive && !h->secret && !h->closed &&
        info->executed != h->agent && h->night_body.len) {
        night_step_locked(h, info, set);
        pthread_mutex_unlock(&h->mu);
        return AW_SEAT_PENDING;
    }
    night_note_locked(h, kind, info, set);
    h->seq++;
    h->kind = ask ? kind : AW_REQ_NONE;
    h->players = info->n;
    h->mode = set->validation;
    h->answered = false;
    h->deadline = ask ? h_now(h) + (h->closed ? 0 : h->timeout_ns) : 0;
    aw_buf_clear(&h->view);
    aw_human_view_json(info, kind, set, h->seq, ask && !h->closed ? h->timeout_ns / 1000000 : 0, &h->view);
    h->view_deadline = h->deadline;
    /* under the lock: a page that joins gets this view in its order */
    if (h->publish)
        h->publish(h->ud, h->view.data, h->view.len);
    pthread_mutex_unlock(&h->mu);
    return ask ? AW_SEAT_PENDING : 0;
}

/* Publishes a note on the request's end ("answered", "timeout"), with
 * h->mu held. */
static void note_locked(human *h, const char *type, uint64_t seq)
{
    char note[96];
    int n = snprintf(note, sizeof note, "{\"type\":\"%s\",\"seq\":%llu}", type, (unsigned long long)seq);
    if (h->publish)
        h->publish(h->ud, note, (size_t)n);
}

/* With h->mu held: the pending request's answer, or AW_SEAT_PENDING. */
static int take_locked(human *h, aw_seat_reply *reply, aw_seat_fault *f)
{
    if (h->kind == AW_REQ_NONE) {
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "no request is waiting for an answer");
        return -1;
    }
    if (!h->answered && h_now(h) < h->deadline)
        return AW_SEAT_PENDING;
    uint64_t seq = h->seq;
    aw_req_kind kind = h->kind;
    h->kind = AW_REQ_NONE;
    if (h->night) {
        /* The night step ends (confirmed or not: no fault, which the
         * record would show): DAILY_INITIALIZE is told. */
        h->night = false;
        note_locked(h, h->answered ? "answered" : "timeout", seq);
        h->seq++;
        aw_buf_clear(&h->view);
        aw_buf_add(&h->view, h->dawn.data, h->dawn.len);
        h->view_deadline = 0;
        if (h->publish)
            h->publish(h->ud, h->view.data, h->view.len);
        reply->text = NULL;
        reply->len = 0;
        reply->target = AW_NO_AGENT;
        return 0;
    }
    if (!h->answered) {
        f->kind = AW_FAULT_TIMEOUT;
        if (h->closed)
            snprintf(f->msg, sizeof f->msg, "no answer to %s: the games were stopped", aw_req_name(kind));
        else
            snprintf(f->msg, sizeof f->msg, "the person did not answer %s in %llu s", aw_req_name(kind),
                     (unsigned long long)(h->timeout_ns / 1000000000u));
        note_locked(h, "timeout", seq);
        return -1;
    }
    if (aw_req_wants_text(kind)) {
        reply->text = h->text.data ? h->text.data : "";
        reply->len = h->text.len;
    } else {
        reply->target = h->target;
    }
    note_locked(h, "answered", seq);
    return 0;
}

int aw_human_take(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *f, uint64_t *deadline)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    int rc = take_locked(h, reply, f);
    if (rc == AW_SEAT_PENDING && deadline)
        *deadline = h->deadline;
    pthread_mutex_unlock(&h->mu);
    return rc;
}

void aw_human_set_clock(aw_seat *s, aw_human_clock_fn *now, void *ud)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    h->now = now ? now : now_default;
    h->now_ud = now ? ud : NULL;
    pthread_mutex_unlock(&h->mu);
}

void aw_human_on_ready(aw_seat *s, aw_human_ready_fn *fn, void *ud)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    h->ready = fn;
    h->ready_ud = fn ? ud : NULL;
    pthread_mutex_unlock(&h->mu);
}

static int human_wait(aw_seat *s, aw_seat_reply *reply, aw_seat_fault *f)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    int rc;
    while ((rc = take_locked(h, reply, f)) == AW_SEAT_PENDING) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t now = h_now(h), wait = h->deadline > now ? h->deadline - now : 0;
        /* at most a second at a time: the deadline is on the seat's clock
         * (aw_now_ns's, or a caller's that the wait cannot watch: re-read
         * at least every timeout of real time) */
        if (wait > 1000000000u)
            wait = 1000000000u;
        ts.tv_sec += (time_t)(wait / 1000000000u);
        ts.tv_nsec += (long)(wait % 1000000000u);
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&h->cv, &h->mu, &ts);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

uint64_t aw_human_deadline(aw_seat *s)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    uint64_t d = h->kind != AW_REQ_NONE ? h->deadline : 0;
    pthread_mutex_unlock(&h->mu);
    return d;
}

const char *aw_human_token(const aw_seat *s)
{
    return ((const human *)s)->token;
}

bool aw_human_token_ok(const aw_seat *s, const char *token, size_t len)
{
    const human *h = (const human *)s;
    if (!token || len != AW_HUMAN_TOKEN_LEN)
        return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < AW_HUMAN_TOKEN_LEN; i++)
        diff |= (unsigned char)(h->token[i] ^ token[i]);
    return diff == 0;
}

/* With h->mu held: the latest view, with the time left now, appended to
 * out. */
static int view_locked(human *h, aw_buf *out, aw_error *err)
{
    int rc = 0;
    if (!h->view.len) {
        rc = aw_fail(err, AW_ESTATE, "the game has not asked this seat anything yet");
    } else {
        /* the time left now, not when the view was published */
        const char *key = "\"timeLeftMs\":";
        const char *p = strstr(h->view.data, key);
        if (p) {
            p += strlen(key);
            aw_buf_add(out, h->view.data, (size_t)(p - h->view.data));
            aw_buf_printf(out, "%llu", (unsigned long long)(h->kind != AW_REQ_NONE ? left_ms(h, h->view_deadline) : 0));
            while (*p >= '0' && *p <= '9')
                p++;
            aw_buf_adds(out, p);
        } else {
            aw_buf_add(out, h->view.data, h->view.len);
        }
    }
    return rc;
}

int aw_human_view(aw_seat *s, const char *token, size_t token_len, aw_buf *out, aw_error *err)
{
    human *h = (human *)s;
    if (!aw_human_token_ok(s, token, token_len))
        return aw_fail(err, AW_EINVAL, "wrong token for this seat");
    pthread_mutex_lock(&h->mu);
    int rc = view_locked(h, out, err);
    pthread_mutex_unlock(&h->mu);
    return rc;
}

int aw_human_view_to(aw_seat *s, const char *token, size_t token_len, aw_human_publish_fn *fn, void *fn_ud,
                     aw_error *err)
{
    human *h = (human *)s;
    if (!aw_human_token_ok(s, token, token_len))
        return aw_fail(err, AW_EINVAL, "wrong token for this seat");
    aw_buf b;
    aw_buf_init(&b);
    pthread_mutex_lock(&h->mu);
    int rc = view_locked(h, &b, err);
    if (rc == 0)
        fn(fn_ud, b.data, b.len);
    pthread_mutex_unlock(&h->mu);
    aw_buf_free(&b);
    return rc;
}

/* One line of valid UTF-8 without control bytes, as the engine requires. */
static bool one_line(const char *s, size_t len)
{
    for (size_t i = 0; i < len;) {
        size_t n = aw_utf8_char_len(s + i, len - i);
        unsigned char c = (unsigned char)s[i];
        if (n == 0 || c < 0x20 || c == 0x7f)
            return false;
        i += n;
    }
    return true;
}

int aw_human_answer(aw_seat *s, const char *token, size_t token_len, uint64_t seq, const char *text, size_t len,
                    int target, aw_error *err)
{
    human *h = (human *)s;
    if (!aw_human_token_ok(s, token, token_len))
        return aw_fail(err, AW_EINVAL, "wrong token for this seat");
    pthread_mutex_lock(&h->mu);
    int rc = 0;
    if (h->kind == AW_REQ_NONE || h->answered || seq != h->seq) {
        rc = aw_fail(err, AW_ESTATE, "request %llu is not waiting for an answer (now: %llu%s)",
                     (unsigned long long)seq, (unsigned long long)h->seq,
                     h->kind == AW_REQ_NONE || h->answered ? ", answered or over" : "");
    } else if (h_now(h) >= h->deadline) {
        rc = aw_fail(err, AW_ESTATE, "too late: the time for %s is over", h->night ? "the night" : aw_req_name(h->kind));
    } else if (h->night) {
        if (text || target != AW_NO_AGENT)
            rc = aw_fail(err, AW_EINVAL, "the night needs only a confirmation (no text, no agent)");
    } else if (aw_req_wants_text(h->kind)) {
        aw_error perr = {"", 0, 0};
        if (!text || len == 0)
            rc = aw_fail(err, AW_EINVAL, "%s needs a text (Over or Skip to say nothing)", aw_req_name(h->kind));
        else if (len > HUMAN_MAX_TEXT)
            rc = aw_fail(err, AW_EINVAL, "the text is longer than %d bytes", HUMAN_MAX_TEXT);
        else if (!one_line(text, len))
            rc = aw_fail(err, AW_EINVAL, "the text must be one line of UTF-8 without control characters");
        else if (h->mode != AW_VALIDATE_OFF && aw_protocol_validate(text, len, h->mode, &perr) < 0)
            rc = aw_fail(err, AW_EINVAL, "%s", perr.msg);
        if (rc == 0) {
            aw_buf_clear(&h->text);
            aw_buf_add(&h->text, text, len);
        }
    } else if (target < 1 || target > h->players) {
        rc = aw_fail(err, AW_EINVAL, "%s needs an agent from 1 to %d", aw_req_name(h->kind), h->players);
    } else {
        h->target = target;
    }
    if (rc == 0) {
        h->answered = true;
        pthread_cond_broadcast(&h->cv);
        if (h->ready)
            h->ready(h->ready_ud);
    }
    pthread_mutex_unlock(&h->mu);
    return rc;
}

void aw_human_close(aw_seat *s)
{
    human *h = (human *)s;
    pthread_mutex_lock(&h->mu);
    h->closed = true;
    if (h->kind != AW_REQ_NONE && !h->answered) {
        h->deadline = 0;
        pthread_cond_broadcast(&h->cv);
        if (h->ready)
            h->ready(h->ready_ud);
    }
    pthread_mutex_unlock(&h->mu);
}

static void human_free(aw_seat *s)
{
    human *h = (human *)s;
    if (!h)
        return;
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    aw_buf_free(&h->text);
    aw_buf_free(&h->view);
    aw_buf_free(&h->night_body);
    aw_buf_free(&h->dawn);
    free(h->name);
    free(h);
}

static const aw_seat_ops human_ops = {
    .begin = human_begin, .request = human_request, .free = human_free, .wait = human_wait};

aw_seat *aw_human_new(const aw_human_opts *o, aw_error *err)
{
    unsigned char raw[AW_HUMAN_TOKEN_LEN / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            aw_fail(err, AW_EIO, "no random bytes for the human seat's token: %s", strerror(errno));
            return NULL;
        }
        got += (size_t)n;
    }
    human *h = aw_xcalloc(1, sizeof *h);
    h->base.ops = &human_ops;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        h->token[2 * i] = hex[raw[i] >> 4];
        h->token[2 * i + 1] = hex[raw[i] & 15];
    }
    h->name = aw_xstrdup(o->name ? o->name : "human");
    h->timeout_ns = (o->timeout_ms ? o->timeout_ms : 120000) * 1000000u;
    h->now = now_default;
    h->publish = o->publish;
    h->ud = o->ud;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&h->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&h->mu, NULL);
    aw_buf_init(&h->text);
    aw_buf_init(&h->view);
    aw_buf_init(&h->night_body);
    aw_buf_init(&h->dawn);
    return &h->base;
}
