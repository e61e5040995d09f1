/* sb_alloc: the agent's allocator: the memory cap, a per-agent arena for
 * small blocks, the block list of large ones that the last resort frees.
 * Part of the sandbox (sandbox.h is the contract; sandbox_internal.h what
 * the parts share). */
#include "sandbox_internal.h"

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */

/* Lua allocates mostly small blocks (strings, tables, closures, upvalues,
 * call records, small arrays), and frees them all again at the latest when
 * the state is closed. Blocks of at most SB_SMALL_MAX bytes therefore come
 * from the sandbox's own arena: chunks of up to SB_CHUNK_MAX bytes cut by
 * a bump pointer, one free list per size class (SB_GRAIN steps), nothing
 * per block (no header), and all chunks freed whole with the sandbox. Lua
 * always gives a block's size back (osize) when it frees or resizes it, so
 * the size says which kind a block is: small ones are in the arena, larger
 * ones are malloc'd with a header on the block list (the last resort frees
 * them without Lua's help).
 *
 * The cap counts what Lua asks for (osize and nsize), exactly as before the
 * arena: the same program reaches it at the same point. What the arena
 * keeps in its free lists is not given back before the sandbox is freed,
 * so that an agent cannot make the process hold much more than its cap by
 * freeing blocks of one size and allocating blocks of another, the arena's
 * chunks plus the large blocks may not pass twice the cap either
 * (SB_FOOTPRINT): past it an allocation fails as at the cap.
 *
 * Under AddressSanitizer each small block has a poisoned redzone behind it
 * and free blocks are poisoned, so overruns and uses after free inside the
 * arena are reported as they are for malloc'd memory. */

#define SB_CHUNK_MIN ((size_t)8 << 10)
#define SB_CHUNK_MAX ((size_t)64 << 10)
#define SB_FOOTPRINT(cap) ((cap) > SIZE_MAX / 2 ? SIZE_MAX : 2 * (cap))

#ifdef SB_ASAN
#include <sanitizer/asan_interface.h>
#define SB_REDZONE 16u
#define SB_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define SB_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define SB_REDZONE 0u
#define SB_POISON(p, n) ((void)(p), (void)(n))
#define SB_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Whether a block of n bytes (n > 0) is an arena block, and its class. */
static inline int is_small(size_t n)
{
    return n <= SB_SMALL_MAX - SB_REDZONE;
}

static inline unsigned class_of(size_t n)
{
    return (unsigned)((n + SB_REDZONE - 1) / SB_GRAIN);
}

static inline size_t class_size(unsigned c)
{
    return ((size_t)c + 1) * SB_GRAIN;
}

/* A chunk: the header of its block list entry, then the blocks. */
typedef struct sb_chunk {
    struct sb_chunk *next;
    size_t size; /* payload bytes */
} sb_chunk;

/* The first word of a free small block links it to the next one. */
typedef struct sb_free {
    struct sb_free *next;
} sb_free;

void sb_heap_init(aw_sandbox *sb)
{
    sb->blocks = &sb->head;
    sb->head.prev = sb->head.next = &sb->head;
    memset(sb->free_small, 0, sizeof sb->free_small);
    sb->bump = sb->bump_end = NULL;
    sb->chunks = NULL;
    sb->arena_bytes = 0;
    sb->big_used = 0;
}

/* Frees everything the state ever got from the allocator (the chunks whole,
 * the large blocks from their list), without Lua: after lua_close, or for a
 * state the last resort abandoned. */
void sb_heap_release(aw_sandbox *sb)
{
    if (!sb->blocks)
        return;
    for (sb_block *h = sb->blocks->next, *next; h != sb->blocks; h = next) {
        next = h->next;
        free(h);
    }
    for (sb_chunk *c = sb->chunks, *next; c; c = next) {
        next = c->next;
        SB_UNPOISON(c + 1, c->size);
        free(c);
    }
    sb_heap_init(sb);
    sb->used = 0;
}

/* Whether n more bytes of chunks or large blocks keep the footprint within
 * SB_FOOTPRINT. */
static int footprint_ok(const aw_sandbox *sb, size_t n)
{
    size_t lim = SB_FOOTPRINT(sb->lim.memory_bytes), have = sb->arena_bytes + sb->big_used;
    return have <= lim && n <= lim - have;
}

/* A new chunk to cut blocks from (the rest of the old one is left unused:
 * less than SB_SMALL_MAX bytes). */
static int new_chunk(aw_sandbox *sb)
{
    size_t size = sb->arena_bytes < SB_CHUNK_MIN ? SB_CHUNK_MIN : sb->arena_bytes;
    if (size > SB_CHUNK_MAX)
        size = SB_CHUNK_MAX;
    size -= sizeof(sb_chunk); /* a round size for malloc */
    if (!footprint_ok(sb, size))
        return 0;
    sb->in_alloc = 1;
    sb_chunk *c = malloc(sizeof(sb_chunk) + size);
    sb->in_alloc = 0;
    if (!c)
        return 0;
    c->next = sb->chunks;
    c->size = size;
    sb->chunks = c;
    sb->arena_bytes += size;
    sb->bump = (char *)(c + 1);
    sb->bump_end = sb->bump + size;
    SB_POISON(sb->bump, size);
    return 1;
}

/* A small block of n bytes, or NULL. (Inlined: it is most of what Lua
 * asks for.) */
static inline __attribute__((always_inline)) void *small_get(aw_sandbox *sb, size_t n)
{
    unsigned c = class_of(n);
    sb_free *f = sb->free_small[c];
    if (f) {
        SB_UNPOISON(f, sizeof *f);
        sb->free_small[c] = f->next;
    } else {
        size_t sz = class_size(c);
        if ((size_t)(sb->bump_end - sb->bump) < sz && !new_chunk(sb))
            return NULL;
        f = (sb_free *)sb->bump;
        sb->bump += sz;
    }
    SB_POISON(f, class_size(c)); /* a redzone behind the block */
    SB_UNPOISON(f, n);
    return f;
}

static inline __attribute__((always_inline)) void small_put(aw_sandbox *sb, void *p, size_t n)
{
    unsigned c = class_of(n);
    sb_free *f = p;
    SB_UNPOISON(f, sizeof *f);
    f->next = sb->free_small[c];
    sb->free_small[c] = f;
    SB_POISON(f, class_size(c));
}

static void big_link(aw_sandbox *sb, sb_block *n)
{
    n->next = sb->blocks->next;
    n->prev = sb->blocks;
    sb->blocks->next->prev = n;
    sb->blocks->next = n;
}

static void big_unlink(sb_block *h)
{
    h->prev->next = h->next;
    h->next->prev = h->prev;
}

static void big_free(aw_sandbox *sb, void *p, size_t n)
{
    sb_block *h = (sb_block *)p - 1;
    sb->in_alloc = 1;
    big_unlink(h);
    free(h);
    sb->in_alloc = 0;
    sb->big_used -= n;
}

/* A large block of n bytes made from the large block p of osize bytes (or a
 * new one when p is NULL); NULL on failure, p then still valid. */
static void *big_resize(aw_sandbox *sb, void *p, size_t osize, size_t n)
{
    if (n > SIZE_MAX - sizeof(sb_block) || (n > osize && !footprint_ok(sb, n - osize)))
        return NULL;
    sb->in_alloc = 1;
    sb_block *h = p ? (sb_block *)p - 1 : NULL;
    if (h) /* unlink while realloc may move it */
        big_unlink(h);
    sb_block *m = realloc(h, n + sizeof(sb_block));
    if (m)
        big_link(sb, m);
    else if (h)
        big_link(sb, h);
    sb->in_alloc = 0;
    if (!m)
        return NULL;
    sb->big_used = sb->big_used - osize + n;
    return m + 1;
}

/* Lua shrinks a large block to a small size and Lua assumes shrinking never
 * fails, but the arena has no room (no chunk can be had): the large block
 * becomes a chunk of its own holding just this block, at the same address
 * (its header has the size of a chunk's). */
static void *big_to_chunk(aw_sandbox *sb, void *p, size_t osize)
{
    _Static_assert(sizeof(sb_chunk) == sizeof(sb_block), "a block header must fit a chunk header");
    sb_block *h = (sb_block *)p - 1;
    big_unlink(h);
    sb->big_used -= osize;
    sb_chunk *c = (sb_chunk *)h;
    c->next = sb->chunks;
    c->size = osize;
    sb->chunks = c;
    sb->arena_bytes += osize;
    return p;
}

/* Moves a block between the arena and malloc (or between classes); on
 * failure returns NULL and leaves the old block as it was. */
static void *move_block(aw_sandbox *sb, void *p, size_t osize, size_t n)
{
    void *q = is_small(n) ? small_get(sb, n) : big_resize(sb, NULL, 0, n);
    if (!q)
        return NULL;
    memcpy(q, p, osize < n ? osize : n);
    if (is_small(osize))
        small_put(sb, p, osize);
    else
        big_free(sb, p, osize);
    return q;
}

void *sb_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    aw_sandbox *sb = ud;
    if (ptr == NULL && nsize == 0)
        return NULL;
    if (nsize == 0) {
        if (is_small(osize))
            small_put(sb, ptr, osize);
        else
            big_free(sb, ptr, osize);
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
             * error: a moment to look at the clock too. Which limit came
             * first decides the fault's kind: the emergency collection
             * that follows can take the call past its deadline, which must
             * not turn a memory fault into a time-out. */
            if (sb->in_call && !sb->expired)
                sb->cap_first = 1;
            sb_past_deadline(sb);
            return NULL;
        }
        sb->grown += grow;
        sb->allocated += grow;
        sb->since_gc += grow;
        /* Near the cap, ask for a full collection at the next safe point
         * (an LPeg constructor, see sb_lpeg_gc): allocation failures only
         * trigger emergency collections, which never run finalizers, so
         * garbage with a C __gc (LPeg patterns built in a loop) would
         * otherwise pin the memory until the call fails. Throttled to once
         * per eighth of the cap. */
        if (sb->used > sb->lim.memory_bytes / 8 * 6 && sb->since_gc > sb->lim.memory_bytes / 8 && sb->in_call &&
            !sb->want_gc)
            sb->want_gc = 1;
        if (sb->grown >= SB_ALLOC_CHECK) {
            sb->grown = 0;
            sb_past_deadline(sb);
        }
    }
    void *p;
    if (!ptr) {
        p = is_small(nsize) ? small_get(sb, nsize) : big_resize(sb, NULL, 0, nsize);
    } else if (is_small(osize) && is_small(nsize)) {
        if (class_of(osize) == class_of(nsize)) {
            p = ptr;
            SB_POISON(ptr, class_size(class_of(osize)));
            SB_UNPOISON(ptr, nsize);
        } else {
            p = move_block(sb, ptr, osize, nsize);
            if (!p && nsize < osize) { /* keep the larger block: it fits */
                p = ptr;
                SB_POISON(ptr, class_size(class_of(osize)));
                SB_UNPOISON(ptr, nsize);
            }
        }
    } else if (!is_small(osize) && !is_small(nsize)) {
        p = big_resize(sb, ptr, osize, nsize);
        if (!p && nsize < osize) { /* realloc failed to shrink: the old block is fine */
            sb->big_used -= osize - nsize;
            p = ptr;
        }
    } else {
        p = move_block(sb, ptr, osize, nsize);
        if (!p && nsize < osize)
            p = big_to_chunk(sb, ptr, osize);
    }
    if (!p)
        return NULL;
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
