/* wireseat: the host side of the official wire format with no I/O — the
 * framing state machine of one remote agent. A request becomes a packet
 * line to send (a full gameInfo or only the new talks, as the official
 * server decides); bytes that arrive become the awaited reply line, or a
 * fault (bytes nobody asked for, a line past the limit). The transport —
 * libuv for a TCP client (netserver.c) —
 * moves the bytes and keeps the deadline. Uses wire, seat, util.
 *
 * Ownership: aw_wire_seat_free releases what aw_wire_seat_init took. */
#ifndef AW_WIRESEAT_H
#define AW_WIRESEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "seat.h"
#include "wire.h"

typedef struct aw_wire_seat {
    aw_wire_cursor cur;
    aw_wire_reader in;
    uint64_t agent_seed; /* sent as randomSeed (seat.h) */
    int awaiting;        /* the request whose reply line is awaited, or -1 */
    int late;            /* replies that came too late and are still to come: dropped when they do */
    bool have_reply;     /* its line is complete */
    char *reply;         /* the reply line (max_line + 1 bytes) */
    size_t reply_len;
    size_t max_line;
} aw_wire_seat;

/* Replies longer than max_line bytes are a fault. */
void aw_wire_seat_init(aw_wire_seat *w, size_t max_line);
void aw_wire_seat_free(aw_wire_seat *w);
/* A new game (or a new connection): the next packet carries a full
 * gameInfo; nothing is awaited; buffered bytes are dropped. */
void aw_wire_seat_reset(aw_wire_seat *w, uint64_t agent_seed);

/* Appends the packet line for request (an aw_req_kind or
 * AW_WIRE_REQ_NAME/ROLE), with its newline, to out; from then on the reply
 * is awaited when the request has one (aw_wire_request_has_reply). Fails
 * with a fault of kind reply when the agent sent bytes nobody asked for
 * since its last reply, or kind error when the packet cannot be encoded. */
int aw_wire_seat_send(aw_wire_seat *w, int request, const aw_info *info, const aw_settings *set, aw_buf *out,
                      aw_seat_fault *fault);

/* Takes bytes from the agent. Returns 0 when more are needed (or none were
 * awaited and none came), 1 when the awaited reply line is complete, or -1
 * with *fault (kind reply) for bytes nobody asked for or a line longer than
 * max_line: the stream is then unusable. */
int aw_wire_seat_feed(aw_wire_seat *w, const char *data, size_t len, aw_seat_fault *fault);

/* Whether a reply line is still awaited. */
bool aw_wire_seat_awaiting(const aw_wire_seat *w);

/* The awaited reply came too late (the transport's deadline passed): stop
 * awaiting it, and drop its line when it does come, so that it is not taken
 * for the answer to a later request. */
void aw_wire_seat_expire(aw_wire_seat *w);

/* The completed reply as the seat interface has it: a text (borrowed from w
 * until its next send, feed or reset) or a target. Returns 0, or -1 with
 * *fault (kind reply) when a target reply is not one. Ends the wait. */
int aw_wire_seat_reply(aw_wire_seat *w, int request, aw_seat_reply *reply, aw_seat_fault *fault);

#endif
