/* wireagent: an agent behind the official wire format (see wireagent.h). */
#include "wireagent.h"

#include <stdio.h>
#include <string.h>

static void parse_talk(void *ud, aw_talk *t)
{
    aw_wire_agent *wa = ud;
    if (wa->set.validation == AW_VALIDATE_OFF || !wa->talk.validate)
        return;
    void *parsed = NULL;
    aw_error err;
    if (wa->talk.validate(NULL, t->text, t->len, wa->set.validation, &parsed, &err) == 0)
        t->parsed = parsed;
}

static void free_talk(void *ud, void *parsed)
{
    aw_wire_agent *wa = ud;
    if (wa->talk.free_parsed)
        wa->talk.free_parsed(NULL, parsed);
}

void aw_wire_agent_init(aw_wire_agent *wa, aw_seat *inner, const aw_settings *base)
{
    memset(wa, 0, sizeof *wa);
    wa->inner = inner;
    if (base)
        wa->base = *base;
    else
        aw_settings_preset(&wa->base, "aiwolf", 5, NULL);
    wa->set = wa->base;
    aw_wire_client_init(&wa->cl);
    wa->cl.parse = parse_talk;
    wa->cl.free_parsed = free_talk;
    wa->cl.ud = wa;
}

void aw_wire_agent_free(aw_wire_agent *wa)
{
    aw_wire_client_free(&wa->cl);
}

void aw_wire_agent_begin(aw_wire_agent *wa, int agent, uint64_t agent_seed)
{
    wa->begin_fault = (aw_seat_fault){AW_FAULT_NONE, ""};
    wa->name = wa->inner->ops->begin(wa->inner, agent, agent_seed, &wa->begin_fault);
    wa->begun = true;
}

int aw_wire_agent_take(aw_wire_agent *wa, const char *line, size_t len, aw_error *err)
{
    aw_wire_packet p;
    if (aw_wire_decode(line, len, &p, err) < 0)
        return -AW_EINVAL;
    int request = p.request;
    int rc = aw_wire_client_apply(&wa->cl, &p, err);
    aw_wire_packet_free(&p);
    if (rc < 0)
        return -AW_EINVAL;
    if (request == AW_REQ_INITIALIZE && wa->cl.has_setting) {
        wa->set = wa->base;
        if (aw_wire_setting_apply(&wa->cl.setting, &wa->set, err) < 0)
            wa->set = wa->base;
    }
    return request;
}

void aw_wire_agent_answer(aw_wire_agent *wa, int request, aw_buf *out, bool *has_reply, aw_seat_fault *f)
{
    *f = (aw_seat_fault){AW_FAULT_NONE, ""};
    *has_reply = aw_wire_request_has_reply(request);
    if (request == AW_WIRE_REQ_NAME) {
        if (wa->name_override) {
            aw_buf_adds(out, wa->name_override);
            return;
        }
        if (!wa->begun)
            aw_wire_agent_begin(wa, 0, 0);
        if (wa->name)
            aw_buf_adds(out, wa->name);
        *f = wa->begin_fault;
        return;
    }
    if (request == AW_WIRE_REQ_ROLE) {
        aw_buf_adds(out, wa->role ? wa->role : "none");
        return;
    }
    if (request == AW_REQ_INITIALIZE && wa->begin_at_initialize)
        aw_wire_agent_begin(wa, wa->cl.info.v.agent, (uint64_t)wa->cl.setting.random_seed);
    aw_seat_reply r = {NULL, 0, AW_NO_AGENT};
    int src = -1;
    if (wa->begun && wa->name) {
        src = wa->inner->ops->request(wa->inner, (aw_req_kind)request, &wa->cl.info.v, &wa->set, &r, f);
    } else {
        f->kind = AW_FAULT_LOST;
        snprintf(f->msg, sizeof f->msg, "the agent failed to load at the start of the game");
    }
    if (src < 0 && f->kind == AW_FAULT_NONE)
        f->kind = AW_FAULT_ERROR;
    if (src == 0 && aw_req_wants_text((aw_req_kind)request) && r.text) {
        /* A line break would split the reply in two; the engine refuses
         * control bytes anyway, so keep one as a marker. */
        for (size_t i = 0; i < r.len; i++) {
            char ch = r.text[i];
            aw_buf_addc(out, ch == '\n' || ch == '\r' ? '\x1f' : ch);
        }
    } else if (src == 0 && !aw_req_wants_text((aw_req_kind)request)) {
        aw_wire_format_target(r.target, out);
    }
}
