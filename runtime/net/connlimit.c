/* connlimit: serve's limits on connections, one policy for both
 * transports (see connlimit.h). */
#include "connlimit.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "util.h"

/* Connections open from one address; count 0: a free slot. */
struct aw_conn_slot {
    unsigned char key[16];
    int count;
};

int aw_connlimit_init(aw_connlimit *cl, int max_conn, int max_addr, uint64_t salt)
{
    memset(cl, 0, sizeof *cl);
    cl->max_conn = max_conn;
    cl->max_addr = max_addr;
    cl->salt = salt;
    size_t cap = 64; /* a power of two, at most half full */
    while (cap < 2 * (size_t)max_conn + 2)
        cap *= 2;
    cl->slots = calloc(cap, sizeof *cl->slots);
    if (!cl->slots)
        return -1;
    cl->mask = cap - 1;
    return 0;
}

void aw_connlimit_free(aw_connlimit *cl)
{
    while (cl->head) {
        aw_conn *c = cl->head;
        cl->head = c->next;
        free(c);
    }
    cl->tail = NULL;
    free(cl->slots);
    cl->slots = NULL;
}

static size_t home_of(const aw_connlimit *cl, const unsigned char *key)
{
    uint64_t h = aw_fnv64(aw_fnv64(AW_FNV64_INIT, &cl->salt, sizeof cl->salt), key, 16);
    return (size_t)h & cl->mask;
}

/* The slot of key: where it is, or the free slot where it would go. */
static aw_conn_slot *slot_find(const aw_connlimit *cl, const unsigned char *key)
{
    for (size_t i = home_of(cl, key);; i = (i + 1) & cl->mask)
        if (!cl->slots[i].count || !memcmp(cl->slots[i].key, key, 16))
            return &cl->slots[i];
}

int aw_connlimit_at(const aw_connlimit *cl, const unsigned char key[16])
{
    return slot_find(cl, key)->count;
}

/* One connection from key fewer. A slot that falls to 0 is removed by
 * moving later slots of its run back (no tombstones). */
static void uncount(aw_connlimit *cl, const unsigned char *key)
{
    cl->open--;
    aw_conn_slot *e = slot_find(cl, key);
    if (!e->count || --e->count > 0)
        return;
    size_t i = (size_t)(e - cl->slots);
    for (size_t j = (i + 1) & cl->mask; cl->slots[j].count; j = (j + 1) & cl->mask) {
        size_t home = home_of(cl, cl->slots[j].key);
        /* j's slot may move to i when its home is not in (i, j] */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (!stays) {
            cl->slots[i] = cl->slots[j];
            cl->slots[j].count = 0;
            i = j;
        }
    }
    cl->slots[i].count = 0;
}

static void unlink_conn(aw_connlimit *cl, aw_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        cl->head = c->next;
    if (c->next)
        c->next->prev = c->prev;
    else
        cl->tail = c->prev;
    c->prev = c->next = NULL;
}

/* The oldest connection not kept (from key's address, or from any when key
 * is NULL), or NULL. */
static aw_conn *oldest_unnamed(const aw_connlimit *cl, const unsigned char *key)
{
    aw_conn *c = cl->head;
    while (c && (c->kept || (key && memcmp(c->key, key, 16))))
        c = c->next;
    return c;
}

aw_conn *aw_connlimit_open(aw_connlimit *cl, const unsigned char key[16], uint64_t id, aw_conn **dropped,
                           enum aw_conn_verdict *why)
{
    *dropped = NULL;
    *why = AW_CONN_TAKEN;
    aw_conn *victim = NULL;
    if (slot_find(cl, key)->count >= cl->max_addr) {
        *why = AW_CONN_OVER_ADDRESS;
        victim = oldest_unnamed(cl, key);
    } else if (cl->open >= cl->max_conn) {
        *why = AW_CONN_OVER_TOTAL;
        victim = oldest_unnamed(cl, NULL);
    }
    if (*why != AW_CONN_TAKEN && !victim)
        return NULL;
    aw_conn *c = calloc(1, sizeof *c);
    if (!c) {
        *why = AW_CONN_NO_MEMORY;
        return NULL;
    }
    if (victim) {
        unlink_conn(cl, victim);
        uncount(cl, victim->key);
        *dropped = victim;
    }
    c->id = id;
    memcpy(c->key, key, 16);
    c->prev = cl->tail;
    if (cl->tail)
        cl->tail->next = c;
    else
        cl->head = c;
    cl->tail = c;
    cl->open++;
    aw_conn_slot *e = slot_find(cl, key);
    memcpy(e->key, key, 16);
    e->count++;
    return c;
}

void aw_connlimit_close(aw_connlimit *cl, aw_conn *c)
{
    unlink_conn(cl, c);
    uncount(cl, c->key);
    free(c);
}

aw_conn *aw_connlimit_find(const aw_connlimit *cl, uint64_t id)
{
    for (aw_conn *c = cl->tail; c; c = c->prev)
        if (c->id == id)
            return c;
    return NULL;
}

void aw_conn_addr_key(const struct sockaddr_storage *ss, unsigned char key[16])
{
    memset(key, 0, 16);
    if (ss->ss_family == AF_INET) {
        memcpy(key, &((const struct sockaddr_in *)ss)->sin_addr, 4);
    } else if (ss->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            memcpy(key, a->s6_addr + 12, 4);
        } else {
            key[4] = 6; /* not an IPv4 key */
            memcpy(key + 8, a->s6_addr, 8);
        }
    }
}
