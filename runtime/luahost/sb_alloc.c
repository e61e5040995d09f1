/* sb_alloc: the agent's allocator: the memory cap, the block list the last
 * resort frees. Part of the sandbox (sandbox.h is the contract;
 * sandbox_internal.h what the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    aw_sandbox *sb = ud;
    if (ptr == NULL && nsize == 0)
        return NULL;
    if (nsize == 0) {
        sb_block *h = (sb_block *)ptr - 1;
        sb->in_alloc = 1;
        h->prev->next = h->next;
        h->next->prev = h->prev;
        free(h);
        sb->in_alloc = 0;
        sb->used -= osize;
        return NULL;
    }
    /* A new object of more than 128 bytes that Lua says (through osize, see
     * lua_Alloc) is a string is a long string (short ones, at most 40
     * bytes, are interned and may or may not be allocated depending on the
     * collector): it is created anew every time, so charging its bytes is
     * deterministic. This prices concatenation, string.format, gsub results,
     * table.concat... */
    int long_string = ptr == NULL && osize == LUA_TSTRING && nsize > 128;
    if (ptr == NULL)
        osize = 0;
    if (nsize > osize) {
        size_t grow = nsize - osize;
        if (grow > sb->lim.memory_bytes || sb->used > sb->lim.memory_bytes - grow) {
            /* Failing here makes Lua collect and retry, then raise a memory
             * error: a moment to look at the clock too. */
            sb_past_deadline(sb);
            return NULL;
        }
        sb->grown += grow;
        sb->since_gc += grow;
        /* Near the cap, ask for a full collection at the next safe point
         * (an LPeg constructor, see sb_lpeg_gc): allocation failures only
         * trigger emergency collections, which never run finalizers, so
         * garbage with a C __gc (LPeg patterns built in a loop) would
         * otherwise pin the memory until the call fails. Throttled to once
         * per eighth of the cap. */
        if (sb->in_call && !sb->want_gc && sb->used > sb->lim.memory_bytes / 8 * 6 &&
            sb->since_gc > sb->lim.memory_bytes / 8)
            sb->want_gc = 1;
        if (sb->grown >= SB_ALLOC_CHECK) {
            sb->grown = 0;
            sb_past_deadline(sb);
        }
    }
    if (nsize > SIZE_MAX - sizeof(sb_block))
        return NULL;
    sb->in_alloc = 1;
    sb_block *h = ptr ? (sb_block *)ptr - 1 : NULL;
    if (h) { /* unlink while realloc may move it */
        h->prev->next = h->next;
        h->next->prev = h->prev;
    }
    sb_block *n = realloc(h, nsize + sizeof(sb_block));
    int failed = n == NULL;
    if (failed)
        n = h; /* the old block is still valid (or there was none) */
    if (n) {
        n->next = sb->blocks->next;
        n->prev = sb->blocks;
        sb->blocks->next->prev = n;
        sb->blocks->next = n;
    }
    sb->in_alloc = 0;
    if (failed)
        return (h && nsize <= osize) ? ptr : NULL; /* Lua assumes shrinking never fails */
    void *p = n + 1;
    sb->used = sb->used - osize + nsize;
    if (sb->used > sb->peak)
        sb->peak = sb->used;
    if (long_string && sb->in_call) {
        sb->units += nsize / 16;
        if (sb_over_work(sb))
            sb_rearm(sb); /* cannot raise here: the next instruction will */
    }
    return p;
}
