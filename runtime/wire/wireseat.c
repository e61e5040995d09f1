/* wireseat: a remote agent's framing, host side (see wireseat.h). */
#include "wireseat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fault(aw_seat_fault *f, aw_fault_kind kind, const char *msg)
{
    f->kind = kind;
    snprintf(f->msg, sizeof f->msg, "%s", msg);
    return -1;
}

void aw_wire_seat_init(aw_wire_seat *w, size_t max_line)
{
    memset(w, 0, sizeof *w);
    w->max_line = max_line;
    w->reply = aw_xmalloc(max_line + 1);
    aw_wire_reader_init(&w->in, max_line);
    aw_wire_seat_reset(w, 0);
}

void aw_wire_seat_free(aw_wire_seat *w)
{
    aw_wire_reader_free(&w->in);
    free(w->reply);
    w->reply = NULL;
}

void aw_wire_seat_reset(aw_wire_seat *w, uint64_t agent_seed)
{
    aw_wire_cursor_reset(&w->cur);
    aw_wire_reader_free(&w->in);
    aw_wire_reader_init(&w->in, w->max_line);
    w->agent_seed = agent_seed;
    w->awaiting = -1;
    w->late = 0;
    w->have_reply = false;
    w->reply_len = 0;
}

int aw_wire_seat_send(aw_wire_seat *w, int request, const aw_info *info, const aw_settings *set, aw_buf *out,
                      aw_seat_fault *f)
{
    if (!w->late && aw_wire_reader_pending(&w->in))
        return fault(f, AW_FAULT_REPLY, "unexpected bytes on the wire (a reply nobody asked for)");
    aw_error err;
    size_t mark = out->len;
    if (aw_wire_encode_request(&w->cur, request, info, set, w->agent_seed, out, &err) < 0) {
        out->len = mark;
        f->kind = AW_FAULT_ERROR;
        snprintf(f->msg, sizeof f->msg, "cannot encode the packet: %.400s", err.msg);
        return -1;
    }
    aw_buf_addc(out, '\n');
    w->have_reply = false;
    w->awaiting = aw_wire_request_has_reply(request) ? request : -1;
    return 0;
}

int aw_wire_seat_feed(aw_wire_seat *w, const char *data, size_t len, aw_seat_fault *f)
{
    if (len && !w->late && (w->awaiting < 0 || w->have_reply))
        return fault(f, AW_FAULT_REPLY, "unexpected bytes on the wire (a reply nobody asked for)");
    aw_wire_reader_feed(&w->in, data, len);
    for (;;) {
        if (w->awaiting < 0 && !w->late) {
            if (aw_wire_reader_pending(&w->in))
                return fault(f, AW_FAULT_REPLY, "unexpected bytes on the wire (a reply nobody asked for)");
            return 0;
        }
        if (w->have_reply)
            return 1;
        const char *line;
        size_t n;
        int rc = aw_wire_reader_next(&w->in, &line, &n);
        if (rc < 0) {
            char m[64];
            snprintf(m, sizeof m, "reply line longer than %zu KiB", w->max_line >> 10);
            return fault(f, AW_FAULT_REPLY, m);
        }
        if (rc == 0)
            return 0;
        if (w->late) { /* the answer to a request whose deadline passed */
            w->late--;
            continue;
        }
        memcpy(w->reply, line, n);
        w->reply_len = n;
        w->have_reply = true;
        return 1;
    }
}

void aw_wire_seat_expire(aw_wire_seat *w)
{
    if (w->awaiting >= 0 && !w->have_reply)
        w->late++;
    w->awaiting = -1;
    w->have_reply = false;
}

bool aw_wire_seat_awaiting(const aw_wire_seat *w)
{
    return w->awaiting >= 0 && !w->have_reply;
}

int aw_wire_seat_reply(aw_wire_seat *w, int request, aw_seat_reply *reply, aw_seat_fault *f)
{
    w->awaiting = -1;
    w->have_reply = false;
    reply->text = NULL;
    reply->len = 0;
    reply->target = AW_NO_AGENT;
    if (request == AW_WIRE_REQ_NAME || request == AW_WIRE_REQ_ROLE || aw_req_wants_text((aw_req_kind)request)) {
        aw_wire_reply_text(w->reply, w->reply_len, &reply->text, &reply->len);
        return 0;
    }
    aw_error err;
    int target;
    if (aw_wire_reply_target(w->reply, w->reply_len, &target, &err) < 0) {
        char m[160];
        snprintf(m, sizeof m, "%s: %.100s", aw_req_name((aw_req_kind)request), err.msg);
        return fault(f, AW_FAULT_REPLY, m);
    }
    reply->target = target > AW_MAX_PLAYERS ? -1 : target;
    return 0;
}
