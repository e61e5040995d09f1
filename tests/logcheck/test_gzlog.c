/* gzip game logs (gzlog): a game of C players logged through
 * aw_gzlog_open_write inflates byte for byte to the log the same game writes
 * uncompressed, and checks legal; recorded logs written in pieces of every
 * size come back whole; the output is deterministic and gzip(1) reads it;
 * concatenated members join. Untrusted input never crashes and always gets
 * a clear error: every prefix of a .gz is "truncated gzip data", damaged
 * bytes are refused (or, in the header fields gzip does not check, give the
 * same text), bytes after the stream and non-gzip data are refused, and a
 * 1 GiB bomb stops at the limit. A write error (/dev/full) makes fclose
 * fail. Runs from the project root. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cseat.h"
#include "game.h"
#include "gzlog.h"
#include "logcheck.h"
#include "test.h"
#include "c_game.h"

#define FIX "tests/fixtures/official/"

static char tmpdir[] = "/tmp/aw_gzlog_XXXXXX";

static char *tmp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

/* Writes len bytes to a new .gz file at path in pieces of `piece` bytes (0:
 * one fwrite); returns fclose's result. */
static int write_gz(const char *path, const char *data, size_t len, size_t piece)
{
    aw_error err;
    FILE *f = aw_gzlog_open_write(path, &err);
    CHECK_MSG(f != NULL, "%s", err.msg);
    if (!f)
        return EOF;
    for (size_t at = 0; at < len;) {
        size_t n = piece && len - at > piece ? piece : len - at;
        CHECK_INT(fwrite(data + at, 1, n, f), n);
        at += n;
    }
    return fclose(f);
}

static char *read_all(const char *path, size_t *len)
{
    aw_error err;
    char *t = aw_read_file(path, len, &err);
    CHECK_MSG(t != NULL, "%s", err.msg);
    return t;
}

/* Inflates gz and checks it is exactly want[0..want_len). */
static void check_inflates_to(const char *what, const char *gz, size_t gz_len, const char *want, size_t want_len)
{
    aw_error err;
    size_t n = 0;
    CHECK_MSG(aw_gzip_is(gz, gz_len), "%s: no gzip magic", what);
    char *out = aw_gunzip(gz, gz_len, &n, AW_GZLOG_MAX_LOG, &err);
    CHECK_MSG(out != NULL, "%s: %s", what, err.msg);
    if (!out)
        return;
    CHECK_MSG(n == want_len && memcmp(out, want, n) == 0, "%s: inflates to %zu bytes, want %zu", what, n,
              want_len);
    CHECK_INT(out[n], 0);
    free(out);
}

static int engine_validate(void *ud, const char *text, size_t len, aw_validation mode, void **parsed, aw_error *err)
{
    (void)ud;
    (void)text;
    (void)len;
    (void)mode;
    (void)err;
    *parsed = NULL;
    return 0;
}

/* Plays one game of C players with its CSV log going to csv. */
static void play(const aw_settings *set, uint64_t seed, FILE *csv)
{
    aw_seat *seats[AW_MAX_PLAYERS + 1];
    for (int a = 1; a <= set->players; a++)
        seats[a] = a % 3 ? aw_cseat_chaos(seed * 31 + (uint64_t)a) : aw_cseat_random(seed * 17 + (uint64_t)a);
    aw_game_result res;
    aw_error err;
    CHECK_MSG(c_game_play(set, seed, seats, engine_validate, csv, &res, &err) == 0, "%s", err.msg);
    for (int a = 1; a <= set->players; a++)
        seats[a]->ops->free(seats[a]);
}

/* The same game logged plain and through the gzip stream. */
static void game_logs(int players, uint64_t seed)
{
    aw_settings set;
    aw_error err;
    CHECK(aw_settings_preset(&set, "aiwolf", players, &err) == 0);
    char *plain = NULL;
    size_t plain_len = 0;
    FILE *mem = open_memstream(&plain, &plain_len);
    play(&set, seed, mem);
    fclose(mem);

    char path[256], final[256];
    snprintf(path, sizeof path, "%s", tmp_path("game.log.gz.tmp"));
    snprintf(final, sizeof final, "%s", tmp_path("game.log.gz"));
    FILE *gz = aw_gzlog_open_write(path, &err);
    CHECK_MSG(gz != NULL, "%s", err.msg);
    if (!gz) {
        free(plain);
        return;
    }
    play(&set, seed, gz);
    CHECK_INT(fclose(gz), 0);
    CHECK_INT(rename(path, final), 0);

    size_t gz_len;
    char *gzdata = read_all(final, &gz_len);
    if (gzdata) {
        check_inflates_to("game log", gzdata, gz_len, plain, plain_len);
        printf("%d-player game (seed %llu): log %zu bytes, gzip %zu bytes (%.1f%%)\n", players,
               (unsigned long long)seed, plain_len, gz_len, 100.0 * (double)gz_len / (double)plain_len);
    }
    aw_logcheck_report rep;
    CHECK_INT(aw_logcheck(plain, plain_len, &set, NULL, &rep, &err), AW_LOG_LEGAL);
    free(gzdata);
    free(plain);
}

/* Recorded logs written in pieces of several sizes come back whole, with
 * the same bytes each time; gzip(1) agrees. */
static void fixtures(void)
{
    static const char *const files[] = {FIX "tcp/5p_game6/game.log", FIX "tcp/15p_game1/game.log",
                                        FIX "chaos/c265.log"};
    static const size_t pieces[] = {0, 1, 7, 4096, 100000};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t len;
        char *plain = read_all(files[i], &len);
        if (!plain)
            continue;
        char *first = NULL;
        size_t first_len = 0;
        for (size_t p = 0; p < sizeof pieces / sizeof pieces[0]; p++) {
            const char *path = tmp_path("fixture.gz");
            CHECK_INT(write_gz(path, plain, len, pieces[p]), 0);
            size_t gz_len;
            char *gz = read_all(path, &gz_len);
            if (!gz)
                continue;
            check_inflates_to(files[i], gz, gz_len, plain, len);
            if (!first) {
                first = gz;
                first_len = gz_len;
                printf("%s: %zu bytes, gzip %zu bytes (%.1f%%)\n", files[i], len, gz_len,
                       100.0 * (double)gz_len / (double)len);
                char cmd[512];
                snprintf(cmd, sizeof cmd, "gzip -dc %s | cmp -s - %s", path, files[i]);
                CHECK_MSG(system(cmd) == 0, "gzip(1) does not read what we wrote for %s", files[i]);
            } else {
                CHECK_MSG(gz_len == first_len && memcmp(gz, first, gz_len) == 0,
                          "%s in pieces of %zu: other gzip bytes", files[i], pieces[p]);
                free(gz);
            }
        }
        free(first);
        free(plain);
    }
}

static void expect_error(const char *what, const char *gz, size_t len, size_t max_out, const char *msg_start)
{
    aw_error err;
    memset(&err, 0, sizeof err);
    size_t n = 12345;
    char *out = aw_gunzip(gz, len, &n, max_out, &err);
    CHECK_MSG(out == NULL, "%s: accepted (%zu bytes)", what, n);
    free(out);
    CHECK_MSG(strncmp(err.msg, msg_start, strlen(msg_start)) == 0, "%s: message \"%s\", want \"%s...\"", what,
              err.msg, msg_start);
    CHECK_INT(n, 0);
}

/* Damaged, cut and foreign input: errors, never crashes or wrong text. */
static void hostile(void)
{
    size_t len;
    char *plain = read_all(FIX "tcp/5p_game6/game.log", &len);
    const char *path = tmp_path("hostile.gz");
    if (!plain || write_gz(path, plain, len, 0) != 0) {
        CHECK(0);
        free(plain);
        return;
    }
    size_t gz_len;
    char *gz = read_all(path, &gz_len);
    if (!gz) {
        free(plain);
        return;
    }

    for (size_t cut = 0; cut < gz_len; cut++) {
        char what[64];
        snprintf(what, sizeof what, "cut at %zu of %zu", cut, gz_len);
        expect_error(what, gz, cut, AW_GZLOG_MAX_LOG, "truncated gzip data");
    }

    /* Every byte flipped: refused, or (the time, extra-flags and OS bytes of
     * the header, which gzip does not check) the same text. */
    int refused = 0;
    char *bad = aw_xmalloc(gz_len);
    for (size_t i = 0; i < gz_len; i++) {
        memcpy(bad, gz, gz_len);
        bad[i] ^= (char)0xff;
        aw_error err;
        size_t n;
        char *out = aw_gunzip(bad, gz_len, &n, AW_GZLOG_MAX_LOG, &err);
        if (!out) {
            refused++;
            CHECK_MSG(strncmp(err.msg, "not valid gzip data", 19) == 0 || strcmp(err.msg, "truncated gzip data") == 0,
                      "byte %zu flipped: message \"%s\"", i, err.msg);
        } else {
            CHECK_MSG(i >= 4 && i < 10 && n == len && memcmp(out, plain, len) == 0,
                      "byte %zu flipped: accepted with other text", i);
            free(out);
        }
    }
    CHECK_MSG(refused >= (int)gz_len - 6, "only %d of %zu flipped bytes refused", refused, gz_len);
    free(bad);

    /* Two members join; what follows the last member must be one. */
    char *two = aw_xmalloc(2 * gz_len + 3);
    memcpy(two, gz, gz_len);
    memcpy(two + gz_len, gz, gz_len);
    size_t n;
    aw_error err;
    char *out = aw_gunzip(two, 2 * gz_len, &n, AW_GZLOG_MAX_LOG, &err);
    CHECK_MSG(out && n == 2 * len && memcmp(out, plain, len) == 0 && memcmp(out + len, plain, len) == 0,
              "two members: %s", out ? "other text" : err.msg);
    free(out);
    expect_error("second member cut", two, 2 * gz_len - 5, AW_GZLOG_MAX_LOG, "truncated gzip data");
    memcpy(two + gz_len, "xyz", 3);
    expect_error("bytes after the stream", two, gz_len + 3, AW_GZLOG_MAX_LOG,
                 "not valid gzip data: 3 bytes after the end");
    two[gz_len] = 0x1f;
    expect_error("one magic byte after the stream", two, gz_len + 1, AW_GZLOG_MAX_LOG, "truncated gzip data");
    free(two);

    expect_error("plain text", plain, len, AW_GZLOG_MAX_LOG, "not valid gzip data: no gzip header");
    CHECK(!aw_gzip_is(plain, len));
    CHECK(!aw_gzip_is("\x1f", 1));
    CHECK(aw_gzip_is("\x1f\x8b", 2));
    static const char header_only[] = "\x1f\x8b\x07\x00\x00\x00\x00\x00\x00\x03";
    expect_error("unknown method", header_only, 10, AW_GZLOG_MAX_LOG, "not valid gzip data: ");

    /* The limit: exactly the text's length passes, one byte less does not. */
    out = aw_gunzip(gz, gz_len, &n, len, &err);
    CHECK_MSG(out && n == len, "max_out = length: %s", out ? "other length" : err.msg);
    free(out);
    expect_error("max_out = length - 1", gz, gz_len, len - 1, "gzip data inflates to more than");
    expect_error("max_out = 0", gz, gz_len, 0, "gzip data inflates to more than 0 bytes");

    /* An empty stream inflates to an empty text. */
    CHECK_INT(write_gz(path, "", 0, 0), 0);
    free(gz);
    gz = read_all(path, &gz_len);
    if (gz) {
        out = aw_gunzip(gz, gz_len, &n, 0, &err);
        CHECK_MSG(out && n == 0 && out[0] == 0, "empty: %s", out ? "not empty" : err.msg);
        free(out);
    }
    free(gz);
    free(plain);
}

/* 64 members of 16 MiB of zeros each: 1 GiB from a few hundred KiB. */
static void bomb(void)
{
    size_t mib = (size_t)1 << 20;
    char *zeros = aw_xcalloc(1, mib);
    const char *path = tmp_path("bomb.gz");
    aw_error err;
    FILE *f = aw_gzlog_open_write(path, &err);
    CHECK_MSG(f != NULL, "%s", err.msg);
    if (!f) {
        free(zeros);
        return;
    }
    for (int i = 0; i < 16; i++)
        CHECK_INT(fwrite(zeros, 1, mib, f), mib);
    CHECK_INT(fclose(f), 0);
    free(zeros);
    size_t one_len;
    char *one = read_all(path, &one_len);
    if (!one)
        return;
    char *all = aw_xmalloc(64 * one_len);
    for (int i = 0; i < 64; i++)
        memcpy(all + (size_t)i * one_len, one, one_len);
    printf("bomb: %zu bytes of gzip inflate to 1 GiB\n", 64 * one_len);

    size_t n;
    char *out = aw_gunzip(one, one_len, &n, 16 * mib, &err);
    CHECK_MSG(out && n == 16 * mib, "16 MiB of zeros under a 16 MiB limit: %s", out ? "other length" : err.msg);
    free(out);
    char want[128];
    snprintf(want, sizeof want, "gzip data inflates to more than %zu bytes", AW_GZLOG_MAX_LOG);
    expect_error("1 GiB bomb", all, 64 * one_len, AW_GZLOG_MAX_LOG, want);
    expect_error("1 GiB bomb, small limit", all, 64 * one_len, 1000, "gzip data inflates to more than 1000 bytes");
    free(all);
    free(one);
}

/* Write errors reach fclose; an unopenable path is named. */
static void write_errors(void)
{
    aw_error err;
    if (access("/dev/full", W_OK) == 0) {
        FILE *f = aw_gzlog_open_write("/dev/full", &err);
        CHECK_MSG(f != NULL, "%s", err.msg);
        if (f) {
            fputs("0,status,1,SEER,ALIVE,Agent[01]\n", f);
            CHECK_INT(fclose(f), EOF);
        }
        /* A long log: the error comes while writing, and fclose still fails. */
        f = aw_gzlog_open_write("/dev/full", &err);
        if (f) {
            for (int i = 0; i < 200000; i++)
                fprintf(f, "%d,talk,%d,0,1,ESTIMATE Agent[%02d] WEREWOLF\n", i, i * 7919 % 100003, i % 15 + 1);
            CHECK_MSG(ferror(f), "the stream's error is set before fclose");
            CHECK_INT(fclose(f), EOF);
        }
    }
    memset(&err, 0, sizeof err);
    CHECK(aw_gzlog_open_write(tmp_path("no/such/dir.gz"), &err) == NULL);
    CHECK_MSG(strstr(err.msg, "no/such/dir.gz") != NULL, "message \"%s\" does not name the file", err.msg);
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    game_logs(15, 7);
    game_logs(5, 3);
    fixtures();
    hostile();
    bomb();
    write_errors();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    CHECK_INT(system(cmd), 0);
    return test_done();
}
