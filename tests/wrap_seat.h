/* wrap_seat.h: the C tests' wrapping seat (test_abandon, test_notify,
 * test_events_schema, test_reload, test_game, test_invariants, test_info,
 * test_wire): a seat that plays through an inner seat, with a hook per
 * request that fails it, records what it is told or does something on cue,
 * and passes the request on (wrap_pass) when it wants the inner seat's
 * answer. A test's own wrapper puts a wrap_seat first in its struct and
 * casts the wrap_seat * its hooks get back to it.
 *
 * Ownership: the inner seat is the wrapper's; ops->free (when the game's
 * driver or the test calls it) calls the done hook, frees the inner seat,
 * then the wrapper itself (so a wrapper freed that way comes from malloc).
 * Uses seat (only the game library's header). */
#ifndef TESTS_WRAP_SEAT_H
#define TESTS_WRAP_SEAT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "seat.h"

typedef struct wrap_seat wrap_seat;

/* Each request goes through it: it returns what request() returns, by
 * wrap_pass or by itself (wrap_fault). */
typedef int wrap_request_fn(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                            aw_seat_reply *reply, aw_seat_fault *fault);

struct wrap_seat {
    aw_seat base;
    aw_seat *inner;
    wrap_request_fn *request;     /* NULL: straight to the inner seat */
    void (*begun)(wrap_seat *w);  /* at each begin, agent and agent_seed set, before the inner's (NULL: none) */
    void (*done)(wrap_seat *w);   /* at free, before the inner seat is freed: the test's own parts (NULL: none) */
    const char *version;          /* what ops->version gives, with wrap_seat_versioned_ops */
    int agent;                    /* the game's, from begin */
    uint64_t agent_seed;
    int calls;                    /* requests so far, the one the hook has included (never reset) */
};

/* The request, passed to the inner seat. */
static inline int wrap_pass(wrap_seat *w, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                            aw_seat_reply *reply, aw_seat_fault *fault)
{
    return w->inner->ops->request(w->inner, kind, info, set, reply, fault);
}

/* Fails the request: -1 with *fault of kind and the printf-style message. */
static inline int wrap_fault(aw_seat_fault *fault, aw_fault_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline int wrap_fault(aw_seat_fault *fault, aw_fault_kind kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fault->kind = kind;
    vsnprintf(fault->msg, sizeof fault->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static inline const char *wrap_seat_begin(aw_seat *s, int agent, uint64_t agent_seed, aw_seat_fault *fault)
{
    wrap_seat *w = (wrap_seat *)s;
    w->agent = agent;
    w->agent_seed = agent_seed;
    if (w->begun)
        w->begun(w);
    return w->inner->ops->begin(w->inner, agent, agent_seed, fault);
}

static inline int wrap_seat_request(aw_seat *s, aw_req_kind kind, const aw_info *info, const aw_settings *set,
                                    aw_seat_reply *reply, aw_seat_fault *fault)
{
    wrap_seat *w = (wrap_seat *)s;
    w->calls++;
    return w->request ? w->request(w, kind, info, set, reply, fault) : wrap_pass(w, kind, info, set, reply, fault);
}

static inline const char *wrap_seat_version(aw_seat *s)
{
    return ((wrap_seat *)s)->version;
}

static inline void wrap_seat_free(aw_seat *s)
{
    wrap_seat *w = (wrap_seat *)s;
    if (w->done)
        w->done(w);
    w->inner->ops->free(w->inner);
    free(w);
}

/* The ops of a wrapper (a test that needs more, such as wait, builds its
 * own table from the functions above). */
static const aw_seat_ops wrap_seat_ops = {.begin = wrap_seat_begin, .request = wrap_seat_request,
                                          .free = wrap_seat_free};
static const aw_seat_ops wrap_seat_versioned_ops = {
    .begin = wrap_seat_begin, .request = wrap_seat_request, .version = wrap_seat_version, .free = wrap_seat_free};

/* Sets up *w (cleared first) around inner with the hook request (NULL:
 * none). */
static inline void wrap_seat_init(wrap_seat *w, aw_seat *inner, wrap_request_fn *request)
{
    *w = (wrap_seat){.base = {&wrap_seat_ops}, .inner = inner, .request = request};
}

/* Gives the wrapper a version (for the record), borrowed. */
static inline void wrap_seat_set_version(wrap_seat *w, const char *version)
{
    w->version = version;
    w->base.ops = &wrap_seat_versioned_ops;
}

/* A wrapper of size bytes (at least a wrap_seat; calloc'ed, the rest
 * zero) set up as wrap_seat_init does; exits on no memory. */
static inline void *wrap_seat_new(size_t size, aw_seat *inner, wrap_request_fn *request)
{
    wrap_seat *w = calloc(1, size);
    if (!w) {
        fprintf(stderr, "wrap_seat_new: out of memory\n");
        exit(1);
    }
    wrap_seat_init(w, inner, request);
    return w;
}

#endif
