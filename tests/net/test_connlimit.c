/* connlimit: serve's one flood policy for TCP and WebSocket connections.
 * Past a full limit the oldest connection not yet named (and not closing)
 * under that limit is dropped to make room; a new one is refused only when
 * every connection under the full limit is kept; counts go back as
 * connections close; addresses are counted per IPv4 address or IPv6 /64. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "connlimit.h"
#include "test.h"

static void key_of(const char *ip, unsigned char key[16])
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    if (strchr(ip, ':')) {
        struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
        a->sin6_family = AF_INET6;
        inet_pton(AF_INET6, ip, &a->sin6_addr);
    } else {
        struct sockaddr_in *a = (struct sockaddr_in *)&ss;
        a->sin_family = AF_INET;
        inet_pton(AF_INET, ip, &a->sin_addr);
    }
    aw_conn_addr_key(&ss, key);
}

/* Opens a connection from ip with id; the id of the one dropped (0: none)
 * in *dropped_id; NULL when refused, with why. */
static aw_conn *open_from(aw_connlimit *cl, const char *ip, uint64_t id, uint64_t *dropped_id,
                          enum aw_conn_verdict *why)
{
    unsigned char key[16];
    key_of(ip, key);
    aw_conn *d;
    aw_conn *c = aw_connlimit_open(cl, key, id, &d, why);
    *dropped_id = d ? d->id : 0;
    free(d);
    return c;
}

static void test_per_address(void)
{
    aw_connlimit cl;
    CHECK(aw_connlimit_init(&cl, 100, 3, 7) == 0);
    uint64_t dropped;
    enum aw_conn_verdict why;
    aw_conn *c[8];
    for (int i = 1; i <= 3; i++) {
        c[i] = open_from(&cl, "10.0.0.2", (uint64_t)i, &dropped, &why);
        CHECK(c[i] && !dropped && why == AW_CONN_TAKEN);
    }
    /* another address is not counted with it */
    aw_conn *other = open_from(&cl, "10.0.0.3", 50, &dropped, &why);
    CHECK(other && !dropped);
    /* full: the oldest unnamed from that address makes room */
    c[2]->kept = false;
    c[1]->kept = true; /* named */
    c[4] = open_from(&cl, "10.0.0.2", 4, &dropped, &why);
    CHECK(c[4] != NULL);
    CHECK_INT((int)dropped, 2);
    CHECK_INT((int)why, AW_CONN_OVER_ADDRESS);
    unsigned char k2[16];
    key_of("10.0.0.2", k2);
    CHECK_INT(aw_connlimit_at(&cl, k2), 3);
    CHECK_INT(cl.open, 4);
    /* all kept: refused, nothing changed */
    c[3]->kept = c[4]->kept = true;
    CHECK(open_from(&cl, "10.0.0.2", 5, &dropped, &why) == NULL);
    CHECK(!dropped && why == AW_CONN_OVER_ADDRESS);
    CHECK_INT(aw_connlimit_at(&cl, k2), 3);
    CHECK_INT(cl.open, 4);
    /* one closes: room again */
    aw_connlimit_close(&cl, c[3]);
    CHECK_INT(aw_connlimit_at(&cl, k2), 2);
    c[5] = open_from(&cl, "10.0.0.2", 5, &dropped, &why);
    CHECK(c[5] && !dropped && why == AW_CONN_TAKEN);
    CHECK(aw_connlimit_find(&cl, 5) == c[5] && aw_connlimit_find(&cl, 2) == NULL);
    aw_connlimit_free(&cl);
}

static void test_total(void)
{
    aw_connlimit cl;
    CHECK(aw_connlimit_init(&cl, 4, 100, 9) == 0);
    uint64_t dropped;
    enum aw_conn_verdict why;
    const char *ips[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"};
    aw_conn *c[5];
    for (int i = 0; i < 4; i++)
        CHECK((c[i] = open_from(&cl, ips[i], (uint64_t)i + 1, &dropped, &why)) && !dropped);
    c[0]->kept = true;
    /* the oldest not kept, from any address */
    CHECK(open_from(&cl, "10.9.9.9", 5, &dropped, &why) != NULL);
    CHECK_INT((int)dropped, 2);
    CHECK_INT((int)why, AW_CONN_OVER_TOTAL);
    CHECK(open_from(&cl, "10.9.9.9", 6, &dropped, &why) != NULL);
    CHECK_INT((int)dropped, 3);
    CHECK_INT(cl.open, 4);
    for (aw_conn *x = cl.head; x; x = x->next)
        x->kept = true;
    CHECK(open_from(&cl, "10.9.9.8", 7, &dropped, &why) == NULL);
    CHECK(!dropped && why == AW_CONN_OVER_TOTAL);
    CHECK_INT(cl.open, 4);
    aw_connlimit_free(&cl);
}

/* Many addresses come and go: the table keeps each count right (slots
 * removed without tombstones). */
static void test_churn(void)
{
    aw_connlimit cl;
    CHECK(aw_connlimit_init(&cl, 200, 2, 11) == 0);
    aw_conn *c[400];
    int n = 0;
    uint64_t dropped;
    enum aw_conn_verdict why;
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 100; i++) {
            char ip[32];
            snprintf(ip, sizeof ip, "10.1.%d.%d", (i * 7 + round) % 50, i % 3);
            aw_conn *x = open_from(&cl, ip, 1000 + (uint64_t)n, &dropped, &why);
            if (x) {
                x->kept = true;
                c[n++] = x;
            }
            CHECK(!dropped);
        }
        for (int i = 0; i < n; i += 2)
            aw_connlimit_close(&cl, c[i]);
        int k = 0;
        for (int i = 1; i < n; i += 2)
            c[k++] = c[i];
        n = k;
        int total = 0;
        for (aw_conn *x = cl.head; x; x = x->next) {
            total++;
            int same = 0;
            for (aw_conn *y = cl.head; y; y = y->next)
                same += !memcmp(x->key, y->key, 16);
            CHECK_INT(aw_connlimit_at(&cl, x->key), same);
        }
        CHECK_INT(cl.open, total);
    }
    aw_connlimit_free(&cl);
}

static void test_keys(void)
{
    unsigned char a[16], b[16];
    key_of("192.0.2.7", a);
    key_of("::ffff:192.0.2.7", b);
    CHECK(!memcmp(a, b, 16)); /* mapped IPv4: the same address */
    key_of("2001:db8:1:2::1", a);
    key_of("2001:db8:1:2:ffff::9", b);
    CHECK(!memcmp(a, b, 16)); /* one /64 */
    key_of("2001:db8:1:3::1", b);
    CHECK(memcmp(a, b, 16) != 0);
}

int main(void)
{
    test_per_address();
    test_total();
    test_churn();
    test_keys();
    return test_done();
}
