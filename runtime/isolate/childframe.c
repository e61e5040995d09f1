/* childframe: the compact host-child framing (see childframe.h). */
#include "childframe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_SETTINGS = 1, F_SEED = 2, F_INFO = 4 };
/* Which of the view's list pointers are set (the in-process seat sees NULL
 * and an empty list differently only through the pointer, so keep it). */
enum { P_TALKS = 1, P_WHISPERS = 2, P_VOTES = 4, P_LATEST_VOTES = 8, P_ATTACK_VOTES = 16, P_LATEST_ATTACK = 32 };

typedef struct entry {
    int32_t day, idx, turn, agent;
    uint32_t len;
    uint32_t parsed; /* the host's talk had a parsed form */
} entry;

const char *aw_cf_request_name(int request)
{
    if (request == AW_CF_REQ_NAME)
        return "NAME";
    if (request > AW_REQ_NONE && request <= AW_REQ_FINISH)
        return aw_req_name((aw_req_kind)request);
    return "?";
}

/* ---- host side ------------------------------------------------------------ */

void aw_cf_sent_reset(aw_cf_sent *s)
{
    memset(s, 0, sizeof *s);
}

static void put_u32(aw_buf *out, uint32_t v)
{
    aw_buf_add(out, &v, sizeof v);
}

static void put_votes(aw_buf *out, const aw_vote *v, int n)
{
    if (v && n > 0)
        aw_buf_add(out, v, (size_t)n * sizeof *v);
}

/* The list as "keep K, append these": K is what the child holds when the
 * host is sure it holds the same first K entries (the engine only appends
 * to a day's list, and clears it when the day changes). */
static void put_list(aw_buf *out, aw_cf_list_sent *ls, bool valid, const aw_talk *t, int n)
{
    int keep = 0;
    if (valid && ls->n > 0 && ls->n <= n) {
        const aw_talk *l = &t[ls->n - 1];
        if (l->day == ls->day && l->idx == ls->idx && l->turn == ls->turn && l->agent == ls->agent && l->len == ls->len)
            keep = ls->n;
    }
    put_u32(out, (uint32_t)keep);
    put_u32(out, (uint32_t)(n - keep));
    for (int i = keep; i < n; i++) {
        entry e = {t[i].day, t[i].idx, t[i].turn, t[i].agent, (uint32_t)t[i].len, t[i].parsed != NULL};
        aw_buf_add(out, &e, sizeof e);
        aw_buf_add(out, t[i].text, t[i].len);
    }
    ls->n = n;
    if (n > 0) {
        ls->day = t[n - 1].day;
        ls->idx = t[n - 1].idx;
        ls->turn = t[n - 1].turn;
        ls->agent = t[n - 1].agent;
        ls->len = t[n - 1].len;
    }
}

void aw_cf_ask_encode(aw_cf_sent *s, int request, uint32_t seq, const aw_info *info, const aw_settings *set,
                      bool with_seed, uint64_t agent_seed, aw_buf *out)
{
    size_t start = out->len;
    aw_cf_ask_header h = {AW_CF_ASK_MAGIC, request, seq, 0};
    aw_buf_add(out, &h, sizeof h);
    uint32_t flags = 0;
    bool send_set = set && (!s->have_settings || memcmp(&s->set, set, sizeof *set) != 0);
    if (send_set)
        flags |= F_SETTINGS;
    if (with_seed)
        flags |= F_SEED;
    if (info)
        flags |= F_INFO;
    put_u32(out, flags);
    if (send_set) {
        aw_buf_add(out, set, sizeof *set);
        s->set = *set;
        s->have_settings = true;
    }
    if (with_seed)
        aw_buf_add(out, &agent_seed, sizeof agent_seed);
    if (info) {
        aw_info fx;
        memcpy(&fx, info, sizeof fx);
        uint32_t present = (info->talks ? P_TALKS : 0) | (info->whispers ? P_WHISPERS : 0) |
                           (info->votes ? P_VOTES : 0) | (info->latest_votes ? P_LATEST_VOTES : 0) |
                           (info->attack_votes ? P_ATTACK_VOTES : 0) |
                           (info->latest_attack_votes ? P_LATEST_ATTACK : 0);
        /* No host addresses go to the child; counts of absent lists are 0. */
        fx.talks = fx.whispers = NULL;
        fx.votes = fx.latest_votes = fx.attack_votes = fx.latest_attack_votes = NULL;
        if (!info->votes)
            fx.nvotes = 0;
        if (!info->latest_votes)
            fx.nlatest_votes = 0;
        if (!info->attack_votes)
            fx.nattack_votes = 0;
        if (!info->latest_attack_votes)
            fx.nlatest_attack_votes = 0;
        if (!info->talks)
            fx.ntalks = 0;
        if (!info->whispers)
            fx.nwhispers = 0;
        aw_buf_add(out, &fx, sizeof fx);
        put_u32(out, present);
        put_votes(out, info->votes, fx.nvotes);
        put_votes(out, info->latest_votes, fx.nlatest_votes);
        put_votes(out, info->attack_votes, fx.nattack_votes);
        put_votes(out, info->latest_attack_votes, fx.nlatest_attack_votes);
        bool valid = s->valid && s->day == info->day;
        put_list(out, &s->talks, valid, info->talks, fx.ntalks);
        put_list(out, &s->whispers, valid, info->whispers, fx.nwhispers);
        s->valid = true;
        s->day = info->day;
    }
    uint32_t len = (uint32_t)(out->len - start - sizeof h);
    memcpy(out->data + start + offsetof(aw_cf_ask_header, len), &len, sizeof len);
}

static long bad(aw_seat_fault *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static long bad(aw_seat_fault *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    f->kind = AW_FAULT_REPLY;
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    return -1;
}

long aw_cf_answer_parse(const char *buf, size_t len, int request, uint32_t seq, size_t max_text, aw_cf_answer *a,
                        aw_seat_fault *f)
{
    const char *rname = aw_cf_request_name(request);
    uint32_t magic;
    if (len >= sizeof magic) {
        memcpy(&magic, buf, sizeof magic);
        if (magic != AW_CF_ANSWER_MAGIC)
            return bad(f, "%s: garbage on the wire (not an answer frame)", rname);
    }
    if (len < AW_CF_ANSWER_HEADER)
        return 0;
    aw_cf_answer_header h;
    memcpy(&h, buf, sizeof h);
    if (h.seq != seq)
        return bad(f, "%s: unexpected bytes on the wire (an answer nobody asked for)", rname);
    if (h.request != request)
        return bad(f, "%s: a broken answer frame (it answers %s)", rname, aw_cf_request_name(h.request));
    if (h.fault < AW_FAULT_NONE || h.fault > AW_FAULT_LOST || h.msg_len > AW_CF_MSG_MAX ||
        (h.fault == AW_FAULT_NONE && h.msg_len) || h.has_text > 1 || (!h.has_text && h.text_len))
        return bad(f, "%s: a broken answer frame", rname);
    if (h.text_len > max_text)
        return bad(f, "%s: a reply longer than %zu KiB", rname, max_text / 1024);
    /* A text answers TALK and WHISPER, a target VOTE, DIVINE, GUARD and
     * ATTACK, and neither comes with a fault; NAME's text (the name) may
     * come with getName's fault. */
    bool is_name = request == AW_CF_REQ_NAME;
    aw_req_kind k = is_name ? AW_REQ_NONE : (aw_req_kind)request;
    bool text_ok = is_name || (h.fault == AW_FAULT_NONE && aw_req_wants_text(k));
    bool target_ok = h.fault == AW_FAULT_NONE && !is_name && aw_req_needs_reply(k) && !aw_req_wants_text(k);
    if (h.has_text && !text_ok)
        return bad(f, "%s: a text reply where %s is due", rname, target_ok ? "a target (agentIdx)" : "none");
    if (h.target != AW_NO_AGENT && !target_ok)
        return bad(f, "%s: a target reply where %s is due", rname, text_ok ? "a text" : "none");
    size_t total = AW_CF_ANSWER_HEADER + (size_t)h.msg_len + (size_t)h.text_len;
    if (len < total)
        return 0;
    a->fault.kind = (aw_fault_kind)h.fault;
    memcpy(a->fault.msg, buf + AW_CF_ANSWER_HEADER, h.msg_len);
    a->fault.msg[h.msg_len] = '\0';
    /* Only printable bytes reach the log (and a NUL would cut the message). */
    for (uint32_t i = 0; i < h.msg_len; i++) {
        unsigned char ch = (unsigned char)a->fault.msg[i];
        if (ch < 0x20 || ch == 0x7f)
            a->fault.msg[i] = '?';
    }
    a->text = h.has_text ? buf + AW_CF_ANSWER_HEADER + h.msg_len : NULL;
    a->len = h.text_len;
    a->target = h.target;
    a->cpu_us = h.cpu_us;
    return (long)total;
}

/* ---- child side ----------------------------------------------------------- */

void aw_cf_view_init(aw_cf_view *v)
{
    memset(v, 0, sizeof *v);
}

struct aw_cf_text_block {
    aw_cf_text_block *next;
    size_t used, cap;
    char data[];
};

#define TEXT_BLOCK 16384u

/* A copy of text[0..len) with a NUL after it, at the end of the pool. */
static char *texts_add(aw_cf_texts *p, const char *text, size_t len)
{
    aw_cf_text_block *b = p->cur;
    while (!b || b->cap - b->used < len + 1) {
        aw_cf_text_block *next = b ? b->next : p->first;
        if (!next || next->cap < len + 1) {
            /* A new block after b (one too small for this text is freed). */
            size_t cap = len + 1 > TEXT_BLOCK ? len + 1 : TEXT_BLOCK;
            aw_cf_text_block *n = aw_xmalloc(sizeof *n + cap);
            n->next = next ? next->next : NULL;
            n->used = 0;
            n->cap = cap;
            free(next);
            if (b)
                b->next = n;
            else
                p->first = n;
            next = n;
        }
        b = next;
        b->used = 0;
    }
    p->cur = b;
    char *d = b->data + b->used;
    memcpy(d, text, len);
    d[len] = '\0';
    b->used += len + 1;
    return d;
}

/* Drops every text after the one that ends at end (one past its NUL), or
 * every text when end is NULL (texts_add then starts from the first block). */
static void texts_cut(aw_cf_texts *p, const char *end)
{
    p->cur = NULL;
    for (aw_cf_text_block *b = p->first; b; b = b->next) {
        if (p->cur) {
            b->used = 0;
        } else if (end && end > b->data && end <= b->data + b->used) {
            b->used = (size_t)(end - b->data);
            p->cur = b;
        }
    }
}

static void texts_free(aw_cf_texts *p)
{
    for (aw_cf_text_block *b = p->first, *n; b; b = n) {
        n = b->next;
        free(b);
    }
    p->first = p->cur = NULL;
}

/* Drops entries from..n-1: their parsed forms, then their texts. */
static void truncate_list(aw_cf_view *v, aw_talk *t, aw_cf_texts *texts, int from, int n)
{
    for (int i = from; i < n; i++) {
        if (t[i].parsed && v->talk.free_parsed)
            v->talk.free_parsed(NULL, t[i].parsed);
        t[i].text = NULL;
        t[i].parsed = NULL;
    }
    if (from < n)
        texts_cut(texts, from > 0 ? t[from - 1].text + t[from - 1].len + 1 : NULL);
}

void aw_cf_view_free(aw_cf_view *v)
{
    truncate_list(v, v->talks, &v->talk_texts, 0, v->v.ntalks);
    truncate_list(v, v->whispers, &v->whisper_texts, 0, v->v.nwhispers);
    texts_free(&v->talk_texts);
    texts_free(&v->whisper_texts);
    free(v->talks);
    free(v->whispers);
    memset(v, 0, sizeof *v);
}

int aw_cf_ask_header_read(const char *buf, aw_cf_ask_header *h)
{
    memcpy(h, buf, sizeof *h);
    return h->magic == AW_CF_ASK_MAGIC ? 0 : -1;
}

typedef struct reader {
    const char *p;
    size_t left;
} reader;

static bool take(reader *r, void *dst, size_t n)
{
    if (r->left < n)
        return false;
    memcpy(dst, r->p, n);
    r->p += n;
    r->left -= n;
    return true;
}

static bool take_votes(reader *r, aw_vote *dst, int n)
{
    return n >= 0 && n <= AW_MAX_PLAYERS && take(r, dst, (size_t)n * sizeof *dst);
}

/* Applies one list block onto the held list (*t, *n entries). */
static bool take_list(aw_cf_view *v, reader *r, aw_talk **t, int *cap, int *n, aw_cf_texts *texts)
{
    uint32_t keep, count;
    if (!take(r, &keep, sizeof keep) || !take(r, &count, sizeof count))
        return false;
    if (keep > (uint32_t)*n || count > r->left / sizeof(entry))
        return false;
    truncate_list(v, *t, texts, (int)keep, *n);
    *n = (int)keep;
    if (*n + (int)count > *cap) {
        int nc = *cap ? *cap : 64;
        while (nc < *n + (int)count)
            nc *= 2;
        *t = aw_xrealloc(*t, (size_t)nc * sizeof **t);
        *cap = nc;
    }
    for (uint32_t i = 0; i < count; i++) {
        entry e;
        if (!take(r, &e, sizeof e) || e.len > r->left)
            return false;
        aw_talk *d = &(*t)[*n];
        d->day = e.day;
        d->idx = e.idx;
        d->turn = e.turn;
        d->agent = e.agent;
        d->len = e.len;
        d->text = texts_add(texts, r->p, e.len);
        d->parsed = NULL;
        r->p += e.len;
        r->left -= e.len;
        (*n)++;
        if (e.parsed && v->talk.validate) {
            void *parsed = NULL;
            aw_error err;
            if (v->talk.validate(NULL, d->text, d->len, v->set.validation, &parsed, &err) == 0)
                d->parsed = parsed;
        }
    }
    return true;
}

int aw_cf_view_apply(aw_cf_view *v, const char *payload, size_t len, aw_error *err)
{
    reader r = {payload, len};
    uint32_t flags;
    if (!take(&r, &flags, sizeof flags))
        return aw_fail(err, AW_EINVAL, "ask frame: no flags");
    if ((flags & F_SETTINGS) && !take(&r, &v->set, sizeof v->set))
        return aw_fail(err, AW_EINVAL, "ask frame: short settings");
    if (flags & F_SETTINGS)
        v->have_settings = true;
    if (flags & F_SEED) {
        if (!take(&r, &v->seed, sizeof v->seed))
            return aw_fail(err, AW_EINVAL, "ask frame: short seed");
        v->have_seed = true;
    }
    if (flags & F_INFO) {
        aw_info fx;
        uint32_t present;
        if (!take(&r, &fx, sizeof fx) || !take(&r, &present, sizeof present))
            return aw_fail(err, AW_EINVAL, "ask frame: short view");
        if (fx.nlast_dead < 0 || fx.nlast_dead > AW_MAX_PLAYERS)
            return aw_fail(err, AW_EINVAL, "ask frame: bad view");
        if (!take_votes(&r, v->votes, fx.nvotes) || !take_votes(&r, v->latest_votes, fx.nlatest_votes) ||
            !take_votes(&r, v->attack_votes, fx.nattack_votes) ||
            !take_votes(&r, v->latest_attack_votes, fx.nlatest_attack_votes))
            return aw_fail(err, AW_EINVAL, "ask frame: bad vote lists");
        /* The lists held stay with their counts until the blocks replace them. */
        int ntalks = v->v.ntalks, nwhispers = v->v.nwhispers;
        v->v = fx;
        v->v.ntalks = ntalks;
        v->v.nwhispers = nwhispers;
        bool ok = take_list(v, &r, &v->talks, &v->talk_cap, &v->v.ntalks, &v->talk_texts) &&
                  take_list(v, &r, &v->whispers, &v->whisper_cap, &v->v.nwhispers, &v->whisper_texts);
        if (!ok || r.left)
            return aw_fail(err, AW_EINVAL, "ask frame: bad talk lists");
        /* A present list is never NULL, even when empty, as on the host. */
        if (!v->talks)
            v->talks = aw_xcalloc((size_t)(v->talk_cap = 64), sizeof *v->talks);
        if (!v->whispers)
            v->whispers = aw_xcalloc((size_t)(v->whisper_cap = 64), sizeof *v->whispers);
        v->v.talks = (present & P_TALKS) ? v->talks : NULL;
        v->v.whispers = (present & P_WHISPERS) ? v->whispers : NULL;
        v->v.votes = (present & P_VOTES) ? v->votes : NULL;
        v->v.latest_votes = (present & P_LATEST_VOTES) ? v->latest_votes : NULL;
        v->v.attack_votes = (present & P_ATTACK_VOTES) ? v->attack_votes : NULL;
        v->v.latest_attack_votes = (present & P_LATEST_ATTACK) ? v->latest_attack_votes : NULL;
    }
    if (r.left)
        return aw_fail(err, AW_EINVAL, "ask frame: %zu bytes too many", r.left);
    return 0;
}

_Static_assert(sizeof(aw_cf_answer_header) == AW_CF_ANSWER_HEADER, "the answer header's size");

void aw_cf_answer_encode(aw_buf *out, int request, uint32_t seq, const aw_seat_fault *f, const char *text,
                         size_t len, int target)
{
    aw_cf_answer_encode_cpu(out, request, seq, f, text, len, target, 0);
}

void aw_cf_answer_encode_cpu(aw_buf *out, int request, uint32_t seq, const aw_seat_fault *f, const char *text,
                             size_t len, int target, uint32_t cpu_us)
{
    size_t mlen = f->kind == AW_FAULT_NONE ? 0 : strnlen(f->msg, AW_CF_MSG_MAX);
    aw_cf_answer_header h = {AW_CF_ANSWER_MAGIC, request, seq, (int32_t)f->kind, (uint32_t)mlen, text != NULL,
                             text ? (uint32_t)len : 0, target, cpu_us};
    aw_buf_add(out, &h, sizeof h);
    aw_buf_add(out, f->msg, mlen);
    if (text)
        aw_buf_add(out, text, len);
}
