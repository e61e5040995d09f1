/* wire: the official AIWolf wire format (server 0.6.x), both ways. The
 * server side turns one agent's view (aw_info), the settings and a request
 * into the JSON packet the official server would write, byte for byte: keys
 * in the official order, null fields present, map keys as strings, agents as
 * integers, randomSeed as a 64-bit integer, `<`/`>` escaped, and talk/whisper
 * entries sent as deltas per agent exactly when the official TcpipServer
 * sends them (a per-seat cursor, reset by INITIALIZE and DAILY_INITIALIZE).
 * The client side decodes a packet, keeps the last gameInfo and merges the
 * deltas into it (de-duplicating by day and idx), which gives back an aw_info
 * a seat can be called with. Replies (talk lines, `{"agentIdx":N}`, NAME,
 * ROLE) are parsed and written here too, and a line reader splits a byte
 * stream into bounded lines. See docs/isolation.md and the shared
 * wire-protocol.md.
 *
 * Uses jansson (only this module includes it), engine/view/settings types and
 * util. Nothing here does I/O: the TCP client and server (runtime/net) move the
 * bytes. (Child seats use their own compact framing, childframe.h.)
 *
 * Ownership: an aw_wire_packet filled by aw_wire_decode owns everything it
 * points to (aw_wire_packet_free). An aw_wire_client owns its gameInfo;
 * the aw_info at client->info.v and everything it points to are borrowed
 * from the client until its next aw_wire_client_apply or free. Encoders
 * append to a caller-owned aw_buf. */
#ifndef AW_WIRE_H
#define AW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "settings.h"
#include "util.h"
#include "view.h"

/* Requests: the aw_req_kind values, plus the two that happen outside a
 * game's engine. */
enum { AW_WIRE_REQ_NAME = 100, AW_WIRE_REQ_ROLE = 101 };

const char *aw_wire_request_name(int request); /* "NAME", "TALK", ...; NULL if unknown */
int aw_wire_request_parse(const char *s);      /* the inverse; -1 if unknown */
bool aw_wire_request_has_reply(int request);   /* NAME, ROLE, TALK, WHISPER, VOTE, DIVINE, GUARD, ATTACK */

/* The gameSetting object, field by field, as the official server sends it. */
typedef struct aw_wire_setting {
    bool enable_no_attack, enable_no_execution, enable_role_request, talk_on_first_day;
    bool validate_utterance, votable_in_first_day, vote_visible, whisper_before_revote;
    int max_attack_revote, max_revote, max_skip, max_talk, max_talk_turn, max_whisper, max_whisper_turn;
    int player_num, time_limit;
    int64_t random_seed;
    int role_num[AW_NROLES];
    int role_num_any; /* the "ANY" entry of roleNumMap */
} aw_wire_setting;

/* What our server sends for settings s to a seat whose own seed is
 * agent_seed (seat.h: never the game's seed, which would give away the
 * deal). */
void aw_wire_setting_from(aw_wire_setting *w, const aw_settings *s, uint64_t agent_seed);
/* Applies the official fields onto s (which keeps everything the wire does
 * not carry: preset, talk mode, validation level, ...) and checks the result. */
int aw_wire_setting_apply(const aw_wire_setting *w, aw_settings *s, aw_error *err);

/* A gameInfo that owns its lists. v is the aw_info view of it: its list
 * pointers point into this struct, so never copy an aw_wire_info by value. */
typedef struct aw_wire_info {
    aw_info v;
    int cursed_fox;
    aw_talk *talk_store, *whisper_store; /* v.talks, v.whispers point here (whispers only for werewolves) */
    int talk_cap, whisper_cap;
    int nwhisper_store; /* whisper entries held, also for a non-werewolf (whose v.whispers is NULL) */
    int parsed_talks, parsed_whispers; /* entries already offered to the parse hook */
    aw_vote votes[AW_MAX_PLAYERS], latest_votes[AW_MAX_PLAYERS];
    aw_vote attack_votes[AW_MAX_PLAYERS], latest_attack_votes[AW_MAX_PLAYERS];
} aw_wire_info;

/* One decoded packet. */
typedef struct aw_wire_packet {
    int request;
    bool has_info, has_setting, has_talk_history, has_whisper_history;
    aw_wire_info info;
    aw_wire_setting setting;
    aw_talk *talk_history, *whisper_history; /* owned, with owned texts */
    int ntalk_history, nwhisper_history;
} aw_wire_packet;

/* Decodes one packet line (without its newline). Strict about types and
 * ranges: agents 1..18 (or -1 where "none" is allowed), known role and
 * request names. On failure *p is left empty (safe to free) and err says
 * what was wrong. */
int aw_wire_decode(const char *line, size_t len, aw_wire_packet *p, aw_error *err);
void aw_wire_packet_free(aw_wire_packet *p);
/* Writes a decoded packet back as the official server would (no newline). */
int aw_wire_encode_packet(const aw_wire_packet *p, aw_buf *out, aw_error *err);

/* ---- server side ---------------------------------------------------------- */

/* What one agent has been sent of today's talk and whisper lists. */
typedef struct aw_wire_cursor {
    int talk, whisper; /* -1: nothing counted as sent */
    bool role_request; /* INITIALIZE says enableRoleRequest (the server asked ROLE); reset: false */
} aw_wire_cursor;

void aw_wire_cursor_reset(aw_wire_cursor *c);

/* Appends the packet for `request` (an aw_req_kind or AW_WIRE_REQ_NAME/ROLE)
 * to out, without a newline: a full gameInfo or only the talk/whisper
 * entries the agent has not been sent, exactly as the official server
 * decides (wire-protocol.md). info may be NULL for NAME and ROLE; set and
 * agent_seed (the seat's own seed, sent as randomSeed) are only read for
 * INITIALIZE. Updates the cursor. */
int aw_wire_encode_request(aw_wire_cursor *c, int request, const aw_info *info, const aw_settings *set,
                           uint64_t agent_seed, aw_buf *out, aw_error *err);

/* ---- client side ---------------------------------------------------------- */

typedef struct aw_wire_client {
    bool has_info, has_setting;
    aw_wire_info info; /* the last gameInfo with the deltas merged in */
    aw_wire_setting setting;
    /* Optional: called once for each talk/whisper that enters the client's
     * lists, to attach a parsed form (aw_talk.parsed); free_parsed releases
     * it. Used by the TCP client to hand agents the same parsed trees as the
     * in-process seat. */
    void (*parse)(void *ud, aw_talk *t);
    void (*free_parsed)(void *ud, void *parsed);
    void *ud;
} aw_wire_client;

void aw_wire_client_init(aw_wire_client *c);
void aw_wire_client_free(aw_wire_client *c);
/* Takes in a decoded packet: a full gameInfo replaces the last one (the
 * packet's lists are moved, so p->info is emptied), deltas are appended to
 * the last gameInfo's lists unless an entry with the same (day, idx) is
 * already there, a gameSetting is kept. Fails (without changing the client)
 * when deltas come before any gameInfo. */
int aw_wire_client_apply(aw_wire_client *c, aw_wire_packet *p, aw_error *err);

/* ---- replies -------------------------------------------------------------- */

/* A talk/whisper/NAME reply: strips a trailing '\r' (as Java's readLine
 * does). An empty line means no answer: *text = NULL. */
void aw_wire_reply_text(const char *line, size_t len, const char **text, size_t *text_len);
/* A VOTE/DIVINE/GUARD/ATTACK reply: exactly `{"agentIdx":N}` (N decimal
 * digits, at most 2^31-1) gives N; the empty line gives AW_NO_AGENT (no
 * answer). Anything else fails: the official server treats it as no
 * answer, we also report it as a bad reply. */
int aw_wire_reply_target(const char *line, size_t len, int *target, aw_error *err);
/* A ROLE reply: `none` gives AW_ROLE_NONE, a role name in upper case gives
 * the role; anything else (including the empty line that crashes the
 * official server) fails. */
int aw_wire_reply_role(const char *line, size_t len, aw_role *role, aw_error *err);
/* Writes `{"agentIdx":N}` for a target 1..; the empty line for none. */
void aw_wire_format_target(int target, aw_buf *out);

/* ---- line framing ----------------------------------------------------------- */

/* Splits a byte stream into lines of at most max_line bytes (without the
 * newline). Owns its buffer. */
typedef struct aw_wire_reader {
    aw_buf buf;
    size_t start;    /* first byte not yet returned */
    size_t scanned;  /* bytes from start already searched for '\n' */
    size_t max_line;
} aw_wire_reader;

void aw_wire_reader_init(aw_wire_reader *r, size_t max_line);
void aw_wire_reader_free(aw_wire_reader *r);
void aw_wire_reader_feed(aw_wire_reader *r, const void *data, size_t len);
/* Returns 1 with the next line (borrowed until the next call), 0 when no
 * whole line is buffered yet, -1 when the pending line is longer than
 * max_line (the stream is then unusable). */
int aw_wire_reader_next(aw_wire_reader *r, const char **line, size_t *len);
/* Bytes buffered but not returned. */
size_t aw_wire_reader_pending(const aw_wire_reader *r);

#endif
