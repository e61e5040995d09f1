/* connlimit: serve's limits on connections, one policy for both transports
 * (TCP, and the NLP division's WebSocket connections the transport counts):
 * at most max_conn open at once, at most max_addr from one address key
 * (aw_conn_addr_key). When a limit is full, the oldest connection counted
 * against it that is not yet named (and not closing) is dropped to make
 * room for the new one: the oldest from the same address when max_addr is
 * full, else the oldest of all. A new connection is refused only when
 * every connection counted against the full limit is named: clients that
 * connect and stay silent cannot lock agents out. Bookkeeping only: the
 * caller closes what is dropped and says why. */
#ifndef AW_CONNLIMIT_H
#define AW_CONNLIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sockaddr_storage;

/* One connection as counted. Owned by the aw_connlimit from
 * aw_connlimit_open to aw_connlimit_close, or the caller's once dropped. */
typedef struct aw_conn {
    uint64_t id;           /* the caller's id for it (the transport's client) */
    unsigned char key[16]; /* the address it is counted under */
    void *owner;           /* the caller's (its agent), or NULL */
    bool kept;             /* named, or closing: never dropped (the caller sets it) */
    struct aw_conn *prev, *next; /* oldest first */
} aw_conn;

typedef struct aw_conn_slot aw_conn_slot;

typedef struct aw_connlimit {
    int open, max_conn, max_addr; /* open: counted now */
    aw_conn_slot *slots;          /* per address: open addressing, linear probing */
    size_t mask;
    uint64_t salt; /* the hash's, so that a client cannot aim at one run of slots */
    aw_conn *head, *tail;
} aw_connlimit;

/* max_conn >= 1, max_addr >= 1; salt: a random value. 0, or -1 when out
 * of memory. */
int aw_connlimit_init(aw_connlimit *cl, int max_conn, int max_addr, uint64_t salt);
/* Frees the table and every connection still counted. */
void aw_connlimit_free(aw_connlimit *cl);

enum aw_conn_verdict {
    AW_CONN_TAKEN,        /* counted (perhaps after a drop) */
    AW_CONN_OVER_ADDRESS, /* refused, or a drop, for max_addr */
    AW_CONN_OVER_TOTAL,   /* refused, or a drop, for max_conn */
    AW_CONN_NO_MEMORY     /* refused: no memory for its entry */
};

/* A new connection from key: its entry, counted and newest in the list;
 * or NULL, and *why says why, with nothing changed. *dropped is set to
 * NULL, or to the connection dropped to make room (then *why names the
 * limit that was full): no longer counted nor listed, the caller's to
 * close and free(). */
aw_conn *aw_connlimit_open(aw_connlimit *cl, const unsigned char key[16], uint64_t id, aw_conn **dropped,
                           enum aw_conn_verdict *why);
/* c has gone: uncounted, unlinked, freed. */
void aw_connlimit_close(aw_connlimit *cl, aw_conn *c);
/* The connection of id, newest first; NULL: none. */
aw_conn *aw_connlimit_find(const aw_connlimit *cl, uint64_t id);
/* Connections counted from key. */
int aw_connlimit_at(const aw_connlimit *cl, const unsigned char key[16]);
/* The key an address is counted under: an IPv4 address (also when mapped
 * into IPv6), or the /64 prefix of an IPv6 one (what one host usually has). */
void aw_conn_addr_key(const struct sockaddr_storage *ss, unsigned char key[16]);

#endif
