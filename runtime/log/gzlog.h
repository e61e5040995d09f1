/* gzlog: game logs compressed with gzip (zlib). A writer that is a plain
 * stdio stream, so aw_gamelog (or anything that writes to a FILE *) writes
 * a .gz file without knowing it, and a reader that inflates a whole gzip
 * buffer under a size limit, for `aiwolf check` and `aiwolf replay`, which
 * take .gz logs as they take plain ones. Uses util and zlib; the only
 * module that includes zlib.h. */
#ifndef AW_GZLOG_H
#define AW_GZLOG_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* Opens path for writing (created with mode 0644 less the umask, truncated)
 * and returns a write-only stdio stream whose bytes go there compressed as
 * one gzip member (zlib's default level 6: level 9 saves under 1% on game
 * logs; the header carries no name and no time, so the same log gives the
 * same bytes). Returns NULL and fills err when the file
 * cannot be opened.
 *
 * The caller owns the stream and must fclose() it: fclose writes the end of
 * the gzip stream and closes the file, and returns EOF when any write
 * failed (disk full, I/O error) or when closing the file failed; a .gz file
 * whose fclose failed is incomplete. Write to a temporary name and rename()
 * it into place only after fclose returned 0. The stream cannot seek or be
 * read. */
FILE *aw_gzlog_open_write(const char *path, aw_error *err);

/* The most bytes `aiwolf check` and `aiwolf replay` inflate a .gz log to:
 * far above any game's log (a 15-player game writes tens of KB), far
 * below what would exhaust a contest machine's memory. */
#define AW_GZLOG_MAX_LOG ((size_t)256 << 20)

/* 1 when data starts with the gzip magic bytes (1f 8b), 0 otherwise. */
int aw_gzip_is(const char *data, size_t len);

/* Inflates the whole gzip buffer data[0..len): one member or several
 * concatenated (as `cat a.gz b.gz` makes them), whose outputs are joined.
 * Returns a new NUL-terminated buffer (the caller frees it with free()) and
 * its length in *out_len (the NUL not counted). Returns NULL and fills err
 * when the data is not gzip ("not valid gzip data: ..."), ends before its
 * last member does ("truncated gzip data"), has bytes after the last member
 * that do not start another one, or would inflate to more than max_out
 * bytes (the inflation stops there: a small file that expands to gigabytes
 * costs at most max_out bytes of memory). */
char *aw_gunzip(const char *data, size_t len, size_t *out_len, size_t max_out, aw_error *err);

#endif
