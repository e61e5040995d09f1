/* gzlog: gzip-compressed game logs (see gzlog.h). The writer is a glibc
 * cookie stream (fopencookie, hence _GNU_SOURCE in this file only) over a
 * deflate stream and a file descriptor; the reader inflates a buffer. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#include "gzlog.h"

/* windowBits for deflateInit2/inflateInit2: a 32 KiB window, +16 for a
 * gzip header and trailer instead of zlib's. */
#define GZ_WINDOW (15 + 16)
#define GZ_OUT_CHUNK 65536

typedef struct gz_writer {
    z_stream z;
    int fd;
    int failed; /* a write failed: every later write and the close fail too */
    int error;  /* errno of the first failure */
    unsigned char out[GZ_OUT_CHUNK];
} gz_writer;

/* Runs deflate with flush over what is in w->z.next_in, writing every
 * output chunk; 0, or -1 (and w->failed) on a deflate or write error. */
static int deflate_out(gz_writer *w, int flush)
{
    for (;;) {
        w->z.next_out = w->out;
        w->z.avail_out = sizeof w->out;
        int rc = deflate(&w->z, flush);
        if (rc == Z_STREAM_ERROR) {
            w->failed = 1;
            w->error = EIO;
            return -1;
        }
        size_t have = sizeof w->out - w->z.avail_out;
        if (have > 0 && aw_write_all(w->fd, w->out, have) != 0) {
            w->failed = 1;
            w->error = errno;
            return -1;
        }
        if (flush == Z_FINISH ? rc == Z_STREAM_END : w->z.avail_out != 0)
            return 0;
    }
}

static ssize_t gz_write(void *cookie, const char *buf, size_t size)
{
    gz_writer *w = cookie;
    if (w->failed)
        return 0; /* glibc: fewer bytes than asked marks the stream's error */
    size_t done = 0;
    while (done < size) {
        size_t n = size - done;
        if (n > UINT_MAX)
            n = UINT_MAX;
        w->z.next_in = (Bytef *)(buf + done);
        w->z.avail_in = (uInt)n;
        if (deflate_out(w, Z_NO_FLUSH) != 0)
            return 0;
        done += n;
    }
    return (ssize_t)size;
}

static int gz_close(void *cookie)
{
    gz_writer *w = cookie;
    int failed = w->failed;
    if (!failed) {
        w->z.next_in = NULL;
        w->z.avail_in = 0;
        failed = deflate_out(w, Z_FINISH) != 0;
    }
    deflateEnd(&w->z);
    if (close(w->fd) != 0 && !failed) {
        failed = 1;
        w->error = errno;
    }
    int error = w->error;
    free(w);
    if (failed) {
        errno = error ? error : EIO;
        return -1;
    }
    return 0;
}

FILE *aw_gzlog_open_write(const char *path, aw_error *err)
{
    gz_writer *w = calloc(1, sizeof *w);
    if (!w) {
        aw_fail(err, AW_ENOMEM, "%s: out of memory", path);
        return NULL;
    }
    if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZ_WINDOW, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(w);
        aw_fail(err, AW_ENOMEM, "%s: cannot start the gzip compressor", path);
        return NULL;
    }
    w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        aw_fail(err, AW_EIO, "%s: %s", path, strerror(errno));
        deflateEnd(&w->z);
        free(w);
        return NULL;
    }
    cookie_io_functions_t io = {NULL, gz_write, NULL, gz_close};
    FILE *f = fopencookie(w, "w", io);
    if (!f) {
        aw_fail(err, AW_ENOMEM, "%s: cannot open a stream: %s", path, strerror(errno));
        close(w->fd);
        deflateEnd(&w->z);
        free(w);
        return NULL;
    }
    return f;
}

int aw_gzip_is(const char *data, size_t len)
{
    return len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
}

char *aw_gunzip(const char *data, size_t len, size_t *out_len, size_t max_out, aw_error *err)
{
    if (out_len)
        *out_len = 0;
    if (!aw_gzip_is(data, len)) {
        aw_fail(err, AW_EINVAL, len < 2 ? "truncated gzip data" : "not valid gzip data: no gzip header");
        return NULL;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, GZ_WINDOW) != Z_OK) {
        aw_fail(err, AW_ENOMEM, "out of memory starting the gzip decompressor");
        return NULL;
    }
    /* out holds cap bytes and a NUL; cap grows by doubling up to limit, one
     * byte past max_out, so that filling it proves the data too big. */
    size_t limit = max_out < SIZE_MAX - 1 ? max_out + 1 : SIZE_MAX - 1;
    size_t cap = len < limit / 4 ? len * 4 : limit;
    if (cap < 4096)
        cap = limit < 4096 ? limit : 4096;
    char *out = malloc(cap + 1);
    size_t have = 0, in_pos = 0;
    int ok = 0;
    if (!out)
        aw_fail(err, AW_ENOMEM, "out of memory inflating gzip data");
    while (out) {
        if (have == cap) {
            if (cap == limit) {
                aw_fail(err, AW_EINVAL, "gzip data inflates to more than %zu bytes (the limit)", max_out);
                break;
            }
            size_t ncap = cap < limit / 2 ? cap * 2 : limit;
            char *n = realloc(out, ncap + 1);
            if (!n) {
                aw_fail(err, AW_ENOMEM, "out of memory inflating gzip data (%zu bytes)", ncap);
                break;
            }
            out = n;
            cap = ncap;
        }
        size_t in_n = len - in_pos, out_n = cap - have;
        z.next_in = (Bytef *)(data + in_pos);
        z.avail_in = in_n > UINT_MAX ? UINT_MAX : (uInt)in_n;
        z.next_out = (Bytef *)(out + have);
        z.avail_out = out_n > UINT_MAX ? UINT_MAX : (uInt)out_n;
        uInt in_given = z.avail_in, out_given = z.avail_out;
        int rc = inflate(&z, Z_NO_FLUSH);
        in_pos += in_given - z.avail_in;
        have += out_given - z.avail_out;
        if (rc == Z_OK || (rc == Z_BUF_ERROR && have == cap))
            continue; /* more to come, or the output is full: grow it */
        if (rc == Z_STREAM_END) {
            if (have > max_out) {
                aw_fail(err, AW_EINVAL, "gzip data inflates to more than %zu bytes (the limit)", max_out);
                break;
            }
            if (in_pos == len) {
                ok = 1;
                break;
            }
            /* Another member follows (cat a.gz b.gz), or bytes that are not one. */
            if (len - in_pos < 2 && (unsigned char)data[in_pos] == 0x1f) {
                aw_fail(err, AW_EINVAL, "truncated gzip data");
                break;
            }
            if (!aw_gzip_is(data + in_pos, len - in_pos)) {
                aw_fail(err, AW_EINVAL, "not valid gzip data: %zu bytes after the end of the gzip stream",
                        len - in_pos);
                break;
            }
            if (inflateReset(&z) != Z_OK) {
                aw_fail(err, AW_EINVAL, "not valid gzip data: cannot start the next member");
                break;
            }
        } else if (rc == Z_BUF_ERROR) {
            /* No progress possible, and the output has room: the input
             * ended before the member did. */
            aw_fail(err, AW_EINVAL, "truncated gzip data");
            break;
        } else if (rc == Z_MEM_ERROR) {
            aw_fail(err, AW_ENOMEM, "out of memory inflating gzip data");
            break;
        } else {
            /* Z_DATA_ERROR (z.msg says what), Z_NEED_DICT, Z_STREAM_ERROR */
            aw_fail(err, AW_EINVAL, "not valid gzip data: %s", z.msg ? z.msg : "corrupt stream");
            break;
        }
    }
    inflateEnd(&z);
    if (!ok) {
        free(out);
        return NULL;
    }
    out[have] = '\0';
    if (out_len)
        *out_len = have;
    return out;
}
