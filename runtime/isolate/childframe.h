/* childframe: the compact framing between the host and a child seat
 * (childseat.c), with no I/O. The official JSON wire format (runtime/wire)
 * is for TCP; between a host and the child it forked, both the same binary,
 * a binary frame per request and one per answer is enough and costs a
 * fraction of it.
 *
 * Host to child, one frame per request ("ask"): a 16-byte header (magic,
 * request, sequence number, payload length) and a payload: flags; the game's
 * settings whole (aw_settings, when they changed since the last frame); the
 * seat's own seed (INITIALIZE); and the agent's view (aw_info): its
 * fixed-size fields whole, the four vote lists, and the talk and whisper
 * lists as "keep the first K entries you hold, append these" — K is 0 the
 * first time and whenever the host cannot be sure of the child's copy, so
 * a frame either carries the whole list or only its new entries. A talk
 * entry says whether the host's talk had a parsed form, so that the child
 * parses exactly those (the in-process seat sees no parsed form on a Skip
 * the host put in an agent's place).
 *
 * Child to host, one frame per request ("answer"), written in one write: a
 * 36-byte header (magic, request, the ask's sequence number, fault kind,
 * message length, whether there is a text, text length, target, the CPU
 * time the child's agent thread spent on the request) then the fault
 * message and the text. The host checks everything
 * (aw_cf_answer_parse): a child is never trusted.
 *
 * Both ends are the same binary (the child is a fork), so integers go in
 * host order and aw_settings as its bytes.
 *
 * Ownership: an aw_cf_view owns its lists and their texts (and parsed forms,
 * freed with its free_parsed hook, before the text they were made from);
 * its aw_info `v` points into it and is borrowed until the next
 * aw_cf_view_apply or free. Encoders append to a
 * caller-owned aw_buf. */
#ifndef AW_CHILDFRAME_H
#define AW_CHILDFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seat.h"
#include "settings.h"
#include "util.h"
#include "view.h"

/* The request that starts a child and asks its name (besides aw_req_kind). */
enum { AW_CF_REQ_NAME = 100 };

#define AW_CF_ASK_MAGIC 0x31514157u    /* "WAQ1" */
#define AW_CF_ANSWER_MAGIC 0x31415741u /* "AWA1" */
#define AW_CF_ASK_HEADER 16u
#define AW_CF_ANSWER_HEADER 36u
#define AW_CF_MSG_MAX 511u /* longest fault message (aw_seat_fault.msg minus its NUL) */

typedef struct aw_cf_ask_header {
    uint32_t magic;
    int32_t request;
    uint32_t seq;
    uint32_t len; /* payload bytes that follow */
} aw_cf_ask_header;

typedef struct aw_cf_answer_header {
    uint32_t magic;
    int32_t request;
    uint32_t seq;
    int32_t fault;    /* aw_fault_kind */
    uint32_t msg_len; /* fault message bytes (0 without a fault) */
    uint32_t has_text; /* 0 or 1 */
    uint32_t text_len;
    int32_t target;   /* AW_NO_AGENT unless the request wants a target */
    uint32_t cpu_us;  /* the CPU time of the child's thread on this request (µs, at most UINT32_MAX) */
} aw_cf_answer_header;

const char *aw_cf_request_name(int request); /* "NAME", "TALK", ...; "?" if unknown */

/* ---- host side ---------------------------------------------------------- */

/* What the host knows the child holds of one list. */
typedef struct aw_cf_list_sent {
    int n;                           /* entries the child holds */
    int day, idx, turn, agent;       /* the last of them */
    size_t len;
} aw_cf_list_sent;

/* What the host has sent the child (a fresh child, a new game: reset). */
typedef struct aw_cf_sent {
    bool valid;        /* the child's copy is known */
    bool have_settings;
    aw_settings set;   /* the last settings sent */
    int day;
    aw_cf_list_sent talks, whispers;
} aw_cf_sent;

void aw_cf_sent_reset(aw_cf_sent *s);

/* Appends the ask frame for request to out. info and set may be NULL (NAME);
 * with_seed sends agent_seed along (INITIALIZE). Updates s. */
void aw_cf_ask_encode(aw_cf_sent *s, int request, uint32_t seq, const aw_info *info, const aw_settings *set,
                      bool with_seed, uint64_t agent_seed, aw_buf *out);

/* A parsed answer. text points into the bytes given to aw_cf_answer_parse. */
typedef struct aw_cf_answer {
    aw_seat_fault fault; /* the inner seat's fault (AW_FAULT_NONE if none), printable */
    const char *text;    /* NULL: none */
    size_t len;
    int target;
    uint32_t cpu_us;     /* as the child reported it */
} aw_cf_answer;

/* Looks at the bytes the child sent for the ask (request, seq). Returns 0
 * when more are needed, the frame's length when a whole and valid frame is
 * there (*a filled), or -1 with *f (kind reply) when the bytes are not the
 * answer: garbage, an answer to another request or an older one, a
 * broken header, a text or message over the limits (max_text), a text
 * where a target is due or the reverse. Bytes past the frame are the
 * caller's to judge. */
long aw_cf_answer_parse(const char *buf, size_t len, int request, uint32_t seq, size_t max_text, aw_cf_answer *a,
                        aw_seat_fault *f);

/* ---- child side ----------------------------------------------------------- */

/* The texts of a held list, one after another in blocks that never move
 * (a text stays where it is until its entry is dropped): no allocation per
 * talk. */
typedef struct aw_cf_text_block aw_cf_text_block;
typedef struct aw_cf_texts {
    aw_cf_text_block *first, *cur; /* the blocks (kept for reuse), the one being filled */
} aw_cf_texts;

typedef struct aw_cf_view {
    aw_info v;          /* what the inner seat is called with */
    aw_settings set;    /* the settings the host sent last */
    bool have_settings;
    uint64_t seed;      /* the last seed the host sent */
    bool have_seed;
    aw_talk *talks, *whispers;
    int talk_cap, whisper_cap;
    aw_cf_texts talk_texts, whisper_texts;
    aw_vote votes[AW_MAX_PLAYERS], latest_votes[AW_MAX_PLAYERS];
    aw_vote attack_votes[AW_MAX_PLAYERS], latest_attack_votes[AW_MAX_PLAYERS];
    /* How entries the host parsed get their parsed form here (may be NULL:
     * none), and how it is freed. The text validate is given stays where it
     * is until then. */
    aw_talk_hooks talk;
} aw_cf_view;

void aw_cf_view_init(aw_cf_view *v);
void aw_cf_view_free(aw_cf_view *v);

/* Reads an ask header (AW_CF_ASK_HEADER bytes). Returns 0, or -1 when it is
 * not one. */
int aw_cf_ask_header_read(const char *buf, aw_cf_ask_header *h);

/* Applies an ask's payload to the view. Returns 0, or -1 with err when the
 * payload is malformed (the host is broken; the view may then be partly
 * updated and should not be used). */
int aw_cf_view_apply(aw_cf_view *v, const char *payload, size_t len, aw_error *err);

/* Appends an answer frame. text NULL: none. cpu_us: the CPU time the
 * request took (0 for aw_cf_answer_encode). */
void aw_cf_answer_encode(aw_buf *out, int request, uint32_t seq, const aw_seat_fault *f, const char *text,
                         size_t len, int target);
void aw_cf_answer_encode_cpu(aw_buf *out, int request, uint32_t seq, const aw_seat_fault *f, const char *text,
                             size_t len, int target, uint32_t cpu_us);

#endif
