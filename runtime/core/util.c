/* util: error records, checked allocation, byte buffers, file reading and
 * number parsing shared by every module. Uses only the C library and POSIX
 * clock_gettime. */
#include "util.h"

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int aw_fail(aw_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -code;
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "aiwolf: out of memory (allocating %zu bytes)\n", n);
    abort();
}

void *aw_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *aw_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *aw_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *aw_xstrdup(const char *s)
{
    return aw_xstrndup(s, strlen(s));
}

char *aw_xstrndup(const char *s, size_t n)
{
    char *p = aw_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void aw_buf_init(aw_buf *b)
{
    b->data = NULL;
    b->len = 0;
    b->cap = 0;
}

void aw_buf_free(aw_buf *b)
{
    free(b->data);
    aw_buf_init(b);
}

void aw_buf_clear(aw_buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static void buf_reserve(aw_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = aw_xrealloc(b->data, cap);
    b->cap = cap;
}

void aw_buf_add(aw_buf *b, const void *data, size_t len)
{
    buf_reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void aw_buf_adds(aw_buf *b, const char *s)
{
    aw_buf_add(b, s, strlen(s));
}

void aw_buf_addc(aw_buf *b, char c)
{
    aw_buf_add(b, &c, 1);
}

void aw_buf_vprintf(aw_buf *b, const char *fmt, va_list ap)
{
    /* Formatted once into the room there is (at least 64 bytes), and again
     * only when the text is longer. */
    buf_reserve(b, 64);
    size_t room = b->cap - b->len;
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(b->data + b->len, room, fmt, ap2);
    va_end(ap2);
    if (n <= 0) {
        b->data[b->len] = '\0';
        return;
    }
    if ((size_t)n >= room) {
        buf_reserve(b, (size_t)n);
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    }
    b->len += (size_t)n;
}

void aw_buf_addi(aw_buf *b, long long v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        tmp[--i] = '-';
    aw_buf_add(b, tmp + i, sizeof tmp - i);
}

void aw_buf_printf(aw_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aw_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Reads all of f into a new NUL-terminated buffer; NULL on a read error. */
static char *read_stream(FILE *f, size_t *len)
{
    aw_buf b;
    aw_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        aw_buf_add(&b, chunk, n);
    if (ferror(f)) {
        aw_buf_free(&b);
        return NULL;
    }
    if (!b.data)
        aw_buf_add(&b, "", 0);
    if (len)
        *len = b.len;
    return b.data;
}

char *aw_read_file(const char *path, size_t *len, aw_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        aw_fail(err, AW_EIO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *text = read_stream(f, len);
    int e = errno;
    fclose(f);
    if (!text && e == EISDIR)
        aw_fail(err, AW_EIO, "%s: a folder, not a file", path);
    else if (!text)
        aw_fail(err, AW_EIO, "%s: read error (%s)", path, strerror(e));
    return text;
}

char *aw_read_input(const char *path, size_t *len, aw_error *err)
{
    if (strcmp(path, "-") != 0)
        return aw_read_file(path, len, err);
    char *text = read_stream(stdin, len);
    if (!text)
        aw_fail(err, AW_EIO, "standard input: read error");
    return text;
}

int aw_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s)
        return -AW_EINVAL;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -AW_EINVAL;
    *out = v;
    return 0;
}

int aw_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
        return -AW_EINVAL;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -AW_EINVAL;
    *out = (uint64_t)v;
    return 0;
}

size_t aw_utf8_char_len(const char *s, size_t left)
{
    const unsigned char *p = (const unsigned char *)s;
    if (left == 0)
        return 0;
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (n == 0 || n > left)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    /* overlong forms, surrogates, and code points past U+10FFFF */
    if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0) || (c == 0xf0 && p[1] < 0x90) ||
        (c == 0xf4 && p[1] >= 0x90))
        return 0;
    return n;
}

void aw_buf_add_json(aw_buf *b, const char *s, size_t len)
{
    aw_buf_addc(b, '"');
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t n = aw_utf8_char_len(s + i, len - i);
        if (n == 0) {
            aw_buf_adds(b, "\\ufffd");
            i++;
        } else if (c == '"' || c == '\\') {
            aw_buf_addc(b, '\\');
            aw_buf_addc(b, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            aw_buf_printf(b, "\\u%04x", c);
            i++;
        } else {
            aw_buf_add(b, s + i, n);
            i += n;
        }
    }
    aw_buf_addc(b, '"');
}

void aw_csv_field(FILE *out, const char *s)
{
    aw_buf b; /* a name may go to a terminal ("--summary csv:-"): escaped */
    aw_buf_init(&b);
    aw_buf_add_term(&b, s, strlen(s));
    const char *t = b.data ? b.data : "";
    if (!strpbrk(t, ",\"")) {
        fputs(t, out);
    } else {
        fputc('"', out);
        for (; *t; t++) {
            if (*t == '"')
                fputc('"', out);
            fputc(*t, out);
        }
        fputc('"', out);
    }
    aw_buf_free(&b);
}

uint64_t aw_fnv64(uint64_t h, const void *data, size_t len)
{
    const unsigned char *c = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ c[i]) * 1099511628211ull;
    return h;
}

void aw_sanitize_text(char *s, size_t len, int keep_newlines)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = (unsigned char)s[i];
        size_t n = aw_utf8_char_len(s + i, len - i);
        if (n == 0 || (n == 1 && (c < 0x20 || c == 0x7f) && c != '\t' && !(keep_newlines && c == '\n'))) {
            s[i++] = '?';
            continue;
        }
        i += n;
    }
}

/* The code point of the n-byte UTF-8 character at s (n from
 * aw_utf8_char_len). */
static unsigned long utf8_code(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0];
    unsigned long c = s[0] & (0x7f >> n);
    for (size_t i = 1; i < n; i++)
        c = (c << 6) | (s[i] & 0x3f);
    return c;
}

/* Unicode characters that steer a terminal or hide or reorder text: C1
 * controls, zero-width and bidirectional marks, the line and paragraph
 * separators, bidirectional embeddings, overrides and isolates, the word
 * joiner and invisible operators, the byte order mark, and the
 * interlinear annotation marks. */
static bool term_format_char(unsigned long c)
{
    return (c >= 0x80 && c <= 0x9f) || c == 0xad || (c >= 0x200b && c <= 0x200f) || (c >= 0x2028 && c <= 0x202e) ||
           (c >= 0x2060 && c <= 0x206f) || c == 0xfeff || (c >= 0xfff9 && c <= 0xfffb);
}

void aw_buf_add_term(aw_buf *b, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        size_t n = aw_utf8_char_len(s + i, len - i);
        unsigned char c = u[i];
        if (n == 0) {
            aw_buf_printf(b, "\\x%02x", c);
            i++;
            continue;
        }
        if (n == 1 && (c < 0x20 || c == 0x7f || c == '\\')) {
            const char *e = c == '\n'   ? "\\n"
                            : c == '\t' ? "\\t"
                            : c == '\r' ? "\\r"
                            : c == 0x1b ? "\\e"
                            : c == '\\' ? "\\\\"
                                         : NULL;
            if (e)
                aw_buf_adds(b, e);
            else
                aw_buf_printf(b, "\\x%02x", c);
        } else if (n > 1 && term_format_char(utf8_code(u + i, n))) {
            aw_buf_printf(b, "\\u{%04lx}", utf8_code(u + i, n));
        } else {
            aw_buf_add(b, s + i, n);
        }
        i += n;
    }
}

aw_term_text aw_term(const char *s)
{
    aw_term_text t;
    aw_buf b;
    aw_buf_init(&b);
    if (!s)
        s = "(null)";
    aw_buf_add_term(&b, s, strlen(s));
    size_t n = b.len;
    if (n >= sizeof t.s) {
        /* cut at a character (escapes are ASCII: a cut inside one shows as
         * text, never as a control) */
        n = sizeof t.s - 4;
        while (n > 0 && ((unsigned char)b.data[n] & 0xc0) == 0x80)
            n--;
        memcpy(t.s, b.data, n);
        memcpy(t.s + n, "...", 4);
    } else {
        memcpy(t.s, b.data ? b.data : "", n);
        t.s[n] = '\0';
    }
    aw_buf_free(&b);
    return t;
}

void aw_term_vfprintf(FILE *out, const char *fmt, va_list ap)
{
    aw_buf raw, safe;
    aw_buf_init(&raw);
    aw_buf_init(&safe);
    aw_buf_vprintf(&raw, fmt, ap);
    aw_buf_add_term(&safe, raw.data ? raw.data : "", raw.len);
    if (safe.len)
        fwrite(safe.data, 1, safe.len, out);
    aw_buf_free(&raw);
    aw_buf_free(&safe);
}

void aw_term_fprintf(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    aw_term_vfprintf(out, fmt, ap);
    va_end(ap);
}

uint64_t aw_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *aw_fault_kind_name(aw_fault_kind k)
{
    switch (k) {
    case AW_FAULT_NONE:
        return "none";
    case AW_FAULT_ERROR:
        return "error";
    case AW_FAULT_TIMEOUT:
        return "timeout";
    case AW_FAULT_MEMORY:
        return "memory";
    case AW_FAULT_REPLY:
        return "reply";
    case AW_FAULT_LOST:
        return "lost";
    }
    return "unknown";
}

int aw_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}
