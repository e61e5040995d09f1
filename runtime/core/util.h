/* util: small pieces every module uses — the error record that C modules
 * return through, a growable byte buffer, and checked allocation.
 * Uses only the C library. */
#ifndef AW_UTIL_H
#define AW_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Error codes returned (negated) by functions between C modules. */
enum {
    AW_OK = 0,
    AW_EINVAL = 1,  /* bad input: a message says what and where */
    AW_ENOMEM = 2,  /* an allocation failed */
    AW_EIO = 3,     /* a file or socket operation failed */
    AW_ESTATE = 4   /* the call does not fit the object's current state */
};

/* An error record: a message and, where input was bad, the place (line and
 * column or byte offset, 0 when unknown). Callers may pass NULL. */
typedef struct aw_error {
    char msg[512];
    long line;
    long col;
} aw_error;

/* Formats msg into err (when err is non-NULL) and returns -code, so that
 * `return aw_fail(err, AW_EINVAL, "...")` reads naturally. */
int aw_fail(aw_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* malloc/realloc/calloc that abort the process when memory is exhausted.
 * Only for the host's own bookkeeping; agent memory never comes from here. */
void *aw_xmalloc(size_t n);
void *aw_xcalloc(size_t count, size_t size);
void *aw_xrealloc(void *p, size_t n);
char *aw_xstrdup(const char *s);
char *aw_xstrndup(const char *s, size_t n);

/* A growable byte buffer; data is always NUL-terminated. The buffer owns data. */
typedef struct aw_buf {
    char *data;
    size_t len;
    size_t cap;
} aw_buf;

void aw_buf_init(aw_buf *b);
void aw_buf_free(aw_buf *b);
void aw_buf_clear(aw_buf *b);
void aw_buf_add(aw_buf *b, const void *data, size_t len);
void aw_buf_adds(aw_buf *b, const char *s);
void aw_buf_addc(aw_buf *b, char c);
/* Appends v in decimal (as printf's %lld). */
void aw_buf_addi(aw_buf *b, long long v);
void aw_buf_printf(aw_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void aw_buf_vprintf(aw_buf *b, const char *fmt, va_list ap);

/* Reads a whole file into a new NUL-terminated buffer (owned by the caller,
 * free with free()). Returns NULL and fills err on failure. */
char *aw_read_file(const char *path, size_t *len, aw_error *err);
/* aw_read_file, where the path "-" means standard input. */
char *aw_read_input(const char *path, size_t *len, aw_error *err);

/* Parses a decimal integer in [lo, hi] from the whole of s; 0 on success. */
int aw_parse_long(const char *s, long lo, long hi, long *out);
/* Parses an unsigned 64-bit decimal (or 0x hex) integer from the whole of s. */
int aw_parse_u64(const char *s, uint64_t *out);

/* The length of the valid UTF-8 character at s (left bytes available), or
 * 0 when the bytes there are not valid UTF-8. */
size_t aw_utf8_char_len(const char *s, size_t left);

/* Appends s[0..len) as a JSON string: quotes and backslashes escaped,
 * control bytes as \u00XX, bytes that are not valid UTF-8 as U+FFFD, so the
 * output stays valid JSON whatever the text held. */
void aw_buf_add_json(aw_buf *b, const char *s, size_t len);

/* Writes s as one CSV field: quoted (quotes doubled) when it holds a comma,
 * a quote or a line break. */
void aw_csv_field(FILE *out, const char *s);

/* FNV-1a, 64 bits: h is AW_FNV64_INIT or an earlier result (to hash pieces
 * one after the other). Not for secrets. */
#define AW_FNV64_INIT 1469598103934665603ull
uint64_t aw_fnv64(uint64_t h, const void *data, size_t len);

/* Makes agent text safe to show on a terminal or in a log, in place: control
 * bytes (but tabs, and newlines when keep_newlines) and bytes that are not
 * valid UTF-8 become '?'. */
void aw_sanitize_text(char *s, size_t len, int keep_newlines);

/* Text from the network or an agent (a name, an error, a message), made
 * safe for a terminal: appends s[0..len) with printable UTF-8 as it is and,
 * as escapes, every byte that could steer a terminal or hide text — C0
 * controls and DEL (\n, \t, \r, \e, else \xNN), C1 controls and the
 * bidirectional and zero-width format characters (\u{XXXX}), bytes that
 * are not valid UTF-8 (\xNN) — and a backslash as \\, so that what is
 * shown is what was sent: no title set, no screen cleared, nothing hidden. */
void aw_buf_add_term(aw_buf *b, const char *s, size_t len);

/* aw_buf_add_term's text of s (NULL: "(null)") in a value that lives to the
 * end of the full expression it is in, for printf's arguments:
 * fprintf(stderr, "%s joined\n", aw_term(name).s). Cut at a character
 * with "..." when it does not fit. */
typedef struct aw_term_text {
    char s[1024];
} aw_term_text;
aw_term_text aw_term(const char *s);

/* Formats and prints to out as aw_buf_add_term makes it: the whole message,
 * whatever its arguments hold, is one line of safe text (the caller adds
 * the newline). */
void aw_term_vfprintf(FILE *out, const char *fmt, va_list ap);
void aw_term_fprintf(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Monotonic clock in nanoseconds. */
uint64_t aw_now_ns(void);

/* Why a call to an agent failed: one list for the sandbox (sandbox.h) and
 * every kind of seat (seat.h). */
typedef enum aw_fault_kind {
    AW_FAULT_NONE = 0,
    AW_FAULT_ERROR,   /* the agent raised an error (or a syntax error on load) */
    AW_FAULT_TIMEOUT, /* the call ran past its budget and was stopped */
    AW_FAULT_MEMORY,  /* the agent hit its memory cap */
    AW_FAULT_REPLY,   /* the call returned, but not a value of the expected kind */
    AW_FAULT_LOST     /* the seat is gone (connection closed, process died) */
} aw_fault_kind;

/* "none", "error", "timeout", "memory", "reply", "lost". */
const char *aw_fault_kind_name(aw_fault_kind k);

/* Writes all n bytes of p to fd, again after EINTR and short writes.
 * Returns 0, or -1 with errno set (EIO when write returned 0). */
int aw_write_all(int fd, const void *p, size_t n);

#endif
