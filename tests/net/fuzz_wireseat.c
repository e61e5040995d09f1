/* fuzz_wireseat: libFuzzer target for what `aiwolf serve` does with the
 * bytes of a remote agent (built only with -DAIWOLF_FUZZ=ON and clang):
 * wireseat's framing (the line reader under it, replies awaited, late and
 * unexpected) and the decoding of the reply (a name, a role, a text, a
 * target). The input is a script: each byte an operation — ask NAME or
 * ROLE (as serve does before a game), feed the next bytes in one piece of
 * the length the byte says, let the deadline pass, or begin again — with
 * a small line limit, so that long lines are common. Checks: feed answers
 * -1, 0 or 1; a complete reply is at most the limit and holds no newline;
 * a text reply lies within it; a target is an agent number or -1 or no
 * answer; a stream found unusable is not fed again (serve drops it), and
 * nothing leaks or reads out of bounds. Uses wireseat, wire. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wireseat.h"

#define LIMIT 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reply(aw_wire_seat *w, int request)
{
    aw_seat_reply reply;
    aw_seat_fault f = {AW_FAULT_NONE, ""};
    if (w->reply_len > LIMIT || memchr(w->reply, '\n', w->reply_len))
        abort();
    int rc = aw_wire_seat_reply(w, request, &reply, &f);
    if (rc < 0) {
        if (f.kind != AW_FAULT_REPLY || request == AW_WIRE_REQ_NAME || request == AW_WIRE_REQ_ROLE)
            abort();
        return;
    }
    if (reply.text && (reply.len > LIMIT || reply.text < w->reply || reply.text + reply.len > w->reply + LIMIT + 1))
        abort();
    if (!reply.text && reply.target != AW_NO_AGENT && (reply.target < -1 || reply.target > AW_MAX_PLAYERS))
        abort();
    if (request == AW_WIRE_REQ_ROLE && reply.text) {
        aw_role role;
        aw_error err;
        if (aw_wire_reply_role(reply.text, reply.len, &role, &err) == 0 && (role < AW_ROLE_NONE || role >= AW_NROLES))
            abort();
    }
    if (aw_wire_seat_awaiting(w))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* what a complete line is read as, in turn: serve asks NAME and ROLE;
     * the same bytes as the game's replies */
    static const int as[] = {AW_WIRE_REQ_NAME, AW_WIRE_REQ_ROLE, AW_REQ_TALK, AW_REQ_VOTE, AW_REQ_DIVINE};
    aw_wire_seat w;
    aw_wire_seat_init(&w, LIMIT);
    bool broken = false;
    int asked = AW_WIRE_REQ_NAME, turn = 0;
    size_t i = 0;
    while (i < size) {
        uint8_t op = data[i++];
        switch (op & 3) {
        case 0: { /* ask */
            asked = (op >> 2) & 1 ? AW_WIRE_REQ_ROLE : AW_WIRE_REQ_NAME;
            aw_buf b;
            aw_buf_init(&b);
            aw_seat_fault f = {AW_FAULT_NONE, ""};
            int rc = aw_wire_seat_send(&w, asked, NULL, NULL, &b, &f);
            if (rc == 0 && (b.len == 0 || b.data[b.len - 1] != '\n' || !aw_wire_seat_awaiting(&w)))
                abort();
            if (rc < 0 && f.kind != AW_FAULT_REPLY)
                abort();
            if (rc < 0)
                broken = true; /* unexpected bytes: serve drops the connection */
            aw_buf_free(&b);
            break;
        }
        case 1: { /* bytes from the agent */
            size_t n = (size_t)(op >> 2) * 3 + 1;
            if (n > size - i)
                n = size - i;
            if (broken) {
                i += n;
                break;
            }
            aw_seat_fault f = {AW_FAULT_NONE, ""};
            int rc = aw_wire_seat_feed(&w, (const char *)data + i, n, &f);
            i += n;
            if (rc < -1 || rc > 1 || (rc < 0 && f.kind != AW_FAULT_REPLY))
                abort();
            if (rc < 0)
                broken = true;
            else if (rc == 1)
                check_reply(&w, asked == AW_WIRE_REQ_NAME ? as[turn++ % 5] : AW_WIRE_REQ_ROLE);
            break;
        }
        case 2: /* the deadline passed */
            aw_wire_seat_expire(&w);
            if (aw_wire_seat_awaiting(&w))
                abort();
            break;
        default: /* a new game */
            aw_wire_seat_reset(&w, op);
            broken = false;
            break;
        }
    }
    aw_wire_seat_free(&w);
    return 0;
}
